package engine_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// uploads is a fake of the multipart listing and abort, for the logic of
// AbortUploads only: which uploads it selects, how many aborts it keeps in
// flight, how it counts failures. The S3 path is tested in internal/cli
// against the embedded server.
type uploads struct {
	store.Multipart // nil: only the two methods below are called
	list            []store.Upload
	fail            map[string]bool

	mu               sync.Mutex
	aborted          []string
	inFlight, record atomic.Int64
}

func (u *uploads) ListMultipartUploads(ctx context.Context, prefix string, fn func(store.Upload) error) error {
	for _, up := range u.list {
		if strings.HasPrefix(up.Key, prefix) {
			if err := fn(up); err != nil {
				return err
			}
		}
	}
	return nil
}

func (u *uploads) AbortMultipart(ctx context.Context, key, uploadID string) error {
	n := u.inFlight.Add(1)
	defer u.inFlight.Add(-1)
	for r := u.record.Load(); n > r && !u.record.CompareAndSwap(r, n); r = u.record.Load() {
	}
	time.Sleep(time.Millisecond) // let aborts overlap
	if u.fail[key] {
		return errors.New("abort " + key + ": access denied")
	}
	u.mu.Lock()
	u.aborted = append(u.aborted, key)
	u.mu.Unlock()
	return nil
}

func TestAbortUploads(t *testing.T) {
	now := time.Now()
	var list []store.Upload
	for _, k := range []string{"tmp/a", "tmp/b.json", "tmp/c.json", "keep/d"} {
		list = append(list, store.Upload{Key: k, UploadID: "id-" + k, Initiated: now.Add(-48 * time.Hour)})
	}
	list = append(list, store.Upload{Key: "tmp/young", UploadID: "id-young", Initiated: now})
	loc := func(s string) s3url.Location {
		l, err := s3url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	tests := []struct {
		name      string
		loc       string
		opts      engine.Options
		olderThan time.Duration
		fail      map[string]bool
		aborted   []string
		sum       engine.Summary
	}{
		{"a prefix aborts every upload under it", "s3://bkt/tmp/", engine.Options{Workers: 2}, 0, nil,
			[]string{"tmp/a", "tmp/b.json", "tmp/c.json", "tmp/young"}, engine.Summary{Objects: 4}},
		{"older-than spares younger uploads", "s3://bkt/tmp/", engine.Options{Workers: 2}, 24 * time.Hour, nil,
			[]string{"tmp/a", "tmp/b.json", "tmp/c.json"}, engine.Summary{Objects: 3}},
		{"a wildcard selects among the uploads under its prefix", "s3://bkt/tmp/*.json", engine.Options{Workers: 2}, 0, nil,
			[]string{"tmp/b.json", "tmp/c.json"}, engine.Summary{Objects: 2}},
		{"a failed abort is counted and the others go on", "s3://bkt/tmp/", engine.Options{Workers: 2}, 24 * time.Hour, map[string]bool{"tmp/a": true},
			[]string{"tmp/b.json", "tmp/c.json"}, engine.Summary{Objects: 2, Failed: 1}},
		{"a dry run aborts nothing", "s3://bkt/", engine.Options{Workers: 2, DryRun: true}, 0, nil,
			nil, engine.Summary{Objects: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mp := &uploads{list: list, fail: tt.fail}
			var mu sync.Mutex
			seen := map[engine.Status]int64{}
			sum, err := engine.New(engine.Config{Concurrency: 2}).AbortUploads(t.Context(), mp, loc(tt.loc), tt.opts, engine.AbortOptions{
				OlderThan: tt.olderThan,
				Observer: func(r engine.UploadResult) {
					mu.Lock()
					defer mu.Unlock()
					seen[r.Status]++
					if (r.Status == engine.StatusFailed) != (r.Err != nil) {
						t.Errorf("%s: status %s, error %v", r.Upload.Key, r.Status, r.Err)
					}
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(mp.aborted)
			if diff := cmp.Diff(tt.aborted, mp.aborted); diff != "" {
				t.Errorf("aborted (-want +got):\n%s", diff)
			}
			sum.Elapsed, sum.Seconds = 0, 0
			if diff := cmp.Diff(tt.sum, sum); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if seen[engine.StatusDone]+seen[engine.StatusDryRun] != tt.sum.Objects || seen[engine.StatusFailed] != tt.sum.Failed {
				t.Errorf("observer saw %v, summary %+v", seen, sum)
			}
			if n := mp.record.Load(); n > 2 {
				t.Errorf("%d aborts in flight at once, over the fixed concurrency of 2", n)
			}
		})
	}
}
