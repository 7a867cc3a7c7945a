package batchops

import (
	"fmt"
	"math"
	"time"
)

// Engines `cp --engine` chooses between.
const (
	EngineLocal    = "local"
	EngineBatchOps = "batchops"
)

// Assumptions are the rates and prices an estimate uses. DefaultAssumptions
// holds report 1's measurements; callers replace the local rate with what
// they measured.
type Assumptions struct {
	// LocalObjectsPerSec is this machine's server-side copy rate.
	LocalObjectsPerSec float64
	// LocalBytesPerSec bounds local copies that move bytes through this
	// machine; zero means not bandwidth bound (server-side copy).
	LocalBytesPerSec float64
	// BatchStartup is a job's time from CreateJob to its first task: the
	// wall clock minus the active time.
	BatchStartup time.Duration
	// BatchObjectsPerSec is a job's rate while Active.
	BatchObjectsPerSec float64

	// RequestPer1000 is the price of 1,000 PUT/COPY requests (USD).
	RequestPer1000 float64
	// JobFee is Batch Operations' price per job.
	JobFee float64
	// PerMillionObjects is Batch Operations' price per million objects.
	PerMillionObjects float64

	// MaxExtraCost is the most a job may cost above copying locally for auto
	// to pick it when it is faster; zero means no limit.
	MaxExtraCost float64
}

// DefaultAssumptions are report 1's figures (5,000 objects of 100 KiB in
// ap-northeast-1): `aws s3 cp` 251.43 objects/s; a Batch Operations job 63.3 s
// wall clock of which 15 s active (333.33 objects/s), so 48.3 s of start-up;
// $0.0047 per 1,000 PUT/COPY requests, $0.25 per job, $1.00 per million
// objects.
func DefaultAssumptions() Assumptions {
	return Assumptions{
		LocalObjectsPerSec: 251.43,
		BatchStartup:       48300 * time.Millisecond,
		BatchObjectsPerSec: 5000.0 / 15,
		RequestPer1000:     0.0047,
		JobFee:             0.25,
		PerMillionObjects:  1.00,
	}
}

// Workload is what a copy would move.
type Workload struct {
	Objects int64
	Bytes   int64
	// BatchBlocked lists reasons a job cannot do this copy at all (a local
	// source or destination, SSE-C, a source in another region).
	BatchBlocked []string
}

// EngineEstimate is one engine's predicted time and cost.
type EngineEstimate struct {
	Engine string
	// Active is the time spent copying; Time adds a job's start-up.
	Active time.Duration
	Time   time.Duration
	Cost   float64 // USD
}

// Choice is auto's decision and why.
type Choice struct {
	Engine   string
	Local    EngineEstimate
	BatchOps EngineEstimate
	// BreakEven is the object count above which a job is faster at these
	// rates; zero when it never is.
	BreakEven int64
	Reasons   []string
}

// Choose estimates both engines for w and picks the faster one, unless a job
// is impossible or costs more than a.MaxExtraCost above copying locally.
// Both engines list the source once and issue one COPY per object, so those
// requests cost the same; a job adds its fees and its start-up.
func Choose(w Workload, a Assumptions) Choice {
	n := float64(w.Objects)
	requests := n / 1000 * a.RequestPer1000

	local := EngineEstimate{Engine: EngineLocal, Cost: requests}
	if a.LocalObjectsPerSec > 0 {
		local.Active = seconds(n / a.LocalObjectsPerSec)
	}
	if a.LocalBytesPerSec > 0 {
		local.Active = max(local.Active, seconds(float64(w.Bytes)/a.LocalBytesPerSec))
	}
	local.Time = local.Active

	batch := EngineEstimate{Engine: EngineBatchOps, Cost: a.JobFee + n/1e6*a.PerMillionObjects + requests}
	if a.BatchObjectsPerSec > 0 {
		batch.Active = seconds(n / a.BatchObjectsPerSec)
	}
	batch.Time = a.BatchStartup + batch.Active

	c := Choice{Engine: EngineLocal, Local: local, BatchOps: batch, BreakEven: breakEven(a)}
	switch {
	case len(w.BatchBlocked) > 0:
		for _, r := range w.BatchBlocked {
			c.Reasons = append(c.Reasons, "batchops cannot do this copy: "+r)
		}
	case w.Objects == 0:
		c.Reasons = append(c.Reasons, "nothing to copy: a job would cost its fee for nothing")
	case batch.Time >= local.Time:
		c.Reasons = append(c.Reasons, fmt.Sprintf("local is faster: %s against %s for a job, whose start-up alone takes %s",
			round(local.Time), round(batch.Time), round(a.BatchStartup)))
	case a.MaxExtraCost > 0 && batch.Cost-local.Cost > a.MaxExtraCost:
		c.Reasons = append(c.Reasons, fmt.Sprintf("a job would save %s but cost %s more, above the limit of %s",
			round(local.Time-batch.Time), usd(batch.Cost-local.Cost), usd(a.MaxExtraCost)))
	default:
		c.Engine = EngineBatchOps
		c.Reasons = append(c.Reasons, fmt.Sprintf("a job is faster: %s against %s locally, for %s more",
			round(batch.Time), round(local.Time), usd(batch.Cost-local.Cost)))
	}
	if c.BreakEven > 0 && len(w.BatchBlocked) == 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("at these rates a job is faster above %d objects", c.BreakEven))
	}
	return c
}

// breakEven solves n/local = startup + n/batch for n.
func breakEven(a Assumptions) int64 {
	if a.LocalObjectsPerSec <= 0 || a.BatchObjectsPerSec <= a.LocalObjectsPerSec || a.LocalBytesPerSec > 0 {
		// A job never catches up, or the local side is bandwidth bound and
		// the answer depends on object sizes.
		return 0
	}
	gain := 1/a.LocalObjectsPerSec - 1/a.BatchObjectsPerSec
	return int64(math.Ceil(a.BatchStartup.Seconds() / gain))
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func round(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }

func usd(v float64) string {
	if v < 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// Lines formats the estimate and the decision for people, one line each,
// as `cp --engine auto` prints them.
func (c Choice) Lines() []string {
	out := []string{
		fmt.Sprintf("estimate: local    %9s  %s", round(c.Local.Time), usd(c.Local.Cost)),
		fmt.Sprintf("estimate: batchops %9s  %s (%s start-up + %s active)", round(c.BatchOps.Time), usd(c.BatchOps.Cost), round(c.BatchOps.Time-c.BatchOps.Active), round(c.BatchOps.Active)),
	}
	for i, r := range c.Reasons {
		if i == 0 {
			out = append(out, "engine: "+c.Engine+": "+r)
			continue
		}
		out = append(out, "engine: "+r)
	}
	return out
}
