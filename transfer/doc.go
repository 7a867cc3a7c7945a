// Package transfer runs a copy on the engine chosen for it: this machine
// (an engine.Engine), one S3 Batch Operations job, or auto, which starts
// here, measures this machine's rate while it counts the source, and
// hands the rest to a job when the model says a job wins.
//
// A Request holds the same engine.Job and engine.Options that
// engine.Engine.Run takes, and a Choice. Choice.Pick weighs what the copy
// Asks against what a job can honour and refuses with typed errors
// (*ChoiceError, *RefusedError with a RefusalKind, ErrNoRole) that a
// caller words in its own terms: the CLI names its flags. Runner.Run is
// the one call: Local is Engine.Run; BatchOps is Jobs.Copy (NewJobs
// reaches S3 Control); Auto is both, one after the other.
//
// Endpoints opens the ends of a copy from their locations (S3 buckets on
// a client, local directories), and JournalID names a copy for its
// journal, so that a rerun resumes only the same copy.
//
// docs/design/0015-one-transfer-entry.md says why this is a package of
// its own.
package transfer
