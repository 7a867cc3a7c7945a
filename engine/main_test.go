package engine

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

// TestMain runs the tests against the embedded server and then checks that
// no goroutine outlived them: every run waits for what it started.
func TestMain(m *testing.M) {
	s3test.Main(m, func() error {
		return goleak.Find(
			// Idle keep-alive connections of the tests' HTTP clients
			// belong to the clients' pools, not to a run (a readLoop may be
			// parked in a read of an external server's idle connection).
			goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		)
	})
}
