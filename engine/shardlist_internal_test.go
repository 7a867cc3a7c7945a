package engine

import (
	"fmt"
	"testing"

	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/store"
)

// skewedKeys is a layout of tenants of very different sizes: tenant t of
// 3 holds 60%, 30% and 10% of n keys in users of 4 files, and a few
// objects lie loose at the top and in each tenant.
func skewedKeys(n int) []string {
	shares := []float64{0.6, 0.3, 0.1}
	var keys []string
	for t, share := range shares {
		files := int(share * float64(n))
		for i := range files {
			keys = append(keys, fmt.Sprintf("tenant-%d/user-%06d/file-%02d.json", t, i/4, i%4))
		}
		keys = append(keys, fmt.Sprintf("tenant-%d/README", t))
	}
	return append(keys, "index.html", "robots.txt")
}

// flatKeys has no '/' at all beyond one folder: discovery cannot read it
// whole, and shares the rest.
func flatKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("logs/%08d.gz", i*7919%n)
	}
	return append(keys, "a/1", "a/2", "z")
}

// shardLists lists st under prefix as shard i of n for every i, and
// returns the keys each run listed and the requests all of them made.
func shardLists(t *testing.T, st *pagedStore, prefix string, n int, ordered bool) ([][]string, int64) {
	t.Helper()
	st.requests.Store(0)
	out := make([][]string, n)
	for i := range n {
		sh, err := shard.New(i, n)
		if err != nil {
			t.Fatal(err)
		}
		e := New(Config{}).newExecutor(Job{}, Options{Shard: sh})
		split, err := e.discoverShards(t.Context(), st, prefix, prefix)
		if err != nil || split == nil {
			t.Fatalf("discovery: %v, %v", split, err)
		}
		last := ""
		err = e.listPieces(t.Context(), st, prefix, split.pieces(e.shardOf(), prefix), ordered, func(o store.Object) error {
			if ordered && o.Key <= last {
				return fmt.Errorf("%q after %q: not in byte order", o.Key, last)
			}
			last = o.Key
			out[i] = append(out[i], o.Key)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out, st.requests.Load()
}

// Every key is listed by exactly one of the n runs, each run lists about
// its share, and the runs together make about the requests of one listing.
func TestShardsListEveryKeyOnceAndAboutTheirShare(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		page  int
		share float64 // most a shard may hold above or below the mean
		// cost is the most requests of the n runs over one unsharded
		// listing's (in parallel, as a run lists); 0: not checked (the
		// discovery is most of a small listing, and docs/shards.md says
		// what a prefix too big to read costs).
		cost float64
	}{
		{"the report's layout, 100,000 keys", reportKeys(100_000), 1000, 0.15, 1.25},
		{"the report's layout, 5,000 keys", reportKeys(5_000), 1000, 0.15, 0},
		{"the report's layout, small pages", reportKeys(20_000), 100, 0.15, 1.2},
		{"skewed tenants", skewedKeys(100_000), 1000, 0.15, 0},
		{"a flat folder larger than discovery reads", flatKeys(100_000), 500, 0.15, 0},
		{"one prefix of 80% among 40", heavyKeys(100_000, 0.8, 39), 1000, 0.15, 0},
		{"a few keys", []string{"a", "b/c", "d"}, 1000, 0, 0},
		{"nothing", nil, 1000, 0, 0},
	}
	for _, tt := range tests {
		for _, n := range []int{2, 3, 8} {
			for _, ordered := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s, %d shards, ordered %v", tt.name, n, ordered), func(t *testing.T) {
					st := newPagedStore(tt.keys, tt.page)
					var want []string
					_ = st.List(t.Context(), "", "", func(o store.Object) error { want = append(want, o.Key); return nil })
					st.requests.Store(0)
					if err := New(Config{}).newExecutor(Job{}, Options{}).list(t.Context(), st, "", ordered, func(store.Object) error { return nil }); err != nil {
						t.Fatal(err)
					}
					one := st.requests.Load()
					got, requests := shardLists(t, st, "", n, ordered)
					seen := map[string]int{}
					for i, keys := range got {
						for _, k := range keys {
							if j, dup := seen[k]; dup {
								t.Fatalf("%q listed by shards %d and %d", k, j, i)
							}
							seen[k] = i
						}
					}
					for _, k := range want {
						if _, ok := seen[k]; !ok {
							t.Fatalf("%q listed by no shard", k)
						}
					}
					if len(seen) != len(want) {
						t.Fatalf("%d keys listed, the source has %d", len(seen), len(want))
					}
					if tt.share > 0 {
						mean := float64(len(want)) / float64(n)
						for i, keys := range got {
							if d := float64(len(keys))/mean - 1; d > tt.share || d < -tt.share {
								t.Errorf("shard %d/%d holds %d keys, %+.1f%% off the mean %.0f", i, n, len(keys), 100*d, mean)
							}
						}
					}
					cost := tt.cost
					if ordered {
						// Ordered, ranges are cut smaller to keep the
						// window of chains busy (listRangeKeys).
						cost *= 1.4
					}
					if cost > 0 && float64(requests) > cost*float64(one) {
						t.Errorf("%d runs made %d requests, %.2fx one listing's %d: want at most %.2fx", n, requests, float64(requests)/float64(one), one, cost)
					}
				})
			}
		}
	}
}

// A rerun makes the same split, and so does a run over another side with
// other names for the same keys (the destination of a sync).
func TestShardSplitIsTheSameOnARerunAndOnTheOtherSide(t *testing.T) {
	keys := skewedKeys(20_000)
	var dstKeys []string
	for _, k := range keys {
		dstKeys = append(dstKeys, "backup/"+k)
	}
	src, dst := newPagedStore(keys, 1000), newPagedStore(dstKeys, 1000)
	a, _ := shardLists(t, src, "", 3, true)
	b, _ := shardLists(t, src, "", 3, true)
	c, _ := func() ([][]string, int64) {
		out := make([][]string, 3)
		for i := range 3 {
			sh, _ := shard.New(i, 3)
			e := New(Config{}).newExecutor(Job{}, Options{Shard: sh})
			split, err := e.discoverShards(t.Context(), src, "", "")
			if err != nil {
				t.Fatal(err)
			}
			err = e.listPieces(t.Context(), dst, "backup/", split.pieces(e.shardOf(), "backup/"), true, func(o store.Object) error {
				out[i] = append(out[i], o.Key[len("backup/"):])
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return out, 0
	}()
	for i := range 3 {
		if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
			t.Errorf("shard %d: a rerun listed other keys", i)
		}
		if fmt.Sprint(a[i]) != fmt.Sprint(c[i]) {
			t.Errorf("shard %d: the other side's names are split otherwise", i)
		}
	}
}

func TestAssignGivesEachShardARunOfAboutItsWeight(t *testing.T) {
	tests := []struct {
		name  string
		spans []span
		n     int
		want  []int
	}{
		{"equal spans", []span{{weight: 1}, {weight: 1}, {weight: 1}, {weight: 1}, {weight: 1}, {weight: 1}}, 3, []int{0, 0, 1, 1, 2, 2}},
		{"a heavy span", []span{{weight: 1}, {weight: 10}, {weight: 1}, {weight: 1}}, 2, []int{0, 0, 1, 1}},
		{"a shared span", []span{{weight: 1}, {shared: true}, {weight: 1}}, 2, []int{0, -1, 1}},
		{"no weight at all", []span{{}, {shared: true}}, 4, []int{0, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := assign(tt.spans, tt.n); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("assign = %v, want %v", got, tt.want)
			}
		})
	}
}

// heavyKeys is a layout of one big tenant: its first-level prefix holds
// share of n keys, and small prefixes of equal size hold the rest, all in
// users of 4 files.
func heavyKeys(n int, share float64, small int) []string {
	var keys []string
	big := int(share * float64(n))
	for i := range big {
		keys = append(keys, fmt.Sprintf("big/user-%06d/file-%02d.json", i/4, i%4))
	}
	rest := n - big
	for i := range rest {
		keys = append(keys, fmt.Sprintf("small-%04d/user-%06d/file-%02d.json", i/4%small, i/4, i%4))
	}
	return keys
}
