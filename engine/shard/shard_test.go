package shard

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Shard
		wantErr string
	}{
		{"the first of four is 0/4", "0/4", Shard{0, 4}, ""},
		{"the last of four is 3/4", "3/4", Shard{3, 4}, ""},
		{"one shard keeps everything", "0/1", Shard{0, 1}, ""},
		{"spaces around the numbers are ignored", " 2 / 7 ", Shard{2, 7}, ""},
		{"an index equal to the count is rejected as out of range", "4/4", Shard{}, "numbered from 0"},
		{"a negative index is rejected", "-1/4", Shard{}, "must be from 0 to 3"},
		{"a count of zero is rejected", "0/0", Shard{}, "at least 1"},
		{"a missing slash is rejected", "3", Shard{}, "want i/n"},
		{"a word is not an index", "a/4", Shard{}, "not a whole number"},
		{"a fraction is not a count", "1/2.5", Shard{}, "not a whole number"},
		{"an empty string is rejected", "", Shard{}, "want i/n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
			if got.String() != strings.ReplaceAll(tt.in, " ", "") {
				t.Errorf("String() = %q, want it to read back as %q", got.String(), tt.in)
			}
		})
	}
}

func TestFromJobIndex(t *testing.T) {
	tests := []struct {
		name    string
		index   string
		count   int
		want    Shard
		wantErr string
	}{
		{"pod 0 of a three-pod job is shard 0/3", "0", 3, Shard{0, 3}, ""},
		{"pod 2 of a three-pod job is shard 2/3", "2", 3, Shard{2, 3}, ""},
		{"an unset variable is an error naming it", "", 3, Shard{}, JobIndexEnv},
		{"an index beyond the count is an error", "3", 3, Shard{}, "from 0 to 2"},
		{"a count of zero is an error", "0", 0, Shard{}, "at least 1"},
		{"a non-number is an error", "x", 3, Shard{}, "not a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromJobIndex(tt.index, tt.count)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("FromJobIndex(%q, %d) = %v, %v; want error containing %q", tt.index, tt.count, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FromJobIndex (-want +got):\n%s", diff)
			}
		})
	}
}

func TestZeroShardKeepsEverything(t *testing.T) {
	for _, k := range []string{"", "a", "logs/2026/x.json"} {
		if !(Shard{}).Keep(k) || !(Shard{0, 1}).Keep(k) {
			t.Errorf("key %q was dropped by an unsharded run", k)
		}
	}
}

func key(i int) string { return fmt.Sprintf("data/%04d/part-%08d.parquet", i%1000, i) }

func TestShardsAreDisjointCoverEveryKeyOnceAndAreBalanced(t *testing.T) {
	const keys = 100_000
	for _, n := range []int{1, 2, 3, 7} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			counts := make([]int, n)
			for i := range keys {
				k := key(i)
				owners := 0
				for j := range n {
					if (Shard{j, n}).Keep(k) {
						owners++
						counts[j]++
					}
				}
				if owners != 1 {
					t.Fatalf("key %q is kept by %d shards of %d, want exactly 1", k, owners, n)
				}
			}
			// The keys are fixed, so this cannot flake. For 7 shards a random
			// split has a standard deviation of 0.8% per shard; the worst of
			// these shards is 2.9% off, so 4% is about five deviations.
			want := float64(keys) / float64(n)
			for j, c := range counts {
				if dev := math.Abs(float64(c)-want) / want; dev > 0.04 {
					t.Errorf("shard %d/%d has %d keys, %.1f%% off the even share of %.0f", j, n, c, 100*dev, want)
				}
			}
		})
	}
}

func TestKeysThatDifferInTheirLastCharacterScatter(t *testing.T) {
	// Sequential names are the common case and the one a weak hash gets wrong.
	const n = 16
	seen := make(map[int]bool)
	for i := range 64 {
		seen[Of(fmt.Sprintf("part-%04d", i), n)] = true
	}
	if len(seen) < n-1 {
		t.Errorf("64 sequential names fell into %d of %d shards", len(seen), n)
	}
}

func TestFNVIsTheStandardLibrarys(t *testing.T) {
	for _, k := range []string{"", "a", "logs/2026/x.json", "\xff\x00é"} {
		h := fnv.New64a()
		h.Write([]byte(k))
		if got, want := fnv1a(k), h.Sum64(); got != want {
			t.Errorf("fnv1a(%q) = %#x, hash/fnv says %#x", k, got, want)
		}
	}
}

// The split is a contract between machines and between runs: these values
// must never change. They were computed independently of this code from the
// published definitions of FNV-1a 64 and fmix64.
func TestHashIsPinned(t *testing.T) {
	got := []int{Of("a", 7), Of("logs/2026/x.json", 7), Of("data/0001/part-00000001.parquet", 3), Of("", 2)}
	want := []int{3, 2, 0, 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shard assignments changed (-pinned +now):\n%s", diff)
	}
	if got, want := Hash("logs/2026/x.json"), uint64(0x4caba34291b9810d); got != want {
		t.Errorf("Hash(%q) = %#x, pinned %#x", "logs/2026/x.json", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-1/2", "a/b", "", "/", "1/", "9223372036854775807/9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := Parse(s)
		if err != nil {
			return
		}
		if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("Parse(%q) = %+v: out of range but accepted", s, sh)
		}
		back, err := Parse(sh.String())
		if err != nil || back != sh {
			t.Fatalf("Parse(%q).String() = %q reads back as %+v, %v", s, sh.String(), back, err)
		}
		if o := Of(s, sh.Count); o < 0 || o >= sh.Count {
			t.Fatalf("Of(%q, %d) = %d, out of range", s, sh.Count, o)
		}
	})
}
