// Package engine owns the transfers between stores: planning (listings,
// and for sync both sides, into a stream of tasks: copy, upload, download,
// stream, delete, skip) and executing them on one run-wide budget of
// requests in flight, big objects split into parts on the same budget; the
// stop policy, resumption from a journal, and the run's summary. It never
// prints, exits or reads the environment: callers observe results through
// an Observer and a Progress.
//
// An Engine (New) owns the budgets: requests in flight, part uploads in
// flight and buffered bytes, shared by every run on it. Pass its Throttled
// method to the stores' clients so that throttling shrinks the budget.
//
// A run has four stages, each a type:
//
//   - sources: a Job says what to move, between two Endpoints (a store and
//     a location in it; LocalSource and LocalDestination open local ones),
//     from a listing or from Objects (a key list, an inventory);
//   - plan: Engine.Plan returns a Plan, the job's Tasks as an iterator
//     that lists as it is ranged over, so memory stays flat;
//   - execute: Engine.Execute carries out a Plan (one from Engine.Plan, or
//     one built from tasks a caller has, Tasks) on the engine's budgets;
//   - observe: each task ends in one Result, told to Options.Observer and
//     counted in a Progress, a Journal (which makes runs resumable) and
//     the Summary Execute returns.
//
// Engine.Run is Execute of Plan. A dry run (Options.DryRun) is the plan
// reported: Execute carries out nothing.
//
// Planning decides, executing carries out: a Task is data that can be
// written as one JSON line, so dry runs, journals, Batch Operations manifests
// and shards all work on the same stream.
//
// docs/design/0005-engine-api.md says why the API has this shape.
package engine
