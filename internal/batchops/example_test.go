package batchops_test

import (
	"fmt"

	"github.com/s3bulk/s3bulk/internal/batchops"
)

// Report 1's 100,000-object copy: a job's minute of start-up is paid back
// by its faster copying, for $0.35 more than the requests alone.
func ExampleChoose() {
	c := batchops.Choose(batchops.Workload{Objects: 100_000, Bytes: 100_000 * 100 << 10}, batchops.DefaultAssumptions())
	for _, l := range c.Lines() {
		fmt.Println(l)
	}
	// Output:
	// estimate: local      6m37.7s  $0.47
	// estimate: batchops   5m48.3s  $0.82 (48.3s start-up + 5m0s active)
	// engine: batchops: a job is faster: 5m48.3s against 6m37.7s locally, for $0.35 more
	// engine: at these rates a job is faster above 49425 objects
}

func ExampleEncodeKey() {
	fmt.Println(batchops.EncodeKey("reports/2026 Q1/a+b,c.csv"))
	// Output: reports/2026%20Q1/a%2Bb%2Cc.csv
}
