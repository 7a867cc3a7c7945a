package transfer

import (
	"context"
	"fmt"
	"io"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// Request is one copy: the job and options engine.Engine.Run takes, who
// is to carry it out, and what it asks that a job may not honour.
type Request struct {
	Choice  Choice
	Job     engine.Job
	Options engine.Options
	// Asks is what Pick weighs; zero: AsksOf(Job, Options).
	Asks Asks
	// ObjectLock is the Object Lock every copy gets (a job sets one
	// value on all its copies).
	ObjectLock store.ObjectLock
}

// Jobs carries out the part of a copy given to S3 Batch Operations.
// NewJobs makes one that talks to S3 Control.
type Jobs interface {
	// Copy copies every object of Src after StartAfter ("": all) to Dst
	// with one job, and waits for it to end. A dry run plans the job and
	// creates nothing.
	Copy(ctx context.Context, q JobRequest) error
}

// JobRequest is the part of a copy a job carries out.
type JobRequest struct {
	// Src and Dst are the copy's locations as named (a job keeps whole
	// source keys: see Asks.Refusals).
	Src, Dst   s3url.Location
	StartAfter string
	RoleArn    string
	// ObjectLock and ChecksumAlgorithm are set on every copy.
	ObjectLock        store.ObjectLock
	ChecksumAlgorithm string
	DryRun            bool
}

// Runner carries out copies on the engine chosen for each.
type Runner struct {
	// Engine runs the local copies (Engine.Run, with the request's
	// Options: its Observer and Progress are a caller's renderers) and
	// plans auto's count of the source; nil: engine.New with the default
	// budgets.
	Engine *engine.Engine
	// Ended, when set, is called once the copies made here have ended,
	// with their summary and error, before a job copies the rest (auto):
	// where a caller stops its progress display and prints the summary.
	Ended func(engine.Summary, error)
	// Plan, when set, makes the copies that would be made here planned
	// instead: each task of their plan (Engine.Plan) is passed to Plan,
	// nothing is run and Ended is not called. A job's part is planned by
	// Jobs.Copy in a dry run (Options.DryRun).
	Plan func(engine.Task) error
	// Jobs carries out what is given to S3 Batch Operations; a Runner
	// without one refuses BatchOps and lets Auto only say what it would do.
	Jobs Jobs
	// Out receives auto's lines: the refusals that keep a copy here, the
	// estimates and the choice. Writes come from the planner's goroutine
	// too: Out must be safe for that. Nil: discarded.
	Out io.Writer
	// Words says a refusal in the caller's terms (its flags); nil:
	// Refusal.Why.
	Words func(Refusal) string
}

// Run carries out q on the engine q.Choice picks and returns the summary
// of the objects copied here. Local is Engine.Run. BatchOps is one job
// (Jobs.Copy) over the whole source. Auto starts here, counts the source
// and measures this machine's rate; when a job wins on Choice.Prefer, the
// objects started here finish here and a job copies every object after
// the last one started. The error is Pick's (*ChoiceError,
// *RefusedError, ErrNoRole), the local run's, or the job's; objects that
// failed here are counted in the summary.
func (r *Runner) Run(ctx context.Context, q Request) (engine.Summary, error) {
	asks := q.Asks
	if asks == (Asks{}) {
		asks = AsksOf(q.Job, q.Options)
	}
	mode, refusals, err := q.Choice.Pick(asks)
	switch {
	case err != nil:
		return engine.Summary{}, err
	case q.Job.From != nil && mode == BatchOps:
		return engine.Summary{}, &RefusedError{Refusal{RefuseList, "a job lists its source itself, or takes an inventory report, not a list of keys"}}
	case q.Job.From != nil:
		mode = Local // the list is the source: nothing to count for auto
	}
	switch mode {
	case BatchOps:
		return engine.Summary{}, r.job(ctx, q, asks, "")
	case Auto:
		return r.auto(ctx, q, asks, refusals)
	}
	return r.local(ctx, q.Job, q.Options)
}

func (r *Runner) engine() *engine.Engine {
	if r.Engine == nil {
		r.Engine = engine.New(engine.Config{})
	}
	return r.Engine
}

// local runs job here (or plans it, with Plan).
func (r *Runner) local(ctx context.Context, job engine.Job, opts engine.Options) (engine.Summary, error) {
	if r.Plan != nil {
		return engine.Summary{}, r.engine().Plan(ctx, job, opts).Each(r.Plan)
	}
	sum, err := r.engine().Run(ctx, job, opts)
	if r.Ended != nil {
		r.Ended(sum, err)
	}
	return sum, err
}

// job hands the objects after startAfter to a job.
func (r *Runner) job(ctx context.Context, q Request, asks Asks, startAfter string) error {
	if r.Jobs == nil {
		return fmt.Errorf("copy %s to %s by a job: the runner has no Jobs", asks.Src, asks.Dst)
	}
	return r.Jobs.Copy(ctx, JobRequest{
		Src: asks.Src, Dst: asks.Dst, StartAfter: startAfter, RoleArn: q.Choice.RoleArn,
		ObjectLock: q.ObjectLock, ChecksumAlgorithm: q.Options.ChecksumAlgorithm, DryRun: q.Options.DryRun,
	})
}

// auto is one Auto run (batchops.Auto): the local engine copies from the
// start while auto counts the source and measures its rate; when a job
// wins, the rest goes to one.
func (r *Runner) auto(ctx context.Context, q Request, asks Asks, refusals []Refusal) (engine.Summary, error) {
	out := r.Out
	if out == nil {
		out = io.Discard
	}
	if len(refusals) > 0 {
		for _, x := range refusals {
			fmt.Fprintf(out, "engine auto: local: batchops cannot do this copy: %s\n", r.say(x))
		}
		return r.local(ctx, q.Job, q.Options)
	}
	if q.Options.DryRun {
		fmt.Fprintln(out, "engine auto: local: a dry run copies nothing, so there is no rate to measure")
		return r.local(ctx, q.Job, q.Options)
	}
	c := q.Choice
	auto := batchops.StartAuto(ctx, q.Job, batchops.AutoOptions{
		Prefer: c.Prefer, JobStartup: c.JobStartup, JobRate: c.JobRate, Window: c.Window,
		CanHandOver: c.RoleArn != "" && r.Jobs != nil, Out: out, Engine: r.engine(),
		Progress: q.Options.Progress,
	})
	defer auto.Close()
	opts := q.Options
	opts.Progress = auto.Progress()
	opts.Filter = auto.Filter
	sum, err := r.local(auto.Context(), q.Job, opts)
	after, handOver := auto.Finish(ctx, err, false)
	if !handOver {
		return sum, err
	}
	return sum, r.job(ctx, q, asks, after)
}

func (r *Runner) say(x Refusal) string {
	if r.Words != nil {
		return r.Words(x)
	}
	return x.Why
}
