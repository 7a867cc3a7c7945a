// Package engine plans and executes transfers between stores: it turns
// listings into a stream of tasks (copy, upload, download, delete, skip) and
// carries them out on one run-wide budget of requests in flight, splitting
// big objects into parts on the same budget. It never prints, exits or reads
// the environment: callers observe results through an Observer and a
// Progress.
//
// Planning decides, executing carries out: a Task is data that can be
// written as one JSON line, so dry runs, journals, Batch Operations manifests
// and shards all work on the same stream.
package engine
