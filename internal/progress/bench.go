package progress

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/s3bulk/s3bulk/internal/bench"
	"github.com/s3bulk/s3bulk/internal/units"
)

// Bench renders seed, bench and demo: results on Out (a table, or one JSON
// document with JSON), a line per stage on Err unless Quiet, and seed's
// progress bar on Err when Bar.
type Bench struct {
	Out, Err         io.Writer
	JSON, Quiet, Bar bool
}

// Seed runs bench.Seed with a bar on a terminal, and returns its seconds.
func (b Bench) Seed(ctx context.Context, conn bench.Conn, dst bench.Target, l bench.Layout, opts bench.SeedOptions) (bench.SeedStats, float64, error) {
	if b.Bar {
		bar := StartCounter(b.Err, int64(l.Objects),
			func(cur, total int64, _ time.Duration) string { return fmt.Sprintf("seed %d/%d objects", cur, total) },
			func(cur, _ int64, d time.Duration) string {
				return Rate(cur, d, "obj") + "  " + d.Truncate(time.Second).String()
			})
		opts.Progress = func(objects, _ int64) { bar.Set(objects, 0) }
		defer bar.Stop()
	}
	start := time.Now()
	st, err := bench.Seed(ctx, conn, dst, l, opts)
	return st, time.Since(start).Seconds(), err
}

// Seeded prints what seed wrote: a SeedRecord with JSON, else a line
// unless Quiet.
func (b Bench) Seeded(dst bench.Target, st bench.SeedStats, secs float64) error {
	if b.JSON {
		return NewJSON(b.Out).Encode(SeedRecord{Dest: dst.String(), Objects: st.Objects, Bytes: st.Bytes, Seconds: math.Round(secs*1000) / 1000})
	} else if !b.Quiet {
		fmt.Fprintf(b.Out, "seeded %d objects (%s) under %s in %.1f s\n", st.Objects, units.HumanExact(st.Bytes), dst, secs)
	}
	return nil
}

// Observer prints one line per method stage on Err; nil when Quiet.
func (b Bench) Observer() func(bench.Event) {
	if b.Quiet {
		return nil
	}
	return func(e bench.Event) {
		if line := e.Text(); line != "" {
			fmt.Fprintln(b.Err, line)
		}
	}
}

// Report writes r on Out: one JSON document with JSON, else the table.
func (b Bench) Report(r *bench.Report) error {
	if b.JSON {
		return bench.WriteJSON(b.Out, r)
	}
	return bench.WriteTable(b.Out, r)
}
