package limiter

import (
	"context"
	"slices"
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
// slots were busy): an idle limit says nothing about its throughput. All
// methods are safe for concurrent use.
type Streams struct {
	floor, ceiling int
	now            func() time.Time

	mu       sync.Mutex
	limit    int
	inFlight int
	waiters  []chan struct{}
	settled  bool

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
	ceiling = max(1, ceiling)
	floor = min(max(1, floor), ceiling)
	s := &Streams{floor: floor, ceiling: ceiling, now: time.Now, limit: floor, bestLimit: floor}
	for _, o := range opts {
		o(s)
	}
	s.settled = floor == ceiling
	return s
}

// Limit is the number of streams allowed now.
func (s *Streams) Limit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit
}

// Settled reports whether the search is over.
func (s *Streams) Settled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settled
}

// TryAcquire takes a stream if one is free without waiting.
func (s *Streams) TryAcquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight < s.limit && len(s.waiters) == 0 {
		s.take()
		return true
	}
	s.saturated = true
	return false
}

// Acquire waits for a stream, first come first served, or for ctx.
func (s *Streams) Acquire(ctx context.Context) error {
	if s.TryAcquire() {
		return nil
	}
	s.mu.Lock()
	if s.inFlight < s.limit && len(s.waiters) == 0 {
		s.take() // freed between TryAcquire and here
		s.mu.Unlock()
		return nil
	}
	ready := make(chan struct{}, 1)
	s.waiters = append(s.waiters, ready)
	s.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		if i := slices.Index(s.waiters, ready); i >= 0 {
			s.waiters = slices.Delete(s.waiters, i, i+1)
			s.mu.Unlock()
			return ctx.Err()
		}
		s.mu.Unlock()
		// Granted as ctx ended: give the stream back unused.
		s.Release(0)
		return ctx.Err()
	}
}

// take counts one stream in; called with mu held.
func (s *Streams) take() {
	if !s.started {
		s.started, s.start = true, s.now()
	}
	s.inFlight++
	if s.inFlight >= s.limit {
		s.saturated = true
	}
}

// Release returns a stream. moved is the bytes it transferred, 0 when it
// failed or was not used; only transfers that moved bytes are measured.
func (s *Streams) Release(moved int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight <= 0 {
		panic("limiter: Streams.Release without Acquire")
	}
	s.inFlight--
	if moved > 0 {
		s.bytes += moved
		s.parts++
		if s.parts >= 2*s.limit {
			s.judge()
		}
	}
	for len(s.waiters) > 0 && s.inFlight < s.limit {
		ready := s.waiters[0]
		s.waiters = slices.Delete(s.waiters, 0, 1)
		s.take()
		ready <- struct{}{}
	}
}

// judge ends a window of 2 x limit finished transfers: the limit doubles
// while throughput keeps rising, and settles when it stops. Called with mu
// held.
func (s *Streams) judge() {
	now := s.now()
	elapsed := now.Sub(s.start).Seconds()
	if !s.settled && s.saturated && elapsed > 0 {
		rate := float64(s.bytes) / elapsed
		switch {
		case rate >= s.best*StreamsGain:
			s.best, s.bestLimit = rate, s.limit
			if s.limit < s.ceiling {
				s.limit = min(2*s.limit, s.ceiling)
			} else {
				s.settled = true
			}
		default:
			s.limit = s.bestLimit
			s.settled = true
		}
	}
	s.start, s.bytes, s.parts = now, 0, 0
	s.saturated = s.inFlight >= s.limit || len(s.waiters) > 0
}

// waiting is the number of blocked Acquire calls, for tests.
func (s *Streams) waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiters)
}
