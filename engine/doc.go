// Package engine owns the transfers between stores: planning (listings,
// and for sync both sides, into a stream of tasks: copy, upload, download,
// stream, delete, skip) and executing them on one run-wide budget of
// requests in flight, big objects split into parts on the same budget; the
// stop policy, resumption from a journal, and the run's summary. It never
// prints, exits or reads
// the environment: callers observe results through an Observer and a
// Progress.
//
// An Engine (New) owns the budgets: requests in flight, part uploads in
// flight and buffered bytes, shared by every run on it. Pass its Throttled
// method to the stores' clients so that throttling shrinks the budget. A
// Job says what to move (two Endpoints: a store and a location in it;
// LocalSource and LocalDestination open local ones), Options how one run
// goes; Engine.Run carries it out, Engine.Plan only plans it. A Journal
// makes runs resumable.
//
// Planning decides, executing carries out: a Task is data that can be
// written as one JSON line, so dry runs, journals, Batch Operations manifests
// and shards all work on the same stream.
//
// docs/design/0005-engine-api.md says why the API has this shape.
package engine
