package batchops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// Auto decides after DefaultAutoWindow objects have finished, or after
// DefaultAutoWindowTime, whichever comes first
// (docs/design/0003-engine-auto.md).
const (
	DefaultAutoWindow     = 1000
	DefaultAutoWindowTime = 10 * time.Second
)

// AutoOptions configure one `cp --engine auto`.
type AutoOptions struct {
	// Prefer is PreferTime or PreferCost.
	Prefer string
	// JobStartup and JobRate are a job's assumed start-up time and
	// objects/s once active.
	JobStartup time.Duration
	JobRate    float64
	// Window is how many finished objects are measured before deciding
	// (0: DefaultAutoWindow); WindowTime bounds the wait (0:
	// DefaultAutoWindowTime).
	Window     int64
	WindowTime time.Duration
	// CanHandOver is false without a role for a job: auto then only
	// says what it would do.
	CanHandOver bool
	// Engine plans the count of the source; nil means an engine.New with the default budgets.
	Engine Engine
	// Out receives auto's lines: the estimates and the choice. Writes come
	// from the planner's goroutine: Out must be safe for that.
	Out io.Writer
	// Progress is the local run's counters, which auto measures (nil: its
	// own).
	Progress *engine.Progress
}

// ErrHandOver ends the local part of an auto run that hands the rest to a
// job.
var ErrHandOver = errors.New("handing the rest of the copy to a Batch Operations job")

// Auto is one `cp --engine auto`: it lets the local engine copy from the
// start and, while it does, counts the source (through engine.Plan) and
// measures s3bulk's own rate. Once Window objects have finished (or
// WindowTime has passed) and the count is known, it weighs the objects not
// yet started: locally at the measured rate, or as a job. If a job wins on
// Prefer, the planner stops taking objects (Filter), the objects already
// started finish here, and a job copies every object after the last one
// started (a job keeps whole keys, as this copy does).
//
// The caller runs the local engine with Context, Progress and Filter, then
// calls Finish.
type Auto struct {
	o      AutoOptions
	prog   *engine.Progress
	start  time.Time
	counts chan autoCount
	ctx    context.Context // the local run's
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // count and stopWhenStartedFinish
	seen   atomic.Int64   // objects counted so far

	// Touched by the planner's goroutine only (the engine's Filter), then
	// by Finish once the local run has ended.
	count   *autoCount
	decided bool
	handed  bool
	last    string // the last key given to the local engine
	choice  Choice
}

type autoCount struct {
	objects, bytes int64
	err            error
}

// StartAuto starts counting job's source, as the engine plans it.
func StartAuto(ctx context.Context, job engine.Job, o AutoOptions) *Auto {
	if o.Window <= 0 {
		o.Window = DefaultAutoWindow
	}
	if o.WindowTime <= 0 {
		o.WindowTime = DefaultAutoWindowTime
	}
	if o.Progress == nil {
		o.Progress = &engine.Progress{}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	r := &Auto{o: o, prog: o.Progress, start: time.Now(), counts: make(chan autoCount, 1), ctx: runCtx, cancel: cancel}
	r.wg.Add(1)
	go r.countSource(runCtx, job)
	return r
}

// Context is the local run's context: it ends when auto hands over.
func (r *Auto) Context() context.Context { return r.ctx }

// Progress is the local run's counters.
func (r *Auto) Progress() *engine.Progress { return r.prog }

// Close stops the count and waits for auto's goroutines.
func (r *Auto) Close() {
	r.cancel(nil)
	r.wg.Wait()
}

// Finish is called once the local run has returned localErr (ctx is the
// command's; partial says localErr only reports objects that failed). It
// says whether a job copies the rest, and after which key: the last one
// given to the local engine. Without a job, localErr is the outcome.
func (r *Auto) Finish(ctx context.Context, localErr error, partial bool) (after string, handOver bool) {
	if !r.decided {
		r.decideAtEnd()
	}
	if !r.handed || ctx.Err() != nil {
		return "", false
	}
	if localErr != nil && !partial && !errors.Is(context.Cause(r.ctx), ErrHandOver) {
		return "", false
	}
	return r.last, true
}

// countSource plans job once, counting what the copy matches.
func (r *Auto) countSource(ctx context.Context, job engine.Job) {
	defer r.wg.Done()
	var n autoCount
	eng := r.o.Engine
	if eng == nil {
		eng = engine.New(engine.Config{})
	}
	n.err = eng.Plan(ctx, job, engine.Options{}).Each(func(t engine.Task) error {
		n.objects++
		n.bytes += t.Size
		r.seen.Add(1)
		return nil
	})
	r.counts <- n
}

// Filter is the local engine's Filter: it lets every object through until
// auto hands over to a job, and makes the decision when it is due.
func (r *Auto) Filter(o store.Object) bool {
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
func (r *Auto) due() bool {
	snap := r.prog.Snapshot()
	finished := snap.Done + snap.Failed + snap.Skipped
	if finished < r.o.Window && (finished == 0 || time.Since(r.start) < r.o.WindowTime) {
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
	never := a.Prefer == PreferCost || a.BatchObjectsPerSec <= a.LocalObjectsPerSec
	return never || r.seen.Load()-snap.Planned > BreakEven(a.LocalObjectsPerSec, a)
}

func (r *Auto) assumptions(finished int64, elapsed time.Duration) Assumptions {
	a := JobAssumptions()
	a.Prefer = r.o.Prefer
	a.BatchStartup = r.o.JobStartup
	a.BatchObjectsPerSec = r.o.JobRate
	if r.o.JobStartup != JobAssumptions().BatchStartup || r.o.JobRate != JobAssumptions().BatchObjectsPerSec {
		a.BatchRateSource = "--job-startup/--job-rate"
	}
	if elapsed > 0 && finished > 0 {
		a.LocalObjectsPerSec = float64(finished) / elapsed.Seconds()
		a.LocalRateSource = fmt.Sprintf("s3bulk measured here: %d objects in %s", finished, elapsed.Round(time.Millisecond))
	}
	return a
}

// decide weighs the objects the local engine has not started yet.
func (r *Auto) decide() {
	r.decided = true
	w := r.o.Out
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
	r.choice = Choose(Workload{Objects: rest}, r.assumptions(finished, snap.Elapsed))
	fmt.Fprintf(w, "engine auto: %s%d objects%s; %d started here, %s%d not yet\n", atLeast, counted, bytes, snap.Planned, atLeast, rest)
	printLines(w, r.choice.Lines())
	switch {
	case r.choice.Engine != EngineBatchOps:
		fmt.Fprintln(w, "engine auto: choosing local")
	case !r.o.CanHandOver:
		fmt.Fprintln(w, "engine auto: choosing local: a job would win but needs --role-arn")
	default:
		r.handed = true
		fmt.Fprintf(w, "engine auto: choosing batchops for the %s%d objects after %q; the %d started here finish here\n", atLeast, rest, r.last, snap.Planned)
	}
}

// decideAtEnd explains a run that finished before a decision was due.
func (r *Auto) decideAtEnd() {
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
	r.choice = Choose(Workload{Objects: n.objects}, r.assumptions(finished, snap.Elapsed))
	fmt.Fprintf(r.o.Out, "engine auto: %d objects, %d bytes, all copied here before a decision was due\n", n.objects, n.bytes)
	printLines(r.o.Out, r.choice.Lines())
	fmt.Fprintln(r.o.Out, "engine auto: choosing local")
}

// stopWhenStartedFinish ends the local run once every object it started
// has finished, so that its planner stops listing what the job will copy.
// Nothing in flight is cancelled: each object up to r.last is copied here.
func (r *Auto) stopWhenStartedFinish(ctx context.Context) {
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
			r.cancel(ErrHandOver)
			return
		}
	}
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
