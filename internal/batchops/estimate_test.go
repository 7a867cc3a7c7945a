package batchops

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestChooseReproducesReport1 checks the estimator against report 1's
// figures: 5,000 objects cost ~$0.024 by requests and ~$0.28 by Batch
// Operations, 100,000 cost ~$0.47 and ~$0.82; `aws s3 cp` took 19.9 s for
// 5,000 objects and the job 63.3 s wall clock; extrapolated to 150,000 the CLI
// takes ~9.9 min and a job ~7.5 min of active time.
func TestChooseReproducesReport1(t *testing.T) {
	tests := []struct {
		name                 string
		objects              int64
		localCost, batchCost float64 // to the cent, as the report rounds
		localTime, batchTime time.Duration
		batchActive          time.Duration
		engine               string
	}{
		{
			name: "5,000 objects copy faster and cheaper locally", objects: 5000,
			localCost: 0.02, batchCost: 0.28,
			localTime: 19900 * time.Millisecond, batchTime: 63300 * time.Millisecond, batchActive: 15 * time.Second,
			engine: EngineLocal,
		},
		{
			name: "100,000 objects copy faster as a job, for $0.35 more", objects: 100000,
			localCost: 0.47, batchCost: 0.82,
			localTime: 397700 * time.Millisecond, batchTime: 348300 * time.Millisecond, batchActive: 300 * time.Second,
			engine: EngineBatchOps,
		},
		{
			name: "150,000 objects take ~9.9 min locally and ~7.5 min of job activity", objects: 150000,
			localCost: 0.71, batchCost: 1.11,
			localTime: 596600 * time.Millisecond, batchTime: 498300 * time.Millisecond, batchActive: 450 * time.Second,
			engine: EngineBatchOps,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Choose(Workload{Objects: tt.objects, Bytes: tt.objects * 100 << 10}, ReportAssumptions())
			if got := cents(c.Local.Cost); got != tt.localCost {
				t.Errorf("local cost = $%.4f (%.2f), want ~$%.2f", c.Local.Cost, got, tt.localCost)
			}
			if got := cents(c.BatchOps.Cost); got != tt.batchCost {
				t.Errorf("batchops cost = $%.4f (%.2f), want ~$%.2f", c.BatchOps.Cost, got, tt.batchCost)
			}
			if got := round(c.Local.Time); got != tt.localTime {
				t.Errorf("local time = %s, want %s", got, tt.localTime)
			}
			if got := round(c.BatchOps.Time); got != tt.batchTime {
				t.Errorf("batchops time = %s, want %s", got, tt.batchTime)
			}
			if got := round(c.BatchOps.Active); got != tt.batchActive {
				t.Errorf("batchops active time = %s, want %s", got, tt.batchActive)
			}
			if c.Engine != tt.engine {
				t.Errorf("engine = %s, want %s (reasons: %q)", c.Engine, tt.engine, c.Reasons)
			}
		})
	}
}

func TestChooseReportsCostsToTheTenthOfACent(t *testing.T) {
	c := Choose(Workload{Objects: 5000}, ReportAssumptions())
	// The report says ~$0.024 and ~$0.28 for 5,000 objects.
	if math.Abs(c.Local.Cost-0.024) > 0.001 || math.Abs(c.BatchOps.Cost-0.28) > 0.002 {
		t.Errorf("costs = $%.4f local, $%.4f batchops; want ~$0.024 and ~$0.28", c.Local.Cost, c.BatchOps.Cost)
	}
}

func TestChooseBreakEven(t *testing.T) {
	c := Choose(Workload{Objects: 1}, ReportAssumptions())
	// 48.3 s / (1/251.43 - 1/333.33) objects.
	if c.BreakEven < 49400 || c.BreakEven > 49450 {
		t.Errorf("break-even = %d objects, want ~49,430", c.BreakEven)
	}
	below := Choose(Workload{Objects: c.BreakEven - 100}, ReportAssumptions())
	above := Choose(Workload{Objects: c.BreakEven + 100}, ReportAssumptions())
	if below.Engine != EngineLocal || above.Engine != EngineBatchOps {
		t.Errorf("around break-even: %s below, %s above; want local then batchops", below.Engine, above.Engine)
	}
}

func TestChooseDecisions(t *testing.T) {
	fast := ReportAssumptions()
	fast.LocalObjectsPerSec = 2000 // s3bulk's own rate, not the CLI's
	capped := ReportAssumptions()
	capped.MaxExtraCost = 0.10
	bw := ReportAssumptions()
	bw.LocalBytesPerSec = 10 << 20 // a download-and-upload through a 10 MiB/s link
	tests := []struct {
		name   string
		w      Workload
		a      Assumptions
		engine string
		reason string
	}{
		{"a blocked job falls back to local whatever the size", Workload{Objects: 10_000_000, BatchBlocked: []string{"the source is a local directory"}}, ReportAssumptions(), EngineLocal, "batchops cannot do this copy: the source is a local directory"},
		{"an empty workload never pays a job fee", Workload{}, ReportAssumptions(), EngineLocal, "nothing to copy"},
		{"a fast local engine outruns a job at 100,000 objects", Workload{Objects: 100000}, fast, EngineLocal, "local is faster"},
		{"a cost limit keeps a slightly faster job from running", Workload{Objects: 100000}, capped, EngineLocal, "above the limit of $0.10"},
		{"a bandwidth-bound local copy loses to a job", Workload{Objects: 1000, Bytes: 10 << 30}, bw, EngineBatchOps, "a job is faster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Choose(tt.w, tt.a)
			if c.Engine != tt.engine {
				t.Errorf("engine = %s, want %s (reasons %q)", c.Engine, tt.engine, c.Reasons)
			}
			if len(c.Reasons) == 0 || !strings.Contains(c.Reasons[0], tt.reason) {
				t.Errorf("reasons = %q, want the first to say %q", c.Reasons, tt.reason)
			}
		})
	}
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }
