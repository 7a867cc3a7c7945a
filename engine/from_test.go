package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/store"
)

// keyList is Objects of keys of unknown size, as a key list gives them.
type keyList []string

func (k keyList) Objects(ctx context.Context, fn func(store.Object) error) error {
	for _, key := range k {
		if err := fn(store.Object{Key: key, Size: -1}); err != nil {
			return err
		}
	}
	return nil
}

func TestPlanFromAListHeadsEachKeyInOrder(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	tree := map[string]string{}
	var list keyList
	for i := range 600 { // more than the HEADs in flight at once
		k := fmt.Sprintf("d/%03d", 599-i)
		tree[k] = k
		list = append(list, k)
	}
	testfs.Write(t, src, tree)
	list = append(list, "d/missing", "elsewhere/x")
	job := engine.Job{Src: endpoint(t, src, "./d/"), Dst: endpoint(t, dst, "./"), From: list}
	for _, sh := range []shard.Shard{{}, {Index: 1, Count: 3}} {
		t.Run("shard "+sh.String(), func(t *testing.T) {
			var got, want []string
			for _, k := range list[:600] {
				if sh.Keep(k[len("d/"):]) {
					want = append(want, k+fmt.Sprintf(" %d", len(k)))
				}
			}
			if sh.Keep("missing") {
				want = append(want, "d/missing "+engine.ReasonGone)
			}
			err := engine.New(engine.Config{Concurrency: 8}).Plan(context.Background(), job, engine.Options{Shard: sh}).Each(func(task engine.Task) error {
				if task.Op == engine.OpSkip {
					got = append(got, task.SrcKey+" "+task.Reason)
				} else {
					got = append(got, task.SrcKey+fmt.Sprintf(" %d", task.Size))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}
