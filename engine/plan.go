package engine

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync/atomic"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// errStop ends a listing early without an error of its own.
var errStop = errors.New("stop listing")

// A Plan is the second stage of a run (sources -> plan -> execute ->
// observe): a job's tasks, streamed in the order they are to run, each
// one object's decision (copy, upload, download, stream, delete, skip).
// Engine.Plan makes one from a Job; a caller whose tasks are already
// decided (a key list, a plan read back from JSON lines) builds one, and
// Engine.Execute carries it out. A dry run ranges over the tasks and
// reports them (Options.DryRun). Planning mutates nothing.
type Plan struct {
	// Job names the stores the tasks read and write, and how they run: a
	// sync's deletes wait until its copies have ended, a remove's deletes
	// go in batches, a copy of all versions runs each key's tasks in order.
	Job Job
	// Tasks yields the tasks, then at most one error, which ends the plan
	// and so the run executing it. A plan from Engine.Plan is ranged over
	// once; it lists as it is ranged over, so memory stays flat whatever
	// the number of keys.
	Tasks iter.Seq2[Task, error]

	// unchanged counts the pairs a sync found the same: no task, but
	// skips that the summary counts.
	unchanged *atomic.Int64
	// cancel stops the planner's listings when the run executing the plan
	// stops.
	cancel context.CancelCauseFunc
}

// Each calls fn with each task of the plan, and returns the plan's error or
// fn's, which stops it.
func (p Plan) Each(fn func(Task) error) error {
	for t, err := range p.Tasks {
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// Tasks is a plan's stream of tasks one already has: Plan.Tasks for
// tasks decided elsewhere (read back from JSON lines, filtered, reordered).
func Tasks(tasks ...Task) iter.Seq2[Task, error] {
	return func(yield func(Task, error) bool) {
		for _, t := range tasks {
			if !yield(t, nil) {
				return
			}
		}
	}
}

// errYielded ends a planner whose consumer stopped ranging.
var errYielded = errors.New("plan: consumer stopped")

// Plan returns the plan of job: its source listed (or its key list, or
// inventory, read) as the tasks are ranged over; for a sync both sides
// compared, the copies first and the deletes last. Of opts, planning reads
// Filter, Shard, PartSize, MultipartThreshold and Journal (objects it
// records as done are skips); Progress, when set, counts its listings.
func (en *Engine) Plan(ctx context.Context, job Job, opts Options) Plan {
	ctx, cancel := context.WithCancelCause(ctx)
	p := Plan{Job: job, unchanged: new(atomic.Int64), cancel: cancel}
	p.Tasks = func(yield func(Task, error) bool) {
		e := en.newExecutor(job, opts)
		e.unchanged = p.unchanged
		fn := func(t Task) error {
			if !yield(t, nil) {
				return errYielded
			}
			return nil
		}
		var err error
		if job.Sync != nil {
			err = e.planSyncTo(ctx, fn)
		} else {
			err = e.planTo(ctx, fn)
		}
		if err != nil && !errors.Is(err, errYielded) {
			yield(Task{}, err)
		}
	}
	return p
}

// planTo streams the planner's tasks into fn, on the caller's goroutine.
// An error from fn stops the listing.
func (e *executor) planTo(ctx context.Context, fn func(Task) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A small queue: the run's own queue (Execute) is what bounds how far
	// the listing runs ahead of the copies; this one only hands tasks over.
	tasks := make(chan Task, 64)
	errc := make(chan error, 1)
	go func() {
		defer close(tasks)
		errc <- e.plan(ctx, tasks)
	}()
	var fnErr error
	for t := range tasks {
		if fnErr == nil {
			if fnErr = fn(t); fnErr != nil {
				cancel()
			}
		}
	}
	if err := <-errc; err != nil && fnErr == nil {
		return err
	}
	return fnErr
}

// plan lists the source and sends one task per object. It mutates nothing.
func (e *executor) plan(ctx context.Context, out chan<- Task) error {
	switch {
	case e.job.Remove && e.job.AllVersions:
		return e.planRemoveVersions(ctx, out)
	case e.job.Remove:
		return e.planRemove(ctx, out)
	case e.job.AllVersions:
		return e.planVersions(ctx, out)
	case e.job.Sync != nil:
		return e.planSync(ctx, out)
	}
	src, dst := e.job.Src, e.job.Dst
	send := e.sender(ctx, out)
	if e.job.From != nil {
		return e.planFrom(ctx, send)
	}

	if !src.Loc.HasWildcard() && !e.job.Recursive {
		if src.Loc.IsDirLike() {
			return fmt.Errorf("copy %s: %w", src.Loc, ErrPrefix)
		}
		var obj store.Object
		err := e.do(ctx, func(ctx context.Context) error {
			var err error
			obj, _, err = e.source(Task{VersionID: e.job.VersionID}).Head(ctx, src.Loc.Key)
			return err
		})
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return &NoMatchError{URL: src.Loc.String(), Exact: true}
			}
			return &FatalError{Op: "head", URL: src.Loc.String(), Err: err}
		}
		obj.Key, obj.VersionID = src.Loc.Key, e.job.VersionID
		if !e.keep(obj.Key[len(src.Loc.Base()):], obj) {
			return nil
		}
		key, err := destKey(src.Loc, obj.Key, dst.Loc, true)
		if err != nil {
			return &FatalError{Op: "copy", URL: src.Loc.String(), Err: err}
		}
		return send(e.journaled(e.task(obj, key)))
	}

	loc, base := listing(src.Loc)
	wild := loc.HasWildcard()
	var match func(string) bool
	if wild {
		match = loc.Matcher() // without one, every key under the prefix
	}
	matched := false
	pageDone := func(o store.Object) error {
		if o.IsPrefix {
			return nil
		}
		if wild && !match(o.Key) {
			return nil
		}
		if !strings.HasPrefix(o.Key, base) {
			return nil
		}
		matched = true
		rel := o.Key[len(base):]
		if !e.keep(rel, o) {
			return nil
		}
		if rel == "" {
			return nil // the prefix itself (its folder marker): nothing to name
		}
		return e.planObject(loc, rel, o, send)
	}
	err := e.do(ctx, func(ctx context.Context) error { return nil }) // fail fast on a cancelled run
	if err != nil {
		return err
	}
	if wild {
		// A wildcard that matches nothing is an error, which a shard's
		// part cannot tell: every shard lists it all.
		err = e.list(ctx, src.Store, loc.Prefix(), false, pageDone)
	} else {
		err = e.listShard(ctx, src.Store, loc.Prefix(), base, pageDone)
	}
	if err != nil && !errors.Is(err, errStop) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &FatalError{Op: "list", URL: src.Store.URL(loc.Prefix()), Err: err}
	}
	if wild && !matched {
		return &NoMatchError{URL: src.Loc.String()}
	}
	return nil
}

// planObject sends the task of one object of a tree, whose key relative
// to the source's base is rel, kept by the run's filter and shard.
func (e *executor) planObject(loc s3url.Location, rel string, o store.Object, send func(Task) error) error {
	if isFolderMarker(o) || dstIsLocal(e.job.Dst) && strings.HasSuffix(rel, "/") {
		// A folder marker is no object of the tree, and a key ending
		// in '/' has no file to become.
		return send(Task{Op: OpSkip, Src: e.job.Src.Store.URL(o.Key), SrcKey: o.Key, Size: o.Size, Reason: "folder marker"})
	}
	key, err := destKey(loc, o.Key, e.job.Dst.Loc, false)
	if err != nil {
		return err
	}
	return send(e.journaled(e.task(o, key)))
}

// listShard lists the source of a copy under prefix (its keys named
// relative to base) for fn: with a shard, only the shard's part of it where
// the split allows (shardlist.go); else the whole of it.
func (e *executor) listShard(ctx context.Context, st store.Store, prefix, base string, fn func(store.Object) error) error {
	if e.opts.Shard.Count <= 1 || e.job.Move {
		// No shard: the whole listing. A move empties its source as it
		// goes: a rerun's discovery would not find the split of the first
		// run (docs/shards.md).
		return e.list(ctx, st, prefix, false, fn)
	}
	split, err := e.discoverShards(ctx, st, prefix, base)
	if err != nil || split == nil {
		if err != nil {
			return err
		}
		return e.list(ctx, st, prefix, false, fn)
	}
	e.shardListed = true
	return e.listPieces(ctx, st, prefix, split.pieces(e.shardOf(), base), false, fn)
}

// listing returns what a location lists as a prefix or a wildcard, and
// its base: the part of every listed key that destination names drop.
func listing(loc s3url.Location) (s3url.Location, string) {
	if loc.Local {
		// Local keys are relative to the store root: "." is the root.
		if loc.Key == "." {
			loc.Key = ""
		}
		loc.Key = strings.TrimPrefix(loc.Key, "./")
	}
	if !loc.HasWildcard() {
		loc = loc.AsDir()
		if loc.Key == "/" {
			loc.Key = ""
		}
	}
	return loc, loc.Base()
}

// keep applies the run's filter and shard to a listed object whose key
// relative to the source's base is rel.
func (e *executor) keep(rel string, o store.Object) bool {
	if !e.shardListed && !e.opts.Shard.Keep(rel) {
		return false
	}
	if e.opts.Filter == nil {
		return true
	}
	o.Key = rel
	return e.opts.Filter(o)
}

// destKey names the destination of srcKey by s3url's rule (s3url.DestKey),
// with the destination's key as the engine holds it: a local one relative
// to its store's root, where "" and "/" are the root itself.
func destKey(src s3url.Location, srcKey string, dst s3url.Location, single bool) (string, error) {
	if dst.Local && (dst.Key == "" || dst.Key == "/") {
		dst.Key = "."
	} else if dst.Key == "/" {
		dst.Key = ""
	}
	key, err := s3url.DestKey(src, srcKey, dst, single)
	if dst.Local {
		key = strings.TrimPrefix(key, "./")
	}
	return key, err
}

func dstIsLocal(d Endpoint) bool { return d.Loc.Local }

// task decides how one object moves.
func (e *executor) task(o store.Object, dstKey string) Task {
	src, dst := e.job.Src, e.job.Dst
	t := Task{
		Src: src.Store.URL(o.Key), Dst: dst.Store.URL(dstKey),
		SrcKey: o.Key, DstKey: dstKey,
		Size: o.Size, ETag: o.ETag, ModTime: o.ModTime, VersionID: o.VersionID,
		DeleteSource: e.job.Move,
	}
	var kind parts.Kind
	switch {
	case src.Loc.Local && !dst.Loc.Local:
		t.Op, kind = OpUpload, parts.Upload
	case !src.Loc.Local && dst.Loc.Local:
		t.Op, kind = OpDownload, parts.Download
	case src.Loc.Local && dst.Loc.Local:
		t.Op, kind = OpStream, parts.Upload
	default:
		t.Op, kind = OpStream, parts.Upload
		if c, ok := dst.Store.(store.Copier); ok {
			if _, ok := c.CanCopyFrom(src.Store); ok {
				t.Op, kind = OpCopy, parts.Copy
			}
		}
	}
	if parts.Split(kind, o.Size, e.opts.MultipartThreshold) {
		if l, err := e.layout(o.Size, kind); err == nil {
			t.PartSize = l.PartSize
		}
	}
	return t
}

// layout is the part layout of an object of size moved as kind: in parts
// of Options.PartSize, or of the size parts.Auto picks when it is 0.
func (e *executor) layout(size int64, kind parts.Kind) (parts.Layout, error) {
	ps := e.opts.PartSize
	if ps == 0 {
		ps = parts.Auto(size, kind)
	}
	return parts.NewLayout(size, ps)
}

// journaled turns a task the journal records as done (same source size and
// ETag or mtime) into a skip.
func (e *executor) journaled(t Task) Task {
	if j := e.opts.Journal; j != nil && t.Op != OpSkip && j.IsDone(t.object(), t.DstKey) {
		t.Op, t.Reason = OpSkip, "done in journal"
	}
	return t
}
