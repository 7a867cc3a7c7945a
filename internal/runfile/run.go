package runfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sync/errgroup"
)

// Line is one command line of a run file.
type Line struct {
	N    int // line number, from 1
	Args []string
	// Heavy is what Options.Check said of the line: it lists (a prefix, a
	// wildcard, a sync).
	Heavy bool
}

// Options configure Run.
type Options struct {
	// Check parses a line as its command would, without running it, and
	// reports whether it is heavy. An error stops Run before any line ran.
	Check func(Line) (heavy bool, err error)
	// Exec runs one line; it is called from many goroutines at once, and
	// handles its own errors.
	Exec func(ctx context.Context, l Line)
	// Start, when set, runs once every line passed Check, before the
	// first runs; an error stops Run.
	Start func() error
	// Light and Heavy bound the lines running at once of each kind.
	Light, Heavy int
}

// Run runs the lines of f in two passes, reading f twice rather than
// holding it: it checks every line, and only when all pass runs them all at
// once, heavy ones at most Heavy at a time, the others at most Light. It
// returns the first Check, Start or read error (a *LineError), ctx's error
// when interrupted, or an error when f changed between the passes (see
// IsChanged); Exec's outcomes are the caller's.
func Run(ctx context.Context, f io.ReadSeeker, o Options) error {
	var heavyAt []bool // by line, in order
	err := eachLine(f, func(l Line) error {
		heavy, err := o.Check(l)
		if err != nil {
			return err
		}
		heavyAt = append(heavyAt, heavy)
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if o.Start != nil {
		if err := o.Start(); err != nil {
			return err
		}
	}
	var light, heavy errgroup.Group
	light.SetLimit(o.Light)
	heavy.SetLimit(o.Heavy)
	i := 0
	err = eachLine(f, func(l Line) error {
		if i == len(heavyAt) {
			return errChanged
		}
		l.Heavy, i = heavyAt[i], i+1
		g := &light
		if l.Heavy {
			g = &heavy
		}
		g.Go(func() error {
			o.Exec(ctx, l)
			return nil
		})
		return ctx.Err()
	})
	_ = light.Wait()
	_ = heavy.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func eachLine(r io.Reader, fn func(Line) error) error {
	return Each(r, func(n int, args []string) error { return fn(Line{N: n, Args: args}) })
}

// errChanged is Run's error for a file that gained lines between its passes.
var errChanged = errors.New("the file changed while it ran")

// IsChanged reports whether err is Run's for a file that changed between
// its passes.
func IsChanged(err error) bool { return errors.Is(err, errChanged) }

// Spool copies r (standard input, read once) into a temporary file in dir
// and returns it at its start, so that Run can read it twice without
// holding it in memory. cleanup closes and removes the file.
func Spool(r io.Reader, dir string) (f *os.File, cleanup func(), err error) {
	tmp, err := os.CreateTemp(dir, "s3bulk-run-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}
	if _, err := io.Copy(tmp, r); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("read stdin: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		cleanup()
		return nil, nil, err
	}
	return tmp, cleanup, nil
}
