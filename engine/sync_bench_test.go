package engine_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/memstat"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// fakeListing is a FAKE store: it lists n synthetic objects generated on
// the fly, in key order, and does nothing else. It measures the planner,
// not a store. As the destination it lacks every tenth key, has another
// size for every seventh, and an extra key after every fiftieth.
type fakeListing struct {
	name string
	n    int
	dest bool
}

var errFake = errors.New("fake listing: not supported")

func (f *fakeListing) List(ctx context.Context, prefix, _ string, fn func(store.Object) error) error {
	buf := make([]byte, 0, 64)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range f.n {
		if f.dest && i%10 == 0 {
			continue
		}
		buf = append(buf[:0], prefix...)
		buf = append(buf, "year=2026/part-"...)
		s := strconv.Itoa(i)
		for range 10 - len(s) {
			buf = append(buf, '0')
		}
		buf = append(buf, s...)
		buf = append(buf, ".parquet"...)
		o := store.Object{Key: string(buf), Size: int64(i%1000) * 1024, ModTime: t0, ETag: "9e107d9d372bb6826bd81d3542a419d6"}
		if f.dest && i%7 == 0 {
			o.Size++
		}
		if err := fn(o); err != nil {
			return err
		}
		if f.dest && i%50 == 1 {
			if err := fn(store.Object{Key: o.Key + ".old", Size: 1, ModTime: t0}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fakeListing) Head(context.Context, string) (store.Object, store.Metadata, error) {
	return store.Object{}, store.Metadata{}, errFake
}
func (f *fakeListing) Get(context.Context, string, int64, int64, string) (io.ReadCloser, error) {
	return nil, errFake
}
func (f *fakeListing) Put(context.Context, string, io.Reader, int64, store.Metadata) error {
	return errFake
}
func (f *fakeListing) Delete(context.Context, string) error { return errFake }
func (f *fakeListing) URL(key string) string                { return "s3://" + f.name + "/" + key }

// BenchmarkPlanSync plans a sync with --delete between two FAKE listings
// (fakeListing) of 5,000 to 1,000,000 keys: diff pairs them, the planner
// makes each copy task and holds each delete back on disk, and the plan is
// read to its end. It reports time per key and the peak resident memory of
// the process (Linux), which must stay under 200 MB. A clean peak comes
// from one size per process:
//
//	go test -run '^$' -bench 'PlanSync/1000000' -benchtime 1x ./engine
func BenchmarkPlanSync(b *testing.B) {
	const rssLimit = 200 << 20
	for _, n := range []int{5_000, 100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			runtime.GC()
			rssReset := memstat.ResetPeakRSS()
			src := engine.Endpoint{Store: &fakeListing{name: "src", n: n}, Loc: s3url.Location{Bucket: "src", Key: "data/"}}
			dst := engine.Endpoint{Store: &fakeListing{name: "dst", n: n, dest: true}, Loc: s3url.Location{Bucket: "dst", Key: "copy/"}}
			job := engine.Job{Src: src, Dst: dst, Sync: &engine.SyncOptions{Delete: true, TempDir: b.TempDir()}}
			var copies, deletes int
			for b.Loop() {
				copies, deletes = 0, 0
				err := engine.New(engine.Config{}).Plan(context.Background(), job, engine.Options{}).Each(func(t engine.Task) error {
					switch t.Op {
					case engine.OpDelete:
						deletes++
					default:
						copies++
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			// Missing: every tenth; changed: every seventh not tenth.
			wantCopies := (n+9)/10 + (n+6)/7 - (n+69)/70
			if copies != wantCopies || deletes != (n+48)/50 {
				b.Fatalf("copies %d, deletes %d; want %d, %d", copies, deletes, wantCopies, (n+48)/50)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
			if rss, ok := memstat.PeakRSS(); ok && rssReset {
				b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
				if rss > rssLimit {
					b.Errorf("peak RSS %d MiB, over the %d MiB budget", rss>>20, rssLimit>>20)
				}
			}
		})
	}
}
