package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/localstore"
)

// These tests run the engine between two local directories: a real store,
// no S3 needed. The S3 directions are covered by the CLI's integration tests
// against a real S3 server.

func endpoint(t *testing.T, root, key string) engine.Endpoint {
	t.Helper()
	st, err := localstore.New(root, localstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	loc, err := s3url.Parse(key)
	if key == "" {
		loc, err = s3url.Parse("./")
		loc.Key = ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return engine.Endpoint{Store: st, Loc: loc}
}

type collector struct {
	mu      sync.Mutex
	results []engine.Result
}

func (c *collector) observe(r engine.Result) {
	c.mu.Lock()
	c.results = append(c.results, r)
	c.mu.Unlock()
}

func (c *collector) dsts(status engine.Status) []string {
	var out []string
	for _, r := range c.results {
		if r.Status == status {
			out = append(out, r.Task.DstKey)
		}
	}
	sort.Strings(out)
	return out
}

func TestRun(t *testing.T) {
	src := map[string]string{
		"logs/2026-01/a.json": "a",
		"logs/2026-01/b.txt":  "bb",
		"logs/2026-02/c.json": "ccc",
		"logs/2025-12/d.json": "dddd",
		"other/e.json":        "eeeee",
		"empty.json":          "",
	}
	tests := []struct {
		name      string
		srcKey    string
		recursive bool
		dstKey    string
		want      map[string]string
	}{
		{
			name: "a recursive copy keeps keys below the source prefix", srcKey: "logs/", recursive: true, dstKey: "archive/",
			want: map[string]string{"archive/2026-01/a.json": "a", "archive/2026-01/b.txt": "bb", "archive/2026-02/c.json": "ccc", "archive/2025-12/d.json": "dddd"},
		},
		{
			name: "a recursive copy of a prefix without a slash does not catch siblings", srcKey: "logs", recursive: true, dstKey: "x",
			want: map[string]string{"x/2026-01/a.json": "a", "x/2026-01/b.txt": "bb", "x/2026-02/c.json": "ccc", "x/2025-12/d.json": "dddd"},
		},
		{
			name: "a wildcard keeps keys below the last fixed segment", srcKey: "logs/2026-*/*.json", dstKey: "archive/",
			want: map[string]string{"archive/2026-01/a.json": "a", "archive/2026-02/c.json": "ccc"},
		},
		{
			name: "a double star crosses slashes but its slash needs one", srcKey: "**/*.json", dstKey: "all/",
			want: map[string]string{"all/logs/2026-01/a.json": "a", "all/logs/2026-02/c.json": "ccc", "all/logs/2025-12/d.json": "dddd", "all/other/e.json": "eeeee"},
		},
		{
			name: "a local star stays in its directory", srcKey: "*.json", dstKey: "all/",
			want: map[string]string{"all/empty.json": ""},
		},
		{
			name: "one object goes to an exact key", srcKey: "other/e.json", dstKey: "renamed.json",
			want: map[string]string{"renamed.json": "eeeee"},
		},
		{
			name: "one object goes into a directory keeping its name", srcKey: "other/e.json", dstKey: "dir/",
			want: map[string]string{"dir/e.json": "eeeee"},
		},
		{
			name: "an empty object is copied", srcKey: "empty.json", dstKey: "e2.json",
			want: map[string]string{"e2.json": ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srcDir, dstDir := t.TempDir(), t.TempDir()
			testfs.Write(t, srcDir, src)
			var c collector
			sum, err := engine.New(engine.Config{Concurrency: 4}).Run(context.Background(), engine.Job{
				Src: endpoint(t, srcDir, tt.srcKey), Dst: endpoint(t, dstDir, tt.dstKey), Recursive: tt.recursive,
			}, engine.Options{Observer: c.observe})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, testfs.Read(t, dstDir)); diff != "" {
				t.Errorf("destination (-want +got):\n%s", diff)
			}
			if sum.Objects != int64(len(tt.want)) || sum.Failed != 0 {
				t.Errorf("summary = %+v, want %d objects, 0 failed", sum, len(tt.want))
			}
			if diff := cmp.Diff(src, testfs.Read(t, srcDir)); diff != "" {
				t.Errorf("source changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDryRunTouchesNothing(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"a/1": "1", "a/2": "22"})
	var c collector
	sum, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{
		Src: endpoint(t, srcDir, "a/"), Dst: endpoint(t, dstDir, "b/"), Recursive: true, Move: true,
	}, engine.Options{DryRun: true, Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	if got := testfs.Read(t, dstDir); len(got) != 0 {
		t.Errorf("dry run wrote %v", got)
	}
	if got := testfs.Read(t, srcDir); len(got) != 2 {
		t.Errorf("dry run of a move changed the source: %v", got)
	}
	if diff := cmp.Diff([]string{"b/1", "b/2"}, c.dsts(engine.StatusDryRun)); diff != "" {
		t.Errorf("dry-run plan (-want +got):\n%s", diff)
	}
	if sum.Objects != 2 {
		t.Errorf("summary objects = %d, want 2", sum.Objects)
	}
}

func TestMoveDeletesSourceAfterCopy(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"a/1": "1", "a/2": "22"})
	_, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{
		Src: endpoint(t, srcDir, "a/"), Dst: endpoint(t, dstDir, ""), Recursive: true, Move: true,
	}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"1": "1", "2": "22"}, testfs.Read(t, dstDir)); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
	if got := testfs.Read(t, srcDir); len(got) != 0 {
		t.Errorf("source left after move: %v", got)
	}
}

func TestNoClobberSkipsExisting(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"1": "new", "2": "new"})
	testfs.Write(t, dstDir, map[string]string{"1": "old"})
	var c collector
	sum, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{
		Src: endpoint(t, srcDir, "./"), Dst: endpoint(t, dstDir, ""), Recursive: true,
	}, engine.Options{NoClobber: true, Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"1": "old", "2": "new"}, testfs.Read(t, dstDir)); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
	if sum.Skipped != 1 || sum.Objects != 1 {
		t.Errorf("summary = %+v, want 1 done 1 skipped", sum)
	}
}

func TestMissingSingleSourceMatchesNothing(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	_, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{
		Src: endpoint(t, srcDir, "nope.txt"), Dst: endpoint(t, dstDir, "x"),
	}, engine.Options{})
	var nm *engine.NoMatchError
	if err == nil || !strings.Contains(err.Error(), "no object matches") {
		t.Fatalf("err = %v, want a no object matches error", err)
	}
	if !errors.As(err, &nm) {
		t.Errorf("err = %T, want *engine.NoMatchError", err)
	}
}

func TestMultipartLocalCopyIsExact(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	big := strings.Repeat("0123456789abcdef", (12<<20)/16+3) // 12 MiB + 48 bytes: 3 parts of 5 MiB
	testfs.Write(t, srcDir, map[string]string{"big.bin": big})
	var c collector
	_, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{
		Src: endpoint(t, srcDir, "big.bin"), Dst: endpoint(t, dstDir, "copy.bin"),
	}, engine.Options{PartSize: 5 << 20, MultipartThreshold: 5 << 20, Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	if got := testfs.Read(t, dstDir)["copy.bin"]; got != big {
		t.Errorf("copy differs: %d bytes, want %d", len(got), len(big))
	}
	if len(c.results) != 1 || c.results[0].Parts != 3 {
		t.Errorf("results = %+v, want one result in 3 parts", c.results)
	}
}

func TestCatWritesTheObjectOrSaysItIsMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	ep := endpoint(t, dir, "")
	var out bytes.Buffer
	if err := engine.Cat(context.Background(), ep.Store, s3url.Location{Bucket: "b", Key: "a.txt"}, &out); err != nil || out.String() != "hello" {
		t.Errorf("Cat: %q, %v", out.String(), err)
	}
	err := engine.Cat(context.Background(), ep.Store, s3url.Location{Bucket: "b", Key: "none"}, &out)
	if err == nil || err.Error() != "cat s3://b/none: no such object" {
		t.Errorf("Cat of a missing object: %v", err)
	}
}

func TestNamesObjectOnlyForAWildcardThatIsAKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"star*", "plain"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		key  string
		raw  bool
		want bool
	}{
		{"star*", false, true},
		{"sta*", false, false},
		{"star*", true, false}, // raw: no wildcard
		{"plain", false, false},
	}
	for _, tt := range tests {
		ep := endpoint(t, dir, "")
		loc, err := s3url.Options{Raw: tt.raw}.Parse("s3://bucket/" + tt.key)
		if err != nil {
			t.Fatal(err)
		}
		ep.Loc = loc
		if got := engine.NamesObject(context.Background(), ep); got != tt.want {
			t.Errorf("NamesObject(%s, raw %t) = %t, want %t", tt.key, tt.raw, got, tt.want)
		}
	}
}
