package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"strings"
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
	hermetic()
	s3test.Main(m)
}

// hermeticEnv marks a test process whose environment hermetic has
// already cleaned; child processes inherit it and keep what their parent
// gave them.
const hermeticEnv = "S3BULK_TEST_HERMETIC"

// hermetic takes the developer's AWS configuration out of the process's
// environment. The command lines under test get their environment from
// the test (Stdio.Env); what the AWS SDK still reads from the process (it
// has no other source for some variables) is then nobody's: no keys, no
// profile, empty config files, no instance metadata.
func hermetic() {
	if os.Getenv(hermeticEnv) != "" {
		return
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			os.Unsetenv(k)
		}
	}
	os.Setenv("AWS_CONFIG_FILE", os.DevNull)
	os.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	os.Setenv(hermeticEnv, "1")
}
