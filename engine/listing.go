package engine

import (
	"context"
	"errors"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/store"
)

// Listings in parallel (docs/design/0004-requests-in-flight.md).
//
// One ListObjectsV2 chain gives at most 1,000 keys a round trip: 7,700
// keys/s at 130 ms, so a million keys take two minutes to list whatever the
// copy rate. A store that lists a page a request (store.Pager) is therefore
// listed by several chains side by side:
//
//  0. The first listSerialPages pages are one flat chain, as always: a
//     listing that ends within them costs not one request more (and on a
//     server on this machine, where every listing request walks a directory
//     tree, splitting a small listing only adds work).
//  1. Discovery: a delimited listing of the rest finds its common prefixes
//     ("company-0001/"...), breadth first: while there are fewer than
//     listExpandBelow of them, each is listed with the delimiter in turn
//     (one level more, at most listDepth levels). Each level more costs a
//     request per prefix and cuts the ranges finer, which pays only when
//     there are too few to list side by side. Objects before the first common
//     prefix are passed on at once; a listing with no common prefix at all
//     (a bucket without '/') is thereby the one chain it always was, without
//     a request more.
//  2. Ranges: the common prefixes found, in byte order, cut the rest of the
//     key space into at most listRanges ranges of consecutive prefixes; each
//     range is one flat chain (StartAfter its first bound, stopping at the
//     next range's), so pages stay full and the listing costs about the
//     requests of one chain plus those of the discovery. A first range takes
//     what lies between the keys passed on so far and the first bound.
//  3. Merge: listChains chains at a time, each page a request of the run's
//     budget, into the consumer's one bounded stream. Unordered (the
//     planner), pages are emitted as they come, through a channel of
//     listReadAhead pages.
//  4. Ordered (ls, verify, sync: S3's byte order), the ranges are cut
//     smaller and lazily, in order (orderedRanges): a window of listChains
//     ranges is listed at once, each into its own channel of
//     listOrderedReadAhead pages, and emitted one after another; a range
//     leaves the window when it has been emitted. A range is as many
//     prefixes as held listRangeKeys keys in the ranges listed so far (one
//     until the first range is done), so that most ranges fit in their
//     channel and every chain of the window keeps listing while the one
//     before it is emitted: the chains then run side by side as they do
//     unordered, for a few more requests than one chain (pages cut at
//     range ends).
//
// Memory is the discovered prefixes (at most listMaxPrefixes; past that
// the rest is one more range) and the pages in flight (at most
// listChains x (listOrderedReadAhead + 1) pages ordered): flat in the
// number of keys.
const (
	listSerialPages      = 5
	listChains           = 16
	listExpandBelow      = 4
	listDepth            = 2
	listRanges           = 4 * listChains
	listReadAhead        = 2
	listOrderedReadAhead = 4
	listRangeKeys        = 3000
	listMaxPrefixes      = 100_000
)

// listEnd is what a planner returns for its listing (op of url) that
// ended with err: nil when the listing finished, fnErr when the planner's
// own function stopped it with fnErr, the run's cancellation, else a
// FatalError.
func listEnd(ctx context.Context, err, fnErr error, op, url string) error {
	switch {
	case err == nil:
		return nil
	case fnErr != nil:
		return fnErr
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return &FatalError{Op: op, URL: url, Err: err}
}

// list calls fn for every object under prefix of st, on the caller's
// goroutine, as Lister.List without a delimiter does; ordered keeps S3's
// byte order. Each page is a request of the run's budget.
func (e *executor) list(ctx context.Context, st store.Store, prefix string, ordered bool, fn func(store.Object) error) error {
	p, ok := st.(store.Pager)
	if !ok {
		return st.List(ctx, prefix, "", fn)
	}
	l := &parallelList{e: e, p: p, prefix: prefix, fn: fn, serialPages: listSerialPages}
	return l.run(ctx, ordered)
}

// Lister returns st as a store.Lister whose listings without a delimiter
// are listed by several chains side by side when st lists a page a request
// (store.Pager), in S3's byte order all the same, each page a request of
// the engine's budget; a listing with a delimiter is st's own. ls, verify
// and sync list through it.
func (en *Engine) Lister(st store.Store) store.Lister {
	return pagedLister{e: &executor{budgets: budgets{lim: en.lim}}, st: st, ordered: true}
}

// pagedLister is a store.Lister whose listings without a delimiter are
// listed in parallel, for code that takes a Lister (sync's diff).
type pagedLister struct {
	e       *executor
	st      store.Store
	ordered bool
	// pieces, when set, are all that a listing without a delimiter lists
	// (a shard's part: shardlist.go).
	pieces []piece
}

func (l pagedLister) List(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error {
	if delimiter != "" {
		return l.st.List(ctx, prefix, delimiter, fn)
	}
	if l.pieces != nil {
		return l.e.listPieces(ctx, l.st, prefix, l.pieces, l.ordered, fn)
	}
	return l.e.list(ctx, l.st, prefix, l.ordered, fn)
}

type parallelList struct {
	e      *executor
	p      store.Pager
	prefix string
	fn     func(store.Object) error
	// serialPages are listed by one chain before any split.
	serialPages int
	// found is the number of entries a shard discovery read.
	found int
}

// page lists one page as one request of the run's budget.
func (l *parallelList) page(ctx context.Context, q store.ListQuery) (store.Page, error) {
	var page store.Page
	err := l.e.do(ctx, func(ctx context.Context) error {
		var err error
		page, err = l.p.ListPage(ctx, q)
		return err
	})
	return page, err
}

func (l *parallelList) run(ctx context.Context, ordered bool) error {
	last, more, err := l.serial(ctx)
	if err != nil || !more {
		return err
	}
	bounds, last, err := l.discover(ctx, last)
	if err != nil || bounds == nil {
		return err // nil: no common prefix, the discovery listed it all
	}
	// Every key up to last has been passed on; the first range takes the
	// rest of a prefix that holds last, and any keys before the next bound.
	var rest []string
	for _, b := range bounds {
		if b > last {
			rest = append(rest, b)
		}
	}
	first := keyRange{after: last}
	if len(rest) > 0 {
		first.hi = rest[0]
	}
	if ordered {
		return l.ordered(ctx, &orderedRanges{first: &first, bounds: rest})
	}
	return l.ranges(ctx, append([]keyRange{first}, cut(rest)...))
}

// serial lists the first serialPages pages with one flat chain, passing
// everything on. It returns the last key passed on and whether there is more.
func (l *parallelList) serial(ctx context.Context) (last string, more bool, err error) {
	if l.serialPages <= 0 {
		return "", true, nil
	}
	q := store.ListQuery{Prefix: l.prefix}
	for range l.serialPages {
		page, err := l.page(ctx, q)
		if err != nil {
			return "", false, err
		}
		for _, o := range page.Objects {
			if err := l.fn(o); err != nil {
				return "", false, err
			}
			last = o.Key
		}
		if page.Next == "" || page.Next == q.Token {
			return last, false, nil
		}
		q.Token = page.Next
	}
	return last, true, nil
}

// discover lists the prefix after the key after with a delimiter, breadth
// first, and returns the common prefixes found, sorted (nil when there was
// none), and the last key passed on. It passes on the objects before the
// first common prefix: with none at all, that is the whole listing.
func (l *parallelList) discover(ctx context.Context, after string) ([]string, string, error) {
	bounds := []string{}
	seenPrefix := false
	last := after
	q := store.ListQuery{Prefix: l.prefix, Delimiter: "/", StartAfter: after}
	for {
		page, err := l.page(ctx, q)
		if err != nil {
			return nil, "", err
		}
		for _, o := range page.Objects {
			switch {
			case o.IsPrefix:
				seenPrefix = true
				if len(bounds) < listMaxPrefixes {
					bounds = append(bounds, o.Key)
				}
			case !seenPrefix:
				if err := l.fn(o); err != nil {
					return nil, "", err
				}
				last = o.Key
			}
		}
		if page.Next == "" || len(bounds) >= listMaxPrefixes {
			break
		}
		q.Token = page.Next
	}
	if !seenPrefix {
		return nil, last, nil
	}
	// One level deeper while there are too few to list side by side.
	for depth := 1; depth < listDepth && len(bounds) > 0 && len(bounds) < listExpandBelow; depth++ {
		deeper, err := l.subprefixes(ctx, bounds)
		if err != nil {
			return nil, "", err
		}
		bounds = deeper
	}
	return bounds, last, nil
}

// subprefixes lists each of prefixes with a delimiter, side by side, and
// returns them with the common prefixes under them, sorted. Only the first
// page of each is read: it is there to find split points, not keys.
func (l *parallelList) subprefixes(ctx context.Context, prefixes []string) ([]string, error) {
	var mu sync.Mutex
	out := append([]string(nil), prefixes...)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(listChains)
	for _, p := range prefixes {
		g.Go(func() error {
			page, err := l.page(gctx, store.ListQuery{Prefix: p, Delimiter: "/"})
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for _, o := range page.Objects {
				if o.IsPrefix && len(out) < listMaxPrefixes {
					out = append(out, o.Key)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// keyRange is the keys k with k > after, lo <= k and k < hi ("" hi: to
// the end), and, when keep is set, keep(k).
type keyRange struct {
	after, lo, hi string
	keep          func(key string) bool
}

// cut splits the key space from the first bound on into at most listRanges
// ranges of about as many bounds each.
func cut(bounds []string) []keyRange {
	per := (len(bounds) + listRanges - 1) / listRanges
	var rs []keyRange
	for i := 0; i < len(bounds); i += per {
		// StartAfter must sort before lo; lo without its last byte ("a/"
		// -> "a") does, and keys between the two are dropped.
		r := keyRange{after: bounds[i][:len(bounds[i])-1], lo: bounds[i]}
		if i+per < len(bounds) {
			r.hi = bounds[i+per]
		}
		rs = append(rs, r)
	}
	return rs
}

// chain lists one range flat, sending its pages (only keys in range) to
// out. It returns the number of keys sent.
func (l *parallelList) chain(ctx context.Context, r keyRange, out chan<- []store.Object) (sent int, err error) {
	q := store.ListQuery{Prefix: l.prefix, StartAfter: r.after}
	for {
		page, err := l.page(ctx, q)
		if err != nil {
			return sent, err
		}
		objs, done := page.Objects, page.Next == ""
		for len(objs) > 0 && objs[0].Key < r.lo {
			objs = objs[1:]
		}
		if r.hi != "" {
			if i := sort.Search(len(objs), func(i int) bool { return objs[i].Key >= r.hi }); i < len(objs) {
				objs, done = objs[:i], true
			}
		}
		if r.keep != nil {
			objs = kept(objs, r.keep)
		}
		if len(objs) > 0 {
			select {
			case out <- objs:
				sent += len(objs)
			case <-ctx.Done():
				return sent, ctx.Err()
			}
		}
		if done || page.Next == q.Token {
			return sent, nil
		}
		q.Token = page.Next
	}
}

// kept returns the objects of objs that keep keeps, in a slice of their
// own.
func kept(objs []store.Object, keep func(string) bool) []store.Object {
	var out []store.Object
	for _, o := range objs {
		if keep(o.Key) {
			out = append(out, o)
		}
	}
	return out
}

// errListed ends the chains once the consumer has stopped.
var errListed = errors.New("listing consumed")

// ranges lists the ranges listChains at a time and passes their objects to
// fn on this goroutine, as they come.
func (l *parallelList) ranges(ctx context.Context, rs []keyRange) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g, gctx := errgroup.WithContext(ctx)
	// The chains share one channel of a few pages: a chain waiting to send
	// holds its page, so at most listChains + listReadAhead pages are in
	// flight, and the planner, which is slower than 16 chains at 130 ms a
	// page, always has one waiting.
	merged := make(chan []store.Object, listReadAhead)
	g.Go(func() error {
		var chains errgroup.Group
		chains.SetLimit(listChains)
		for _, r := range rs {
			if gctx.Err() != nil {
				break
			}
			chains.Go(func() error {
				_, err := l.chain(gctx, r, merged)
				return err
			})
		}
		err := chains.Wait()
		close(merged)
		return err
	})
	e := l.emitter(cancel)
	for objs := range merged {
		e.emit(objs)
	}
	return e.wait(g)
}

// emitter passes pages to fn, on the consumer's goroutine, until fn fails;
// then it ends the chains through cancel.
type emitter struct {
	fn     func(store.Object) error
	cancel context.CancelCauseFunc
	err    error
}

func (l *parallelList) emitter(cancel context.CancelCauseFunc) *emitter {
	return &emitter{fn: l.fn, cancel: cancel}
}

func (e *emitter) emit(objs []store.Object) {
	for _, o := range objs {
		if e.err != nil {
			return
		}
		if e.err = e.fn(o); e.err != nil {
			e.cancel(errListed)
		}
	}
}

// wait waits for the chains and returns fn's error, or else theirs.
func (e *emitter) wait(g *errgroup.Group) error {
	if e.err != nil {
		e.cancel(errListed)
		_ = g.Wait()
		return e.err
	}
	return g.Wait()
}

// orderedRanges cuts the ranges after the first of an ordered listing,
// in order, as they are started: each is as many prefixes as held about
// listRangeKeys keys in the ranges done so far.
type orderedRanges struct {
	// first, when set, is the first range, before the bounds.
	first  *keyRange
	bounds []string
	next   int
	mu     sync.Mutex
	// keys and prefixes are those of the ranges done so far.
	keys, prefixes int
}

// cut returns the next range and how many prefixes it spans; false when
// there is none.
func (c *orderedRanges) cut() (keyRange, float64, bool) {
	if c.first != nil {
		r := *c.first
		c.first = nil
		return r, 0, true
	}
	if c.next >= len(c.bounds) {
		return keyRange{}, 0, false
	}
	per := 1
	c.mu.Lock()
	if c.keys > 0 {
		per = max(1, listRangeKeys*c.prefixes/c.keys)
	}
	c.mu.Unlock()
	i, j := c.next, min(c.next+per, len(c.bounds))
	c.next = j
	// StartAfter must sort before lo; lo without its last byte ("a/" ->
	// "a") does, and keys between the two are dropped.
	r := keyRange{after: c.bounds[i][:len(c.bounds[i])-1], lo: c.bounds[i]}
	if j < len(c.bounds) {
		r.hi = c.bounds[j]
	}
	return r, float64(j - i), true
}

// done records a range listed: keys under prefixes prefixes.
func (c *orderedRanges) done(keys int, weight float64) {
	prefixes := int(weight)
	if prefixes == 0 {
		return // the first range, a part of a prefix: no measure of one
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys += keys
	c.prefixes += prefixes
}

// rangeCutter hands out the ranges of an ordered listing, in order, as they
// are started, and learns how many keys each held.
type rangeCutter interface {
	cut() (r keyRange, weight float64, ok bool)
	done(keys int, weight float64)
}

// ordered lists the ranges rs cuts, listChains at a time, and
// passes their objects to fn on this goroutine in range order: a window of
// listChains ranges, each listing into its own channel of
// listOrderedReadAhead pages; a range leaves the window once emitted.
func (l *parallelList) ordered(ctx context.Context, rs rangeCutter) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g, gctx := errgroup.WithContext(ctx)
	// window holds a token for each range started and not yet emitted;
	// started holds their channels in range order (never more than the
	// window, so sending to it never blocks).
	window := make(chan struct{}, listChains)
	started := make(chan chan []store.Object, listChains)
	g.Go(func() error {
		defer close(started)
		for r, n, ok := rs.cut(); ok; r, n, ok = rs.cut() {
			select {
			case window <- struct{}{}:
			case <-gctx.Done():
				return nil
			}
			pages := make(chan []store.Object, listOrderedReadAhead)
			started <- pages
			g.Go(func() error {
				defer close(pages)
				keys, err := l.chain(gctx, r, pages)
				if err == nil {
					rs.done(keys, n)
				}
				return err
			})
		}
		return nil
	})
	e := l.emitter(cancel)
	for pages := range started {
		for objs := range pages {
			e.emit(objs)
		}
		<-window
		if gctx.Err() != nil {
			break
		}
	}
	return e.wait(g)
}
