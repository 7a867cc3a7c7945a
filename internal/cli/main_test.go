package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

// childArgsEnv makes the test binary run one s3bulk command line and exit,
// so tests can kill a real s3bulk process (kill -9, SIGINT) mid-run.
const childArgsEnv = "S3BULK_TEST_CLI_ARGS"

// TestMain is the package's: the binary doubles as the S3 server's child
// process (s3test) and as an s3bulk child process (childArgsEnv).
func TestMain(m *testing.M) {
	if raw := os.Getenv(childArgsEnv); raw != "" {
		var args []string
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			os.Stderr.WriteString("bad " + childArgsEnv + ": " + err.Error() + "\n")
			os.Exit(99)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Run(ctx, args, Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
		stop()
		os.Exit(code)
	}
	s3test.Main(m)
}
