// Package limiter owns a run's two budgets: the number of requests in flight,
// which adapts to throttling (additive increase, multiplicative decrease), and
// the bytes buffered in memory.
//
// One [Limiter] and one [ByteBudget] serve the whole run, shared by whole
// objects and parts alike, so that objects times parts never multiply into
// more requests or memory than asked for.
//
// The request limit starts at the ceiling the user asked for. A throttled
// request (503 SlowDown) halves it, down to a floor; a burst of throttled
// answers halves it once, because requests already in flight when the limit
// dropped still report the old load: further throttles within a window (one
// second by default, [WithWindow]) of the last decrease are ignored. Each
// round trip of successes (as many successes as the current limit) adds one
// slot back, up to the ceiling. This is the scheme TCP uses for congestion,
// and the shape of what S3 asks of clients: back off quickly, grow slowly.
//
// A searching limiter ([NewSearching]) finds the limit instead: it measures
// completed requests per second and their latency in windows of about one
// round trip, doubles while the rate rises, settles and probes, and after a
// throttle holds below the rate the server accepted, probing rarely and in
// small steps (see search.go, docs/design/0004-requests-in-flight.md,
// docs/design/0011-throttle-hold.md and docs/design/0014-throttle-start.md).
// [Streams] finds the number of part uploads in flight the same way.
package limiter
