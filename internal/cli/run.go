package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/internal/runfile"
	"github.com/s3bulk/s3bulk/store"
)

// runVerbs are the commands a run file may hold.
var runVerbs = map[string]bool{"cp": true, "mv": true, "rm": true, "sync": true}

// heavyLines bounds the lines running at once that list (a prefix, a
// wildcard, a sync): each has a worker per request in flight, and a few of
// them already keep the run's budget of requests busy. Lines of one object
// run up to --concurrency at once.
const heavyLines = 4

func (a *app) runCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "run FILE|-",
		Short: "Run the cp, mv, rm and sync commands of a file (or stdin) in one process, with one pool of requests",
		Long: `Run many commands at once, as s5cmd's run does: one command a line, with the
arguments and flags it takes on the command line, all sharing one connection
pool and one budget of requests in flight (--concurrency).

  # comments and blank lines are skipped
  cp s3://src/a.json s3://dst/a.json
  cp --recursive ./build/ s3://site/build/
  mv 's3://src/incoming/*.csv' s3://src/done/
  rm s3://src/tmp/old.json
  sync --delete s3://src/data/ s3://dst/data/

Words are split like a shell's: 'single' and "double" quotes, backslash
escapes. Every line is checked before the first one runs: a bad line is a
usage error that names its line number, and nothing runs. Lines run at once,
in no particular order, so one line must not depend on another. Global flags
(--dry-run, --json, --quiet, --concurrency...) go before "run"; one summary
covers every line. The exit code is the worst of the lines'.`,
		Example: `  s3bulk run jobs.txt
  s3bulk --dry-run run jobs.txt
  printf 'cp s3://src/a s3://dst/a\ncp s3://src/b s3://dst/b\n' | s3bulk run -`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runFile(cmd.Context(), args[0])
		},
	}
}

func (a *app) runFile(ctx context.Context, name string) error {
	var f *os.File
	if name == "-" {
		// Stdin is read once: it is kept in a temporary file so that
		// checking every line first does not hold them all in memory.
		tmp, cleanup, err := runfile.Spool(a.stdio.In, a.env.tempDir())
		if err != nil {
			return fmt.Errorf("run -: %w", err)
		}
		defer cleanup()
		f = tmp
	} else {
		var err error
		if f, err = os.Open(name); err != nil {
			return usagef("run %s: %v", name, store.PathCause(err))
		}
		defer f.Close()
	}

	var s *session
	var mu sync.Mutex
	var total engine.Summary
	var failedLines, partial int
	anyS3 := false
	var start time.Time
	err := runfile.Run(ctx, f, runfile.Options{
		// First pass: check every line, run nothing.
		Check: func(l runfile.Line) (bool, error) {
			heavy, s3, err := a.checkRunLine(l)
			if err != nil {
				return false, usagef("run %s line %d: %v", name, l.N, err)
			}
			anyS3 = anyS3 || s3
			return heavy, nil
		},
		Start: func() error {
			// Output from lines running at once goes through one lock,
			// line by line.
			locked := progress.Locked(a.stdio.Out, a.stdio.Err)
			a.stdio.Out, a.stdio.Err = locked[0], locked[1]
			var level slog.Level
			_ = level.UnmarshalText([]byte(a.g.logLevel))
			a.logger = slog.New(slog.NewTextHandler(a.stdio.Err, &slog.HandlerOptions{Level: level}))
			rs := a.newSession()
			if anyS3 {
				// Made now, once: lines running at once would race to
				// make it.
				if _, err := rs.s3(ctx); err != nil {
					return err
				}
			}
			s, start = rs, time.Now()
			return nil
		},
		Exec: func(ctx context.Context, l runfile.Line) {
			err := a.runOneLine(ctx, s, l, func(sum engine.Summary) {
				mu.Lock()
				defer mu.Unlock()
				total.Add(sum)
			})
			var pe partialError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
			case errors.As(err, &pe):
				partial++
			default:
				failedLines++
				fmt.Fprintf(a.stdio.Err, "s3bulk: run %s line %d: %s\n", name, l.N, oneLine(err))
			}
		},
		Light: a.concurrencyOr(defaultConcurrency),
		Heavy: heavyLines,
	})
	if s == nil {
		return runFileError(name, err) // no line ran
	}
	total.Elapsed = time.Since(start)
	total.Seconds = total.Elapsed.Seconds()
	total.Requests = s.requests.Counts()
	if !a.g.quiet || a.g.json {
		progress.PrintSummary(a.stdio.Err, total, a.g.json, s.eng.Concurrency(), "")
	}
	switch {
	case err != nil:
		return runFileError(name, err)
	case failedLines > 0:
		return fmt.Errorf("run %s: %d line(s) failed", name, failedLines)
	case partial > 0:
		return partialError{failed: total.Failed}
	}
	return nil
}

// runFileError words an error of runfile.Run for the run file name; a
// line that cannot be split is a usage error naming it.
func runFileError(name string, err error) error {
	var le *runfile.LineError
	switch {
	case errors.As(err, &le) && le.Syntax:
		return usagef("run %s line %d: %v", name, le.Line, le.Err)
	case errors.As(err, &le):
		return fmt.Errorf("run %s line %d: %w", name, le.Line, le.Err)
	case runfile.IsChanged(err):
		return fmt.Errorf("run %s: %w", name, err)
	}
	return err
}

// lineApp is the app a line runs in: the run's settings and session, its
// own flags.
func (a *app) lineApp(s *session, collect func(engine.Summary)) (*app, *cobra.Command) {
	child := &app{stdio: a.stdio, logger: a.logger, shared: s, collect: collect}
	root := child.rootCmd()
	// Defining the flags reset child.g to their defaults: the run's global
	// flags apply to every line, which may override them.
	child.g = a.g
	child.g.cpuProfile = ""
	return child, root
}

// checkRunLine parses a line as its command would, without running it. It
// reports whether the line lists (a prefix, a wildcard, a sync) and whether
// it names S3.
func (a *app) checkRunLine(l runfile.Line) (heavy, s3 bool, err error) {
	_, root := a.lineApp(nil, nil)
	cmd, rest, err := root.Find(l.Args)
	if err != nil {
		return false, false, err
	}
	if cmd == root || !runVerbs[cmd.Name()] || cmd.Parent() != root {
		return false, false, fmt.Errorf("%q: a run file holds cp, mv, rm and sync commands", strings.Join(l.Args, " "))
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return false, false, fmt.Errorf("%s: %w", cmd.Name(), err)
	}
	pos := cmd.Flags().Args()
	if err := cmd.ValidateArgs(pos); err != nil {
		return false, false, err
	}
	raw, _ := cmd.Flags().GetBool("raw")
	recursive, _ := cmd.Flags().GetBool("recursive")
	heavy = recursive || cmd.Name() == "sync"
	for _, p := range pos {
		loc, err := parseLocation(p, raw)
		if err != nil {
			return false, false, err
		}
		heavy = heavy || loc.HasWildcard()
		s3 = s3 || loc.IsS3()
	}
	return heavy, s3, nil
}

// runOneLine runs one line as its command, in the run's session.
func (a *app) runOneLine(ctx context.Context, s *session, l runfile.Line, collect func(engine.Summary)) error {
	_, root := a.lineApp(s, collect)
	root.SetArgs(l.Args)
	root.SetIn(strings.NewReader(""))
	root.SetOut(a.stdio.Out)
	root.SetErr(a.stdio.Err)
	return root.ExecuteContext(ctx)
}
