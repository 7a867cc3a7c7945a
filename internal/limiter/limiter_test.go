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

	"github.com/google/go-cmp/cmp"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestLimiter(ceiling, floor int) (*Limiter, *fakeClock) {
	c := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	return New(ceiling, floor, WithClock(c.now), WithWindow(time.Second)), c
}

// waitFor yields until cond holds; tests use it to know a goroutine has
// reached a blocking point, never to let time pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 10_000_000 {
			t.Fatalf("never: %s", what)
		}
		runtime.Gosched()
	}
}

func TestNewClampsBounds(t *testing.T) {
	tests := []struct {
		name                    string
		ceiling, floor          int
		wantLimit, wantFloorsAt int
	}{
		{"sane bounds are kept", 64, 4, 64, 4},
		{"a zero ceiling becomes one", 0, 0, 1, 1},
		{"a floor above the ceiling becomes the ceiling", 8, 16, 8, 8},
		{"a negative floor becomes one", 8, -3, 8, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := newTestLimiter(tt.ceiling, tt.floor)
			if got := l.Limit(); got != tt.wantLimit {
				t.Errorf("Limit() = %d, want %d", got, tt.wantLimit)
			}
			for range 10 {
				l.Throttled()
				c.advance(time.Hour)
			}
			if got := l.Limit(); got != tt.wantFloorsAt {
				t.Errorf("after many throttles Limit() = %d, want the floor %d", got, tt.wantFloorsAt)
			}
		})
	}
}

// step is one event in an AIMD script: n throttles or successes, or a clock
// advance, followed by the limit expected.
type step struct {
	op   string // "throttle", "succeed", "wait"
	n    int
	d    time.Duration
	want int
}

func TestAIMD(t *testing.T) {
	tests := []struct {
		name           string
		ceiling, floor int
		steps          []step
	}{
		{"one throttle halves the limit", 64, 1, []step{
			{op: "throttle", n: 1, want: 32},
		}},
		{"a burst of a hundred throttles halves once", 64, 1, []step{
			{op: "throttle", n: 100, want: 32},
		}},
		{"a throttle just inside the window is ignored", 64, 1, []step{
			{op: "throttle", n: 1, want: 32},
			{op: "wait", d: time.Second - 1, want: 32},
			{op: "throttle", n: 1, want: 32},
		}},
		{"a throttle after the window halves again", 64, 1, []step{
			{op: "throttle", n: 1, want: 32},
			{op: "wait", d: time.Second, want: 32},
			{op: "throttle", n: 1, want: 16},
		}},
		{"the window counts from the last decrease, not the last throttle", 64, 1, []step{
			{op: "throttle", n: 1, want: 32},
			{op: "wait", d: 600 * time.Millisecond, want: 32},
			{op: "throttle", n: 1, want: 32},
			{op: "wait", d: 400 * time.Millisecond, want: 32},
			{op: "throttle", n: 1, want: 16},
		}},
		{"halving stops at the floor", 64, 10, []step{
			{op: "throttle", n: 1, want: 32},
			{op: "wait", d: time.Second, want: 32},
			{op: "throttle", n: 1, want: 16},
			{op: "wait", d: time.Second, want: 16},
			{op: "throttle", n: 1, want: 10},
		}},
		{"successes at the ceiling change nothing", 8, 1, []step{
			{op: "succeed", n: 1000, want: 8},
		}},
		{"one round trip of successes adds one", 64, 1, []step{
			{op: "throttle", n: 1, want: 32},
			{op: "succeed", n: 31, want: 32},
			{op: "succeed", n: 1, want: 33},
			{op: "succeed", n: 32, want: 33},
			{op: "succeed", n: 1, want: 34},
		}},
		{"growth stops at the ceiling", 10, 1, []step{
			{op: "throttle", n: 1, want: 5},
			{op: "succeed", n: 5 + 6 + 7 + 8 + 9, want: 10},
			{op: "succeed", n: 100, want: 10},
		}},
		{"a decrease forgets successes counted before it", 64, 1, []step{
			{op: "throttle", n: 1, want: 32},
			{op: "succeed", n: 31, want: 32},
			{op: "wait", d: time.Second, want: 32},
			{op: "throttle", n: 1, want: 16},
			{op: "succeed", n: 15, want: 16},
			{op: "succeed", n: 1, want: 17},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := newTestLimiter(tt.ceiling, tt.floor)
			for i, s := range tt.steps {
				switch s.op {
				case "throttle":
					for range s.n {
						l.Throttled()
					}
				case "succeed":
					for range s.n {
						l.Succeeded()
					}
				case "wait":
					c.advance(s.d)
				}
				if got := l.Limit(); got != s.want {
					t.Fatalf("step %d (%s %d %v): Limit() = %d, want %d", i, s.op, s.n, s.d, got, s.want)
				}
			}
		})
	}
}

func TestAcquireBlocksAtTheLimitUntilRelease(t *testing.T) {
	l, _ := newTestLimiter(2, 1)
	ctx := context.Background()
	for range 2 {
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error, 1)
	go func() { got <- l.Acquire(ctx) }()
	waitFor(t, "the third Acquire waits", func() bool { return l.waiting() == 1 })
	if n := l.InFlight(); n != 2 {
		t.Fatalf("InFlight() = %d with a waiter, want 2", n)
	}
	l.Release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if n, w := l.InFlight(), l.waiting(); n != 2 || w != 0 {
		t.Errorf("after the hand-over InFlight() = %d, waiting %d; want 2, 0", n, w)
	}
}

func TestAThrottledLimitAdmitsNobodyUntilInFlightDropsBelowIt(t *testing.T) {
	l, _ := newTestLimiter(8, 1)
	ctx := context.Background()
	for range 8 {
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	l.Throttled() // limit 4 with 8 in flight
	got := make(chan error, 1)
	go func() { got <- l.Acquire(ctx) }()
	waitFor(t, "Acquire waits", func() bool { return l.waiting() == 1 })
	for i := range 4 { // 7, 6, 5, 4 in flight: still no room under 4
		l.Release()
		if w := l.waiting(); w != 1 {
			t.Fatalf("after %d releases the waiter was admitted with %d in flight under limit %d", i+1, l.InFlight(), l.Limit())
		}
	}
	l.Release() // 3 in flight: room for one
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if n := l.InFlight(); n != 4 {
		t.Errorf("InFlight() = %d, want 4", n)
	}
}

func TestGrowthAdmitsAWaiter(t *testing.T) {
	l, _ := newTestLimiter(4, 1)
	ctx := context.Background()
	l.Throttled() // limit 2
	for range 2 {
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error, 1)
	go func() { got <- l.Acquire(ctx) }()
	waitFor(t, "Acquire waits", func() bool { return l.waiting() == 1 })
	l.Succeeded()
	l.Succeeded() // limit 3
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if n, lim := l.InFlight(), l.Limit(); n != 3 || lim != 3 {
		t.Errorf("InFlight() = %d, Limit() = %d; want 3, 3", n, lim)
	}
}

func TestWaitersAreServedInOrder(t *testing.T) {
	l, _ := newTestLimiter(1, 1)
	ctx := context.Background()
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			if err := l.Acquire(ctx); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			l.Release()
		})
		waitFor(t, "the next waiter queues", func() bool { return l.waiting() == i+1 })
	}
	l.Release()
	wg.Wait()
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4}, order); diff != "" {
		t.Errorf("admission order (-want +got):\n%s", diff)
	}
}

func TestAcquireWithADoneContextHoldsNothing(t *testing.T) {
	l, _ := newTestLimiter(4, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	if n := l.InFlight(); n != 0 {
		t.Errorf("InFlight() = %d, want 0", n)
	}
}

func TestACancelledWaiterLeavesTheQueue(t *testing.T) {
	l, _ := newTestLimiter(1, 1)
	if err := l.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() { got <- l.Acquire(ctx) }()
	waitFor(t, "Acquire waits", func() bool { return l.waiting() == 1 })
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	l.Release()
	if n, w := l.InFlight(), l.waiting(); n != 0 || w != 0 {
		t.Errorf("InFlight() = %d, waiting %d; want 0, 0 (the slot went to a cancelled waiter)", n, w)
	}
}

// Cancellation racing a grant must neither leak nor double a slot.
func TestCancellationRacingReleaseKeepsTheCount(t *testing.T) {
	l, _ := newTestLimiter(1, 1)
	bg := context.Background()
	for range 2000 {
		if err := l.Acquire(bg); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(bg)
		got := make(chan error, 1)
		go func() { got <- l.Acquire(ctx) }()
		waitFor(t, "Acquire waits", func() bool { return l.waiting() == 1 })
		// Both before the waiter runs, often: its select then sees a done
		// context and a granted slot at once.
		cancel()
		l.Release()
		if err := <-got; err == nil {
			l.Release()
		}
		if n, w := l.InFlight(), l.waiting(); n != 0 || w != 0 {
			t.Fatalf("InFlight() = %d, waiting %d; want 0, 0", n, w)
		}
	}
}

func TestReleaseWithoutAcquirePanics(t *testing.T) {
	l, _ := newTestLimiter(1, 1)
	defer func() {
		if recover() == nil {
			t.Error("Release without Acquire did not panic")
		}
	}()
	l.Release()
}

// Many goroutines, throttles and successes: never more in flight than the
// ceiling; and once growth has stopped, the limit is at the floor and
// InFlight has drained to it, never more than the floor.
func TestNeverMoreInFlightThanTheLimit(t *testing.T) {
	const ceiling, floor, workers = 32, 4, 256
	l, c := newTestLimiter(ceiling, floor)
	var cur, peak, inOp, done atomic.Int64
	var grow, settled, stop atomic.Bool
	grow.Store(true)
	var wg sync.WaitGroup
	ctx := context.Background()
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for !stop.Load() {
				s := settled.Load() // read before Acquire: a slot got after settling obeys the floor
				if err := l.Acquire(ctx); err != nil {
					t.Error(err)
					return
				}
				n := cur.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				if n > ceiling {
					t.Errorf("%d in flight above the ceiling %d", n, ceiling)
				}
				if s && n > floor {
					t.Errorf("%d in flight after settling at limit %d", n, floor)
				}
				runtime.Gosched()
				inOp.Add(1)
				if grow.Load() {
					if r.IntN(50) == 0 {
						l.Throttled()
					} else {
						l.Succeeded()
					}
				}
				inOp.Add(-1)
				cur.Add(-1)
				l.Release()
				done.Add(1)
			}
		})
	}
	// Let the limit move for a while; the clock advances so throttles land.
	// The workers may not have been scheduled yet on a loaded machine, so
	// the phase lasts until they have done real work, not a fixed count,
	// and until they have held the floor's worth of slots at once: how
	// many hold a slot together is the scheduler's choice (once, under
	// load, no more than 3 did in the whole phase), and a test whose
	// workers never filled the floor has not tested the limit.
	deadline := time.Now().Add(time.Minute)
	for i := 0; i < 200 || done.Load() < 20*workers || peak.Load() < floor; i++ {
		if time.Now().After(deadline) {
			stop.Store(true)
			t.Fatalf("workers finished %d operations in a minute, at most %d at once", done.Load(), peak.Load())
		}
		c.advance(300 * time.Millisecond)
		runtime.Gosched()
	}
	// Stop growth, and wait out any Succeeded that read grow before it
	// stopped; then throttle to the floor and wait for the excess to drain.
	grow.Store(false)
	waitFor(t, "no worker is changing the limit", func() bool { return inOp.Load() == 0 })
	for l.Limit() > floor {
		c.advance(time.Hour)
		l.Throttled()
	}
	waitFor(t, "in flight drains to the floor", func() bool { return l.InFlight() <= floor })
	settled.Store(true)
	for range 200 {
		runtime.Gosched()
	}
	stop.Store(true)
	wg.Wait()
	if p := peak.Load(); p > ceiling || p < floor {
		t.Errorf("peak in flight %d, want within %d..%d", p, floor, ceiling)
	}
	if n := l.InFlight(); n != 0 {
		t.Errorf("InFlight() = %d after all released", n)
	}
}
