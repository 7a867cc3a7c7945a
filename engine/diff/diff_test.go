package diff

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/store"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)

func objs(keys ...string) []store.Object {
	out := make([]store.Object, len(keys))
	for i, k := range keys {
		out[i] = store.Object{Key: k, Size: int64(len(k)), ModTime: t0.Add(time.Duration(i) * time.Second), ETag: "e-" + k}
	}
	return out
}

// listing yields objs in the order given.
func listing(objs []store.Object) ListFunc {
	return func(ctx context.Context, fn func(store.Object) error) error {
		for _, o := range objs {
			if err := fn(o); err != nil {
				return err
			}
		}
		return nil
	}
}

// event is one handler call, written as a line for readable diffs.
type recorder struct {
	events []string
	late   []string
}

func (r *recorder) handler() Handler {
	return Handler{
		OnlySource: func(s store.Object) error {
			r.events = append(r.events, "source only "+s.Key)
			return nil
		},
		OnlyDest: func(d store.Object) error {
			r.events = append(r.events, "destination only "+d.Key)
			return nil
		},
		Both: func(s, d store.Object) error {
			if s.Key != d.Key {
				return fmt.Errorf("paired %q with %q", s.Key, d.Key)
			}
			r.events = append(r.events, "both "+s.Key)
			return nil
		},
	}
}

// expect is what a correct diff reports, in the order Run reports it when
// both listings stream: OnlySource and Both by key, then OnlyDest by key.
func expect(src, dst []string) []string {
	inS, inD := map[string]bool{}, map[string]bool{}
	for _, k := range src {
		inS[k] = true
	}
	for _, k := range dst {
		inD[k] = true
	}
	var out, dels []string
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range inS {
			if !yield(k) {
				return
			}
		}
		for k := range inD {
			if !inS[k] && !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		switch {
		case inS[k] && inD[k]:
			out = append(out, "both "+k)
		case inS[k]:
			out = append(out, "source only "+k)
		default:
			dels = append(dels, "destination only "+k)
		}
	}
	return append(out, dels...)
}

// fill makes n ascending keys with the given prefix.
func fill(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return out
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		src, dst []string
		opts     Options
		late     int64 // pairs reported source only before a late destination key
		sorted   bool  // whether Run had to sort
		ordS     bool
		ordD     bool
	}{
		{"two empty listings report nothing", nil, nil, Options{}, 0, false, true, true},
		{"an empty destination makes every key source only", []string{"a", "b"}, nil, Options{}, 0, false, true, true},
		{"an empty source makes every key destination only", nil, []string{"a", "b"}, Options{}, 0, false, true, true},
		{"equal listings pair every key", []string{"a", "b", "c"}, []string{"a", "b", "c"}, Options{}, 0, false, true, true},
		{"interleaved listings are merged", []string{"a", "c", "e", "f"}, []string{"b", "c", "d", "f", "g"}, Options{}, 0, false, true, true},
		{"keys are compared as bytes, not as paths", []string{"a-b", "a.b", "a/b", "ab", "z", "é"}, []string{"a-b", "a/b", "é"}, Options{}, 0, false, true, true},
		{"an unsorted source is sorted", []string{"c", "a", "d", "b"}, []string{"a", "b", "c", "e"}, Options{}, 0, true, false, true},
		{"an unsorted destination is sorted", []string{"a", "b", "c"}, []string{"d", "b", "a"}, Options{}, 0, true, true, false},
		{"two unsorted listings are sorted", []string{"q", "x", "b", "m", "a"}, []string{"z", "a", "y", "m", "c"}, Options{}, 0, true, false, false},
		{"sort order sorts sorted listings too", []string{"a", "b"}, []string{"b", "c"}, Options{Order: Sort}, 0, true, true, true},
		{"a memory budget of one object a run still sorts", []string{"e", "d", "c", "b", "a"}, []string{"c", "a", "f", "b"}, Options{Order: Sort, Memory: 1}, 0, true, false, false},
		// Without a probe long enough, source-only reports made before the
		// disorder showed cannot be taken back: they are counted late.
		{"without a probe, a destination disorder is reconciled", []string{"a", "b", "c", "d"}, []string{"b", "d", "c", "a", "e"}, Options{Probe: -1}, 2, true, true, false},
		// The probe reads whole batches: the disorders come after the first.
		{"a destination disorder after the probe is reconciled", []string{"b", "c", "d", "e", "f"},
			slices.Concat([]string{"a", "b", "e", "f"}, fill("x", batchSize), []string{"c", "d", "g"}), Options{Probe: 2}, 2, true, true, false},
		{"a source disorder after the probe is reconciled", slices.Concat([]string{"a", "b"}, fill("x", batchSize), []string{"c", "z"}),
			[]string{"a", "c", "d", "x0007"}, Options{Probe: 2}, 0, true, false, true},
		{"a tiny memory budget makes the probe short", []string{"a", "b", "c"}, []string{"b", "a"}, Options{Memory: 1}, 1, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.opts.TempDir = dir
			var r recorder
			st, err := Run(context.Background(), listing(objs(tt.src...)), listing(objs(tt.dst...)), r.handler(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			want := expect(tt.src, tt.dst)
			if tt.sorted {
				checkLate(t, 0, want, r.events, st.Late)
			} else if diff := cmp.Diff(want, r.events); diff != "" {
				// Streamed: in key order, deletes last.
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if st.Late != tt.late || st.Sorted != tt.sorted || st.SourceOrdered != tt.ordS || st.DestOrdered != tt.ordD {
				t.Errorf("Stats = %+v; want Late %d, Sorted %v, SourceOrdered %v, DestOrdered %v", st, tt.late, tt.sorted, tt.ordS, tt.ordD)
			}
			if st.Source != int64(len(tt.src)) || st.Dest != int64(len(tt.dst)) {
				t.Errorf("Stats counted %d and %d objects, want %d and %d", st.Source, st.Dest, len(tt.src), len(tt.dst))
			}
			if tt.opts.Memory == 0 && st.Spilled != 0 {
				t.Errorf("Spilled = %d bytes; a few keys should never reach the disk", st.Spilled)
			}
			assertEmpty(t, dir)
		})
	}
}

func TestHeldBackObjectsGoToDiskWhenMany(t *testing.T) {
	// 20,000 destination-only keys and as many reported source only are
	// more than the in-memory spools take; the destination then breaks its
	// order after the probe, so the spools are read back and merged.
	var src, dst []string
	for i := range 20_000 {
		src = append(src, fmt.Sprintf("s%06d", i))
		dst = append(dst, fmt.Sprintf("d%06d", i))
	}
	for _, disorder := range []bool{false, true} {
		t.Run(map[bool]string{false: "in order", true: "out of order late"}[disorder], func(t *testing.T) {
			dst := slices.Clone(dst)
			dst = append(dst, "s000005", "s019999", "t1")
			if disorder {
				dst = append(dst, "e")
			}
			dir := t.TempDir()
			var r recorder
			st, err := Run(context.Background(), listing(objs(src...)), listing(objs(dst...)), r.handler(), Options{Probe: 100, TempDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if st.Spilled == 0 {
				t.Errorf("Spilled = 0; %d held-back objects should have gone to disk", len(dst))
			}
			if st.Sorted != disorder {
				t.Errorf("Sorted = %v, want %v", st.Sorted, disorder)
			}
			checkLate(t, 0, expect(src, dst), r.events, st.Late)
			if st.Late != 0 {
				t.Errorf("Late = %d; no key of the destination came after its source", st.Late)
			}
			assertEmpty(t, dir)
		})
	}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

func TestRunPassesObjectsThrough(t *testing.T) {
	// Every field survives, whether the objects streamed or went to disk.
	src := []store.Object{
		{Key: "a", Size: 1, ModTime: t0, ETag: "x", StorageClass: "GLACIER"},
		{Key: "b", Size: 1 << 40, ETag: "", StorageClass: ""},
		{Key: "c\x00é", Size: 0, ModTime: time.Date(1901, 1, 1, 0, 0, 0, 1, time.UTC), IsPrefix: true},
	}
	dst := []store.Object{{Key: "b", Size: 7, ModTime: t0.Add(time.Hour), ETag: "y"}}
	for _, order := range []Order{Verify, Sort} {
		t.Run(fmt.Sprintf("with order %d", order), func(t *testing.T) {
			var gotS, gotD []store.Object
			h := Handler{
				OnlySource: func(s store.Object) error { gotS = append(gotS, s); return nil },
				Both: func(s, d store.Object) error {
					gotS, gotD = append(gotS, s), append(gotD, d)
					return nil
				},
			}
			if _, err := Run(context.Background(), listing(src), listing(dst), h, Options{Order: order, Memory: 1, TempDir: t.TempDir()}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(src, gotS); diff != "" {
				t.Errorf("source objects (-listed +reported):\n%s", diff)
			}
			if diff := cmp.Diff(dst, gotD); diff != "" {
				t.Errorf("destination objects (-listed +reported):\n%s", diff)
			}
		})
	}
}

func TestLateDestinationKeysAreCountedNotDeleted(t *testing.T) {
	// The destination turns out of order after the probe: "a" was reported
	// source only before the destination's "a" came. The copy cannot be
	// taken back; the key must not also be deleted, nor reported again.
	src := []string{"a", "b", "c"}
	dst := slices.Concat([]string{"b", "c"}, fill("d", batchSize), []string{"a"})
	var r recorder
	st, err := Run(context.Background(), listing(objs(src...)), listing(objs(dst...)), r.handler(), Options{Probe: 1, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"source only a", "both b", "both c"}
	for _, k := range fill("d", batchSize) {
		want = append(want, "destination only "+k)
	}
	if diff := cmp.Diff(want, r.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if st.Late != 1 || st.DestOrdered || !st.Sorted {
		t.Errorf("Stats = %+v; want Late 1, DestOrdered false, Sorted true", st)
	}
}

func TestDeletesWaitForBothListings(t *testing.T) {
	// A destination-only key must not be reported while the source listing
	// could still produce it.
	srcDone := make(chan struct{})
	src := func(ctx context.Context, fn func(store.Object) error) error {
		defer close(srcDone)
		for _, o := range objs("m", "n") {
			if err := fn(o); err != nil {
				return err
			}
		}
		return nil
	}
	h := Handler{OnlyDest: func(d store.Object) error {
		select {
		case <-srcDone:
			return nil
		default:
			return fmt.Errorf("%q reported destination only before the source listing ended", d.Key)
		}
	}}
	if _, err := Run(context.Background(), src, listing(objs("a", "b", "z")), h, Options{Probe: -1, TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
}

// TestRandomListings compares Run with a map-based diff over many random
// pairs of listings, in every order and configuration.
func TestRandomListings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	configs := []struct {
		name  string
		opts  Options
		cases int
		late  bool // whether some cases must have reported late pairs
	}{
		{"defaults", Options{}, 200, false},
		{"no probe", Options{Probe: -1}, 200, true},
		{"a short probe", Options{Probe: 3}, 200, true},
		// Runs of a few objects each: many temporary files, so fewer cases.
		{"sort order and tiny runs", Options{Order: Sort, Memory: 2000}, 30, false},
		{"a short probe and tiny runs", Options{Probe: 5, Memory: 1}, 30, true},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			var late int64
			defer func() {
				if c.late && late == 0 {
					t.Errorf("no case reported a late pair: the reconciliation after a late disorder went untested")
				}
				if !c.late && late != 0 {
					t.Errorf("%d late pairs where none can happen", late)
				}
			}()
			for i := range c.cases {
				n := rng.IntN(700) // beyond a batch, so disorders come before and after the probe
				universe := rng.Perm(n)
				var src, dst []string
				for _, k := range universe {
					key := fmt.Sprintf("k%04d", k)
					if rng.IntN(3) > 0 {
						src = append(src, key)
					}
					if rng.IntN(3) > 0 {
						dst = append(dst, key)
					}
				}
				// Sorted, sorted with one key moved, or shuffled.
				for _, l := range [][]string{src, dst} {
					switch rng.IntN(4) {
					case 0, 1:
						slices.Sort(l)
					case 2:
						slices.Sort(l)
						if len(l) > 1 {
							j, k := rng.IntN(len(l)), rng.IntN(len(l))
							l[j], l[k] = l[k], l[j]
						}
					}
				}
				opts := c.opts
				opts.TempDir = t.TempDir()
				var r recorder
				st, err := Run(context.Background(), listing(objs(src...)), listing(objs(dst...)), r.handler(), opts)
				if err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				checkLate(t, i, expect(src, dst), r.events, st.Late)
				late += st.Late
				assertEmpty(t, opts.TempDir)
			}
		})
	}
}

// checkLate checks got against want allowing exactly late pairs to have
// been reported as source only: each key exactly once, deletes exact.
func checkLate(t *testing.T, i int, want, got []string, late int64) {
	t.Helper()
	g := map[string]bool{}
	for _, e := range got {
		if g[e] {
			t.Fatalf("case %d: %q reported twice", i, e)
		}
		g[e] = true
	}
	var missing []string
	var lateSeen int64
	for _, e := range want {
		if g[e] {
			delete(g, e)
			continue
		}
		if k, ok := strings.CutPrefix(e, "both "); ok && g["source only "+k] {
			delete(g, "source only "+k)
			lateSeen++
			continue
		}
		missing = append(missing, e)
	}
	if len(missing) > 0 || len(g) > 0 {
		t.Fatalf("case %d: missing %v, unexpected %v", i, missing, g)
	}
	if lateSeen != late {
		t.Fatalf("case %d: %d pairs were reported source only, Stats.Late = %d", i, lateSeen, late)
	}
}

func TestManyRunsAreMergedInStages(t *testing.T) {
	// With one object per run, 500 keys make more runs than are merged at
	// once.
	rng := rand.New(rand.NewPCG(3, 4))
	var src, dst []string
	for _, k := range rng.Perm(500) {
		src = append(src, fmt.Sprintf("%05d", k))
	}
	for _, k := range rng.Perm(400) {
		dst = append(dst, fmt.Sprintf("%05d", k*2))
	}
	var r recorder
	dir := t.TempDir()
	st, err := Run(context.Background(), listing(objs(src...)), listing(objs(dst...)), r.handler(), Options{Order: Sort, Memory: 1, TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs < 2*maxFanIn {
		t.Errorf("Runs = %d, want more than %d to exercise staged merges", st.Runs, 2*maxFanIn)
	}
	want := expect(src, dst)
	slices.Sort(want)
	got := slices.Clone(r.events)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	assertEmpty(t, dir)
}

func TestDuplicateKeysAreAnError(t *testing.T) {
	tests := []struct {
		name     string
		src, dst []string
		opts     Options
	}{
		{"a sorted source listing a key twice", []string{"a", "b", "b", "c"}, nil, Options{}},
		{"an unsorted destination listing a key twice", nil, []string{"c", "a", "c"}, Options{}},
		{"a key listed twice after the probe", []string{"a", "b", "c", "c"}, []string{"a"}, Options{Probe: 1}},
		{"a key listed twice in sorted runs", []string{"b", "a", "b"}, nil, Options{Memory: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.opts.TempDir = dir
			var r recorder
			_, err := Run(context.Background(), listing(objs(tt.src...)), listing(objs(tt.dst...)), r.handler(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), "twice") {
				t.Fatalf("Run = %v, want an error about a key listed twice", err)
			}
			assertEmpty(t, dir)
		})
	}
}

// watched wraps a listing to record that it returned.
func watched(l ListFunc, returned *atomic.Bool) ListFunc {
	return func(ctx context.Context, fn func(store.Object) error) error {
		defer returned.Store(true)
		return l(ctx, fn)
	}
}

// endless lists keys forever, until fn fails.
func endless(ctx context.Context, fn func(store.Object) error) error {
	for i := 0; ; i++ {
		if err := fn(store.Object{Key: fmt.Sprintf("%012d", i)}); err != nil {
			return err
		}
	}
}

var errBoom = errors.New("boom")

// failing lists n keys, then fails.
func failing(n int) ListFunc {
	return func(ctx context.Context, fn func(store.Object) error) error {
		for i := range n {
			if err := fn(store.Object{Key: fmt.Sprintf("%012d", i)}); err != nil {
				return err
			}
		}
		return errBoom
	}
}

func TestErrorsStopEverything(t *testing.T) {
	stopAfter := func(n int) func() error {
		return func() error {
			if n--; n == 0 {
				return errBoom
			}
			return nil
		}
	}
	tests := []struct {
		name     string
		src, dst ListFunc
		h        func() Handler
		opts     Options
		wantErr  string
	}{
		{
			name:    "a failing source listing stops the endless destination",
			src:     failing(5000),
			dst:     endless,
			wantErr: "list source: boom",
		},
		{
			name:    "a failing destination listing stops the endless source while sorting",
			src:     endless,
			dst:     failing(10),
			opts:    Options{Order: Sort, Memory: 1 << 16},
			wantErr: "list destination: boom",
		},
		{
			name: "a handler's error stops both endless listings and is returned as is",
			src:  endless,
			dst:  endless,
			h: func() Handler {
				stop := stopAfter(1000)
				return Handler{Both: func(s, d store.Object) error { return stop() }}
			},
			wantErr: "boom",
		},
		{
			name: "a handler's error while reconciling is returned as is",
			src:  listing(objs("a", "c", "b")),
			dst:  listing(objs("a", "b", "c")),
			h: func() Handler {
				return Handler{Both: func(s, d store.Object) error { return errBoom }}
			},
			opts:    Options{Probe: -1},
			wantErr: "boom",
		},
		{
			name: "a listing that failed is never taken for a complete one",
			src:  failing(0),
			dst:  listing(objs("a")),
			h: func() Handler {
				return Handler{OnlyDest: func(d store.Object) error {
					return errors.New("reported a delete from a failed listing")
				}}
			},
			wantErr: "list source: boom",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srcRet, dstRet atomic.Bool
			dir := t.TempDir()
			tt.opts.TempDir = dir
			var h Handler
			if tt.h != nil {
				h = tt.h()
			}
			_, err := Run(context.Background(), watched(tt.src, &srcRet), watched(tt.dst, &dstRet), h, tt.opts)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Run = %v, want %q", err, tt.wantErr)
			}
			if !errors.Is(err, errBoom) {
				t.Errorf("errors.Is(%v, errBoom) = false", err)
			}
			if !srcRet.Load() || !dstRet.Load() {
				t.Errorf("a listing was still running after Run returned: source %v, destination %v", srcRet.Load(), dstRet.Load())
			}
			assertEmpty(t, dir)
		})
	}
}

func TestCancelStopsEverything(t *testing.T) {
	for _, order := range []Order{Verify, Sort} {
		t.Run(fmt.Sprintf("with order %d", order), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// The source cancels the run itself after a while: no timing.
			n := 0
			src := func(ctx context.Context, fn func(store.Object) error) error {
				return endless(ctx, func(o store.Object) error {
					if n++; n == 20_000 {
						cancel()
					}
					return fn(o)
				})
			}
			var srcRet, dstRet atomic.Bool
			dir := t.TempDir()
			_, err := Run(ctx, watched(src, &srcRet), watched(endless, &dstRet), Handler{}, Options{Order: order, Memory: 1 << 20, TempDir: dir})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run = %v, want context.Canceled", err)
			}
			if !srcRet.Load() || !dstRet.Load() {
				t.Errorf("a listing was still running after Run returned: source %v, destination %v", srcRet.Load(), dstRet.Load())
			}
			assertEmpty(t, dir)
		})
	}
}

type sliceLister []store.Object

func (l sliceLister) List(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error {
	for _, o := range l {
		if strings.HasPrefix(o.Key, prefix) {
			if err := fn(o); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestRelative(t *testing.T) {
	l := sliceLister{
		{Key: "logs/"},                      // the base's own marker
		{Key: "logs/a.json", Size: 1},       // kept as a.json
		{Key: "logs/2026/", IsPrefix: true}, // a common prefix
		{Key: "logs/2026/b.json", Size: 2},  // kept as 2026/b.json
		{Key: "logs2/c.json"},               // listed by the prefix, outside the base
	}
	var got []store.Object
	err := Relative(l, "logs", "logs/")(context.Background(), func(o store.Object) error {
		got = append(got, o)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Object{{Key: "a.json", Size: 1}, {Key: "2026/b.json", Size: 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Relative (-want +got):\n%s", diff)
	}
}
