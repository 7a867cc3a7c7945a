package engine

import (
	"sync/atomic"
	"time"
)

// Progress holds a run's counters. The engine updates them atomically;
// renderers read Snapshot from any goroutine.
type Progress struct {
	start         atomic.Int64 // unix nanos
	planned       atomic.Int64
	plannedBytes  atomic.Int64
	planDone      atomic.Bool
	done          atomic.Int64
	failed        atomic.Int64
	skipped       atomic.Int64
	bytes         atomic.Int64 // bytes of finished objects
	bytesInFlight atomic.Int64 // bytes of finished parts of unfinished objects
	concurrency   func() (limit, inFlight int)
}

// Snapshot is a consistent-enough copy of the counters for display.
type Snapshot struct {
	Elapsed      time.Duration `json:"-"`
	Seconds      float64       `json:"seconds"`
	Planned      int64         `json:"planned"`
	PlannedBytes int64         `json:"planned_bytes"`
	PlanComplete bool          `json:"plan_complete"`
	Done         int64         `json:"done"`
	Failed       int64         `json:"failed"`
	Skipped      int64         `json:"skipped"`
	Bytes        int64         `json:"bytes"`
	Limit        int           `json:"concurrency_limit"`
	InFlight     int           `json:"in_flight"`
}

// Snapshot reads the counters.
func (p *Progress) Snapshot() Snapshot {
	s := Snapshot{
		Planned:      p.planned.Load(),
		PlannedBytes: p.plannedBytes.Load(),
		PlanComplete: p.planDone.Load(),
		Done:         p.done.Load(),
		Failed:       p.failed.Load(),
		Skipped:      p.skipped.Load(),
		Bytes:        p.bytes.Load() + p.bytesInFlight.Load(),
	}
	if st := p.start.Load(); st != 0 {
		s.Elapsed = time.Since(time.Unix(0, st))
		s.Seconds = s.Elapsed.Seconds()
	}
	if p.concurrency != nil {
		s.Limit, s.InFlight = p.concurrency()
	}
	return s
}
