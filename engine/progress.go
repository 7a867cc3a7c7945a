package engine

import (
	"sync/atomic"
	"time"

	"github.com/s3bulk/s3bulk/internal/limiter"
)

// Progress holds a run's counters. The engine updates them atomically;
// renderers read Snapshot from any goroutine.
type Progress struct {
	start         atomic.Int64 // unix nanos
	planned       atomic.Int64
	plannedBytes  atomic.Int64
	planDone      atomic.Bool
	done          atomic.Int64
	deleted       atomic.Int64
	failed        atomic.Int64
	skipped       atomic.Int64
	bytes         atomic.Int64 // bytes of finished objects
	bytesInFlight atomic.Int64 // bytes of finished parts of unfinished objects
	settledBytes  atomic.Int64 // planned bytes that will never move: skipped, failed, deleted
	restarted     atomic.Int64 // objects started over at least once (Options.Restarts)
	// limiter is the run's, set when the run starts, while a renderer
	// may already be reading.
	limiter atomic.Pointer[limiter.Limiter]
}

// Snapshot is a consistent-enough copy of the counters for display.
type Snapshot struct {
	Elapsed time.Duration `json:"-"`
	Seconds float64       `json:"seconds"`
	Planned int64         `json:"planned"`
	// PlannedBytes is the size of every planned object, skips and
	// deletes included.
	PlannedBytes int64 `json:"planned_bytes"`
	PlanComplete bool  `json:"plan_complete"`
	// Done counts finished objects, deletes included (Deleted of them).
	Done    int64 `json:"done"`
	Deleted int64 `json:"deleted"`
	Failed  int64 `json:"failed"`
	Skipped int64 `json:"skipped"`
	// Bytes is what has moved: finished objects, and the finished parts
	// of objects moving in parts (uploads, downloads and server-side
	// copies alike).
	Bytes int64 `json:"bytes"`
	// RemainingBytes is what is still to move of the planned objects; it
	// is final only once PlanComplete.
	RemainingBytes int64 `json:"remaining_bytes"`
	Limit          int   `json:"concurrency_limit"`
	InFlight       int   `json:"in_flight"`
	// Restarted counts the objects started over at least once so far
	// (Options.Restarts), as Summary.Restarted does at the end.
	Restarted int64 `json:"restarted,omitempty"`
}

// Snapshot reads the counters.
func (p *Progress) Snapshot() Snapshot {
	s := Snapshot{
		Planned:      p.planned.Load(),
		PlannedBytes: p.plannedBytes.Load(),
		PlanComplete: p.planDone.Load(),
		Done:         p.done.Load(),
		Deleted:      p.deleted.Load(),
		Failed:       p.failed.Load(),
		Skipped:      p.skipped.Load(),
		Bytes:        p.bytes.Load() + p.bytesInFlight.Load(),
		Restarted:    p.restarted.Load(),
	}
	s.RemainingBytes = max(0, s.PlannedBytes-s.Bytes-p.settledBytes.Load())
	if st := p.start.Load(); st != 0 {
		s.Elapsed = time.Since(time.Unix(0, st))
		s.Seconds = s.Elapsed.Seconds()
	}
	if lim := p.limiter.Load(); lim != nil {
		s.Limit, s.InFlight = lim.Limit(), lim.InFlight()
	}
	return s
}

// partBytes counts the bytes of one object's finished parts into the run's
// progress as they land, and takes them back out when the object ends (its
// whole size is then counted once, as done).
type partBytes struct {
	p     *Progress
	moved atomic.Int64
}

func (b *partBytes) add(n int64) {
	b.moved.Add(n)
	b.p.bytesInFlight.Add(n)
}

func (b *partBytes) end() { b.p.bytesInFlight.Add(-b.moved.Swap(0)) }
