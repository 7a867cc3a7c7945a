package transport

import (
	"errors"
	"net/http"
	"sync/atomic"
	"syscall"

	"github.com/s3bulk/s3bulk/store"
)

// UnreachableAttempts is how many refused connections, before the endpoint
// has ever answered, end a run's attempts: an endpoint that is down at the
// start will not come up during a backoff meant for a blip. Without this a
// mistyped --endpoint-url took ~20 s of retries to report.
const UnreachableAttempts = 3

// Reachability tells an endpoint that is down from one that blipped: until
// some response has arrived, refused connections are counted, and after
// UnreachableAttempts of them no request retries one. Once the endpoint
// has answered, a refused connection is retried like any other network
// error (a server restarting mid-run).
type Reachability struct {
	answered atomic.Bool
	refused  atomic.Int32
}

// Unreachable reports whether err, a failed attempt, should not be retried
// because the endpoint has never answered and keeps refusing connections
// (ReachTransport marked the refusal).
func (r *Reachability) Unreachable(err error) bool {
	return errors.Is(err, store.ErrUnreachable) && r.refused.Add(1) >= UnreachableAttempts
}

// ReachTransport notes the first response of any kind, and marks a
// connection refused before it with store.ErrUnreachable, which makes the
// run stop instead of failing every object alike.
type ReachTransport struct {
	Base  http.RoundTripper
	Reach *Reachability
}

func (t *ReachTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.Base.RoundTrip(req)
	switch {
	case err == nil:
		if !t.Reach.answered.Load() {
			t.Reach.answered.Store(true)
		}
	case !t.Reach.answered.Load() && errors.Is(err, syscall.ECONNREFUSED):
		err = &neverAnsweredError{err}
	}
	return resp, err
}

// neverAnsweredError is a refused connection to an endpoint that has not
// answered yet; it is still the refused connection to errors.Is.
type neverAnsweredError struct{ err error }

func (e *neverAnsweredError) Error() string        { return e.err.Error() }
func (e *neverAnsweredError) Unwrap() error        { return e.err }
func (e *neverAnsweredError) Is(target error) bool { return target == store.ErrUnreachable }
