package engine

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/store"
)

// Shards that list only their part (docs/shards.md).
//
// A run with Options.Shard of n > 1 whose source lists a page a request
// (store.Pager) lists only its part of the key space, not the whole of it:
//
//  1. Discovery, the same in every run: the source's prefix is listed with
//     the delimiter '/', breadth first. The first level is read up to
//     shardLevelPages pages; every prefix found is listed one level
//     deeper, page round by page round, within shardDiscoverRequests
//     requests in all: the first level whenever its prefixes fit that
//     budget, deeper levels only while they hold fewer than shardUnits x
//     n prefixes (for at most shardDepth levels). What discovery returns is a
//     sorted list of entries (prefixes not looked into, and objects), each
//     the start of a span that runs to the next entry's start.
//  2. Weights: an object weighs one key; a prefix not looked into weighs
//     the mean number of entries the prefixes looked into last held (one
//     when none was): prefixes at one depth are assumed alike.
//  3. Assignment: span j goes to shard floor(n x (W_j + w_j/2) / W), W_j the
//     weight of the spans before it and W the total: each shard takes a
//     run of consecutive spans of about W/n.
//  4. Shared spans: where discovery stopped before a listing's end (a
//     level or a prefix with more entries than it reads), the rest, from
//     the last entry read, is one span that every shard lists, keeping the
//     keys of its shard by the stable hash (engine/shard), as every shard
//     run once did for the whole listing.
//
// Spans are in keys relative to the source's base, which are the names at
// the destination: a sync lists the destination by the same spans, so a
// name and its deletion are decided by the same run. Discovery reads only
// names, never what the run does, so a rerun over the same source makes the
// same split; see docs/shards.md for what changes it.
const (
	shardUnits            = 16
	shardLevelPages       = 10
	shardDepth            = 4
	shardDiscoverRequests = 48
)

// span is the start of a part of the key space discovered: it runs from lo
// (inclusive; "" the listing's start) to the next span's lo.
type span struct {
	lo     string
	weight float64
	// shared spans are listed by every shard, each keeping its keys by
	// hash.
	shared bool
}

// entry is one name of a delimited listing: an object, or a common
// prefix. tail marks the last entry read of a listing cut short.
type entry struct {
	key          string
	prefix, tail bool
}

// discoverSpans lists the prefix breadth first, as every shard of the job
// does identically, and returns its spans in key order.
func (l *parallelList) discoverSpans(ctx context.Context, n int) ([]span, error) {
	budget := shardDiscoverRequests
	top := &childList{prefix: l.prefix}
	for range shardLevelPages {
		if top.done || budget == 0 {
			break
		}
		if err := top.more(ctx, l); err != nil {
			return nil, err
		}
		budget--
	}
	entries := top.entries()
	fanout := 1.0
	for depth := 1; depth < shardDepth; depth++ {
		var lists []*childList
		for i, en := range entries {
			if en.prefix && !en.tail {
				lists = append(lists, &childList{prefix: en.key, at: i})
			}
		}
		// A level of enough prefixes to split (shardUnits x n) is still
		// looked into while it fits the budget: its prefixes may be of
		// very different sizes (one tenant of most keys among a few
		// dozen), which only their listings show. Only a level too wide
		// to read is taken for prefixes alike.
		if len(lists) == 0 || len(lists) > budget || depth > 1 && len(lists) >= shardUnits*n {
			break
		}
		// Page rounds: every listing not yet done reads one page more per
		// round, while the whole round fits in the budget; which listings
		// are cut short is the same whatever order the pages arrive in.
		for round := 0; ; round++ {
			var open []*childList
			for _, c := range lists {
				if !c.done {
					open = append(open, c)
				}
			}
			if len(open) == 0 || len(open) > budget || round > 0 && round >= shardLevelPages {
				break
			}
			if err := l.pages(ctx, open); err != nil {
				return nil, err
			}
			budget -= len(open)
		}
		var deeper []entry
		last, seen := 0, 0
		for _, c := range lists {
			deeper = append(deeper, entries[last:c.at]...)
			children := c.entries()
			seen += len(children)
			deeper = append(deeper, children...)
			last = c.at + 1
		}
		entries = append(deeper, entries[last:]...)
		fanout = max(1, float64(seen)/float64(len(lists)))
	}
	l.found = len(entries)
	spans := make([]span, 0, len(entries)+1)
	for _, en := range entries {
		w := 1.0
		if en.prefix {
			w = fanout
		}
		spans = append(spans, span{lo: en.key, weight: w, shared: en.tail})
	}
	if len(spans) == 0 || spans[0].lo != "" {
		// What sorts before the first entry (nothing, in a listing that
		// does not change) starts the first span.
		spans = append([]span{{lo: ""}}, spans...)
	}
	return spans, nil
}

// childList is the delimited listing of one prefix, read a page at a time.
type childList struct {
	prefix string
	at     int // its index among the entries of the level above
	token  string
	done   bool
	list   []entry
}

func (c *childList) more(ctx context.Context, l *parallelList) error {
	page, err := l.page(ctx, store.ListQuery{Prefix: c.prefix, Delimiter: "/", Token: c.token})
	if err != nil {
		return err
	}
	for _, o := range page.Objects {
		c.list = append(c.list, entry{key: o.Key, prefix: o.IsPrefix})
	}
	c.done = page.Next == "" || page.Next == c.token
	c.token = page.Next
	return nil
}

// entries returns what was read; when the listing was cut short, its last
// entry starts the shared rest.
func (c *childList) entries() []entry {
	if !c.done && len(c.list) > 0 {
		c.list[len(c.list)-1].tail = true
	}
	return c.list
}

// pages reads one page more of each listing, listChains at a time.
func (l *parallelList) pages(ctx context.Context, cs []*childList) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(listChains)
	for _, c := range cs {
		g.Go(func() error { return c.more(gctx, l) })
	}
	return g.Wait()
}

// assign returns the shard of every span among n, -1 for a shared one.
func assign(spans []span, n int) []int {
	var total float64
	for _, s := range spans {
		if !s.shared {
			total += s.weight
		}
	}
	out := make([]int, len(spans))
	var before float64
	for i, s := range spans {
		switch {
		case s.shared:
			out[i] = -1
			continue
		case total == 0:
			out[i] = 0
			continue
		}
		out[i] = min(n-1, int(float64(n)*(before+s.weight/2)/total))
		before += s.weight
	}
	return out
}

// piece is a part of the key space one shard lists: one span of its own,
// or a shared span whose keys its range's keep filters.
type piece struct {
	r      keyRange
	weight float64
	shared bool
}

// shardPieces returns the pieces shard index of n lists, in key order. The
// spans' keys are made keys of the side listed by rebase; keep filters the
// shared ones.
func shardPieces(spans []span, index, n int, rebase func(string) string, keep func(string) bool) []piece {
	owner := assign(spans, n)
	ps := []piece{} // none is not nil: the run lists nothing
	for i, s := range spans {
		if owner[i] != index && owner[i] != -1 {
			continue
		}
		hi := ""
		if i+1 < len(spans) {
			hi = rebase(spans[i+1].lo)
		}
		p := piece{r: startRange(rebase(s.lo), hi), weight: s.weight, shared: owner[i] == -1}
		if p.shared {
			p.r.keep = keep
		}
		ps = append(ps, p)
	}
	return ps
}

// merged joins adjacent pieces of one's own into at most about k ranges of
// similar weight; shared pieces stay ranges of their own.
func merged(ps []piece, k int) []keyRange {
	var total float64
	for _, p := range ps {
		if !p.shared {
			total += p.weight
		}
	}
	per := total / float64(k)
	rs := []keyRange{}
	var acc float64
	open := false // the last range is one's own and may grow
	for _, p := range ps {
		switch {
		case p.shared:
			rs = append(rs, p.r)
			open = false
		case open && acc+p.weight/2 <= per && rs[len(rs)-1].hi == p.r.lo:
			rs[len(rs)-1].hi = p.r.hi
			acc += p.weight
		default:
			rs = append(rs, p.r)
			open, acc = true, p.weight
		}
	}
	return rs
}

// pieceCutter cuts the ranges of a shard's ordered listing, in order, as
// they are started: adjacent pieces of about listRangeKeys keys by the keys
// per weight of the ranges listed so far (one piece until the first is
// done), so that ranges fit in their channel and the chains of the window
// keep listing (see orderedRanges).
type pieceCutter struct {
	ps   []piece
	next int
	mu   sync.Mutex
	// keys and weight are those of the own ranges done so far.
	keys   int
	weight float64
}

func (c *pieceCutter) cut() (keyRange, float64, bool) {
	if c.next >= len(c.ps) {
		return keyRange{}, 0, false
	}
	p := c.ps[c.next]
	c.next++
	if p.shared {
		return p.r, 0, true
	}
	c.mu.Lock()
	per := 0.0
	if c.keys > 0 {
		per = listRangeKeys * c.weight / float64(c.keys)
	}
	c.mu.Unlock()
	r, w := p.r, p.weight
	for c.next < len(c.ps) {
		q := c.ps[c.next]
		if q.shared || q.r.lo != r.hi || w+q.weight > per {
			break
		}
		r.hi, w = q.r.hi, w+q.weight
		c.next++
	}
	return r, w, true
}

func (c *pieceCutter) done(keys int, weight float64) {
	if weight == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys += keys
	c.weight += weight
}

// startRange is the range [lo, hi), listed from just before lo.
func startRange(lo, hi string) keyRange {
	r := keyRange{lo: lo, hi: hi}
	if lo != "" {
		// StartAfter must sort before lo; lo without its last byte does,
		// and keys between the two are dropped.
		r.after = lo[:len(lo)-1]
	}
	return r
}

// shardSplit is the discovered split of one sharded listing.
type shardSplit struct {
	spans []span
	// prefix and base are those of the side discovered.
	prefix, base string
	// found is the number of entries discovery read.
	found int
}

// discoverShards runs discovery on st under prefix (whose keys are named
// relative to base) when the run is sharded and st lists a page a request;
// nil otherwise: the run then lists everything and keeps its keys by hash.
func (e *executor) discoverShards(ctx context.Context, st store.Store, prefix, base string) (*shardSplit, error) {
	p, ok := st.(store.Pager)
	if !ok || e.opts.Shard.Count <= 1 {
		return nil, nil
	}
	l := &parallelList{e: e, p: p, prefix: prefix}
	spans, err := l.discoverSpans(ctx, e.opts.Shard.Count)
	if err != nil {
		return nil, err
	}
	return &shardSplit{spans: spans, prefix: prefix, base: base, found: l.found}, nil
}

// pieces returns the pieces this run lists on a side whose keys are under
// prefix and named relative to base, in key order.
func (s *shardSplit) pieces(sh shardOf, base string) []piece {
	rebase := func(k string) string {
		if k == "" {
			return ""
		}
		return base + k[len(s.base):]
	}
	keep := func(k string) bool { return sh.keep(k[len(base):]) }
	return shardPieces(s.spans, sh.index, sh.count, rebase, keep)
}

// shardOf is the shard of a run, as the split needs it.
type shardOf struct {
	index, count int
	keep         func(rel string) bool
}

func (e *executor) shardOf() shardOf {
	return shardOf{index: e.opts.Shard.Index, count: e.opts.Shard.Count, keep: e.opts.Shard.Keep}
}

// listPieces lists the pieces ps of st under prefix, passing their objects
// to fn on the caller's goroutine; ordered keeps S3's byte order (ps are
// in key order). Unordered, each of listChains chains lists a range of
// about as much weight.
func (e *executor) listPieces(ctx context.Context, st store.Store, prefix string, ps []piece, ordered bool, fn func(store.Object) error) error {
	if len(ps) == 0 {
		return nil
	}
	l := &parallelList{e: e, p: st.(store.Pager), prefix: prefix, fn: fn}
	if ordered {
		return l.ordered(ctx, &pieceCutter{ps: ps})
	}
	return l.ranges(ctx, merged(ps, listChains))
}
