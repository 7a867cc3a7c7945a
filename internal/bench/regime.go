package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Regimes: what a run's figures measure.
const (
	// RegimeSimulated is a simulated S3 region (internal/simregion): every
	// request costs a round trip, capacity is S3's, no server CPU to speak
	// of. The regime users of AWS live in.
	RegimeSimulated = "simulated"
	// RegimeLocal is an S3 server on this machine (the embedded
	// versitygw), sharing its CPUs with the clients measured: the server's
	// CPU is the bound.
	RegimeLocal = "local"
)

// The simulated region's defaults: the report's round trip and S3's
// documented capacity per prefix. The round trip is the one the report's
// own figures imply: its SDK program's 166.7 s were, for each of its 4
// slots, 1,400 CopyObjects one after another (three rounds of companies of
// 400 objects, then the last company's 200) and a listing of 5 pages:
// 119 ms a request. (4 in flight over 30 objects/s, 133 ms, overlooks the
// last company running alone.)
const (
	DefaultSimLatency = 120 * time.Millisecond
	SimWriteRate      = 3500
	SimReadRate       = 5500
)

// SimSample is the share, one in SimSample, of each company's objects that
// the report's per-company SDK methods (put, copy-per-company) copy in the
// simulated region: at 4 requests in flight they take about 3 minutes
// for 5,000 objects. The first objects of every company, in proportion to
// its size, keep the report's shape (its last, smaller company included),
// so the rate is the whole run's.
const SimSample = 12

// sampled reports whether method runs on a sample when cfg.Sample is set.
func sampled(method string) bool {
	return method == MethodPut || method == MethodCopyPerCompany
}

// sampleGroups returns the first ceil(len/n) objects of each group.
func sampleGroups(groups []Group, n int) []Group {
	if n <= 1 {
		return groups
	}
	out := make([]Group, len(groups))
	for i, g := range groups {
		out[i] = Group{Company: g.Company, Objects: g.Objects[:ceilDiv(len(g.Objects), n)]}
	}
	return out
}

// Calibration is one of the report's methods measured in the simulated
// region against the report's own figure.
type Calibration struct {
	Method                 string  `json:"method"`
	ObjectsPerSecond       float64 `json:"objects_per_second"`
	ReportObjectsPerSecond float64 `json:"report_objects_per_second"`
	// Tolerance is the relative difference allowed (0.15 = ±15%).
	Tolerance float64 `json:"tolerance"`
	Within    bool    `json:"within"`
	// ClientCPUShare is the method's client CPU time over its wall time
	// and this machine's CPUs: near 1, the client was the bound, not the
	// region. The report's client had ReportClientCores cores.
	ClientCPUShare float64 `json:"client_cpu_share"`
	// Alone, for the AWS CLI on a machine with fewer CPUs than the
	// report's client, is one process copying one company with the
	// machine to itself, as each of the report's four processes had a
	// core; Within then judges its rate on the report's schedule.
	Alone *AloneRun `json:"alone,omitempty"`
}

// AloneRun is one `aws s3 cp --recursive` of one company, alone.
type AloneRun struct {
	Company string  `json:"company"`
	Objects int64   `json:"objects"`
	Seconds float64 `json:"seconds"`
	// ScheduledObjectsPerSecond is the whole set's rate had every company
	// taken this process's time per object, CompanyConcurrency processes
	// at a time with a core each, in the order the method runs them.
	ScheduledObjectsPerSecond float64 `json:"scheduled_objects_per_second"`
}

// needsAlone reports whether a run on cpus CPUs measures the AWS CLI alone
// too: its company processes each need about a core of Python, which the
// report's client had and this machine has not.
func needsAlone(regime string, cpus int) bool {
	return regime == RegimeSimulated && cpus < ReportClientCores
}

// scheduledSeconds is how long groups take at perObject seconds an object,
// slots at a time, each group started on the first slot to free up (as
// an errgroup with SetLimit(slots) starts them).
func scheduledSeconds(groups []Group, slots int, perObject float64) float64 {
	free := make([]float64, max(1, slots)) // when each slot frees up
	for _, g := range groups {
		i := 0
		for j := range free {
			if free[j] < free[i] {
				i = j
			}
		}
		free[i] += perObject * float64(len(g.Objects))
	}
	return slices.Max(free)
}

// ReportClientCores is the cores of report 1's client (a 4-core WSL box).
// Its four `aws s3 cp` processes had them to themselves; on fewer cores
// the processes' Python is the bound before the region is.
const ReportClientCores = 4

// clientBound is the client CPU share above which a calibration that
// misses is put down to the client's cores rather than the region.
const clientBound = 0.8

// calibrationTolerance is how close the simulated region must bring the
// report's own methods to the report's figures: its SDK program's rate is
// set by its 4 requests in flight over the round trip; the CLI's also by
// Python's start-up and its own pipeline, hence the wider margin.
var calibrationTolerance = map[string]float64{MethodCopyPerCompany: 0.15, MethodAWS: 0.25}

// calibrate compares the methods that finished with the report's figures.
// cpus is this machine's CPUs; alone, when not nil, is the AWS CLI's run
// alone (measured on machines with fewer cores than the report's client),
// which judges the CLI when its four processes at once missed: the region
// sets one process's rate as it set each of the report's, and four on
// fewer cores measure this machine's Python (or its other load) instead.
func calibrate(methods []Result, cpus int, alone *AloneRun) []Calibration {
	var out []Calibration
	for _, m := range methods {
		tol, ok := calibrationTolerance[m.Method]
		if !ok || m.Status != StatusOK {
			continue
		}
		want := reportRate(m.Method)
		c := Calibration{Method: m.Method, ObjectsPerSecond: m.ObjectsPerSecond, ReportObjectsPerSecond: want,
			Tolerance: tol, Within: math.Abs(m.ObjectsPerSecond/want-1) <= tol}
		if m.Seconds > 0 && cpus > 0 {
			c.ClientCPUShare = m.ClientCPUSeconds / (m.Seconds * float64(cpus))
		}
		if m.Method == MethodAWS && alone != nil && !c.Within {
			c.Alone = alone
			c.Within = math.Abs(alone.ScheduledObjectsPerSecond/want-1) <= tol
		}
		out = append(out, c)
	}
	return out
}

// reportRate is the report's objects/s for method (its first row of it).
func reportRate(method string) float64 {
	for _, f := range reportFigures {
		if f.method == method {
			return f.rate
		}
	}
	return 0
}

// Line is the calibration line printed under the table.
func (c Calibration) Line() string {
	verdict := "within"
	if !c.Within {
		verdict = "OUTSIDE"
	}
	if a := c.Alone; a != nil {
		return fmt.Sprintf("%s: %.1f objects/s, the report's %.2f: %+.0f%%, with its client at %.0f%% of this machine's CPUs (the report's had %d cores, one a process); "+
			"one process alone: %d objects of %s in %.1f s, on the report's schedule with a core a process %.1f objects/s: %+.0f%%, %s ±%.0f%%",
			c.Method, c.ObjectsPerSecond, c.ReportObjectsPerSecond, (c.ObjectsPerSecond/c.ReportObjectsPerSecond-1)*100,
			c.ClientCPUShare*100, ReportClientCores, a.Objects, a.Company, a.Seconds, a.ScheduledObjectsPerSecond,
			(a.ScheduledObjectsPerSecond/c.ReportObjectsPerSecond-1)*100, verdict, c.Tolerance*100)
	}
	line := fmt.Sprintf("%s: %.1f objects/s, the report's %.2f: %+.0f%%, %s ±%.0f%%",
		c.Method, c.ObjectsPerSecond, c.ReportObjectsPerSecond, (c.ObjectsPerSecond/c.ReportObjectsPerSecond-1)*100, verdict, c.Tolerance*100)
	if n := c.ClientNote(); n != "" {
		line += " (" + n + ")"
	}
	return line
}

// Compared is the rate Within judges: the measured one, or the run
// alone's on the report's schedule.
func (c Calibration) Compared() float64 {
	if c.Alone != nil {
		return c.Alone.ScheduledObjectsPerSecond
	}
	return c.ObjectsPerSecond
}

// ClientNote says, for a calibration that missed while its client kept
// this machine's CPUs busy, that the client was the bound, not the
// region; "" otherwise.
func (c Calibration) ClientNote() string {
	if c.Within || c.Alone != nil || c.ClientCPUShare < clientBound {
		return ""
	}
	return fmt.Sprintf("its client used %.0f%% of this machine's CPUs; the report's had %d cores: the client was the bound, not the region",
		c.ClientCPUShare*100, ReportClientCores)
}

// RegimeTitle names the regime in a title: "in a simulated S3 region
// (120ms per request, S3's capacity)".
func (e Environment) RegimeTitle() string {
	switch e.Regime {
	case RegimeSimulated:
		return fmt.Sprintf("in a simulated S3 region (%s per request, S3's capacity)", orNone(e.Latency))
	case RegimeLocal:
		if e.Latency != "" {
			return fmt.Sprintf("on a local S3 server (this machine's CPUs, %s added per request)", e.Latency)
		}
		return "on a local S3 server (this machine's CPUs)"
	}
	if e.Endpoint == "" {
		return "on AWS"
	}
	return "on " + e.Endpoint
}

func orNone(latency string) string {
	if latency == "" {
		return "no latency"
	}
	return latency
}

// regimeWhy says what the regime's figures show and why the other one
// matters too; "" for a run on a real endpoint.
func regimeWhy(e Environment) string {
	switch e.Regime {
	case RegimeSimulated:
		return strings.Join([]string{
			fmt.Sprintf("Regime: a simulated S3 region, the one users of AWS live in. Every request costs a round trip (%s; the report's is 119ms),", orNone(e.Latency)),
			fmt.Sprintf("capacity is S3's (SlowDown above %d writes/s and %d reads/s per prefix), the region keeps metadata only and checks", SimWriteRate, SimReadRate),
			"signatures, checksums and copy sources; its CPU cost is next to nothing. A method's rate is its requests in flight over",
			"the round trip, as on AWS. `--server local` shows the other regime: a server on your own cores, where CPU is the bound.",
		}, "\n")
	case RegimeLocal:
		return strings.Join([]string{
			fmt.Sprintf("Regime: a local S3 server (the embedded versitygw, bodies stored on disk) sharing this machine's %d CPUs with the clients.", e.CPUs),
			"The server's CPU is the bound: every method that keeps it busy ties, and figures move with the machine's load.",
			"It is the regime of an S3-compatible server on your own hardware; the default demo shows AWS's, where latency is the bound.",
		}, "\n")
	}
	return ""
}
