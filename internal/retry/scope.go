package retry

import (
	"context"
	"errors"

	"github.com/s3bulk/s3bulk/store"
)

// StopsRun reports whether err, the final failure of one object (after
// its requests' retries and the object's restarts), is one no other
// object of the run can escape, so the run stops with it as its error
// rather than report it as one object's: bad credentials, a missing
// bucket, an endpoint that never answered and refuses connections, and
// whatever else the server answered that Classify calls Fatal (a wrong
// region or endpoint, a bucket name it rejects).
//
// It is the one list every caller asks: the engine's executor and its
// deletes, and the CLI's one-object commands (cp - and cp to -). What it
// leaves out is the object's own failure, reported as such:
//   - Access denied: a policy may deny one key and allow the rest. A
//     destination that denies every write still stops a run, after
//     engine.Options.StopAfter objects in a row failed the same way.
//   - Local errors, a full disk included: each object is reported, as
//     the local failure may well be that file's alone.
//   - A cancelled context: the run is ending already; the caller knows
//     why.
func StopsRun(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, store.ErrInvalidCredentials) || errors.Is(err, store.ErrBucketNotFound) ||
		errors.Is(err, store.ErrUnreachable) {
		return true
	}
	var status interface{ HTTPStatusCode() int }
	return errors.As(err, &status) && Classify(err) == Fatal
}
