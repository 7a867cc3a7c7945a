package engine

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// Unfinished multipart uploads keep their parts, and are billed for them,
// until they are completed or aborted. A run aborts the uploads it starts
// when they fail; ListUploads and AbortUploads find and clean up those that
// anybody else (or a killed process) left behind.

// ListUploads streams the unfinished multipart uploads under loc's prefix
// that its wildcard, if any, matches. An error from fn stops it and is
// returned.
func ListUploads(ctx context.Context, mp store.Multipart, loc s3url.Location, fn func(store.Upload) error) error {
	match := loc.Matcher()
	return mp.ListMultipartUploads(ctx, loc.Prefix(), func(u store.Upload) error {
		if loc.HasWildcard() && !match(u.Key) {
			return nil
		}
		return fn(u)
	})
}

// UploadResult is how the abort of one upload ended: StatusDone,
// StatusFailed (with Err) or StatusDryRun.
type UploadResult struct {
	Upload store.Upload
	Status Status
	Err    error
}

// AbortOptions say which of the uploads ListUploads finds AbortUploads
// aborts, and how it tells.
type AbortOptions struct {
	// OlderThan spares uploads started less than this long ago, which may
	// still be running; 0 aborts every one.
	OlderThan time.Duration
	// Observer is called once per upload when its abort ends, from
	// several goroutines at once.
	Observer func(UploadResult)
}

// AbortUploads aborts, in parallel, the uploads ListUploads finds under
// loc that abort's options select: each abort is one request under the
// engine's budget of requests in flight, which throttling answers shrink. With opts.DryRun it
// aborts nothing and reports each as StatusDryRun. The Summary counts
// the uploads aborted (Objects) and those whose abort failed (Failed);
// the error is the listing's, or ctx's.
func (eng *Engine) AbortUploads(ctx context.Context, mp store.Multipart, loc s3url.Location, opts Options, abort AbortOptions) (Summary, error) {
	e := eng.newExecutor(Job{}, opts)
	start := time.Now()
	cutoff := start.Add(-abort.OlderThan)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.wantWorkers())
	err := ListUploads(gctx, mp, loc, func(u store.Upload) error {
		if abort.OlderThan > 0 && u.Initiated.After(cutoff) {
			return nil
		}
		if opts.DryRun {
			e.finishUpload(abort, UploadResult{Upload: u, Status: StatusDryRun})
			return nil
		}
		g.Go(func() error {
			err := e.do(gctx, func(ctx context.Context) error { return mp.AbortMultipart(ctx, u.Key, u.UploadID) })
			r := UploadResult{Upload: u, Status: StatusDone}
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				r.Status, r.Err = StatusFailed, err
			}
			e.finishUpload(abort, r)
			return nil
		})
		return nil
	})
	if werr := g.Wait(); err == nil {
		err = werr
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	sum := e.summary
	sum.Elapsed = time.Since(start)
	sum.Seconds = sum.Elapsed.Seconds()
	return sum, err
}

// finishUpload counts r and tells the observer.
func (e *executor) finishUpload(abort AbortOptions, r UploadResult) {
	e.mu.Lock()
	switch r.Status {
	case StatusDone, StatusDryRun:
		e.summary.Objects++
	case StatusFailed:
		e.summary.Failed++
	}
	e.mu.Unlock()
	if abort.Observer != nil {
		abort.Observer(r)
	}
}
