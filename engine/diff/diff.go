package diff

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/store"
)

// ListFunc streams one side's listing: it calls fn for every object, with
// keys relative to the side's base, and stops with fn's error. It is the
// shape of store.Lister.List with the prefix bound; see Relative.
type ListFunc func(ctx context.Context, fn func(store.Object) error) error

// Relative lists prefix of l and yields the objects whose keys start with
// base, with base cut off. It skips common prefixes and the object named
// base itself (a "directory marker" of the base).
func Relative(l store.Lister, prefix, base string) ListFunc {
	return func(ctx context.Context, fn func(store.Object) error) error {
		return l.List(ctx, prefix, "", func(o store.Object) error {
			rel, ok := strings.CutPrefix(o.Key, base)
			if o.IsPrefix || !ok || rel == "" {
				return nil
			}
			o.Key = rel
			return fn(o)
		})
	}
}

// Handler receives the pairs. A nil function skips that kind (and, for
// OnlyDest, the disk it would take to hold them back). An error from any of
// them stops Run, which returns it.
type Handler struct {
	// OnlySource is called for a key that only the source has, as soon as
	// that is known (see the package documentation).
	OnlySource func(src store.Object) error
	// OnlyDest is called for a key that only the destination has, only after
	// both listings have ended.
	OnlyDest func(dst store.Object) error
	// Both is called for a key that both sides have.
	Both func(src, dst store.Object) error
}

// Order says how far Run trusts the listings' order.
type Order int

const (
	// Verify streams while both listings are in ascending byte order, which
	// it checks, and sorts on disk when they are not.
	Verify Order = iota
	// Sort sorts both listings on disk before reporting anything.
	Sort
)

// Options bound Run's resources. The zero value is usable.
type Options struct {
	// Memory is the estimated bytes Run may hold in sort buffers, both
	// sides together. 0 means 64 MiB.
	Memory int64
	// Probe is how many keys of each listing are read and checked for order
	// before anything is reported. 0 means 10,000; a negative value, none.
	Probe int
	// Order: see Verify and Sort.
	Order Order
	// TempDir is where sorted runs are written; "" means os.TempDir().
	TempDir string
}

// DefaultMemory is Options.Memory's default.
const DefaultMemory = 64 << 20

// DefaultProbe is Options.Probe's default.
const DefaultProbe = 10_000

// batchSize objects travel together from a listing to the merge; queue
// batches wait per side.
const (
	batchSize = 256
	queue     = 16
)

// Stats describe one Run.
type Stats struct {
	Source, Dest int64 // objects listed on each side
	// SourceOrdered and DestOrdered are false when that listing was seen
	// out of order.
	SourceOrdered, DestOrdered bool
	// Sorted is true when the listings were sorted rather than streamed
	// (from the start, or from the point where one broke its order).
	Sorted bool
	// Runs counts sorted runs written to disk; Spilled the bytes written to
	// temporary files, runs and held-back objects together.
	Runs    int
	Spilled int64
	// Late counts keys reported OnlySource before a destination object of
	// the same key arrived out of order; counted only when OnlyDest is
	// handled.
	Late int64
}

// Run lists both sides concurrently and reports every key to h once, as
// OnlySource, OnlyDest or Both; the one exception is counted in Stats.Late
// (see the package documentation). It returns when both listings have
// ended and every call to h returned, or at the first error: a listing's
// (wrapped as "list source: ..." or "list destination: ..."), a handler's
// (returned as is), or a temporary file's.
func Run(ctx context.Context, src, dst ListFunc, h Handler, opts Options) (Stats, error) {
	if opts.Memory <= 0 {
		opts.Memory = DefaultMemory
	}
	if opts.Probe == 0 {
		opts.Probe = DefaultProbe
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	r := &runner{
		ctx:  gctx,
		h:    h,
		opts: opts,
		sp:   &spill{parent: opts.TempDir},
		src:  &side{name: "source", feed: newFeed(g, gctx, "source", src)},
		dst:  &side{name: "destination", feed: newFeed(g, gctx, "destination", dst)},
	}
	runErr := r.run()
	cancel()
	listErr := g.Wait()
	if err := r.sp.cleanup(); err != nil && runErr == nil {
		runErr = err
	}
	r.stats.Source, r.stats.Dest = r.src.feed.n, r.dst.feed.n
	r.stats.SourceOrdered, r.stats.DestOrdered = !r.src.unordered, !r.dst.unordered
	r.stats.Spilled = r.sp.bytes.Load()
	switch {
	case runErr != nil && !errors.Is(runErr, context.Canceled):
		return r.stats, runErr
	case listErr != nil && !errors.Is(listErr, context.Canceled):
		// The merge saw only the cancellation the failed listing caused.
		return r.stats, listErr
	case runErr != nil:
		return r.stats, runErr
	}
	return r.stats, nil
}

// feed is one listing running in its own goroutine, read in batches.
// Spent batches go back to the producer, so that streaming a listing
// allocates little more than its keys.
type feed struct {
	ch    chan []store.Object
	free  chan []store.Object
	held  [][]store.Object // read ahead by the probe, replayed first
	batch []store.Object
	i     int
	done  bool
	n     int64 // objects received
}

func newFeed(g *errgroup.Group, ctx context.Context, name string, list ListFunc) *feed {
	f := &feed{ch: make(chan []store.Object, queue), free: make(chan []store.Object, queue+2)}
	g.Go(func() error {
		batch := f.get()
		send := func() error {
			select {
			case f.ch <- batch:
				batch = f.get()
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := list(ctx, func(o store.Object) error {
			batch = append(batch, o)
			if len(batch) == batchSize {
				return send()
			}
			return nil
		})
		if err == nil && len(batch) > 0 {
			err = send()
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("list %s: %w", name, err)
		}
		// Closed only on success: the merge must never take a failed
		// listing for a complete one.
		close(f.ch)
		return nil
	})
	return f
}

func (f *feed) get() []store.Object {
	select {
	case b := <-f.free:
		return b
	default:
		return make([]store.Object, 0, batchSize)
	}
}

// receive takes the next batch from the listing.
func (f *feed) receive(ctx context.Context) ([]store.Object, bool, error) {
	select {
	case b, ok := <-f.ch:
		if !ok {
			f.done = true
			return nil, false, nil
		}
		f.n += int64(len(b))
		return b, true, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

func (f *feed) next(ctx context.Context) (store.Object, bool, error) {
	for f.i >= len(f.batch) {
		if f.batch != nil {
			select {
			case f.free <- f.batch[:0]: // its objects were cleared as taken
			default:
			}
			f.batch = nil
		}
		switch {
		case len(f.held) > 0:
			f.batch, f.held = f.held[0], f.held[1:]
		case f.done:
			return store.Object{}, false, nil
		default:
			b, ok, err := f.receive(ctx)
			if err != nil || !ok {
				return store.Object{}, false, err
			}
			f.batch = b
		}
		f.i = 0
	}
	o := f.batch[f.i]
	f.batch[f.i] = store.Object{}
	f.i++
	return o, true, nil
}

// side is one listing as the merge sees it, checked for order.
type side struct {
	name string
	feed *feed
	last string
	any  bool
	// checked is how many of the next objects the probe already checked.
	checked int
	// unordered is set once a key is seen below the one before it.
	unordered bool
}

type pull int

const (
	got pull = iota
	ended
	disordered // the object returned is out of order and was not used
)

// pull takes the next object and checks its order.
func (s *side) pull(ctx context.Context) (store.Object, pull, error) {
	o, ok, err := s.feed.next(ctx)
	if err != nil || !ok {
		return o, ended, err
	}
	if s.checked > 0 {
		s.checked--
		return o, got, nil
	}
	return s.check(o)
}

func (s *side) check(o store.Object) (store.Object, pull, error) {
	if s.any {
		switch {
		case o.Key == s.last:
			return o, got, duplicate(s.name, o.Key)
		case o.Key < s.last:
			s.unordered = true
			return o, disordered, nil
		}
	}
	s.last, s.any = o.Key, true
	return o, got, nil
}

// take takes the next object of a side being sorted anyway, noting its
// order for Stats only: duplicates are found by the merge.
func (s *side) take(ctx context.Context) (store.Object, bool, error) {
	o, ok, err := s.feed.next(ctx)
	if err != nil || !ok {
		return o, ok, err
	}
	if s.checked > 0 {
		s.checked--
		return o, true, nil
	}
	if s.any && o.Key < s.last {
		s.unordered = true
	}
	s.last, s.any = o.Key, true
	return o, true, nil
}

func duplicate(name, key string) error {
	return fmt.Errorf("diff: the %s listing has key %q twice", name, key)
}

// probe reads at least n objects, or half the memory budget, ahead, in
// whole batches. It reports whether they were in order.
func (s *side) probe(ctx context.Context, n int, budget int64) (bool, error) {
	var bytes int64
	for s.checked < n && bytes < budget {
		b, ok, err := s.feed.receive(ctx)
		if err != nil || !ok {
			return err == nil, err
		}
		s.feed.held = append(s.feed.held, b)
		for i := range b {
			bytes += cost(&b[i])
			if _, p, err := s.check(b[i]); err != nil || p == disordered {
				return false, err
			}
			s.checked++
		}
	}
	return true, nil
}

type runner struct {
	ctx      context.Context
	h        Handler
	opts     Options
	sp       *spill
	src, dst *side
	stats    Stats

	// Held back while streaming: the destination objects not matched yet,
	// and the source keys reported OnlySource (to recognize a destination
	// object that arrives late for one of them).
	held, sent *writer
}

func (r *runner) run() error {
	if r.opts.Order == Sort {
		return r.sorted(nil, nil)
	}
	if r.opts.Probe > 0 {
		okS, err := r.src.probe(r.ctx, r.opts.Probe, r.opts.Memory/2)
		if err != nil {
			return err
		}
		okD, err := r.dst.probe(r.ctx, r.opts.Probe, r.opts.Memory/2)
		if err != nil {
			return err
		}
		if !okS || !okD {
			return r.sorted(nil, nil)
		}
	}
	return r.stream()
}

// stream merge-joins the listings while both stay in order.
func (r *runner) stream() error {
	if r.h.OnlyDest != nil {
		var err error
		if r.held, err = r.sp.newWriter("held", true); err != nil {
			return err
		}
		if r.sent, err = r.sp.newWriter("sent", true); err != nil {
			return err
		}
	}
	var s, d store.Object
	var haveS, haveD, endS, endD bool
	for {
		if !haveS && !endS {
			o, p, err := r.src.pull(r.ctx)
			switch {
			case err != nil:
				return err
			case p == disordered:
				return r.sorted([]store.Object{o}, maybe(d, haveD))
			}
			s, haveS, endS = o, p == got, p == ended
		}
		if !haveD && !endD {
			o, p, err := r.dst.pull(r.ctx)
			switch {
			case err != nil:
				return err
			case p == disordered:
				return r.sorted(maybe(s, haveS), []store.Object{o})
			}
			d, haveD, endD = o, p == got, p == ended
		}
		switch {
		case !haveS && !haveD:
			return r.release()
		case haveS && (!haveD || s.Key < d.Key):
			if err := r.onlySource(s); err != nil {
				return err
			}
			haveS = false
		case haveD && (!haveS || d.Key < s.Key):
			if r.held != nil {
				if err := r.held.write(&d); err != nil {
					return err
				}
			}
			haveD = false
		default:
			if r.h.Both != nil {
				if err := r.h.Both(s, d); err != nil {
					return err
				}
			}
			haveS, haveD = false, false
		}
	}
}

func maybe(o store.Object, ok bool) []store.Object {
	if ok {
		return []store.Object{o}
	}
	return nil
}

func (r *runner) onlySource(s store.Object) error {
	if r.sent != nil {
		if err := r.sent.write(&store.Object{Key: s.Key}); err != nil {
			return err
		}
	}
	if r.h.OnlySource != nil {
		return r.h.OnlySource(s)
	}
	return nil
}

// release reports the held-back destination objects once both listings
// ended in order.
func (r *runner) release() error {
	if r.held == nil {
		return nil
	}
	it, err := r.held.reader()
	if err != nil {
		return err
	}
	for {
		o, ok, err := it.next()
		if err != nil || !ok {
			return err
		}
		if err := r.h.OnlyDest(o); err != nil {
			return err
		}
	}
}

// sorted sorts the rest of both listings, starting with the given objects
// (those read ahead come first out of the feeds), and merge-joins them with
// what streaming held back and sent, if anything.
func (r *runner) sorted(pendS, pendD []store.Object) error {
	r.stats.Sorted = true
	budget := r.opts.Memory / 2
	sortS := &sorter{sp: r.sp, name: "source", budget: budget}
	sortD := &sorter{sp: r.sp, name: "destination", budget: budget}
	// Both sides are drained at once: the listings run concurrently and
	// neither waits for the other.
	g, ctx := errgroup.WithContext(r.ctx)
	drain := func(s *side, srt *sorter, pend []store.Object) func() error {
		return func() error {
			for _, o := range pend {
				if err := srt.add(o); err != nil {
					return err
				}
			}
			for {
				o, ok, err := s.take(ctx)
				if err != nil || !ok {
					return err
				}
				if err := srt.add(o); err != nil {
					return err
				}
			}
		}
	}
	g.Go(drain(r.src, sortS, pendS))
	g.Go(drain(r.dst, sortD, pendD))
	if err := g.Wait(); err != nil {
		return err
	}
	r.stats.Runs = len(sortS.runs) + len(sortD.runs)

	srcIt, err := sortS.finish()
	if err != nil {
		return err
	}
	dstIt, err := sortD.finish()
	if err != nil {
		return err
	}
	var sentIt, heldIt iterator = &sliceIter{}, &sliceIter{}
	if r.sent != nil {
		if sentIt, err = r.sent.reader(); err != nil {
			return err
		}
		if heldIt, err = r.held.reader(); err != nil {
			return err
		}
	}
	S := &pair{name: "source", a: srcIt, b: sentIt}
	D := &pair{name: "destination", a: dstIt, b: heldIt}
	s, sentBefore, haveS, err := S.next()
	if err != nil {
		return err
	}
	d, _, haveD, err := D.next()
	if err != nil {
		return err
	}
	for haveS || haveD {
		switch {
		case haveS && (!haveD || s.Key < d.Key):
			if !sentBefore && r.h.OnlySource != nil {
				if err := r.h.OnlySource(s); err != nil {
					return err
				}
			}
			s, sentBefore, haveS, err = S.next()
		case haveD && (!haveS || d.Key < s.Key):
			if r.h.OnlyDest != nil {
				if err := r.h.OnlyDest(d); err != nil {
					return err
				}
			}
			d, _, haveD, err = D.next()
		default:
			if sentBefore {
				r.stats.Late++
			} else if r.h.Both != nil {
				if err := r.h.Both(s, d); err != nil {
					return err
				}
			}
			if s, sentBefore, haveS, err = S.next(); err != nil {
				return err
			}
			d, _, haveD, err = D.next()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pair merges two sorted iterators of one side, telling which one each
// object came from, and rejects a key seen twice.
type pair struct {
	name   string
	a, b   iterator
	oa, ob store.Object
	ha, hb bool
	init   bool
	last   string
	any    bool
}

func (p *pair) next() (o store.Object, fromB, ok bool, err error) {
	if !p.init {
		p.init = true
		if p.oa, p.ha, err = p.a.next(); err != nil {
			return o, false, false, err
		}
		if p.ob, p.hb, err = p.b.next(); err != nil {
			return o, false, false, err
		}
	}
	switch {
	case !p.ha && !p.hb:
		return o, false, false, nil
	case p.ha && (!p.hb || p.oa.Key <= p.ob.Key):
		o = p.oa
		p.oa, p.ha, err = p.a.next()
	default:
		o, fromB = p.ob, true
		p.ob, p.hb, err = p.b.next()
	}
	if err != nil {
		return o, false, false, err
	}
	if p.any && o.Key == p.last {
		return o, false, false, duplicate(p.name, o.Key)
	}
	p.last, p.any = o.Key, true
	return o, fromB, true, nil
}
