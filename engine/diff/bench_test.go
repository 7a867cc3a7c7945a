package diff

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/internal/memstat"
	"github.com/s3bulk/s3bulk/store"
)

// benchKey is the i-th key of a synthetic listing: ascending in i, 44 bytes,
// with the long shared prefix real listings have.
func benchKey(buf []byte, i int) string {
	buf = append(buf[:0], "data/year=2026/part-"...)
	s := strconv.Itoa(i)
	for range 10 - len(s) {
		buf = append(buf, '0')
	}
	buf = append(buf, s...)
	buf = append(buf, ".parquet"...)
	return string(buf)
}

const benchETag = "9e107d9d372bb6826bd81d3542a419d6"

var benchTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// synthetic lists n objects generated on the fly, never held: in key order,
// or in the order of the permutation j -> j*stride mod n (stride prime to
// n). The destination lacks every tenth key, has a different size for every
// seventh, and has an extra key after every fiftieth.
func synthetic(n, stride int, dest bool) ListFunc {
	return func(ctx context.Context, fn func(store.Object) error) error {
		buf := make([]byte, 0, 64)
		for j := range n {
			i := j
			if stride > 1 {
				i = j * stride % n
			}
			if dest && i%10 == 0 {
				continue
			}
			o := store.Object{Key: benchKey(buf, i), Size: int64(i%1000) * 1024, ModTime: benchTime.Add(time.Duration(i) * time.Second), ETag: benchETag}
			if dest && i%7 == 0 {
				o.Size++
			}
			if err := fn(o); err != nil {
				return err
			}
			if dest && i%50 == 1 {
				if err := fn(store.Object{Key: o.Key + ".old", Size: 1, ModTime: benchTime}); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// peakHeap samples the live heap while a benchmark runs. Sampling is how
// the peak is measured; nothing waits on it.
type peakHeap struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func watchHeap() *peakHeap {
	p := &peakHeap{stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			p.peak = max(p.peak, s[0].Value.Uint64())
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *peakHeap) end() uint64 {
	close(p.stop)
	p.done.Wait()
	return p.peak
}

// BenchmarkRun plans a sync over synthetic listings of 5,000 to 1,000,000
// keys, in order and shuffled, and reports wall and CPU time per key (the
// latter includes generating the listings and the garbage collector's
// work), the peak of the heap and the peak resident memory of the process.
// Each size resets the peak before it starts (Linux), but a clean figure
// comes from one size per process:
//
//	go test -run '^$' -bench 'Run/shuffled/1000000' -benchtime 1x ./engine/diff
func BenchmarkRun(b *testing.B) {
	const rssLimit = 200 << 20
	for _, order := range []struct {
		name                 string
		srcStride, dstStride int
	}{
		{"sorted", 1, 1},
		{"shuffled", 7919, 104729},
	} {
		for _, n := range []int{5_000, 100_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/%d", order.name, n), func(b *testing.B) {
				runtime.GC()
				rssReset := memstat.ResetPeakRSS()
				heap := watchHeap()
				cpu0, cpuOK := cpuTime()
				var st Stats
				var copies int
				dir := b.TempDir()
				for b.Loop() {
					copies = 0
					var only, dels, pairs int
					h := Handler{
						OnlySource: func(store.Object) error { only++; copies++; return nil },
						OnlyDest:   func(store.Object) error { dels++; return nil },
						Both: func(s, d store.Object) error {
							pairs++
							if c, _ := Decide(&s, &d, SizeAndTime); c {
								copies++
							}
							return nil
						},
					}
					var err error
					st, err = Run(context.Background(), synthetic(n, order.srcStride, false), synthetic(n, order.dstStride, true), h, Options{TempDir: dir})
					if err != nil {
						b.Fatal(err)
					}
					if want := n / 10; only != want || pairs != n-want || dels != (n+49)/50 {
						b.Fatalf("source only %d, pairs %d, destination only %d; want %d, %d, %d", only, pairs, dels, want, n-want, (n+49)/50)
					}
				}
				cpu1, _ := cpuTime()
				peak := heap.end()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
				if cpuOK {
					b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/key")
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(st.Spilled)/(1<<20), "spilled-MB")
				b.ReportMetric(float64(copies), "copies")
				if rss, ok := memstat.PeakRSS(); ok && rssReset {
					b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
					if rss > rssLimit {
						b.Errorf("peak RSS %d MiB, over the %d MiB budget", rss>>20, rssLimit>>20)
					}
				}
			})
		}
	}
}
