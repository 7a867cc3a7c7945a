package limiter

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultWindow is how long after a decrease further throttles are taken as
// echoes of the same overload. It covers the round trip of small-object
// requests many times over; requests slower than that (large parts) may halve
// the limit a second time, which errs on the side of backing off.
const DefaultWindow = time.Second

// Option configures a [Limiter].
type Option func(*Limiter)

// WithWindow sets the time after a decrease during which throttles do not
// decrease the limit again.
func WithWindow(d time.Duration) Option { return func(l *Limiter) { l.window = d } }

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(l *Limiter) { l.now = now } }

// Limiter bounds the requests in flight under a limit that adapts between a
// floor and a ceiling. Waiters are served first come, first served. All
// methods are safe for concurrent use.
type Limiter struct {
	ceiling, floor int
	window         time.Duration
	now            func() time.Time

	// limit and inFlight change only under mu; they are atomic so that Limit,
	// InFlight and the common case of Succeeded read them without it.
	limit    atomic.Int64
	inFlight atomic.Int64

	mu           sync.Mutex
	successes    int // since the limit last changed
	decreased    bool
	lastDecrease time.Time
	waiters      queue
	// search, when set, moves the limit by measuring (search.go).
	search *search
}

// waiter is one blocked Acquire. ready has room for the one grant, sent
// under mu, so a cancelled waiter can tell under mu whether it was granted;
// waiters are pooled because under contention most Acquire calls wait.
type waiter struct {
	ready      chan struct{}
	prev, next *waiter
}

var waiterPool = sync.Pool{New: func() any { return &waiter{ready: make(chan struct{}, 1)} }}

// queue is a FIFO of waiters, intrusive so that pushing allocates nothing.
type queue struct {
	head, tail *waiter
	n          int
}

func (q *queue) push(w *waiter) {
	w.prev, w.next = q.tail, nil
	if q.tail == nil {
		q.head = w
	} else {
		q.tail.next = w
	}
	q.tail = w
	q.n++
}

func (q *queue) remove(w *waiter) {
	if w.prev == nil {
		q.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		q.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.prev, w.next = nil, nil
	q.n--
}

// New returns a limiter whose limit starts at ceiling and never goes below
// floor. A ceiling below 1 is taken as 1, a floor outside 1..ceiling as the
// nearest of those.
func New(ceiling, floor int, opts ...Option) *Limiter {
	ceiling = max(ceiling, 1)
	floor = min(max(floor, 1), ceiling)
	l := &Limiter{ceiling: ceiling, floor: floor, window: DefaultWindow, now: time.Now}
	for _, o := range opts {
		o(l)
	}
	l.limit.Store(int64(ceiling))
	return l
}

// Acquire blocks until a request may start under the current limit, or ctx is
// done. It returns ctx's error, holding nothing, when ctx is done first, even
// if a slot was free.
func (l *Limiter) Acquire(ctx context.Context) error {
	done := ctx.Done()
	l.mu.Lock()
	select {
	case <-done:
		l.mu.Unlock()
		return ctx.Err()
	default:
	}
	if l.inFlight.Load() < l.limit.Load() && l.waiters.n == 0 {
		if n := l.inFlight.Add(1); l.search != nil && n >= l.limit.Load() {
			l.search.demand = true
		}
		l.mu.Unlock()
		return nil
	}
	if l.search != nil {
		l.search.demand = true
	}
	w := waiterPool.Get().(*waiter)
	l.waiters.push(w)
	l.mu.Unlock()

	select {
	case <-w.ready:
		waiterPool.Put(w)
		return nil
	case <-done:
		l.mu.Lock()
		select {
		case <-w.ready:
			// Granted while being cancelled: hand the slot on.
			l.inFlight.Add(-1)
		default:
			l.waiters.remove(w)
		}
		// A waiter behind this one may fit now.
		l.grant()
		l.mu.Unlock()
		waiterPool.Put(w)
		return ctx.Err()
	}
}

// Release ends a request started by Acquire. It panics without a matching
// Acquire, as an unlocked mutex does.
func (l *Limiter) Release() {
	l.mu.Lock()
	if l.inFlight.Load() <= 0 {
		l.mu.Unlock()
		panic("limiter: release without acquire")
	}
	l.inFlight.Add(-1)
	l.grant()
	l.mu.Unlock()
}

// Throttled reports a request the server throttled: the limit halves, down to
// the floor, unless it already decreased within the window. A searching
// limiter instead counts it in its window of measurement (search.go).
func (l *Limiter) Throttled() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.search; s != nil {
		s.begin(l.now())
		s.throttles++
		limit := int(l.limit.Load())
		if n := s.ok + s.throttles; n >= limit || (!s.decreased && 4*n >= limit && float64(s.throttles) >= SearchEarly*float64(limit)) {
			l.judge()
		}
		return
	}
	now := l.now()
	if l.decreased && now.Sub(l.lastDecrease) < l.window {
		return
	}
	l.limit.Store(max(int64(l.floor), l.limit.Load()/2))
	l.decreased, l.lastDecrease = true, now
	l.successes = 0
}

// Succeeded reports a request that was not throttled: every limit successes
// since the limit last changed (one round trip at the current limit) raise it
// by one, up to the ceiling. A searching limiter learns only from Completed.
func (l *Limiter) Succeeded() {
	if l.search != nil {
		return
	}
	// At the ceiling, the steady state of an unthrottled run, there is
	// nothing to count: skip the lock. A racing decrease loses at most one
	// success.
	if l.limit.Load() >= int64(l.ceiling) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	limit := l.limit.Load()
	if limit >= int64(l.ceiling) {
		return
	}
	l.successes++
	if int64(l.successes) >= limit {
		l.limit.Store(limit + 1)
		l.successes = 0
		l.grant()
	}
}

// tryAcquire takes a slot if one is free and nobody waits, without
// waiting.
func (l *Limiter) tryAcquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight.Load() < l.limit.Load() && l.waiters.n == 0 {
		l.inFlight.Add(1)
		if l.search != nil && l.inFlight.Load() >= l.limit.Load() {
			l.search.demand = true
		}
		return true
	}
	if l.search != nil {
		l.search.demand = true
	}
	return false
}

// set moves the limit to n (within floor and ceiling) and admits the
// waiters it makes room for.
func (l *Limiter) set(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limit.Store(int64(min(max(n, l.floor), l.ceiling)))
	l.grant()
}

// Ceiling is the most the limit can be.
func (l *Limiter) Ceiling() int { return l.ceiling }

// Limit is the current limit of requests in flight.
func (l *Limiter) Limit() int { return int(l.limit.Load()) }

// InFlight is the number of requests acquired and not yet released. It may be
// above Limit for a while after a decrease.
func (l *Limiter) InFlight() int { return int(l.inFlight.Load()) }

// grant admits waiters, oldest first, while the limit allows. Called with mu
// held.
func (l *Limiter) grant() {
	for l.inFlight.Load() < l.limit.Load() {
		w := l.waiters.head
		if w == nil {
			return
		}
		l.waiters.remove(w)
		l.inFlight.Add(1)
		w.ready <- struct{}{}
	}
}

// waiting is the number of blocked Acquire calls, for tests.
func (l *Limiter) waiting() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiters.n
}
