// Package engine owns the transfers between stores: planning (listings,
// and for sync both sides, into a stream of tasks: copy, upload, download,
// stream, delete, skip) and executing them on one run-wide budget of
// requests in flight, big objects split into parts on the same budget; the
// stop policy, resumption from a journal, and the run's summary. It never prints, exits or reads
// the environment: callers observe results through an Observer and a
// Progress.
//
// Planning decides, executing carries out: a Task is data that can be
// written as one JSON line, so dry runs, journals, Batch Operations manifests
// and shards all work on the same stream.
package engine
