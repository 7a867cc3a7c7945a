package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/s3bulk/s3bulk/engine"
)

// Exit codes, documented in `s3bulk help` and tested.
const (
	ExitOK          = 0   // everything done
	ExitPartial     = 1   // some objects failed (the rest is done), or nothing matched
	ExitUsage       = 2   // bad command line: nothing was touched
	ExitFatal       = 3   // no credentials, no such bucket, endpoint down...
	ExitInterrupted = 130 // SIGINT/SIGTERM
)

const exitCodeHelp = `Exit codes:
  0    all objects done
  1    some objects failed (each is reported; the others are done), or the
       source named no object (a wildcard or key that matches nothing, ls
       of a missing key or prefix)
  2    usage error (bad flag, bad URL): nothing was touched
  3    fatal error (no credentials, no such bucket, endpoint unreachable...)
  130  interrupted (Ctrl-C or SIGTERM); rerun to finish`

// usageError marks errors in what the user typed.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// partialError reports that a run finished with some failed objects.
type partialError struct{ failed int64 }

func (e partialError) Error() string { return fmt.Sprintf("%d object(s) failed", e.failed) }

// exitCode maps an error returned by a command to the process exit code.
func exitCode(ctx context.Context, err error) int {
	var ue usageError
	var pe partialError
	switch {
	case err == nil:
		return ExitOK
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &pe), errors.As(err, new(*engine.NoMatchError)):
		return ExitPartial
	default:
		// The command's own error: the run stopped (retry.StopsRun) or
		// never started.
		return ExitFatal
	}
}
