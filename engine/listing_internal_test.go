package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// pagedStore is a store.Pager over a sorted key set with S3's listing
// semantics (StartAfter, continuation, delimiter) and small pages, as
// strict as ListObjectsV2 where the lister depends on it. It counts its
// requests. Only listing is implemented.
type pagedStore struct {
	store.Store // nil: any other call panics
	keys        []string
	pageSize    int
	requests    atomic.Int64
	// delay, when set, is every request's latency; busy adds up the
	// latencies the requests took.
	delay time.Duration
	busy  atomic.Int64
}

func newPagedStore(keys []string, pageSize int) *pagedStore {
	k := slices.Clone(keys)
	sort.Strings(k)
	return &pagedStore{keys: slices.Compact(k), pageSize: pageSize}
}

func (s *pagedStore) ListPage(ctx context.Context, q store.ListQuery) (store.Page, error) {
	s.requests.Add(1)
	if s.delay > 0 {
		start := time.Now()
		time.Sleep(s.delay)
		s.busy.Add(int64(time.Since(start)))
	}
	after := q.StartAfter
	if q.Token != "" {
		after = q.Token
	}
	i := sort.SearchStrings(s.keys, q.Prefix)
	if after != "" {
		if q.Token != "" && q.Delimiter != "" && strings.HasSuffix(after, q.Delimiter) {
			for i < len(s.keys) && (s.keys[i] <= after || strings.HasPrefix(s.keys[i], after)) {
				i++
			}
		} else if j := sort.Search(len(s.keys), func(j int) bool { return s.keys[j] > after }); j > i {
			i = j
		}
	}
	var page store.Page
	for ; i < len(s.keys) && strings.HasPrefix(s.keys[i], q.Prefix); i++ {
		if len(page.Objects) == s.pageSize {
			page.Next = page.Objects[len(page.Objects)-1].Key
			break
		}
		k := s.keys[i]
		if q.Delimiter != "" {
			if j := strings.Index(k[len(q.Prefix):], q.Delimiter); j >= 0 {
				cp := k[:len(q.Prefix)+j+len(q.Delimiter)]
				page.Objects = append(page.Objects, store.Object{Key: cp, IsPrefix: true})
				for i+1 < len(s.keys) && strings.HasPrefix(s.keys[i+1], cp) {
					i++
				}
				continue
			}
		}
		page.Objects = append(page.Objects, store.Object{Key: k, Size: int64(len(k))})
	}
	return page, nil
}

// List is one chain, for the comparison.
func (s *pagedStore) List(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error {
	q := store.ListQuery{Prefix: prefix, Delimiter: delimiter}
	for {
		page, err := s.ListPage(ctx, q)
		if err != nil {
			return err
		}
		for _, o := range page.Objects {
			if err := fn(o); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		q.Token = page.Next
	}
}

func reportKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		user := i / 4
		keys[i] = fmt.Sprintf("company-%04d/user-%04d/file-%02d.json", user/100+1, user+1, i%4+1)
	}
	return keys
}

func TestParallelListingsListWhatOneChainLists(t *testing.T) {
	many := func(n int, format string) []string {
		var k []string
		for i := range n {
			k = append(k, fmt.Sprintf(format, i))
		}
		return k
	}
	tests := []struct {
		name   string
		keys   []string
		prefix string
	}{
		{"the report's layout", reportKeys(3000), ""},
		{"the report's layout under a partial prefix", reportKeys(3000), "company-000"},
		{"one company", reportKeys(3000), "company-0002/"},
		{"no slash at all", many(300, "key-%05d"), ""},
		{"one top prefix over many", many(500, "data/part-%03d/x"), ""},
		{"objects between and beside prefixes, and names that sort around a slash", []string{
			"a", "a-b", "a.txt", "a/", "a/x", "a/y/z", "a0", "b/1", "b/2", "b/2/", "b!", "c", "c/d/e/f", "d/\u00e9/1", "d/e/1", "zz",
		}, ""},
		{"a prefix that is also an object name", []string{"logs", "logs/1", "logs/2", "logs-old/1", "logsx"}, "logs"},
		{"nothing under the prefix", reportKeys(40), "nope/"},
		{"empty bucket", nil, ""},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			ordered bool
			serial  int
		}{{true, 0}, {false, 0}, {true, 2}, {false, 2}, {false, listSerialPages}} {
			t.Run(fmt.Sprintf("%s, ordered %v, %d pages first", tt.name, c.ordered, c.serial), func(t *testing.T) {
				ordered := c.ordered
				st := newPagedStore(tt.keys, 7)
				var want []string
				_ = st.List(t.Context(), tt.prefix, "", func(o store.Object) error { want = append(want, o.Key); return nil })
				st.requests.Store(0)
				var got []string
				l := &parallelList{e: New(Config{}).newExecutor(Job{}, Options{}), p: st, prefix: tt.prefix, serialPages: c.serial, fn: func(o store.Object) error {
					if o.IsPrefix {
						t.Errorf("a common prefix %q was passed on", o.Key)
					}
					got = append(got, o.Key)
					return nil
				}}
				if err := l.run(t.Context(), ordered); err != nil {
					t.Fatal(err)
				}
				if !ordered {
					sort.Strings(got)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("listed (-one chain +parallel):\n%s", diff)
				}
			})
		}
	}
}

// Without a '/' the discovery listing is the listing: not one request more
// than one chain. Nor is a listing of a few pages.
func TestParallelListingOfKeysWithoutSlashCostsNoRequestMore(t *testing.T) {
	var keys []string
	for i := range 1000 {
		keys = append(keys, fmt.Sprintf("k%04d", i))
	}
	for _, tt := range []struct {
		name string
		keys []string
	}{{"no slash", keys}, {"a few pages", reportKeys(10 * listSerialPages)}} {
		st := newPagedStore(tt.keys, 10)
		_ = st.List(t.Context(), "", "", func(store.Object) error { return nil })
		one := st.requests.Swap(0)
		e := New(Config{}).newExecutor(Job{}, Options{})
		if err := e.list(t.Context(), st, "", false, func(store.Object) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got := st.requests.Load(); got != one {
			t.Errorf("%s: %d requests, one chain takes %d", tt.name, got, one)
		}
	}
}

// The report's layout: about one chain's requests plus the discovery, and
// several chains at once.
func TestParallelListingSplitsTheReportLayout(t *testing.T) {
	keys := reportKeys(40_000) // 100 companies of 400 keys
	st := newPagedStore(keys, 1000)
	_ = st.List(t.Context(), "", "", func(store.Object) error { return nil })
	one := st.requests.Swap(0)
	e := New(Config{}).newExecutor(Job{}, Options{})
	n := 0
	if err := e.list(t.Context(), st, "", false, func(store.Object) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != len(keys) {
		t.Errorf("%d keys listed, want %d", n, len(keys))
	}
	// One discovery page, the first range's, and at most one extra page
	// per range (its last, which crosses into the next).
	if got, most := st.requests.Load(), one+2+listRanges; got > most {
		t.Errorf("%d requests, want at most %d (one chain: %d)", got, most, one)
	}
	if rs := cut(mustDiscover(t, e, st)); len(rs) < listChains {
		t.Errorf("%d ranges, want at least %d to list side by side", len(rs), listChains)
	}
}

func mustDiscover(t *testing.T, e *executor, st *pagedStore) []string {
	l := &parallelList{e: e, p: st, fn: func(store.Object) error { return nil }}
	b, _, err := l.discover(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A consumer that stops ends every chain, and its error is the listing's.
func TestParallelListingStopsWithTheConsumer(t *testing.T) {
	stop := errors.New("enough")
	for _, ordered := range []bool{true, false} {
		st := newPagedStore(reportKeys(20_000), 50)
		e := New(Config{}).newExecutor(Job{}, Options{})
		n := 0
		err := e.list(t.Context(), st, "", ordered, func(store.Object) error {
			if n++; n == 500 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 500 {
			t.Errorf("ordered %v: err %v after %d objects, want %v after 500", ordered, err, n, stop)
		}
	}
}

// In S3's byte order (ls --recursive through an Engine's Lister, verify,
// sync) the chains still list side by side: at a latency a page, the
// listing keeps several requests in flight on average (the requests'
// latencies added up over the listing's time: a busy machine stretches
// both). 16 chains; 6 on average are asked: this merge keeps 8-10 on a
// busy machine, the former one (64 long ranges, each chain 2 pages ahead)
// kept 3.8. A page takes 100 ms, long beside the CPU the merge and the
// consumer spend on its 1,000 keys: at 50 ms, under the race detector on
// two cores at a load of 24, that CPU was the bound and the chains had
// 6.5-6.7 requests in flight (8.1-9.1 at 100 ms).
func TestOrderedParallelListingListsSideBySide(t *testing.T) {
	if testing.Short() {
		t.Skip("lists 200,000 keys at 100 ms a page")
	}
	keys := reportKeys(200_000) // 500 companies of 400 keys
	st := newPagedStore(keys, 1000)
	st.delay = 100 * time.Millisecond
	pages := (len(keys) + 999) / 1000
	oneChain := time.Duration(pages) * st.delay
	loc, err := s3url.Parse("s3://bucket/")
	if err != nil {
		t.Fatal(err)
	}
	last, n := "", 0
	start := time.Now()
	err = List(t.Context(), New(Config{}).Lister(st), loc, true, nil, func(o store.Object) error {
		if o.Key <= last {
			return fmt.Errorf("%q after %q: not in byte order", o.Key, last)
		}
		last, n = o.Key, n+1
		return nil
	})
	took := time.Since(start)
	if err != nil || n != len(keys) {
		t.Fatalf("listed %d keys, err %v; want %d", n, err, len(keys))
	}
	inFlight := float64(st.busy.Load()) / float64(took)
	if inFlight < 6 {
		t.Errorf("ordered listing of %d pages took %v (one chain: %v), %.1f requests in flight on average: want at least 6",
			pages, took.Round(time.Millisecond), oneChain, inFlight)
	}
	if got, most := st.requests.Load(), int64(2*pages); got > most {
		t.Errorf("%d requests, want at most %d (one chain: %d)", got, most, pages)
	}
}

func TestListEndSaysWhyAListingStopped(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	errList, errFn := errors.New("slow down"), errors.New("send failed")
	for _, tc := range []struct {
		name       string
		ctx        context.Context
		err, fnErr error
		want       error // nil, or an error the answer must be
		fatal      bool
	}{
		{"finished", live, nil, nil, nil, false},
		{"finished, though cancelled after", cancelled, nil, nil, nil, false},
		{"the planner's function stopped it", cancelled, errFn, errFn, errFn, false},
		{"cancelled", cancelled, errList, nil, context.Canceled, false},
		{"the listing failed", live, errList, nil, errList, true},
	} {
		got := listEnd(tc.ctx, tc.err, tc.fnErr, "list", "s3://b/p")
		var fe *FatalError
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s: %v, want nil", tc.name, got)
		case tc.want != nil && !errors.Is(got, tc.want):
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		case errors.As(got, &fe) != tc.fatal:
			t.Errorf("%s: %T, fatal %v", tc.name, got, tc.fatal)
		case tc.fatal && (fe.Op != "list" || fe.URL != "s3://b/p"):
			t.Errorf("%s: %+v, want op list of s3://b/p", tc.name, fe)
		}
	}
}

func TestLsFilterMatchesTheWildcardAndAsksKeepTheRelativeKey(t *testing.T) {
	noLogs := func(o store.Object) bool { return !strings.HasPrefix(o.Key, "logs") }
	for _, tc := range []struct {
		loc  string
		keep func(store.Object) bool
		o    store.Object
		want bool
	}{
		{"s3://bkt/dir/", nil, store.Object{Key: "dir/a"}, true},
		{"s3://bkt/dir/*.txt", nil, store.Object{Key: "dir/a.txt"}, true},
		{"s3://bkt/dir/*.txt", nil, store.Object{Key: "dir/a.csv"}, false},
		{"s3://bkt/dir/", noLogs, store.Object{Key: "dir/logs/x"}, false}, // relative to dir/
		{"s3://bkt/dir/", noLogs, store.Object{Key: "dir/data/x"}, true},
		{"s3://bkt/logs/", noLogs, store.Object{Key: "logs/x"}, true},                   // "x" relative
		{"s3://bkt/dir/", noLogs, store.Object{Key: "dir/logs/", IsPrefix: true}, true}, // prefixes are not filtered
		{"s3://bkt/dir/*", noLogs, store.Object{Key: "dir/logs.txt"}, false},
	} {
		loc, err := s3url.Parse(tc.loc)
		if err != nil {
			t.Fatal(err)
		}
		f := newLsFilter(loc, tc.keep)
		if got := f.shows(tc.o); got != tc.want {
			t.Errorf("shows(%s) of %s (prefix %v) = %v, want %v", tc.o.Key, tc.loc, tc.o.IsPrefix, got, tc.want)
		}
		// A listing that showed nothing of a key or prefix matched nothing.
		var nm *NoMatchError
		if err := f.end(nil); errors.As(err, &nm) == tc.want {
			t.Errorf("end after shows(%s) of %s = %v", tc.o.Key, tc.loc, err)
		}
	}
	root, err := s3url.Parse("s3://bkt")
	if err != nil {
		t.Fatal(err)
	}
	if err := newLsFilter(root, nil).end(nil); err != nil {
		t.Errorf("an empty bucket's root: %v, want nil", err)
	}
	boom := errors.New("boom")
	if err := newLsFilter(root, nil).end(boom); err != boom {
		t.Errorf("a failed listing: %v, want %v", err, boom)
	}
}
