package limiter

import (
	"context"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"
)

// 256 goroutines competing for 64 slots, the shape of a run with a large
// work queue: how much does admission cost per request, next to plain
// semaphores that do not adapt?
const benchGoroutines, benchCeiling = 256, 64

func parallel(b *testing.B, body func()) {
	b.SetParallelism(max(1, benchGoroutines/runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body()
		}
	})
}

func BenchmarkLimiter(b *testing.B) {
	ctx := context.Background()
	b.Run("uncontended", func(b *testing.B) {
		l := New(benchCeiling, 1)
		b.ReportAllocs()
		for b.Loop() {
			if err := l.Acquire(ctx); err != nil {
				b.Fatal(err)
			}
			l.Succeeded()
			l.Release()
		}
	})
	b.Run("256 goroutines at the ceiling", func(b *testing.B) {
		l := New(benchCeiling, 1)
		parallel(b, func() {
			if err := l.Acquire(ctx); err != nil {
				b.Fatal(err)
			}
			l.Succeeded()
			l.Release()
		})
	})
	b.Run("256 goroutines while the limit grows", func(b *testing.B) {
		// Far below its ceiling, so every success takes the lock to count.
		// Starts at 64 and grows by one per round trip.
		l := New(1<<30, benchCeiling, WithWindow(0))
		for l.Limit() > benchCeiling {
			l.Throttled()
		}
		parallel(b, func() {
			if err := l.Acquire(ctx); err != nil {
				b.Fatal(err)
			}
			l.Succeeded()
			l.Release()
		})
	})
	b.Run("256 goroutines searching", func(b *testing.B) {
		// Every answer reported with a latency, as the engine does: the
		// search's own work (windows, their latencies' percentile) per
		// request.
		l := NewSearching(benchCeiling, 4096, 16)
		parallel(b, func() {
			if err := l.Acquire(ctx); err != nil {
				b.Fatal(err)
			}
			l.Release()
			l.Completed(time.Millisecond)
		})
	})
	b.Run("256 goroutines on x/sync semaphore", func(b *testing.B) {
		s := semaphore.NewWeighted(benchCeiling)
		parallel(b, func() {
			if err := s.Acquire(ctx, 1); err != nil {
				b.Fatal(err)
			}
			s.Release(1)
		})
	})
	b.Run("256 goroutines on a channel", func(b *testing.B) {
		s := make(chan struct{}, benchCeiling)
		parallel(b, func() {
			s <- struct{}{}
			<-s
		})
	})
}

func BenchmarkByteBudget(b *testing.B) {
	ctx := context.Background()
	bb := NewByteBudget(benchCeiling << 20)
	parallel(b, func() {
		if err := bb.Acquire(ctx, 1<<20); err != nil {
			b.Fatal(err)
		}
		bb.Release(1 << 20)
	})
}
