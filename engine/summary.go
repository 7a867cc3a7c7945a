package engine

import (
	"time"

	"github.com/s3bulk/s3bulk/engine/shard"
)

// Summary is the fold of a run's results.
type Summary struct {
	Objects int64 `json:"objects"` // done, deletes included
	// Deleted counts the deletes among Objects (rm, sync --delete, and
	// none for mv, whose source deletes are part of each move).
	Deleted  int64            `json:"deleted"`
	Bytes    int64            `json:"bytes"` // bytes of done objects, deletes not included
	Failed   int64            `json:"failed"`
	Skipped  int64            `json:"skipped"`
	Planned  int64            `json:"planned"`
	Elapsed  time.Duration    `json:"-"`
	Seconds  float64          `json:"seconds"`
	Requests map[string]int64 `json:"requests,omitempty"`
	// Unverified counts the done objects that had nothing to be checked
	// against (Result.Unverified).
	Unverified int64 `json:"unverified,omitempty"`
	// Restarted counts the objects, done or failed, that were started
	// over at least once (Result.Attempts above 1).
	Restarted int64 `json:"restarted,omitempty"`
	// Shard is the run's Options.Shard: which part of a job it was.
	Shard shard.Shard `json:"-"`
}

// Copied is the objects done other than deletes.
func (s Summary) Copied() int64 { return s.Objects - s.Deleted }

// ObjectsPerSecond is done objects over wall time.
func (s Summary) ObjectsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Objects) / s.Elapsed.Seconds()
}

// MiBPerSecond is done bytes over wall time, in MiB/s.
func (s Summary) MiBPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Bytes) / (1 << 20) / s.Elapsed.Seconds()
}

func (s *Summary) add(r Result) {
	switch r.Status {
	case StatusDone, StatusDryRun:
		s.Objects++
		if r.Task.Op == OpDelete {
			s.Deleted++
		} else {
			s.Bytes += r.Task.Size
		}
		if r.Unverified {
			s.Unverified++
		}
	case StatusFailed:
		s.Failed++
	case StatusSkipped:
		s.Skipped++
	}
	if r.Attempts > 1 {
		s.Restarted++
	}
}

// Add adds o's counts to s: the summary of several runs (the lines of a
// run file). Elapsed, Seconds and Requests are the caller's.
func (s *Summary) Add(o Summary) {
	s.Objects += o.Objects
	s.Deleted += o.Deleted
	s.Bytes += o.Bytes
	s.Failed += o.Failed
	s.Skipped += o.Skipped
	s.Planned += o.Planned
	s.Unverified += o.Unverified
	s.Restarted += o.Restarted
}
