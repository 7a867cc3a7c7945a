package cli

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/s3url"
)

// listingTree has enough common prefixes for the listing to run as several
// chains over ranges, objects between and beside them, and names that sort
// just before and after a '/'. (Directory markers are
// covered by the engine's tests: versitygw refuses to copy one.)
func listingTree() map[string]string {
	tree := map[string]string{
		"data/top.json": "top", "data/p05.json": "beside a prefix", "data/p05-x/a.json": "sorts before p05/",
		"data/p05.": "dot", "data/zz": "last",
	}
	for p := range 24 {
		for f := range 3 {
			tree[fmt.Sprintf("data/p%02d/u%d/f.json", p, f)] = fmt.Sprintf("%d-%d", p, f)
		}
		tree[fmt.Sprintf("data/p%02d/direct.txt", p)] = "direct"
	}
	return tree
}

func seedListingTree(t *testing.T, srv *s3test.Server, bucket string, tree map[string]string) {
	t.Helper()
	c := srv.Client(t)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for k, v := range tree {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			s3test.PutObject(t, c, bucket, k, []byte(v))
		})
	}
	wg.Wait()
}

// Listings run in parallel select exactly what one listing would: every
// object once for cp, the same pairs for sync, the same matches for a
// wildcard.
func TestParallelListingsSelectExactlyTheObjects(t *testing.T) {
	t.Parallel()
	srv, src := newBucket(t)
	tree := listingTree()
	seedListingTree(t, srv, src, tree)

	t.Run("cp --recursive copies every object once", func(t *testing.T) {
		dst := srv.NewBucket(t)
		out := mustRun(t, srv, "cp", "--recursive", "s3://"+src+"/data/", "s3://"+dst+"/")
		if n := strings.Count(out, "\n"); n != len(tree) {
			t.Errorf("printed %d lines, want %d", n, len(tree))
		}
		if diff := cmp.Diff(unprefixed("data/", tree), bucketContents(t, srv, dst, "")); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
	})

	t.Run("sync --delete makes the destination equal, then finds nothing to do", func(t *testing.T) {
		dst := srv.NewBucket(t)
		stale := map[string]string{"p00/u0/f.json": "old, other size", "p03/gone.json": "x", "p17/u9/gone": "y", "aaa": "z", "zzz/q": "w"}
		seedListingTree(t, srv, dst, stale)
		mustRun(t, srv, "sync", "--delete", "s3://"+src+"/data/", "s3://"+dst+"/")
		if diff := cmp.Diff(unprefixed("data/", tree), bucketContents(t, srv, dst, "")); diff != "" {
			t.Errorf("destination after sync (-want +got):\n%s", diff)
		}
		out, stderr := mustRunJSON(t, srv, "sync", "--delete", "s3://"+src+"/data/", "s3://"+dst+"/")
		if out != "" {
			t.Errorf("a second sync did something:\n%s\n%s", out, stderr)
		}
	})

	t.Run("a wildcard matches what it matches in one listing", func(t *testing.T) {
		dst := srv.NewBucket(t)
		pattern := "s3://" + src + "/data/p1*/u1/*.json"
		loc, err := s3url.Parse(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for k := range tree {
			if strings.HasPrefix(k, loc.Prefix()) && loc.Match(k) {
				want = append(want, k)
			}
		}
		if len(want) == 0 {
			t.Fatal("the pattern matches nothing: the test would prove nothing")
		}
		out := mustRun(t, srv, "--json", "cp", pattern, "s3://"+dst+"/w/")
		var got []string
		for line := range strings.Lines(out) {
			if i := strings.Index(line, `"src":"s3://`+src+`/`); i >= 0 {
				k := line[i+len(`"src":"s3://`+src+`/`):]
				got = append(got, k[:strings.IndexByte(k, '"')])
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("copied sources (-want +got):\n%s", diff)
		}
	})
}
