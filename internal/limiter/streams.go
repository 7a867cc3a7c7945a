package limiter

import (
	"context"
	"sync"
	"time"
)

// Streams bounds the transfers whose bytes pass through this process (parts
// uploaded from files or relayed between endpoints) and finds by measuring
// how many of them to run at once.
//
// No fixed number is right everywhere. Against S3 each connection is slowed
// by the network, so more streams add throughput until the link is full;
// against a server on the same machine, or behind one slow disk, the streams
// share one bottleneck and each added stream only adds contention (on a
// 2-core machine 256 part uploads in flight to a local server took 35% longer
// than 4). So Streams starts at its floor and, after each window of
// completed parts, doubles the count while throughput rose by at least
// [StreamsGain]; at the first window that did not, it settles on the count
// that gave the best throughput and keeps it for the rest of the run.
//
// A window only counts when demand filled it (some transfer waited, or all
// slots were busy): an idle limit says nothing about its throughput. The
// slots themselves are a [Limiter] whose limit only Streams moves. All
// methods are safe for concurrent use.
type Streams struct {
	slots *Limiter
	now   func() time.Time

	mu      sync.Mutex
	settled bool
	// The current window of measurement; the first starts with the first
	// transfer, not when the run (and its listing) starts.
	started   bool
	start     time.Time
	bytes     int64
	parts     int
	saturated bool

	best      float64 // bytes per second of the best window so far
	bestLimit int
}

// StreamsGain is the rise in throughput that a doubling of streams must
// bring for Streams to keep doubling.
const StreamsGain = 1.10

// StreamsOption configures [Streams].
type StreamsOption func(*Streams)

// StreamsClock replaces time.Now, for tests.
func StreamsClock(now func() time.Time) StreamsOption {
	return func(s *Streams) { s.now = now }
}

// NewStreams returns a Streams that starts at floor and never exceeds
// ceiling. Both are clamped to at least 1, and floor to at most ceiling.
func NewStreams(floor, ceiling int, opts ...StreamsOption) *Streams {
	slots := New(ceiling, floor)
	slots.set(slots.floor)
	s := &Streams{slots: slots, now: time.Now, bestLimit: slots.floor, settled: slots.floor == slots.ceiling}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Limit is the number of streams allowed now.
func (s *Streams) Limit() int { return s.slots.Limit() }

// Settled reports whether the search is over.
func (s *Streams) Settled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settled
}

// TryAcquire takes a stream if one is free without waiting.
func (s *Streams) TryAcquire() bool {
	ok := s.slots.tryAcquire()
	s.noteDemand(!ok)
	return ok
}

// Acquire waits for a stream, first come first served, or for ctx.
func (s *Streams) Acquire(ctx context.Context) error {
	if s.TryAcquire() {
		return nil
	}
	return s.slots.Acquire(ctx)
}

// noteDemand starts the first window with the first transfer and marks
// the window saturated when a transfer found no free stream or took the
// last one.
func (s *Streams) noteDemand(refused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started, s.start = true, s.now()
	}
	if refused || s.slots.InFlight() >= s.slots.Limit() {
		s.saturated = true
	}
}

// Release returns a stream. moved is the bytes it transferred, 0 when it
// failed or was not used; only transfers that moved bytes are measured.
func (s *Streams) Release(moved int64) {
	s.slots.Release()
	if moved <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bytes += moved
	s.parts++
	if s.parts >= 2*s.slots.Limit() {
		s.judge()
	}
}

// judge ends a window of 2 x limit finished transfers: the limit doubles
// while throughput keeps rising, and settles when it stops. Called with mu
// held.
func (s *Streams) judge() {
	now := s.now()
	elapsed := now.Sub(s.start).Seconds()
	limit := s.slots.Limit()
	if !s.settled && s.saturated && elapsed > 0 {
		rate := float64(s.bytes) / elapsed
		switch {
		case rate >= s.best*StreamsGain:
			s.best, s.bestLimit = rate, limit
			if limit < s.slots.ceiling {
				s.slots.set(2 * limit)
			} else {
				s.settled = true
			}
		default:
			s.slots.set(s.bestLimit)
			s.settled = true
		}
	}
	s.start, s.bytes, s.parts = now, 0, 0
	s.saturated = s.slots.InFlight() >= s.slots.Limit() || s.slots.waiting() > 0
}

// waiting is the number of blocked Acquire calls, for tests.
func (s *Streams) waiting() int { return s.slots.waiting() }
