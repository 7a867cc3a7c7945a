package s3store

import (
	"time"

	"github.com/s3bulk/s3bulk/internal/retry"
)

// Backoff is the wait between the attempts of a request: a uniformly
// random wait (full jitter) below a cap that starts at Base, or at
// ThrottleBase after a throttled response, and doubles with each attempt
// up to Max. Zero fields take the defaults: 100ms, 250ms and 20s.
type Backoff struct {
	Base, ThrottleBase, Max time.Duration
}

func (b Backoff) retry() retry.Backoff {
	return retry.Backoff{Base: b.Base, ThrottleBase: b.ThrottleBase, Max: b.Max}
}
