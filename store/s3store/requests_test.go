package s3store

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequestCounterCountsByOperationFromManyGoroutines(t *testing.T) {
	t.Parallel()
	c := NewRequestCounter()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				c.Count("CopyObject")
			}
			c.Add("ListObjectsV2", 2)
		}()
	}
	wg.Wait()
	got := c.Counts()
	if d := cmp.Diff(map[string]int64{"CopyObject": 800, "ListObjectsV2": 16}, got); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	got["CopyObject"] = 0 // a copy
	if c.Counts()["CopyObject"] != 800 {
		t.Error("Counts shares its map")
	}
}
