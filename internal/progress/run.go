package progress

import (
	"io"

	"github.com/s3bulk/s3bulk/engine"
)

// RunOutput says how one engine run is rendered: each result as a line
// (Lines: successes on Out, failures on Err) or as JSON on Out
// (JSONLines), with a bar on Err when Bar. Lines meant for the bar's
// terminal go above it: Err's, and Out's too when OutTerminal.
type RunOutput struct {
	Out, Err             io.Writer
	JSON, Quiet, Verbose bool
	Bar, OutTerminal     bool
	// Explain ends a failure's text line with what a user can do about it.
	Explain func(error) string
}

// Run is a run being rendered.
type Run struct {
	prog    *engine.Progress
	bar     *Bar
	lines   *Lines
	observe func(engine.Result)
}

// Start starts rendering a run whose progress is p.
func (o RunOutput) Start(p *engine.Progress) *Run {
	r := &Run{prog: p}
	out, errOut := o.Out, o.Err
	if o.Bar {
		r.bar = StartBar(o.Err, p)
		// Lines for the bar's terminal go above it, or it draws over them.
		errOut = r.bar.Lines()
		if o.OutTerminal {
			out = errOut
		}
	}
	if o.JSON {
		r.observe = (&JSONLines{Out: o.Out}).Result
	} else {
		r.lines = &Lines{Out: out, ErrOut: errOut, Quiet: o.Quiet, Verbose: o.Verbose, Explain: o.Explain}
		r.observe = r.lines.Result
	}
	return r
}

// Result renders one result (an engine.Options.Observer).
func (r *Run) Result(res engine.Result) { r.observe(res) }

// Stop ends the run's rendering: the count of skips, and the bar's last
// state.
func (r *Run) Stop() {
	if r.lines != nil {
		r.lines.Skips()
	}
	if r.bar != nil {
		r.bar.Stop(r.prog.Snapshot())
	}
}
