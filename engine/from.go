package engine

import (
	"context"
	"errors"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/store"
)

// Objects is a list of objects given instead of a listing of the source:
// an S3 Inventory report or a key list (package engine/manifest), or any
// stream a program has.
type Objects interface {
	// Objects calls fn with each object, its Key the whole key in the
	// source store, and stops at fn's error. A Size below 0 is unknown:
	// the engine HEADs the object before planning it.
	Objects(ctx context.Context, fn func(store.Object) error) error
}

// Sized is implemented by Objects that know every object's size, so the
// engine HEADs none of them (a Size below 0 is still HEADed).
type Sized interface {
	Sized() bool
}

// Base is the part of the endpoint's keys that destination names drop
// when it is a source: its prefix as a directory ("" for a bucket or a
// local root). The keys of a key list are relative to it.
func (ep Endpoint) Base() string {
	_, base := listing(ep.Loc)
	return base
}

// headWindow is how many HEADs of objects of unknown size are in flight
// ahead of the planner, in order.
const headWindow = 256

// fromObjects calls fn, on the caller's goroutine and in the list's
// order, with each object of job.From under base that the run's shard
// keeps, its size known: objects of unknown size are HEADed, several at
// once. One gone from the source goes to gone instead.
func (e *executor) fromObjects(ctx context.Context, base string, fn, gone func(store.Object) error) error {
	accept := func(o store.Object) bool {
		rel, ok := strings.CutPrefix(o.Key, base)
		return ok && rel != "" && e.opts.Shard.Keep(rel)
	}
	if s, ok := e.job.From.(Sized); ok && s.Sized() {
		return e.job.From.Objects(ctx, func(o store.Object) error {
			if !accept(o) {
				return nil
			}
			if o.Size < 0 {
				found, err := e.headObject(ctx, &o)
				if err != nil {
					return err
				}
				if !found {
					return gone(o)
				}
			}
			return fn(o)
		})
	}
	type pending struct {
		o     store.Object
		found bool
		err   error
		done  chan struct{}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := make(chan *pending, headWindow)
	var g errgroup.Group
	g.Go(func() error {
		defer close(q)
		var heads errgroup.Group
		heads.SetLimit(headWindow)
		err := e.job.From.Objects(ctx, func(o store.Object) error {
			if !accept(o) {
				return nil
			}
			p := &pending{o: o, found: true, done: make(chan struct{})}
			select {
			case q <- p:
			case <-ctx.Done():
				return ctx.Err()
			}
			if o.Size >= 0 {
				close(p.done)
				return nil
			}
			heads.Go(func() error {
				defer close(p.done)
				p.found, p.err = e.headObject(ctx, &p.o)
				return nil
			})
			return nil
		})
		_ = heads.Wait()
		return err
	})
	var fnErr error
	for p := range q {
		<-p.done
		if fnErr != nil {
			continue
		}
		switch {
		case p.err != nil:
			fnErr = p.err
		case !p.found:
			fnErr = gone(p.o)
		default:
			fnErr = fn(p.o)
		}
		if fnErr != nil {
			cancel()
		}
	}
	if err := g.Wait(); err != nil && (fnErr == nil || errors.Is(fnErr, context.Canceled)) {
		return err
	}
	return fnErr
}

// headObject fills in o's size, ETag and time from a HEAD of its key; it
// reports false when the source has no such object.
func (e *executor) headObject(ctx context.Context, o *store.Object) (bool, error) {
	src := e.job.Src
	var h store.Object
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		h, _, err = src.Store.Head(ctx, o.Key)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, &FatalError{Op: "head", URL: src.Store.URL(o.Key), Err: err}
	}
	o.Size, o.ETag, o.ModTime, o.StorageClass = h.Size, h.ETag, h.ModTime, h.StorageClass
	return true, nil
}

// planFrom plans a copy or move of the objects job.From gives, as plan
// does a listing's.
func (e *executor) planFrom(ctx context.Context, send func(Task) error) error {
	src := e.job.Src
	loc, base := listing(src.Loc)
	err := e.fromObjects(ctx, base, func(o store.Object) error {
		rel := o.Key[len(base):]
		if !e.keep(rel, o) {
			return nil
		}
		return e.planObject(loc, rel, o, send)
	}, func(o store.Object) error {
		return send(Task{Op: OpSkip, Src: src.Store.URL(o.Key), SrcKey: o.Key, VersionID: o.VersionID, Reason: ReasonGone})
	})
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// ReasonGone is the reason of the skip of a listed object (from
// Job.From) that the source no longer has.
const ReasonGone = "not found at the source"

// ReasonGoneSince is the reason of the skip of an object of Job.From that
// was gone from the source when it was read (NoSuchKey): deleted since the
// inventory or list was made.
const ReasonGoneSince = "gone since the inventory or list was made"

// fromList is sync's source side when job.From gives it: keys relative
// to base, unordered (the comparison sorts them on disk when they are
// not in order); objects gone from the source are left out.
func (e *executor) fromList(base string) func(ctx context.Context, fn func(store.Object) error) error {
	return func(ctx context.Context, fn func(store.Object) error) error {
		return e.fromObjects(ctx, base, func(o store.Object) error {
			o.Key = o.Key[len(base):]
			return fn(o)
		}, func(store.Object) error { return nil })
	}
}
