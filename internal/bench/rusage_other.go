//go:build !unix

package bench

// processCPU is not measured off Unix: results show 0 CPU seconds.
func processCPU() (float64, bool) { return 0, false }
