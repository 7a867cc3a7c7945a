package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// Engines `cp --engine` names.
const (
	engineLocal    = batchops.EngineLocal
	engineBatchOps = batchops.EngineBatchOps
	engineAuto     = "auto"
)

// engineFlags choose who copies: this machine (local) or an S3 Batch
// Operations job (batchops), or let s3bulk measure its own rate and decide
// (auto).
type engineFlags struct {
	engine     string
	prefer     string
	roleArn    string
	jobStartup time.Duration
	jobRate    float64
	// window is how many finished objects auto measures before deciding.
	window int64
	batch  batchFlags
}

// Auto decides after autoWindow objects have finished, or after autoWindowTime,
// whichever comes first (docs/design/0003-engine-auto.md).
const (
	autoWindow     = 1000
	autoWindowTime = 10 * time.Second
)

func (f *engineFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	a := batchops.JobAssumptions()
	fl.StringVar(&f.engine, "engine", engineLocal, "who copies S3 to S3: local, batchops (an S3 Batch Operations job) or auto (start here, measure s3bulk's rate, hand the rest to a job only if the model says it wins)")
	fl.StringVar(&f.prefer, "prefer", batchops.PreferTime, "what --engine auto optimises: time or cost")
	fl.DurationVar(&f.jobStartup, "job-startup", a.BatchStartup, "a job's start-up time, for --engine auto (e.g. from 's3bulk bench --role-arn')")
	fl.Float64Var(&f.jobRate, "job-rate", a.BatchObjectsPerSec, "a job's objects/s once active, for --engine auto")
	fl.Int64Var(&f.window, "auto-window", autoWindow, "objects --engine auto copies here before deciding")
	_ = fl.MarkHidden("auto-window")
	fl.StringVar(&f.roleArn, "role-arn", "", "`ARN` of the IAM role for --engine batchops/auto (see 's3bulk batch policy')")
	fl.StringVar(&f.batch.accountID, "account-id", "", "AWS account for --engine batchops (default: asked from STS)")
	fl.StringVar(&f.batch.controlEndpoint, "control-endpoint-url", "", "S3 Control endpoint URL for --engine batchops")
	fl.DurationVar(&f.batch.pollInterval, "poll-interval", defaultPollInterval, "how often a job is asked for its state")
	_ = fl.MarkHidden("poll-interval")
}

// jobRefusals lists the cp flags and arguments a copy job cannot honour
// (docs/batchops.md has the whole mapping). --engine batchops refuses the
// first with one line; --engine auto copies locally and says why.
func jobRefusals(f transferFlags, src, dst s3url.Location, move, metaSet bool) []string {
	var out []string
	if move {
		out = append(out, "mv runs locally only (a job cannot delete the sources)")
	}
	if f.noClobber {
		out = append(out, "--no-clobber needs --engine local: a job overwrites keys that exist (it has no condition on the destination)")
	}
	if f.sel.active() || metaSet {
		out = append(out, "filters, shards and metadata flags need --engine local")
	}
	if f.obj.active() {
		out = append(out, "encryption, ACL, request-payer and source-region and source-* flags need --engine local (a job cannot read SSE-C sources at all)")
	}
	if f.journal != "" {
		out = append(out, "--journal needs --engine local: a job's record is its completion report")
	}
	if src.IsS3() && dst.IsS3() && !src.HasWildcard() && !f.recursive && !src.IsDirLike() {
		out = append(out, "a job copies a prefix or a wildcard match, not one object: use --recursive or --engine local")
	}
	return out
}

// pickEngine checks the engine flags and returns the engine to run and, for
// auto, why a job is out of the question (then auto copies locally).
func pickEngine(f transferFlags, src, dst s3url.Location, move, metaSet bool) (string, []string, error) {
	ef := f.engine
	switch ef.engine {
	case "", engineLocal:
		return engineLocal, nil, nil
	case engineBatchOps, engineAuto:
	default:
		return "", nil, usagef("--engine %q: want local, batchops or auto", ef.engine)
	}
	if ef.prefer != batchops.PreferTime && ef.prefer != batchops.PreferCost {
		return "", nil, usagef("--prefer %q: want time or cost", ef.prefer)
	}
	if ef.jobStartup < 0 || ef.jobRate <= 0 {
		return "", nil, usagef("--job-startup %s --job-rate %g: want a duration of 0 or more and a rate above 0", ef.jobStartup, ef.jobRate)
	}
	reasons := append(jobRefusals(f, src, dst, move, metaSet), batchops.Blockers(src, dst)...)
	if ef.engine == engineAuto {
		return engineAuto, reasons, nil
	}
	if len(reasons) > 0 {
		return "", nil, usagef("--engine batchops: %s", reasons[0])
	}
	if ef.roleArn == "" {
		return "", nil, usagef("--engine batchops needs --role-arn (see `s3bulk batch policy %s %s`)", src, dst)
	}
	return engineBatchOps, nil, nil
}

// errHandOver ends the local part of an auto run that hands the rest to a
// job.
var errHandOver = errors.New("handing the rest of the copy to a Batch Operations job")

// autoRun is one `cp --engine auto`: it copies from this machine from the
// start and, while it does, counts the source and measures s3bulk's own
// rate. Once autoWindow objects have finished (or autoWindowTime has passed)
// and the count is known, it weighs the objects not yet started: locally at
// the measured rate, or as a job. If a job wins on the user's --prefer, the
// planner stops taking objects, the objects already started finish here,
// and a job copies every object after the last one started (listings are in
// key order, and a job keeps whole keys, as this copy does).
type autoRun struct {
	a      *app
	ef     engineFlags
	prog   *engine.Progress
	start  time.Time
	counts chan autoCount
	ctx    context.Context // the local run's
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // countSource and stopWhenStartedFinish
	seen   atomic.Int64   // objects counted so far

	// Touched by the planner's goroutine only (the engine's Filter).
	count   *autoCount
	decided bool
	handed  bool
	last    string // the last key given to the local engine
	choice  batchops.Choice
}

type autoCount struct {
	objects, bytes int64
	err            error
}

func (a *app) runAuto(ctx context.Context, s *session, ef engineFlags, blockers []string, job engine.Job, opts engine.Options, src s3url.Location, srcArg, dstArg string, raw bool) error {
	if len(blockers) > 0 {
		for _, b := range blockers {
			fmt.Fprintf(a.stdio.Err, "engine auto: local: batchops cannot do this copy: %s\n", b)
		}
		return a.execute(ctx, s, job, opts)
	}
	if a.g.dryRun || a.planOnly {
		fmt.Fprintln(a.stdio.Err, "engine auto: local: a dry run copies nothing, so there is no rate to measure")
		return a.execute(ctx, s, job, opts)
	}
	// Lines from the planner's goroutine meet the workers' result lines
	// on stderr.
	restore := a.lockStderr()
	defer restore()

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := &autoRun{a: a, ef: ef, prog: &engine.Progress{}, start: time.Now(), counts: make(chan autoCount, 1), ctx: runCtx, cancel: cancel}
	c, err := s.s3(ctx)
	if err != nil {
		return err
	}
	r.wg.Add(1)
	go r.countSource(runCtx, c.Bucket(src.Bucket), src)
	defer r.wg.Wait()
	defer cancel(nil) // runs first: stops a count still listing
	opts.Progress = r.prog
	opts.Filter = r.filter

	localErr := a.execute(runCtx, s, job, opts)
	if !r.decided {
		r.decideAtEnd()
	}
	if !r.handed {
		return localErr
	}
	var local partialError
	switch {
	case ctx.Err() != nil:
		return localErr
	case localErr == nil, errors.Is(context.Cause(runCtx), errHandOver):
	case errors.As(localErr, &local):
	default:
		return localErr
	}
	bf := ef.batch
	jobErr := a.runBatchCp(ctx, &bf, batchCpFlags{
		roleArn: ef.roleArn, reportScope: "all", priority: 10, wait: true, raw: raw, startAfter: r.last,
	}, srcArg, dstArg)
	var jp partialError
	switch {
	case jobErr == nil && local.failed > 0:
		return local
	case errors.As(jobErr, &jp):
		return partialError{failed: jp.failed + local.failed}
	}
	return jobErr
}

// countSource lists src once, counting what the copy matches.
func (r *autoRun) countSource(ctx context.Context, st store.Lister, src s3url.Location) {
	defer r.wg.Done()
	var n autoCount
	loc := src
	if !loc.HasWildcard() {
		loc = loc.AsDir()
	}
	n.err = st.List(ctx, loc.Prefix(), "", func(o store.Object) error {
		if !o.IsPrefix && (!loc.HasWildcard() || loc.Match(o.Key)) {
			n.objects++
			n.bytes += o.Size
			r.seen.Add(1)
		}
		return nil
	})
	r.counts <- n
}

// filter is the engine's Filter: it lets every object through until auto
// hands over to a job, and makes the decision when it is due.
func (r *autoRun) filter(o store.Object) bool {
	if r.handed {
		return false
	}
	if !r.decided && r.due() {
		r.decide()
		if r.handed {
			r.wg.Add(1)
			go r.stopWhenStartedFinish(r.ctx)
			return false
		}
	}
	r.last = o.Key
	return true
}

// due says whether the decision can be made now: the window is over, and
// either the count is complete or it already settles the question. A
// count only grows, and a job's lead grows with it, so a job that wins on
// the objects counted so far wins on all of them; and when this machine
// outruns a job's rate (or cost is what matters), no count can make a job
// win. A count of a huge bucket may take minutes; the decision need not.
func (r *autoRun) due() bool {
	snap := r.prog.Snapshot()
	finished := snap.Done + snap.Failed + snap.Skipped
	if finished < max(r.ef.window, 1) && (finished == 0 || time.Since(r.start) < autoWindowTime) {
		return false
	}
	if r.count == nil {
		select {
		case n := <-r.counts:
			r.count = &n
		default:
		}
	}
	if r.count != nil {
		return true
	}
	a := r.assumptions(finished, snap.Elapsed)
	never := a.Prefer == batchops.PreferCost || a.BatchObjectsPerSec <= a.LocalObjectsPerSec
	return never || r.seen.Load()-snap.Planned > batchops.BreakEven(a.LocalObjectsPerSec, a)
}

func (r *autoRun) assumptions(finished int64, elapsed time.Duration) batchops.Assumptions {
	a := batchops.JobAssumptions()
	a.Prefer = r.ef.prefer
	a.BatchStartup = r.ef.jobStartup
	a.BatchObjectsPerSec = r.ef.jobRate
	if r.ef.jobStartup != batchops.JobAssumptions().BatchStartup || r.ef.jobRate != batchops.JobAssumptions().BatchObjectsPerSec {
		a.BatchRateSource = "--job-startup/--job-rate"
	}
	if elapsed > 0 && finished > 0 {
		a.LocalObjectsPerSec = float64(finished) / elapsed.Seconds()
		a.LocalRateSource = fmt.Sprintf("s3bulk measured here: %d objects in %s", finished, elapsed.Round(time.Millisecond))
	}
	return a
}

// decide weighs the objects the local engine has not started yet.
func (r *autoRun) decide() {
	r.decided = true
	w := r.a.stdio.Err
	if r.count != nil && r.count.err != nil {
		fmt.Fprintf(w, "engine auto: local: could not count the source to weigh a job: %v\n", r.count.err)
		return
	}
	snap := r.prog.Snapshot()
	finished := snap.Done + snap.Failed + snap.Skipped
	counted, bytes, atLeast := r.seen.Load(), "", "at least "
	if r.count != nil {
		counted, bytes, atLeast = r.count.objects, fmt.Sprintf(", %d bytes", r.count.bytes), ""
	}
	rest := max(counted-snap.Planned, 0)
	r.choice = batchops.Choose(batchops.Workload{Objects: rest}, r.assumptions(finished, snap.Elapsed))
	fmt.Fprintf(w, "engine auto: %s%d objects%s; %d started here, %s%d not yet\n", atLeast, counted, bytes, snap.Planned, atLeast, rest)
	printLines(w, r.choice.Lines())
	switch {
	case r.choice.Engine != engineBatchOps:
		fmt.Fprintln(w, "engine auto: choosing local")
	case r.ef.roleArn == "":
		fmt.Fprintln(w, "engine auto: choosing local: a job would win but needs --role-arn")
	default:
		r.handed = true
		fmt.Fprintf(w, "engine auto: choosing batchops for the %s%d objects after %q; the %d started here finish here\n", atLeast, rest, r.last, snap.Planned)
	}
}

// decideAtEnd explains a run that finished before a decision was due.
func (r *autoRun) decideAtEnd() {
	r.decided = true
	if r.count == nil {
		n := <-r.counts
		r.count = &n
	}
	n := *r.count
	if n.err != nil {
		return
	}
	snap := r.prog.Snapshot()
	finished := snap.Done + snap.Failed + snap.Skipped
	r.choice = batchops.Choose(batchops.Workload{Objects: n.objects}, r.assumptions(finished, snap.Elapsed))
	fmt.Fprintf(r.a.stdio.Err, "engine auto: %d objects, %d bytes, all copied here before a decision was due\n", n.objects, n.bytes)
	printLines(r.a.stdio.Err, r.choice.Lines())
	fmt.Fprintln(r.a.stdio.Err, "engine auto: choosing local")
}

// stopWhenStartedFinish ends the local run once every object it started
// has finished, so that its planner stops listing what the job will copy.
// Nothing in flight is cancelled: each object up to r.last is copied here.
func (r *autoRun) stopWhenStartedFinish(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s := r.prog.Snapshot(); s.Done+s.Failed+s.Skipped >= s.Planned {
			r.cancel(errHandOver)
			return
		}
	}
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// lockStderr makes a.stdio.Err safe for writers in several goroutines until
// the returned func restores it. A terminal stays a terminal, for the
// progress bar.
func (a *app) lockStderr() func() {
	prev := a.stdio.Err
	w := progress.Locked(prev)[0]
	if f, ok := prev.(interface{ Fd() uintptr }); ok {
		w = fdWriter{w, f}
	}
	a.stdio.Err = w
	return func() { a.stdio.Err = prev }
}

type fdWriter struct {
	io.Writer
	f interface{ Fd() uintptr }
}

func (w fdWriter) Fd() uintptr { return w.f.Fd() }

// runJob hands a cp to an S3 Batch Operations job and waits for it.
func (a *app) runJob(ctx context.Context, f engineFlags, raw bool, srcArg, dstArg string) error {
	bf := f.batch
	return a.runBatchCp(ctx, &bf, batchCpFlags{
		roleArn: f.roleArn, reportScope: "all", priority: 10, wait: true, raw: raw,
	}, srcArg, dstArg)
}

// defaultPollInterval is how often a job started by cp is asked for its
// state, as `batch cp --wait` does by default.
const defaultPollInterval = 5 * time.Second
