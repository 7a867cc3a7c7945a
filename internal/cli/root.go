package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/metrics"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// Stdio is the process's world as a command line sees it: where it reads
// and writes, and its environment. Tests pass buffers and an environment of
// their own, so that command lines can run in parallel in one process.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Env is the environment as os.Environ returns it ("KEY=value"; the
	// last of a repeated key wins); nil means the process's.
	Env []string
}

// globals are the flags accepted before or after any verb.
type globals struct {
	endpointURL          string
	region               string
	profile              string
	concurrency          int
	maxConcurrency       int
	json                 bool
	quiet                bool
	verbose              bool
	dryRun               bool
	noProgress           bool
	logLevel             string
	pathStyle            string // auto|true|false
	checksumWhenRequired bool
	stallTimeout         time.Duration
	noVerifyChecksums    bool
	cpuProfile           string
	metricsAddr          string
}

// app carries what every command needs. It is built per Run, never global.
type app struct {
	stdio   Stdio
	env     environ
	g       globals
	logger  *slog.Logger
	profile *os.File
	// metrics, with --metrics-addr, sees every run of the process and is
	// served by metricsSrv until the command ends.
	metrics    *metrics.Metrics
	metricsSrv *metrics.Server

	// shared, when set, is the session of every line of a `run` file.
	shared *session
	// planOnly makes execute print the plan as JSON lines (`plan`).
	planOnly bool
	// collect, when set, takes each run's summary instead of printing it
	// (`run` prints one for all its lines).
	collect func(engine.Summary)
}

func (a *app) startProfile() error {
	if a.g.cpuProfile == "" {
		return nil
	}
	f, err := os.Create(a.g.cpuProfile)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	a.profile = f
	return pprof.StartCPUProfile(f)
}

func (a *app) stopProfile() {
	if a.profile != nil {
		pprof.StopCPUProfile()
		a.profile.Close()
		a.profile = nil
	}
}

// Run executes one s3bulk command line and returns the process exit code.
func Run(ctx context.Context, args []string, stdio Stdio) int {
	// The logger and the renderers write from many goroutines; one lock per
	// writer keeps a caller's buffer whole (an *os.File needs none, and must
	// stay one for the terminal check).
	_, errFile := stdio.Err.(*os.File)
	_, outFile := stdio.Out.(*os.File)
	if !errFile && stdio.Err != nil {
		same := stdio.Out == stdio.Err // the same writer: the same lock
		stdio.Err = progress.Locked(stdio.Err)[0]
		if same {
			stdio.Out = stdio.Err
		}
	}
	if !outFile && stdio.Out != nil && stdio.Out != stdio.Err {
		stdio.Out = progress.Locked(stdio.Out)[0]
	}
	a := &app{stdio: stdio, env: newEnviron(stdio.Env)}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	err := root.ExecuteContext(ctx)
	a.stopProfile()
	a.stopMetrics()
	if err == nil {
		return ExitOK
	}
	err = unknownCommand(root, args, err)
	if ctx.Err() != nil {
		// Interrupted: what was done is reported; the cause is the user.
		fmt.Fprintln(stdio.Err, "s3bulk: interrupted")
		return ExitInterrupted
	}
	// A task's fatal error was printed as its ERROR line already.
	var te *engine.TaskError
	if !errors.As(err, new(partialError)) && (a.g.json || !errors.As(err, &te)) {
		msg := oneLine(err)
		if hint := explain(err); hint != "" {
			msg += "; " + hint
		}
		fmt.Fprintf(stdio.Err, "s3bulk: %s\n", msg)
	}
	var ue usageError
	if isCobraUsageError(err) && !errors.As(err, &ue) {
		return ExitUsage
	}
	return exitCode(ctx, err)
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "s3bulk",
		Short: "Move very many, or very large, objects into, out of and between S3 buckets, fast",
		Long: `s3bulk copies, syncs, moves and deletes objects in S3 and any S3-compatible
store (MinIO, Ceph, versitygw...) with one run-wide pool of requests: S3 to S3
copies are server-side, big objects go in parallel parts, and listings stream
straight into the workers so memory stays flat for millions of keys.

` + exitCodeHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setup(cmd.Flags().Changed("concurrency"))
		},
	}
	root.Version = versionText()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return flagError(cmd, err) })
	f := root.PersistentFlags()
	f.StringVar(&a.g.endpointURL, "endpoint-url", "", "S3 endpoint URL (default: AWS, or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)")
	f.StringVar(&a.g.region, "region", "", "region to sign requests for (default: from the AWS config, else us-east-1)")
	f.StringVar(&a.g.profile, "profile", "", "shared config profile")
	f.IntVar(&a.g.concurrency, "concurrency", 0, fmt.Sprintf("fix the requests in flight for the whole run (default: found by measuring, from %d up to --max-concurrency)", defaultConcurrency))
	f.IntVar(&a.g.maxConcurrency, "max-concurrency", defaultMaxConcurrency, "the most requests in flight the measuring may reach")
	f.BoolVar(&a.g.json, "json", false, "print results as JSON lines")
	f.BoolVar(&a.g.quiet, "quiet", false, "print only errors and the summary")
	f.BoolVar(&a.g.verbose, "verbose", false, "print one line per skipped object (and, for serve, the server's own log)")
	f.BoolVar(&a.g.dryRun, "dry-run", false, "print what would be done, touch nothing")
	f.BoolVar(&a.g.noProgress, "no-progress", false, "never show a progress bar")
	f.StringVar(&a.g.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	f.StringVar(&a.g.pathStyle, "path-style", "auto", "path-style addressing: auto (on for custom endpoints), true, false")
	f.BoolVar(&a.g.checksumWhenRequired, "checksum-when-required", false, "send request checksums only when the API requires them (for stores that reject CRC headers)")
	f.DurationVar(&a.g.stallTimeout, "stall-timeout", s3store.DefaultStallTimeout, fmt.Sprintf("retry on a new connection a request that makes no progress for this long (longer for a server that has been slow, up to %v); 0 turns it off", s3store.StallTimeoutCap))
	f.StringVar(&a.g.cpuProfile, "cpu-profile", "", "write a Go CPU profile of the run to this file")
	_ = f.MarkHidden("cpu-profile")
	f.StringVar(&a.g.metricsAddr, "metrics-addr", "", "serve Prometheus metrics of the run on http://HOST:PORT/metrics while it lasts (docs/shards.md)")
	root.PersistentPostRunE = func(*cobra.Command, []string) error { a.stopProfile(); return nil }
	root.AddCommand(a.commands()...)
	return root
}

// setup checks the global flags; concurrencySet says --concurrency was
// given (0 is its "not given").
func (a *app) setup(concurrencySet bool) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.g.logLevel)); err != nil {
		return usagef("--log-level %q: want debug, info, warn or error", a.g.logLevel)
	}
	if a.g.concurrency < 1 && (a.g.concurrency != 0 || concurrencySet) {
		return usagef("--concurrency %d: must be at least 1 (leave it out to have it found by measuring)", a.g.concurrency)
	}
	if a.g.maxConcurrency < 1 {
		return usagef("--max-concurrency %d: must be at least 1", a.g.maxConcurrency)
	}
	if a.g.stallTimeout < 0 {
		return usagef("--stall-timeout %v: must not be negative (0 turns stall detection off)", a.g.stallTimeout)
	}
	switch a.g.pathStyle {
	case "auto", "true", "false":
	default:
		return usagef("--path-style %q: want auto, true or false", a.g.pathStyle)
	}
	if a.g.endpointURL != "" {
		if err := checkEndpointURL("--endpoint-url", a.g.endpointURL); err != nil {
			return err
		}
	}
	a.logger = slog.New(slog.NewTextHandler(a.stdio.Err, &slog.HandlerOptions{Level: level}))
	if a.g.metricsAddr != "" && a.metricsSrv == nil {
		m := metrics.New()
		srv, err := metrics.Listen(a.g.metricsAddr, m)
		if err != nil {
			return usagef("--metrics-addr %q: %v", a.g.metricsAddr, err)
		}
		a.metrics, a.metricsSrv = m, srv
	}
	return a.startProfile()
}

// stopMetrics stops serving metrics.
func (a *app) stopMetrics() {
	if a.metricsSrv != nil {
		_ = a.metricsSrv.Close()
		a.metricsSrv = nil
	}
}

// checkEndpointURL checks the value of an endpoint flag.
func checkEndpointURL(flag, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("%s %q: want http://HOST[:PORT] or https://HOST[:PORT]", flag, v)
	}
	return nil
}

// isCobraUsageError recognises cobra's own argument errors (unknown command,
// wrong number of args), which it returns as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "invalid argument", "flag needs an argument"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return true
		}
	}
	return false
}

// oneLine keeps error output to one line whatever the SDK put in the message.
func oneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", "; ")
}
