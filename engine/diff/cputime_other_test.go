//go:build !unix

package diff

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
