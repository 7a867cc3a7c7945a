package engine_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/store"
)

func TestRemove(t *testing.T) {
	tree := map[string]string{"logs/a.json": "a", "logs/b.txt": "b", "logs/sub/c.json": "c", "logs2/d.json": "d", "top.json": "t"}
	tests := []struct {
		name      string
		key       string
		recursive bool
		left      []string
	}{
		{"a recursive remove of a prefix spares its siblings", "logs", true, []string{"logs2/d.json", "top.json"}},
		{"a local wildcard removes what it matches in its directory", "logs/*.json", false, []string{"logs/b.txt", "logs/sub/c.json", "logs2/d.json", "top.json"}},
		{"a local question mark is one character of a name", "log?/a.json", false, []string{"logs/b.txt", "logs/sub/c.json", "logs2/d.json", "top.json"}},
		{"a double star crosses slashes", "logs/**.json", false, []string{"logs/b.txt", "logs2/d.json", "top.json"}},
		{"one key removes one object", "top.json", false, []string{"logs/a.json", "logs/b.txt", "logs/sub/c.json", "logs2/d.json"}},
		{"a missing key is not an error", "nope", false, []string{"logs/a.json", "logs/b.txt", "logs/sub/c.json", "logs2/d.json", "top.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			testfs.Write(t, dir, tree)
			sum, err := engine.New(engine.Config{Concurrency: 4}).Run(context.Background(), engine.Job{Src: endpoint(t, dir, tt.key), Recursive: tt.recursive, Remove: true}, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			left := keys(testfs.Read(t, dir))
			if diff := cmp.Diff(tt.left, left); diff != "" {
				t.Errorf("left (-want +got):\n%s", diff)
			}
			if want := int64(len(tree) - len(tt.left)); sum.Objects != want && tt.key != "nope" {
				t.Errorf("summary = %+v, want %d objects", sum, want)
			}
		})
	}
}

// keys are m's keys in order.
func keys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func TestRemoveOfAPrefixWithoutRecursiveIsFatal(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"logs/a": "a"})
	_, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{Src: endpoint(t, dir, "logs/"), Remove: true}, engine.Options{})
	var fe *engine.FatalError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a FatalError", err)
	}
	if len(testfs.Read(t, dir)) != 1 {
		t.Error("an object was deleted")
	}
}

func TestRemoveDryRunTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"a": "1", "b/c": "2"})
	var c collector
	sum, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{Src: endpoint(t, dir, ""), Recursive: true, Remove: true}, engine.Options{DryRun: true, Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"delete a dry-run", "delete b/c dry-run"}, c.ops()); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if sum.Objects != 2 || len(testfs.Read(t, dir)) != 2 {
		t.Errorf("summary %+v, tree %v: want 2 planned, both still there", sum, testfs.Read(t, dir))
	}
}

// batchStore is a local store with a batch delete, counting the keys of
// each request, and failing the keys in fail.
type batchStore struct {
	store.Store
	fail    map[string]bool
	mu      sync.Mutex
	batches []int
}

func (b *batchStore) DeleteKeys(ctx context.Context, keys []string) ([]store.DeleteError, error) {
	b.mu.Lock()
	b.batches = append(b.batches, len(keys))
	b.mu.Unlock()
	var failed []store.DeleteError
	for _, k := range keys {
		if b.fail[k] {
			failed = append(failed, store.DeleteError{Key: k, Err: store.ErrAccessDenied})
			continue
		}
		if err := b.Delete(ctx, k); err != nil {
			return failed, err
		}
	}
	return failed, nil
}

func TestRemoveBatchesKeysAThousandARequest(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 2500 {
		files[fmt.Sprintf("d%d/%04d", i%5, i)] = ""
	}
	testfs.Write(t, dir, files)
	ep := endpoint(t, dir, "")
	bs := &batchStore{Store: ep.Store, fail: map[string]bool{"d1/0001": true}}
	ep.Store = bs
	var c collector
	sum, err := engine.New(engine.Config{}).Run(context.Background(), engine.Job{Src: ep, Recursive: true, Remove: true}, engine.Options{Observer: c.observe})
	if err != nil {
		t.Fatal(err)
	}
	sort.Ints(bs.batches)
	if diff := cmp.Diff([]int{500, 1000, 1000}, bs.batches); diff != "" {
		t.Errorf("keys per request (-want +got):\n%s", diff)
	}
	if sum.Objects != 2499 || sum.Failed != 1 {
		t.Errorf("summary = %+v, want 2499 done and 1 failed", sum)
	}
	for _, r := range c.results {
		if r.Status == engine.StatusFailed && (r.Task.SrcKey != "d1/0001" || !errors.Is(r.Err, store.ErrAccessDenied)) {
			t.Errorf("failed result %+v, want only d1/0001, access denied", r)
		}
	}
	if diff := cmp.Diff(map[string]string{"d1/0001": ""}, testfs.Read(t, dir)); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
}
