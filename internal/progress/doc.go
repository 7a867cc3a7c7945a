// Package progress owns how a run is shown: one text line per object, JSON
// lines, a progress bar on a terminal, and the final summary. It renders
// engine types (Result, Progress, Summary) to writers it is given, and knows
// nothing of the engine's internals.
package progress
