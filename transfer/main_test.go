package transfer_test

import (
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

// TestMain runs the Examples against the embedded server.
func TestMain(m *testing.M) { s3test.Main(m) }
