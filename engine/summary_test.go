package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSummaryAddAddsTheCountsOnly(t *testing.T) {
	t.Parallel()
	s := Summary{Objects: 1, Deleted: 1, Bytes: 10, Failed: 1, Skipped: 2, Planned: 3, Unverified: 1, Elapsed: time.Second, Requests: map[string]int64{"GetObject": 1}}
	s.Add(Summary{Objects: 2, Deleted: 1, Bytes: 5, Failed: 1, Skipped: 1, Planned: 2, Unverified: 2, Elapsed: time.Hour, Seconds: 3600, Requests: map[string]int64{"PutObject": 9}})
	want := Summary{Objects: 3, Deleted: 2, Bytes: 15, Failed: 2, Skipped: 3, Planned: 5, Unverified: 3, Elapsed: time.Second, Requests: map[string]int64{"GetObject": 1}}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("sum (-want +got):\n%s", d)
	}
}
