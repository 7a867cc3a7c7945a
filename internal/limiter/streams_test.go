package limiter

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// simulate drives s with a model of the transfer: with n streams busy, the
// whole run moves rate(n) bytes per second, so one part of size part
// finishes every part/rate(n) seconds. It runs parts transfers with at most
// demand of them wanted at once, on a fake clock, and returns the limit
// after each finished part.
func simulate(s *Streams, c *fakeClock, rate func(n int) float64, part int64, parts, demand int) []int {
	var limits []int
	busy := 0
	for done := 0; done < parts; done++ {
		for busy < demand && s.TryAcquire() {
			busy++
		}
		if busy == 0 {
			panic("simulate: no stream")
		}
		c.advance(time.Duration(float64(part) / rate(busy) * float64(time.Second)))
		s.Release(part)
		busy--
		limits = append(limits, s.Limit())
	}
	return limits
}

func TestStreamsFindTheBestCount(t *testing.T) {
	const mb = 1e6
	tests := []struct {
		name          string
		floor, ceil   int
		rate          func(n int) float64
		want          int
		wantSettled   bool
		demand, parts int
	}{
		{
			name: "network bound: every stream adds its own throughput", floor: 4, ceil: 64,
			rate: func(n int) float64 { return float64(n) * 80 * mb },
			want: 64, wantSettled: true, demand: 1000, parts: 1000,
		},
		{
			name: "one shared bottleneck: more streams add nothing", floor: 4, ceil: 256,
			rate: func(int) float64 { return 500 * mb },
			want: 4, wantSettled: true, demand: 1000, parts: 1000,
		},
		{
			name: "contention: more streams are slower", floor: 4, ceil: 256,
			rate: func(n int) float64 { return 600 * mb / (1 + float64(n)/32) },
			want: 4, wantSettled: true, demand: 1000, parts: 1000,
		},
		{
			name: "a link that fills at 16 streams", floor: 4, ceil: 256,
			rate: func(n int) float64 { return float64(min(n, 16)) * 50 * mb },
			want: 16, wantSettled: true, demand: 1000, parts: 1000,
		},
		{
			name: "a gain under the threshold does not count", floor: 4, ceil: 256,
			rate: func(n int) float64 { return (400 + float64(n)) * mb }, // +1% a doubling
			want: 4, wantSettled: true, demand: 1000, parts: 1000,
		},
		{
			name: "demand below the limit: nothing learned, nothing changed", floor: 4, ceil: 256,
			rate: func(n int) float64 { return float64(n) * 80 * mb },
			want: 4, wantSettled: false, demand: 3, parts: 1000,
		},
		{
			name: "floor equals ceiling: fixed", floor: 8, ceil: 8,
			rate: func(n int) float64 { return float64(n) * 80 * mb },
			want: 8, wantSettled: true, demand: 1000, parts: 100,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			s := NewStreams(tt.floor, tt.ceil, StreamsClock(c.now))
			limits := simulate(s, c, tt.rate, 16<<20, tt.parts, tt.demand)
			if got := s.Limit(); got != tt.want {
				t.Errorf("limit %d, want %d (limits along the run: %v)", got, tt.want, compact(limits))
			}
			if got := s.Settled(); got != tt.wantSettled {
				t.Errorf("settled %v, want %v", got, tt.wantSettled)
			}
			for _, l := range limits {
				if l < tt.floor || l > tt.ceil {
					t.Fatalf("limit %d outside %d..%d", l, tt.floor, tt.ceil)
				}
			}
		})
	}
}

// compact shortens a run of limits to its changes, for messages.
func compact(limits []int) []int {
	var out []int
	for i, l := range limits {
		if i == 0 || l != limits[i-1] {
			out = append(out, l)
		}
	}
	return out
}

func TestNewStreamsClampsBounds(t *testing.T) {
	tests := []struct{ floor, ceil, wantLimit int }{
		{0, 0, 1}, {-3, 10, 1}, {20, 10, 10}, {4, 256, 4},
	}
	for _, tt := range tests {
		if got := NewStreams(tt.floor, tt.ceil).Limit(); got != tt.wantLimit {
			t.Errorf("NewStreams(%d, %d).Limit() = %d, want %d", tt.floor, tt.ceil, got, tt.wantLimit)
		}
	}
}

func TestStreamsFailedTransfersAreNotMeasured(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s := NewStreams(2, 16, StreamsClock(c.now))
	for range 100 {
		for s.TryAcquire() {
		}
		c.advance(time.Second)
		s.Release(0)
	}
	if s.Limit() != 2 || s.Settled() {
		t.Errorf("after failures only: limit %d settled %v, want 2 and not settled", s.Limit(), s.Settled())
	}
}

func TestStreamsReleaseWithoutAcquirePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Release without Acquire did not panic")
		}
	}()
	NewStreams(1, 1).Release(1)
}

func TestStreamsWaitersAreServedAndCancelled(t *testing.T) {
	s := NewStreams(1, 1)
	if err := s.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() { cancelled <- s.Acquire(ctx) }()
	waitFor(t, "the first waiter queues", func() bool { return s.waiting() == 1 })
	served := make(chan error, 1)
	go func() { served <- s.Acquire(context.Background()) }()
	waitFor(t, "the second waiter queues", func() bool { return s.waiting() == 2 })
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Acquire = %v, want context.Canceled", err)
	}
	s.Release(1)
	if err := <-served; err != nil {
		t.Fatalf("waiting Acquire = %v", err)
	}
	s.Release(1)
	if !s.TryAcquire() {
		t.Error("the stream was lost to the cancelled waiter")
	}
}

// Many goroutines: never more in flight than the ceiling, and every stream
// comes back, cancellations included.
func TestStreamsUnderConcurrency(t *testing.T) {
	const floor, ceiling, workers = 2, 16, 64
	s := NewStreams(floor, ceiling)
	var cur, peak atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 3))
			for range 300 {
				ctx, cancel := context.WithCancel(context.Background())
				if r.IntN(10) == 0 {
					cancel()
				}
				if err := s.Acquire(ctx); err != nil {
					cancel()
					continue
				}
				n := cur.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				runtime.Gosched()
				cur.Add(-1)
				s.Release(int64(r.IntN(2) << 20))
				cancel()
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > ceiling {
		t.Errorf("peak %d in flight, above the ceiling %d", p, ceiling)
	}
	got := 0
	for s.TryAcquire() {
		got++
	}
	if want := s.Limit(); got != want {
		t.Errorf("%d streams free after the run, want the limit %d", got, want)
	}
}

// Time before the first transfer (listing, creating uploads) is not part
// of the first window: it would make the floor look slow and the next
// count look better than it is.
func TestStreamsFirstWindowStartsWithTheFirstTransfer(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s := NewStreams(4, 256, StreamsClock(c.now))
	c.advance(10 * time.Second)
	simulate(s, c, func(int) float64 { return 500e6 }, 16<<20, 200, 1000)
	if s.Limit() != 4 || !s.Settled() {
		t.Errorf("limit %d settled %v, want 4 and settled", s.Limit(), s.Settled())
	}
}
