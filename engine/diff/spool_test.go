package diff

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/store"
)

func TestSpoolGivesBackWhatWasAdded(t *testing.T) {
	for _, n := range []int{0, 3, 30_000} {
		t.Run(fmt.Sprintf("%d objects come back in order", n), func(t *testing.T) {
			dir := t.TempDir()
			sp := &Spool{Dir: dir}
			var want []store.Object
			for i := range n {
				o := store.Object{Key: fmt.Sprintf("dir/with\nnewline-%06d", i), Size: int64(i) - 1, ETag: strings.Repeat("e", i%40), StorageClass: strings.Repeat("G", i%3), IsPrefix: i%5 == 0}
				if i%2 == 0 {
					o.ModTime = time.Unix(1_700_000_000+int64(i), int64(i))
				}
				want = append(want, o)
				if err := sp.Add(o); err != nil {
					t.Fatal(err)
				}
			}
			var got []store.Object
			err := sp.Each(func(o store.Object) error { got = append(got, o); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			spilled := sp.Spilled()
			if spilled != (n == 30_000) {
				t.Errorf("spilled to a file = %v for %d objects", spilled, n)
			}
			if err := sp.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}
