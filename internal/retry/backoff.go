package retry

import (
	"math/rand/v2"
	"time"
)

// Backoff computes the wait before the next attempt: exponential growth with
// full jitter (a uniformly random wait between zero and the exponential
// cap). Full jitter spreads hundreds of goroutines that failed together, so
// they do not come back together; see "Exponential Backoff And Jitter" on
// the AWS Architecture Blog.
//
// The zero value uses the defaults documented on each field.
type Backoff struct {
	// Base caps the first retry of a Retryable error; default 100ms.
	Base time.Duration
	// ThrottleBase caps the first retry of a Throttled error; default
	// 250ms. Throttling means the server is overloaded now, so the first
	// wait is longer than for a lost connection; but the run's limiter
	// already halves the requests in flight on throttling (AIMD), and a
	// throttled request holds its slot while it waits: with 1s, a copy
	// under 5% SlowDown ran at 48-69% of the clean rate, with 50ms above
	// 100%. 250ms keeps retries spread out without idling slots.
	ThrottleBase time.Duration
	// Max caps every wait; default 20s.
	Max time.Duration
	// Rand returns a uniform value in [0, n); nil means math/rand/v2.
	// Tests set it to pin the jitter.
	Rand func(n int64) int64
}

const (
	defaultBase         = 100 * time.Millisecond
	defaultThrottleBase = 250 * time.Millisecond
	defaultMax          = 20 * time.Second
)

// Delay returns how long to wait after attempt (1 for the first attempt)
// failed with an error of class c.
func (b Backoff) Delay(attempt int, c Class) time.Duration {
	base := b.Base
	if base <= 0 {
		base = defaultBase
	}
	if c == Throttled {
		base = b.ThrottleBase
		if base <= 0 {
			base = defaultThrottleBase
		}
	}
	ceiling := b.Max
	if ceiling <= 0 {
		ceiling = defaultMax
	}
	limit := base
	for i := 1; i < attempt && limit < ceiling; i++ {
		limit *= 2
	}
	limit = min(limit, ceiling)
	random := b.Rand
	if random == nil {
		random = rand.Int64N
	}
	return time.Duration(random(int64(limit)))
}
