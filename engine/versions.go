package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// OpMarker recreates a delete marker at the destination (a copy of every
// version, Job.AllVersions): a delete of the destination key, which a
// versioned bucket records as a delete marker.
const OpMarker Op = "marker"

// ErrNoVersions is the error of a job that names versions (Job.VersionID,
// Job.AllVersions) of a source that keeps none: a local directory, a
// store without versions.
var ErrNoVersions = errors.New("the source keeps no object versions")

// source is the store t reads from: the job's source, pinned to the
// task's version when it names one.
func (e *executor) source(t Task) store.Store { return pinned(e.job.Src.Store, t.VersionID) }

// pinned is st with its reads (and deletes) made of version id, or st
// itself when id is empty.
func pinned(st store.Store, id string) store.Store {
	if p, ok := st.(store.VersionPinner); ok && id != "" {
		return p.AtVersion(id)
	}
	return st
}

// versionURL names one version of key in messages: the store's URL of key
// with "?versionId=ID".
func versionURL(st store.Store, key, id string) string {
	return st.URL(key) + "?versionId=" + url.QueryEscape(id)
}

// walkVersions calls fn with the history of each key the job's source
// names, oldest entry first: a single key's alone, or every key under a
// prefix (Job.Recursive) or matched by a wildcard. One key's history is
// held in memory at a time. Filters and shards apply to each entry, as
// they would to the object.
func (e *executor) walkVersions(ctx context.Context, fn func(base string, history []store.Version) error) error {
	src := e.job.Src
	vl, ok := src.Store.(store.VersionLister)
	if !ok {
		return &FatalError{Op: "list versions", URL: src.Loc.String(), Err: ErrNoVersions}
	}
	single := !src.Loc.HasWildcard() && !e.job.Recursive
	loc, base := listing(src.Loc)
	prefix := loc.Prefix()
	if single {
		if src.Loc.IsDirLike() {
			return &FatalError{Op: "list versions", URL: src.Loc.String(), Err: ErrPrefix}
		}
		loc, base, prefix = src.Loc, src.Loc.Base(), src.Loc.Key
	}
	wild, match := loc.HasWildcard(), loc.Matcher()
	if err := e.do(ctx, func(context.Context) error { return nil }); err != nil {
		return err // a cancelled run lists nothing
	}
	var history []store.Version
	var fnErr error
	matched := false
	flush := func() error {
		if len(history) == 0 {
			return nil
		}
		slices.Reverse(history) // listed newest first
		fnErr = fn(base, history)
		history = history[:0]
		return fnErr
	}
	err := e.listHeld(ctx, func(pass func(func() error) error) error {
		return vl.ListVersions(ctx, prefix, func(v store.Version) error {
			switch {
			case single && v.Key != src.Loc.Key,
				wild && !match(v.Key),
				!strings.HasPrefix(v.Key, base):
				return nil
			}
			matched = true
			if !e.keep(v.Key[len(base):], v.Object) {
				return nil
			}
			if len(history) > 0 && history[0].Key != v.Key {
				if err := pass(flush); err != nil {
					return err
				}
			}
			history = append(history, v)
			return nil
		})
	})
	if err == nil {
		err = flush()
	}
	if err == nil && (wild || single && !e.job.Remove) && !matched {
		return &NoMatchError{URL: src.Loc.String(), Exact: single}
	}
	return listEnd(ctx, err, fnErr, "list versions", src.Store.URL(prefix))
}

// planVersions sends the tasks of a copy of every version (Job.AllVersions):
// each key's versions and delete markers oldest first, one after the other,
// which the executor runs in that order (chains).
func (e *executor) planVersions(ctx context.Context, out chan<- Task) error {
	src, dst := e.job.Src, e.job.Dst
	send := e.sender(ctx, out)
	single := !src.Loc.HasWildcard() && !e.job.Recursive
	loc, _ := listing(src.Loc)
	if single {
		loc = src.Loc
	}
	return e.walkVersions(ctx, func(base string, history []store.Version) error {
		key := history[0].Key
		rel := key[len(base):]
		if !single && (rel == "" || isFolderMarker(history[len(history)-1].Object)) {
			return nil // no object of the tree (plan's folder markers)
		}
		dstKey, err := destKey(loc, key, dst.Loc, single)
		if err != nil {
			return err
		}
		tasks := make([]Task, len(history))
		for i, v := range history {
			if v.DeleteMarker {
				tasks[i] = Task{Op: OpMarker, SrcKey: key, DstKey: dstKey, ModTime: v.ModTime, VersionID: v.VersionID, Dst: dst.Store.URL(dstKey)}
			} else {
				tasks[i] = e.task(v.Object, dstKey)
			}
			tasks[i].Src = versionURL(src.Store, key, v.VersionID)
			tasks[i] = e.journaled(tasks[i])
		}
		if err := e.reconcile(ctx, tasks); err != nil {
			return err
		}
		for _, t := range tasks {
			if err := send(t); err != nil {
				return err
			}
		}
		return nil
	})
}

// planRemoveVersions sends one delete task per version and delete marker
// the job's source names (rm --all-versions).
func (e *executor) planRemoveVersions(ctx context.Context, out chan<- Task) error {
	send := e.sender(ctx, out)
	return e.walkVersions(ctx, func(_ string, history []store.Version) error {
		for _, v := range history {
			t := Task{Op: OpDelete, Src: versionURL(e.job.Src.Store, v.Key, v.VersionID), SrcKey: v.Key,
				Size: v.Size, ETag: v.ETag, ModTime: v.ModTime, VersionID: v.VersionID}
			if err := send(t); err != nil {
				return err
			}
		}
		return nil
	})
}

// chains makes the tasks of one destination key run one after the other,
// in the order they were planned: a copy of every version writes each
// key's history oldest first, so that the destination's latest version is
// the source's. Keys still run side by side. A task whose predecessor
// failed is not run: it would write the history out of order.
type chains struct {
	mu   sync.Mutex
	keys map[string]*chain
}

// chain is one key's tasks: turn[i] is closed when task i may run.
type chain struct {
	index  map[string]int // by version ID
	turn   []chan struct{}
	next   int
	broken error
	// last is the destination's version of the key's latest task done
	// (Task.DstVersionID): the version the next one is written after.
	last string
}

func newChains() *chains { return &chains{keys: map[string]*chain{}} }

// add registers the tasks of one key, before any of them is sent to a
// worker.
func (c *chains) add(dstKey string, tasks []Task) {
	ch := &chain{index: make(map[string]int, len(tasks)), turn: make([]chan struct{}, len(tasks))}
	for i, t := range tasks {
		ch.index[t.VersionID] = i
		ch.turn[i] = make(chan struct{})
	}
	close(ch.turn[0])
	c.mu.Lock()
	c.keys[dstKey] = ch
	c.mu.Unlock()
}

// wait blocks until t may run. It returns the failure of an earlier task
// of its key, which t must not run after, or ctx's error.
func (c *chains) wait(ctx context.Context, t Task) error {
	c.mu.Lock()
	ch := c.keys[t.DstKey]
	c.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch.turn[ch.index[t.VersionID]]:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return ch.broken
}

// done ends t's turn, with its result, and lets its successor run.
func (c *chains) done(r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.keys[r.Task.DstKey]
	if ch == nil {
		return
	}
	if r.Status == StatusFailed && ch.broken == nil {
		ch.broken = fmt.Errorf("an older version of %s was not copied (%s): the history would be out of order", r.Task.DstKey, r.Task.Src)
	}
	if r.Status != StatusFailed && r.Task.DstVersionID != "" {
		ch.last = r.Task.DstVersionID
	}
	ch.next++
	if ch.next == len(ch.turn) {
		delete(c.keys, r.Task.DstKey)
		return
	}
	close(ch.turn[ch.next])
}

// last returns the destination's version of the latest task of dstKey
// done so far, "" when none gave one.
func (c *chains) last(dstKey string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch := c.keys[dstKey]; ch != nil {
		return ch.last
	}
	return ""
}

// executeInTurn is execute for a run whose tasks are chained by key: it
// waits for t's turn and ends it.
func (e *executor) executeInTurn(ctx context.Context, t Task) Result {
	if e.chains == nil {
		return e.execute(ctx, t)
	}
	var r Result
	if err := e.chains.wait(ctx, t); err != nil {
		r = e.failed(Result{Task: t}, err, time.Now())
	} else {
		r = e.executeVersion(ctx, t)
	}
	e.chains.done(r)
	return r
}

// deleteVersions deletes the versions of a batch of delete tasks with one
// request (store.VersionDeleter).
func (e *executor) deleteVersions(ctx context.Context, batch []Task) ([]store.DeleteError, error) {
	vs := make([]store.Object, len(batch))
	for i, t := range batch {
		vs[i] = store.Object{Key: t.SrcKey, VersionID: t.VersionID}
	}
	return e.job.Src.Store.(store.VersionDeleter).DeleteVersions(ctx, vs) // a remove's store is its source
}

// ListVersions calls fn for what `ls --all-versions` shows of loc in st:
// every version and delete marker of every key under loc's prefix, or
// matched by its wildcard, in ListObjectVersions order (keys in byte
// order, each key's entries newest first). keep, when set, is asked about
// each entry with its key relative to loc's base, as List asks. A key or
// prefix under which nothing is listed is a *NoMatchError.
func ListVersions(ctx context.Context, st store.Store, loc s3url.Location, keep func(store.Object) bool, fn func(store.Version) error) error {
	vl, ok := st.(store.VersionLister)
	if !ok {
		return &FatalError{Op: "list versions", URL: loc.String(), Err: ErrNoVersions}
	}
	f := newLsFilter(loc, keep)
	return f.end(vl.ListVersions(ctx, loc.Prefix(), func(v store.Version) error {
		if !f.shows(v.Object) {
			return nil
		}
		return fn(v)
	}))
}
