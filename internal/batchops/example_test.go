package batchops_test

import (
	"fmt"

	"github.com/s3bulk/s3bulk/internal/batchops"
)

// A 100,000-object copy weighed at the rate s3bulk measured here: at 1,200
// objects/s this machine finishes long before a job has started.
func ExampleChoose() {
	a := batchops.JobAssumptions()
	a.LocalObjectsPerSec = 1200
	a.LocalRateSource = "measured here: 1000 objects in 833ms"
	c := batchops.Choose(batchops.Workload{Objects: 100_000, Bytes: 100_000 * 100 << 10}, a)
	for _, l := range c.Lines() {
		fmt.Println(l)
	}
	// Output:
	// estimate: local      1m23.3s  $0.47 at 1200 objects/s (measured here: 1000 objects in 833ms)
	// estimate: batchops   5m48.3s  $0.82: 48.3s start-up + 5m0s at 333 objects/s (report 1's job: 5,000 objects in 15 s active, 63.3 s wall clock)
	// engine: local (prefer time): local is faster: 1m23.3s against 5m48.3s for a job, whose start-up alone takes 48.3s
	// engine: at 1200 objects/s here a job is never faster: it copies 333 objects/s once started
}

// Report 1's 100,000-object copy, weighed as the report did against `aws s3
// cp`'s rate: there a job's minute of start-up is paid back.
func ExampleChoose_report() {
	c := batchops.Choose(batchops.Workload{Objects: 100_000}, batchops.ReportAssumptions())
	for _, l := range c.Lines() {
		fmt.Println(l)
	}
	// Output:
	// estimate: local      6m37.7s  $0.47 at 251 objects/s (report 1's aws s3 cp)
	// estimate: batchops   5m48.3s  $0.82: 48.3s start-up + 5m0s at 333 objects/s (report 1's job: 5,000 objects in 15 s active, 63.3 s wall clock)
	// engine: batchops (prefer time): a job is faster: 5m48.3s against 6m37.7s locally, for $0.35 more
	// engine: at these rates a job is faster above 49425 objects
}

func ExampleEncodeKey() {
	fmt.Println(batchops.EncodeKey("reports/2026 Q1/a+b,c.csv"))
	// Output: reports/2026%20Q1/a%2Bb%2Cc.csv
}
