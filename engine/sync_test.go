package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/filter"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// These tests sync between two local directories; the S3 directions run
// against a real S3 server in the CLI's tests.

func syncJob(t *testing.T, srcDir, dstDir string, so engine.SyncOptions) engine.Job {
	t.Helper()
	return engine.Job{Src: endpoint(t, srcDir, ""), Dst: endpoint(t, dstDir, ""), Sync: &so}
}

// ops lists the results as "op key status" lines, sorted.
func (c *collector) ops() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.results {
		key := r.Task.DstKey
		if r.Task.Op == engine.OpDelete || key == "" {
			key = r.Task.SrcKey
		}
		out = append(out, fmt.Sprintf("%s %s %s", r.Task.Op, key, r.Status))
	}
	sort.Strings(out)
	return out
}

func TestSyncBetweenDirectories(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"a.txt": "a", "dir/b.txt": "bb", "dir/sub/c.txt": "ccc"})
	run := func(t *testing.T, so engine.SyncOptions) (engine.Summary, []string) {
		t.Helper()
		var c collector
		sum, err := engine.New(engine.Config{Concurrency: 4}).Run(context.Background(), syncJob(t, srcDir, dstDir, so), engine.Options{Observer: c.observe})
		if err != nil {
			t.Fatal(err)
		}
		return sum, c.ops()
	}

	t.Run("a first sync copies every file", func(t *testing.T) {
		sum, ops := run(t, engine.SyncOptions{})
		want := []string{"stream a.txt done", "stream dir/b.txt done", "stream dir/sub/c.txt done"}
		if diff := cmp.Diff(want, ops); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		if sum.Objects != 3 {
			t.Errorf("summary = %+v, want 3 objects", sum)
		}
		if diff := cmp.Diff(testfs.Read(t, srcDir), testfs.Read(t, dstDir)); diff != "" {
			t.Errorf("destination (-source +destination):\n%s", diff)
		}
	})
	t.Run("a second sync of an unchanged tree copies nothing and reports nothing", func(t *testing.T) {
		sum, ops := run(t, engine.SyncOptions{Delete: true})
		if len(ops) != 0 || sum.Objects != 0 || sum.Skipped != 3 {
			t.Errorf("summary = %+v, results %v; want no results, 3 unchanged", sum, ops)
		}
	})
	t.Run("a changed file is copied again", func(t *testing.T) {
		testfs.Write(t, srcDir, map[string]string{"dir/b.txt": "changed"})
		_, ops := run(t, engine.SyncOptions{})
		if diff := cmp.Diff([]string{"stream dir/b.txt done"}, ops); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		if got := testfs.Read(t, dstDir)["dir/b.txt"]; got != "changed" {
			t.Errorf("dir/b.txt = %q, want changed", got)
		}
	})
	t.Run("without delete a name only at the destination stays", func(t *testing.T) {
		testfs.Write(t, dstDir, map[string]string{"extra.txt": "x"})
		_, ops := run(t, engine.SyncOptions{})
		if len(ops) != 0 {
			t.Errorf("results = %v, want none", ops)
		}
		if _, ok := testfs.Read(t, dstDir)["extra.txt"]; !ok {
			t.Error("extra.txt was deleted without Delete")
		}
	})
	t.Run("with delete a name only at the destination is removed", func(t *testing.T) {
		_, ops := run(t, engine.SyncOptions{Delete: true})
		if diff := cmp.Diff([]string{"delete extra.txt done"}, ops); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(testfs.Read(t, srcDir), testfs.Read(t, dstDir)); diff != "" {
			t.Errorf("destination (-source +destination):\n%s", diff)
		}
	})
}

func TestSyncIntoADirectoryNotMadeYetCopiesEverything(t *testing.T) {
	srcDir := t.TempDir()
	dstDir := filepath.Join(t.TempDir(), "not", "yet")
	testfs.Write(t, srcDir, map[string]string{"a": "1", "b/c": "2"})
	var c collector
	sum, err := engine.New(engine.Config{}).Run(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true}), engine.Options{DryRun: true, Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"stream a dry-run", "stream b/c dry-run"}, c.ops()); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if sum.Objects != 2 {
		t.Errorf("summary = %+v, want 2 objects", sum)
	}
	if _, err := os.Stat(dstDir); !os.IsNotExist(err) {
		t.Errorf("a dry run made the destination (stat: %v)", err)
	}
}

func TestSyncDeletesOnlyAfterEveryCopy(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("new/%02d", i)] = "n"
		testfs.Write(t, dstDir, map[string]string{fmt.Sprintf("old/%02d", i): "o"})
	}
	testfs.Write(t, srcDir, files)
	var c collector
	_, err := engine.New(engine.Config{Concurrency: 8}).Run(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true}), engine.Options{Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	lastCopy, firstDelete := -1, len(c.results)
	for i, r := range c.results {
		if r.Task.Op == engine.OpDelete {
			firstDelete = min(firstDelete, i)
		} else {
			lastCopy = i
		}
	}
	if lastCopy > firstDelete {
		t.Errorf("result %d is a copy, after the first delete (result %d)", lastCopy, firstDelete)
	}
	if diff := cmp.Diff(files, testfs.Read(t, dstDir)); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
}

func TestSyncRefusesMoreDeletesThanTheLimit(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"keep": "k", "new": "n"})
	testfs.Write(t, dstDir, map[string]string{"keep": "k", "x1": "1", "x2": "2", "x3": "3"})
	before := testfs.Read(t, dstDir)
	var c collector
	_, err := engine.New(engine.Config{}).Run(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true, MaxDelete: 2}), engine.Options{Observer: c.observe})
	var le *engine.DeleteLimitError
	if !errors.As(err, &le) || le.Count != 3 || le.Max != 2 {
		t.Fatalf("err = %v, want a DeleteLimitError of 3 over 2", err)
	}
	before["new"] = "n"
	if diff := cmp.Diff(before, testfs.Read(t, dstDir)); diff != "" {
		t.Errorf("destination (-want +got): the copy is done, no delete:\n%s", diff)
	}

	t.Run("and a plan says so too", func(t *testing.T) {
		err := engine.New(engine.Config{}).Plan(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true, MaxDelete: 2}), engine.Options{}).Each(func(engine.Task) error { return nil })
		if !errors.As(err, &le) {
			t.Errorf("err = %v, want a DeleteLimitError", err)
		}
	})
	t.Run("a limit as high as the deletes lets them through", func(t *testing.T) {
		_, err := engine.New(engine.Config{}).Run(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true, MaxDelete: 3}), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{"keep": "k", "new": "n"}, testfs.Read(t, dstDir)); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
	})
}

func TestSyncDeletesNothingWhenACopyFailed(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	// The file "x" cannot replace the destination's directory "x/".
	testfs.Write(t, srcDir, map[string]string{"x": "file", "ok": "ok"})
	testfs.Write(t, dstDir, map[string]string{"x/inner": "i", "stale": "s"})
	var c collector
	sum, err := engine.New(engine.Config{}).Run(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true}), engine.Options{Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"skip stale skipped", "skip x/inner skipped", "stream ok done", "stream x failed"}
	if diff := cmp.Diff(want, c.ops()); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if sum.Failed != 1 {
		t.Errorf("summary = %+v, want 1 failed", sum)
	}
	if got := testfs.Read(t, dstDir); got["stale"] != "s" || got["x/inner"] != "i" {
		t.Errorf("destination %v: an object was deleted after a failed copy", got)
	}
}

func TestSyncFiltersApplyToBothSides(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"a.txt": "a", "b.tmp": "b", "logs/big.txt": strings.Repeat("x", 100)})
	testfs.Write(t, dstDir, map[string]string{"old.tmp": "o", "old.txt": "o", "huge.txt": strings.Repeat("y", 200)})
	max := int64(50)
	f, err := filter.New(filter.Options{Rules: []filter.Rule{filter.Exclude("*.tmp")}, MaxSize: &max})
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	_, err = engine.New(engine.Config{}).Run(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true}), engine.Options{Filter: f.Keep, Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	// Excluded and too big: neither copied from the source nor deleted at
	// the destination.
	want := []string{"delete old.txt done", "stream a.txt done"}
	if diff := cmp.Diff(want, c.ops()); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestSyncShardsTogetherCoverEveryNameOnce(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	src, dst := map[string]string{}, map[string]string{}
	for i := range 60 {
		src[fmt.Sprintf("d%d/f%02d", i%3, i)] = "new"
		if i%4 == 0 {
			dst[fmt.Sprintf("d%d/f%02d", i%3, i)] = "old-and-longer"
		}
		if i%5 == 0 {
			dst[fmt.Sprintf("gone/%02d", i)] = "g"
		}
	}
	testfs.Write(t, srcDir, src)
	testfs.Write(t, dstDir, dst)
	var all []string
	job := syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true})
	err := engine.New(engine.Config{}).Plan(context.Background(), job, engine.Options{}).Each(func(t engine.Task) error {
		all = append(all, string(t.Op)+" "+t.Src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	var union []string
	for i := range n {
		opts := engine.Options{Shard: shard.Shard{Index: i, Count: n}}
		err := engine.New(engine.Config{}).Plan(context.Background(), job, opts).Each(func(t engine.Task) error {
			union = append(union, string(t.Op)+" "+t.Src)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(all)
	sort.Strings(union)
	if len(all) != 60+12 {
		t.Fatalf("the whole plan has %d tasks, want 72", len(all))
	}
	if diff := cmp.Diff(all, union); diff != "" {
		t.Errorf("shards' plans together (-whole +shards):\n%s", diff)
	}
}

func TestSyncNeverDeletesWhatTheSourceListingSkipped(t *testing.T) {
	tests := []struct {
		name    string
		skipped []string
		want    []string
	}{
		{"a skipped directory protects every name below it", []string{"dir"}, []string{"delete other done", "skip dir/a skipped", "skip dir/b/c skipped"}},
		{"a skipped file protects its own name only", []string{"dir/a"}, []string{"delete dir/b/c done", "delete other done", "skip dir/a skipped"}},
		{"a skipped root protects everything", []string{"."}, []string{"skip dir/a skipped", "skip dir/b/c skipped", "skip other skipped"}},
		{"nothing skipped deletes everything", nil, []string{"delete dir/a done", "delete dir/b/c done", "delete other done"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srcDir, dstDir := t.TempDir(), t.TempDir()
			testfs.Write(t, dstDir, map[string]string{"dir/a": "a", "dir/b/c": "c", "other": "o"})
			var c collector
			calls := 0
			// The source lists nothing: AllowEmptySource lets the deletes
			// through to what this test is about.
			so := engine.SyncOptions{Delete: true, AllowEmptySource: true}
			job := syncJob(t, srcDir, dstDir, so)
			job.Src.Store = skippingStore{Store: job.Src.Store, skipped: tt.skipped, calls: &calls}
			_, err := engine.New(engine.Config{}).Run(context.Background(), job, engine.Options{Observer: c.observe})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.ops()); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if calls != 1 {
				t.Errorf("Skipped called %d times, want once", calls)
			}
		})
	}
}

// skippingStore is a store whose listings say they left names out.
type skippingStore struct {
	store.Store
	skipped []string
	calls   *int
}

func (s skippingStore) Skipped() []string { *s.calls++; return s.skipped }

func TestSyncFromADirectoryNeverDeletesWhatItsListingSkipped(t *testing.T) {
	srcDir, dstDir, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"kept": "k"})
	testfs.Write(t, elsewhere, map[string]string{"a": "a"})
	// A symlinked directory is not followed: the listing skips it, and its
	// names at the destination must survive a sync with deletes.
	if err := os.Symlink(elsewhere, filepath.Join(srcDir, "linked")); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dstDir, map[string]string{"kept": "k", "linked/a": "a", "gone": "g"})
	src, err := engine.LocalSource(s3url.Location{Local: true, Key: srcDir + "/"}, engine.LocalOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	dst, err := engine.LocalDestination(s3url.Location{Local: true, Key: dstDir + "/"}, engine.LocalOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	_, err = engine.New(engine.Config{}).Run(context.Background(), engine.Job{Src: src, Dst: dst, Sync: &engine.SyncOptions{Delete: true}}, engine.Options{Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"delete gone done", "skip linked/a skipped"}, c.ops()); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"kept": "k", "linked/a": "a"}, testfs.Read(t, dstDir)); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
}

func TestSyncChecksumComparesContents(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"same": "abc", "differs": "abc"})
	testfs.Write(t, dstDir, map[string]string{"same": "abc", "differs": "xyz"})
	// The destination is newer: comparing sizes and times copies nothing.
	later := time.Now().Add(time.Hour)
	for _, k := range []string{"same", "differs"} {
		if err := os.Chtimes(filepath.Join(dstDir, k), later, later); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		mode diff.Mode
		want []string
	}{
		{"by size and time nothing is copied", diff.SizeAndTime, nil},
		{"by checksum the file whose contents differ is copied", diff.Checksum, []string{"stream differs dry-run"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c collector
			_, err := engine.New(engine.Config{}).Run(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Mode: tt.mode}), engine.Options{DryRun: true, Observer: c.observe})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.ops()); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSyncPlanListsCopiesThenDeletes(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	testfs.Write(t, srcDir, map[string]string{"b": "1", "c": "2"})
	testfs.Write(t, dstDir, map[string]string{"a": "old", "c": "2"})
	var got []string
	err := engine.New(engine.Config{}).Plan(context.Background(), syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true, Mode: diff.SizeOnly}), engine.Options{}).Each(func(t engine.Task) error {
		got = append(got, fmt.Sprintf("%s %s %s", t.Op, t.SrcKey, t.Reason))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"stream b missing at the destination", "delete a only at the destination"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"a": "old", "c": "2"}, testfs.Read(t, dstDir)); diff != "" {
		t.Errorf("planning changed the destination (-want +got):\n%s", diff)
	}
}

// reversed lists a store backwards: the order some S3-compatible stores
// and directory buckets do not promise either.
type reversed struct{ store.Store }

func (r reversed) List(ctx context.Context, prefix, delim string, fn func(store.Object) error) error {
	var all []store.Object
	if err := r.Store.List(ctx, prefix, delim, func(o store.Object) error { all = append(all, o); return nil }); err != nil {
		return err
	}
	for i := len(all) - 1; i >= 0; i-- {
		if err := fn(all[i]); err != nil {
			return err
		}
	}
	return nil
}

func TestSyncOfListingsOutOfOrderIsExact(t *testing.T) {
	srcDir, dstDir := t.TempDir(), t.TempDir()
	src, dst := map[string]string{}, map[string]string{}
	for i := range 40 {
		src[fmt.Sprintf("k%02d", i)] = "new"
		switch i % 3 {
		case 0:
			dst[fmt.Sprintf("k%02d", i)] = "new" // unchanged
		case 1:
			dst[fmt.Sprintf("stale%02d", i)] = "s"
		}
	}
	testfs.Write(t, srcDir, src)
	testfs.Write(t, dstDir, dst)
	job := syncJob(t, srcDir, dstDir, engine.SyncOptions{Delete: true, Mode: diff.SizeOnly})
	job.Src.Store, job.Dst.Store = reversed{job.Src.Store}, reversed{job.Dst.Store}
	var c collector
	sum, err := engine.New(engine.Config{}).Run(context.Background(), job, engine.Options{Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Objects != 26+13 || sum.Skipped != 14 {
		t.Errorf("summary = %+v, want 26 copies and 13 deletes done, 14 unchanged", sum)
	}
	if diff := cmp.Diff(src, testfs.Read(t, dstDir)); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
}
