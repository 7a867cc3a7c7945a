package batchops

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Engines `cp --engine` chooses between.
const (
	EngineLocal    = "local"
	EngineBatchOps = "batchops"
	// EngineAuto: start locally, measure, and hand the rest to a job when
	// the model says it wins (Auto).
	EngineAuto = "auto"
)

// What auto optimises for.
const (
	PreferTime = "time"
	PreferCost = "cost"
)

// Assumptions are the rates and prices an estimate uses. ReportAssumptions
// holds report 1's measurements; JobAssumptions holds what is known of a job
// and leaves the local rate to be measured (see docs/design/0003-engine-auto.md).
type Assumptions struct {
	// LocalObjectsPerSec is this machine's server-side copy rate: s3bulk's
	// own, measured, never another tool's.
	LocalObjectsPerSec float64
	// LocalRateSource says where LocalObjectsPerSec comes from, for people
	// ("measured here: 1000 objects in 2.1s").
	LocalRateSource string
	// LocalBytesPerSec bounds local copies that move bytes through this
	// machine; zero means not bandwidth bound (server-side copy).
	LocalBytesPerSec float64
	// BatchStartup is a job's time from CreateJob to its first task: the
	// wall clock minus the active time.
	BatchStartup time.Duration
	// BatchObjectsPerSec is a job's rate while Active.
	BatchObjectsPerSec float64
	// BatchRateSource says where the job's figures come from.
	BatchRateSource string

	// RequestPer1000 is the price of 1,000 PUT/COPY requests (USD).
	RequestPer1000 float64
	// JobFee is Batch Operations' price per job.
	JobFee float64
	// PerMillionObjects is Batch Operations' price per million objects.
	PerMillionObjects float64

	// Prefer is what auto optimises: PreferTime (the default) or
	// PreferCost.
	Prefer string
	// MaxExtraCost is the most a job may cost above copying locally for auto
	// to pick it when it is faster; zero means no limit.
	MaxExtraCost float64
}

// Report 1's job: 5,000 objects, 63.3 s wall clock of which 15 s active.
const (
	reportJobStartup = 48300 * time.Millisecond
	reportJobRate    = 5000.0 / 15
	reportJobSource  = "report 1's job: 5,000 objects in 15 s active, 63.3 s wall clock"
)

// JobAssumptions are what s3bulk knows of a job without running one (report
// 1's job and ap-northeast-1's prices), with no local rate: the caller
// measures s3bulk's own and sets LocalObjectsPerSec.
func JobAssumptions() Assumptions {
	return Assumptions{
		BatchStartup:       reportJobStartup,
		BatchObjectsPerSec: reportJobRate,
		BatchRateSource:    reportJobSource,
		RequestPer1000:     0.0047,
		JobFee:             0.25,
		PerMillionObjects:  1.00,
		Prefer:             PreferTime,
	}
}

// ReportAssumptions are report 1's figures (5,000 objects of 100 KiB in
// ap-northeast-1), the local side being `aws s3 cp` at 251.43 objects/s; a
// Batch Operations job 63.3 s wall clock of which 15 s active (333.33
// objects/s), so 48.3 s of start-up; $0.0047 per 1,000 PUT/COPY requests,
// $0.25 per job, $1.00 per million objects. They reproduce the report's
// table; `cp --engine auto` never uses the CLI's rate for s3bulk.
func ReportAssumptions() Assumptions {
	a := JobAssumptions()
	a.LocalObjectsPerSec = 251.43
	a.LocalRateSource = "report 1's aws s3 cp"
	return a
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
	// Assumptions are the rates and prices the estimates used.
	Assumptions Assumptions
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

	c := Choice{Engine: EngineLocal, Local: local, BatchOps: batch, BreakEven: breakEven(a), Assumptions: a}
	switch {
	case len(w.BatchBlocked) > 0:
		for _, r := range w.BatchBlocked {
			c.Reasons = append(c.Reasons, "batchops cannot do this copy: "+r)
		}
	case w.Objects == 0:
		c.Reasons = append(c.Reasons, "nothing to copy: a job would cost its fee for nothing")
	case a.LocalObjectsPerSec <= 0 && a.LocalBytesPerSec <= 0:
		c.Reasons = append(c.Reasons, "this machine's rate is unknown: nothing to weigh a job against")
	case a.Prefer == PreferCost && batch.Cost >= local.Cost:
		c.Reasons = append(c.Reasons, fmt.Sprintf("local is cheaper: %s against %s for a job (%s a job and %s per million objects on top of the same COPY requests)",
			usd(local.Cost), usd(batch.Cost), usd(a.JobFee), usd(a.PerMillionObjects)))
	case a.Prefer == PreferCost:
		c.Engine = EngineBatchOps
		c.Reasons = append(c.Reasons, fmt.Sprintf("a job is cheaper: %s against %s locally", usd(batch.Cost), usd(local.Cost)))
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
	if len(w.BatchBlocked) == 0 && a.LocalObjectsPerSec > 0 && a.LocalBytesPerSec <= 0 {
		if c.BreakEven > 0 {
			c.Reasons = append(c.Reasons, fmt.Sprintf("at these rates a job is faster above %d objects", c.BreakEven))
		} else {
			c.Reasons = append(c.Reasons, fmt.Sprintf("at %s objects/s here a job is never faster: it copies %s objects/s once started",
				rate(a.LocalObjectsPerSec), rate(a.BatchObjectsPerSec)))
		}
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

// BreakEven is the object count above which a job is faster than this
// machine copying at localObjectsPerSec, with a's job figures; zero when a
// job never is.
func BreakEven(localObjectsPerSec float64, a Assumptions) int64 {
	a.LocalObjectsPerSec, a.LocalBytesPerSec = localObjectsPerSec, 0
	return breakEven(a)
}

func rate(v float64) string {
	if v >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// Lines formats the estimate and the decision for people, one line each,
// as `cp --engine auto` prints them: both estimates with the rates they
// used, then the decision and why.
func (c Choice) Lines() []string {
	a := c.Assumptions
	localRate := "rate unknown"
	if a.LocalObjectsPerSec > 0 {
		localRate = rate(a.LocalObjectsPerSec) + " objects/s"
		if a.LocalRateSource != "" {
			localRate += " (" + a.LocalRateSource + ")"
		}
	}
	batchRate := rate(a.BatchObjectsPerSec) + " objects/s"
	if a.BatchRateSource != "" {
		batchRate += " (" + a.BatchRateSource + ")"
	}
	out := []string{
		fmt.Sprintf("estimate: local    %9s  %s at %s", round(c.Local.Time), usd(c.Local.Cost), localRate),
		fmt.Sprintf("estimate: batchops %9s  %s: %s start-up + %s at %s", round(c.BatchOps.Time), usd(c.BatchOps.Cost), round(c.BatchOps.Time-c.BatchOps.Active), round(c.BatchOps.Active), batchRate),
	}
	prefer := a.Prefer
	if prefer == "" {
		prefer = PreferTime
	}
	for i, r := range c.Reasons {
		if i == 0 {
			out = append(out, "engine: "+c.Engine+" (prefer "+prefer+"): "+r)
			continue
		}
		out = append(out, "engine: "+r)
	}
	return out
}

// HelpText says, from the model, when a job pays off: the break-even object
// counts at a few local rates. Help texts print it instead of a fixed figure.
func HelpText() string {
	a := JobAssumptions()
	var parts []string
	for _, r := range []float64{50, 100, 200, 300} {
		parts = append(parts, fmt.Sprintf("%s objects/s: above ~%s objects", rate(r), thousands(BreakEven(r, a))))
	}
	return fmt.Sprintf("A job starts in ~%s and then copies ~%s objects/s (report 1's job), and costs %s plus %s per million objects on top of the same COPY requests. "+
		"It is faster only while this machine copies fewer than %s objects/s, and then only for big copies (at %s); s3bulk usually copies faster than that. "+
		"`cp --engine auto` measures s3bulk's own rate and decides.",
		round(a.BatchStartup), rate(a.BatchObjectsPerSec), usd(a.JobFee), usd(a.PerMillionObjects), rate(a.BatchObjectsPerSec), strings.Join(parts, ", "))
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
