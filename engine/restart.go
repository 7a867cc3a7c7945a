package engine

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/store"
)

// DefaultRestarts is how many times a task is started over, after its first
// attempt, when the object rather than a request failed (Options.Restarts):
// its source changed while it was read, its multipart upload vanished, or
// its bytes did not match their checksum. The AWS CLI makes up to 5
// attempts at a download whose bytes were damaged, rclone 3 at a transfer;
// 3 in all is enough for damage on the way or a source saved once during
// a run, and bounds the cost of a source that never stops changing.
const DefaultRestarts = 2

// restartDelay is the wait before attempt+1 of one object: short, since
// what failed was the object, and its requests already waited through
// their own retries.
func restartDelay(attempt int) time.Duration {
	return retry.Backoff{Base: 200 * time.Millisecond, Max: 2 * time.Second}.Delay(attempt, retry.Retryable)
}

// restartsUseless is how many objects in a run must have failed on every
// attempt, with none saved by a restart, before the run restarts no more:
// what fails every object alike (a proxy that damages every body) is not
// fixed by starting each object over, and would only triple the work.
const restartsUseless = 10

// restarts is the most times the run starts one task over.
func (e *executor) restarts() int {
	switch n := e.opts.Restarts; {
	case n < 0:
		return 0
	case n == 0:
		return DefaultRestarts
	default:
		return n
	}
}

// transfer carries out t from its first request to its last, as one
// attempt: everything a failed attempt started is cleaned up by the time
// it returns (its multipart upload aborted, its temp file removed).
func (e *executor) transfer(ctx context.Context, t Task) (parts int, unverified bool, err error) {
	switch {
	case t.Op == OpMarker:
		return 0, false, e.do(ctx, func(ctx context.Context) error { return e.job.Dst.Store.Delete(ctx, t.DstKey) })
	case t.Op == OpStream && !e.job.Src.Loc.Local:
		return e.stream(ctx, t)
	case t.PartSize > 0:
		return e.multipart(ctx, t)
	default:
		unverified, err = e.single(ctx, t)
		return 0, unverified, err
	}
}

// restart decides whether t, whose attempt number attempt failed with err,
// is started over, and returns the task to start: t as its source is now
// (one HEAD of it, so a source that changed is moved as it is now, in
// parts planned for its new size). It waits a short backoff first. It
// says no when the bound is reached, the run is stopping, the attempt
// left a multipart upload it could not abort (its error names it), the
// error is not one a fresh attempt fixes (retry.Restart) nor explained by
// a local source that changed since it was listed, or the source cannot
// be read.
func (e *executor) restart(ctx context.Context, t Task, attempt int, err error) (Task, bool) {
	var left *uploadLeftError
	if attempt > e.restarts() || ctx.Err() != nil || errors.As(err, &left) {
		return t, false
	}
	if e.restartsLost.Load() >= restartsUseless && e.restartsWon.Load() == 0 {
		e.sayOnce("restarts-useless", slog.LevelWarn, "no more objects are restarted: every one restarted so far failed on every attempt",
			"objects", e.restartsLost.Load(), "err", err)
		return t, false
	}
	restart := retry.Restart(err)
	if !restart && (!e.job.Src.Loc.Local || retry.Classify(err) == retry.Fatal) {
		return t, false
	}
	// A local source costs nothing to look at: a file whose size or time
	// differs from the listing's explains any failure of its transfer (a
	// body shorter or longer than planned, which no sentinel names).
	if restart {
		timer := time.NewTimer(restartDelay(attempt))
		select {
		case <-ctx.Done():
			timer.Stop()
			return t, false
		case <-timer.C:
		}
	}
	var obj store.Object
	herr := e.do(ctx, func(ctx context.Context) error {
		var err error
		obj, _, err = e.source(t).Head(ctx, t.SrcKey)
		return err
	})
	if herr != nil {
		return t, false // gone or unreadable: the attempt's own error says more
	}
	obj.Key, obj.VersionID = t.SrcKey, t.VersionID
	if !restart && obj.Size == t.Size && obj.ModTime.Equal(t.ModTime) {
		return t, false // unchanged: the failure is the attempt's own
	}
	next := e.task(obj, t.DstKey)
	// The plan's choice of path stands; only the object is new.
	next.Op, next.Src, next.Dst, next.Reason, next.DeleteSource = t.Op, t.Src, t.Dst, t.Reason, t.DeleteSource
	e.progress.plannedBytes.Add(next.Size - t.Size)
	if attempt == 1 {
		e.progress.restarted.Add(1)
	}
	if e.logger != nil {
		e.logger.Debug("restarted", "op", string(t.Op), "src", t.Src, "dst", t.Dst, "attempt", attempt+1, "err", err)
	}
	return next, true
}
