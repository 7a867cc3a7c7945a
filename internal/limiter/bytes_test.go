package limiter

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestByteBudget(t *testing.T) {
	// Each op acquires (n > 0) or releases (n < 0) and notes whether a
	// TryAcquire succeeded; the wanted InUse follows every op.
	type op struct {
		n     int64
		ok    bool
		inUse int64
	}
	tests := []struct {
		name  string
		total int64
		ops   []op
	}{
		{"acquisitions add up to the budget", 100, []op{
			{30, true, 30}, {70, true, 100}, {1, false, 100}, {-30, true, 70}, {30, true, 100},
		}},
		{"a request above the budget waits for all of it", 100, []op{
			{10, true, 10}, {1000, false, 10}, {-10, true, 0}, {1000, true, 100}, {1, false, 100}, {-1000, true, 0},
		}},
		{"a request of exactly the budget is not clamped below it", 100, []op{
			{100, true, 100}, {-100, true, 0}, {1, true, 1},
		}},
		{"an empty request takes nothing", 100, []op{
			{100, true, 100}, {0, true, 100},
		}},
		{"an unlimited budget never refuses", 0, []op{
			{1 << 40, true, 1 << 40}, {1 << 40, true, 1 << 41}, {-(1 << 40), true, 1 << 40},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewByteBudget(tt.total)
			var got, want []op
			for _, o := range tt.ops {
				ok := true
				if o.n < 0 {
					b.Release(-o.n)
				} else {
					ok = b.TryAcquire(o.n)
				}
				got = append(got, op{o.n, ok, b.InUse()})
				want = append(want, o)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(op{})); diff != "" {
				t.Errorf("ops (-want +got):\n%s", diff)
			}
		})
	}
}

func TestByteBudgetAcquireClampsAndBlocksUntilRelease(t *testing.T) {
	b := NewByteBudget(100)
	ctx := context.Background()
	if err := b.Acquire(ctx, 60); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- b.Acquire(ctx, 500) }()
	// Queued behind nobody but short of bytes: a small TryAcquire must now
	// fail even though 40 bytes are free, because the large request waits
	// first (no starvation). Yield until it has queued.
	waitFor(t, "the large request queues", func() bool {
		if b.TryAcquire(1) {
			b.Release(1)
			return false
		}
		return true
	})
	b.Release(60)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if n := b.InUse(); n != 100 {
		t.Errorf("InUse() = %d, want the whole budget 100", n)
	}
	b.Release(500)
	if n := b.InUse(); n != 0 {
		t.Errorf("InUse() = %d after release, want 0", n)
	}
}

func TestByteBudgetAcquireWithADoneContextHoldsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, total := range []int64{100, 0} {
		b := NewByteBudget(total)
		if err := b.Acquire(ctx, 10); !errors.Is(err, context.Canceled) {
			t.Errorf("budget %d: Acquire = %v, want context.Canceled", total, err)
		}
		if n := b.InUse(); n != 0 {
			t.Errorf("budget %d: InUse() = %d, want 0", total, n)
		}
	}
}

func TestByteBudgetReleasingMoreThanHeldPanics(t *testing.T) {
	b := NewByteBudget(100)
	if !b.TryAcquire(10) {
		t.Fatal("TryAcquire(10) of a free budget failed")
	}
	defer func() {
		if recover() == nil {
			t.Error("releasing 20 of 10 held bytes did not panic")
		}
	}()
	b.Release(20)
}

func TestByteBudgetNeverOverspends(t *testing.T) {
	const total, workers = 1000, 64
	b := NewByteBudget(total)
	var cur, peak atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for range 200 {
				n := 1 + r.Int64N(total*3/2) // some above the budget
				if err := b.Acquire(context.Background(), n); err != nil {
					t.Error(err)
					return
				}
				held := min(n, total)
				c := cur.Add(held)
				for p := peak.Load(); c > p && !peak.CompareAndSwap(p, c); p = peak.Load() {
				}
				if c > total {
					t.Errorf("%d bytes held, above the budget %d", c, total)
				}
				runtime.Gosched()
				cur.Add(-held)
				b.Release(n)
			}
		})
	}
	wg.Wait()
	if n := b.InUse(); n != 0 {
		t.Errorf("InUse() = %d after all released", n)
	}
	if p := peak.Load(); p < total/2 {
		t.Errorf("peak %d bytes: the budget was barely used, the test proves little", p)
	}
}
