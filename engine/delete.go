package engine

import (
	"context"
	"errors"
	"iter"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/store"
)

// deleteBatchesInFlight bounds the batch delete requests in flight, and so
// the tasks held for them (1,000 each). Sixteen requests of 1,000 keys
// already ask more of a bucket than the 3,500 deletes a second S3 allows
// per prefix; more would only hold more memory and meet SlowDown sooner.
const deleteBatchesInFlight = 16

// remove executes a Remove job's plan: its delete tasks stream straight
// into batches, so deleting starts with the listing's first page and
// memory stays flat.
func (e *executor) remove(ctx context.Context, plan iter.Seq2[Task, error]) (Summary, error) {
	start := time.Now()
	e.progress.start.Store(start.UnixNano())
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	tasks, planned := e.feed(ctx, cancel, plan, 2*store.MaxBatchDelete)
	e.deleteAll(ctx, cancel, e.job.Src.Store, tasks)
	planned()
	return e.summarize(ctx, start)
}

// planRemove lists what the job's source names and sends one delete task
// per object. A single key is not looked up first (unless a filter needs
// its size or time): deleting a missing object is not an error, so its task
// costs no request until it runs.
func (e *executor) planRemove(ctx context.Context, out chan<- Task) error {
	src := e.job.Src
	send := e.sender(ctx, out)
	return e.walk(ctx, e.opts.Filter != nil, func(o store.Object) error {
		t := Task{Op: OpDelete, Src: src.Store.URL(o.Key), SrcKey: o.Key, Size: o.Size, ETag: o.ETag, ModTime: o.ModTime}
		if id := e.job.VersionID; id != "" {
			t.Src, t.VersionID = versionURL(src.Store, o.Key, id), id
		}
		return send(t)
	})
}

// Walk calls fn for every object job.Src names, as a copy or a remove of it
// would find them: a prefix (job.Recursive) or a wildcard is listed, a
// single key is looked up (a missing one yields nothing), and
// opts.Filter and opts.Shard apply. It touches nothing; only the source is
// used. An error from fn stops it and is returned.
func (e *Engine) Walk(ctx context.Context, job Job, opts Options, fn func(store.Object) error) error {
	return e.newExecutor(job, opts).walk(ctx, true, fn)
}

// walk is Walk; head says whether a single key is looked up (otherwise it
// is yielded with its key alone).
func (e *executor) walk(ctx context.Context, head bool, fn func(store.Object) error) error {
	src := e.job.Src
	if !src.Loc.HasWildcard() && !e.job.Recursive {
		if src.Loc.IsDirLike() {
			return &FatalError{Op: "list", URL: src.Loc.String(), Err: ErrPrefix}
		}
		o := store.Object{Key: src.Loc.Key}
		if head {
			err := e.do(ctx, func(ctx context.Context) error {
				var err error
				o, _, err = src.Store.Head(ctx, src.Loc.Key)
				return err
			})
			switch {
			case errors.Is(err, store.ErrNotFound):
				return nil
			case err != nil:
				return &FatalError{Op: "head", URL: src.Loc.String(), Err: err}
			}
			o.Key = src.Loc.Key
		}
		if !e.keep(o.Key[len(src.Loc.Base()):], o) {
			return nil
		}
		return fn(o)
	}
	loc, base := listing(src.Loc)
	wild, match := loc.HasWildcard(), loc.Matcher()
	if err := e.do(ctx, func(context.Context) error { return nil }); err != nil {
		return err // a cancelled run lists nothing
	}
	var fnErr error
	matched := false
	err := e.list(ctx, src.Store, loc.Prefix(), false, func(o store.Object) error {
		if o.IsPrefix || wild && !match(o.Key) || !strings.HasPrefix(o.Key, base) {
			return nil
		}
		matched = true
		if !e.keep(o.Key[len(base):], o) {
			return nil
		}
		fnErr = fn(o)
		return fnErr
	})
	if err == nil && wild && !matched {
		return &NoMatchError{URL: src.Loc.String()}
	}
	return listEnd(ctx, err, fnErr, "list", src.Store.URL(loc.Prefix()))
}

// sender returns the function planners send tasks with: it counts the task
// as planned and waits for room in out.
func (e *executor) sender(ctx context.Context, out chan<- Task) func(Task) error {
	return func(t Task) error {
		e.progress.planned.Add(1)
		e.progress.plannedBytes.Add(t.Size)
		select {
		case out <- t:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// deleteAll carries out the delete tasks (and skips) from in, until in is
// closed, on st: in batches of up to store.MaxBatchDelete keys when st is a
// store.BatchDeleter, one key a request otherwise. Each task ends in one
// result; a fatal failure cancels the run.
func (e *executor) deleteAll(ctx context.Context, cancel context.CancelCauseFunc, st store.Store, in <-chan Task) {
	bd, batched := st.(store.BatchDeleter)
	if e.job.AllVersions {
		_, batched = st.(store.VersionDeleter)
	} else if e.job.VersionID != "" {
		batched = false // one version: one request
	}
	var g errgroup.Group
	if batched {
		g.SetLimit(deleteBatchesInFlight)
	} else {
		g.SetLimit(e.concurrency)
	}
	fail := func(err error) {
		if retry.StopsRun(err) {
			e.setFatal(err)
			cancel(err)
		}
	}
	var batch []Task
	flush := func() {
		b := batch
		batch = nil
		g.Go(func() error {
			if err := e.deleteBatch(ctx, bd, b); err != nil {
				fail(err)
			}
			return nil
		})
	}
	for t := range in {
		switch {
		case ctx.Err() != nil:
			continue // drain so the planner can finish; start nothing new
		case t.Op == OpSkip:
			e.finish(Result{Task: t, Status: StatusSkipped})
			continue
		case !batched:
			g.Go(func() error {
				start := time.Now()
				err := e.do(ctx, func(ctx context.Context) error { return pinned(st, t.VersionID).Delete(ctx, t.SrcKey) })
				r := Result{Task: t, Status: StatusDone, Duration: time.Since(start)}
				if err != nil {
					r = e.failed(r, err, start)
					fail(err)
				}
				e.finish(r)
				return nil
			})
			continue
		}
		if batch == nil {
			batch = make([]Task, 0, store.MaxBatchDelete)
		}
		batch = append(batch, t)
		if len(batch) == store.MaxBatchDelete {
			flush()
		}
	}
	if len(batch) > 0 && ctx.Err() == nil {
		flush()
	}
	_ = g.Wait()
}

// deleteBatch deletes the tasks' keys with one request and finishes each
// task. It returns the error of a request that failed as a whole.
func (e *executor) deleteBatch(ctx context.Context, bd store.BatchDeleter, batch []Task) error {
	start := time.Now()
	keys := make([]string, len(batch))
	for i, t := range batch {
		keys[i] = t.SrcKey
	}
	var failed []store.DeleteError
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		if e.job.AllVersions {
			failed, err = e.deleteVersions(ctx, batch)
		} else {
			failed, err = bd.DeleteKeys(ctx, keys)
		}
		return err
	})
	d := time.Since(start)
	var byKey map[string]error
	if len(failed) > 0 {
		byKey = make(map[string]error, len(failed))
		for _, f := range failed {
			byKey[f.Key] = f.Err
		}
	}
	for _, t := range batch {
		r := Result{Task: t, Status: StatusDone, Duration: d}
		name := t.SrcKey
		if e.job.AllVersions {
			name += "?versionId=" + t.VersionID
		}
		switch kerr, ok := byKey[name]; {
		case err != nil:
			r = e.failed(r, err, start)
		case ok:
			r = e.failed(r, kerr, start)
		}
		e.finish(r)
	}
	return err
}
