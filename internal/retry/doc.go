// Package retry owns the one decision every layer asks about a failed
// request: retry it, retry it more gently, give up on this object, or stop the
// whole run. It also owns the backoff between attempts.
//
// Classification works on typed errors only (smithy API error codes, HTTP
// status codes, net and syscall errors, context errors, the store sentinels),
// never on message strings, so a server that words its errors differently
// still gets the same treatment.
//
// How callers act on a Class:
//
//   - Retryable: retry the request after Backoff.Delay.
//   - Throttled: retry after a longer Delay, and shrink the run's concurrency
//     (the AIMD limiter); the server asked us to slow down.
//   - Permanent: this object (or part) failed; record the failure and carry on
//     with the rest of the run.
//   - Fatal: every other request would fail the same way (bad credentials,
//     missing bucket, wrong region, full disk, cancelled run); stop the run.
//
// Restart answers a second question, about a whole object once its
// requests have had their retries: is the failure one a fresh attempt at
// the object fixes (its source changed while it was read, its multipart
// upload vanished, its bytes did not match their checksum)? The engine
// then starts the object over, a bounded number of times.
//
// StopsRun answers the third, about the run once an object has failed for
// good: is the failure one no other object can escape (credentials, the
// bucket, an endpoint that never answered, a server answer Classify calls
// Fatal)? The engine stops the run with it, and the CLI's one-object
// commands report it as the command's error; anything else is the object's
// failure. It is the one such list: a caller does not keep its own.
//
// Access denied is the one error whose scope the error itself cannot tell: a
// policy may deny one key and allow the rest. Classify treats it as Permanent
// (a per-object failure). A denied request on the bucket as a whole (a
// listing) ends the run all the same, as every listing error does; and an
// engine that sees only per-object denials may still choose to stop after
// many in a row: that policy is the engine's.
//
// Before acting on Retryable or Throttled, a caller checks its own context:
// a request that timed out because the whole run was cancelled classifies as
// Fatal, but a deadline the caller set on a single request classifies as
// Retryable.
package retry
