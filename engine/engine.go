package engine

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/internal/limiter"
	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// DefaultPartStreams is where the search for the number of part uploads in
// flight starts (Config.PartStreams): few enough not to crowd a server on
// the same machine, which more streams only slow down.
const DefaultPartStreams = 4

// DefaultConcurrency is where the search for the number of requests in
// flight starts (docs/design/0004-requests-in-flight.md), and the ceiling
// that docs/design/0001-concurrency.md measured before there was a search.
const DefaultConcurrency = 256

// DefaultMaxConcurrency is the ceiling of the search for the number of
// requests in flight: at 130 ms a request, 4,096 in flight is 31,500
// requests/s, nine times what S3 accepts per prefix.
const DefaultMaxConcurrency = 4096

// DefaultMaxBufferBytes bounds the part bytes an Engine holds in memory at
// once. Only parts that cannot be re-read from their source are held
// (streams between two endpoints); local files are sent from the file and
// downloads stream into it. 512 MiB fits a 1 GB machine (report 4).
const DefaultMaxBufferBytes = 512 << 20

// Config configures an Engine: the budgets every run on it shares. The
// zero value is usable.
type Config struct {
	// Concurrency fixes the number of requests in flight, parts included
	// (throttling still halves it for a while). 0 finds it by measuring,
	// from DefaultConcurrency up to MaxConcurrency.
	Concurrency int
	// MaxConcurrency is the ceiling of that search; 0 means
	// DefaultMaxConcurrency.
	MaxConcurrency int
	// PartStreams fixes how many parts whose bytes pass through this
	// process (uploads, streams) are in flight at once. 0 finds the
	// number by measuring, from DefaultPartStreams up to the ceiling of
	// requests in flight.
	PartStreams int
	// MaxBufferBytes bounds the bytes of parts held in memory at once,
	// across the engine's runs; 0 means DefaultMaxBufferBytes, negative
	// no bound. A part larger than the budget still runs, alone.
	MaxBufferBytes int64
	// ThrottleWindow, with a fixed Concurrency, is how long after a
	// throttle halved the budget further throttles are taken as echoes of
	// the same congestion and shrink it no more; 0 means a second.
	ThrottleWindow time.Duration
	// Logger, when set, is told once per run of each fallback the run
	// takes because a server lacks an operation (a copy without
	// UploadPartCopy, say).
	Logger *slog.Logger
}

// Engine runs jobs on one budget of requests in flight, one of part
// uploads in flight and one of buffered bytes, shared by every run on it,
// concurrent ones included. Make one per process (or per command) and pass
// its Throttled method to the stores, so that a throttled request (503
// SlowDown) shrinks the budget:
//
//	eng := engine.New(engine.Config{})
//	client, err := s3store.NewClient(ctx, s3store.Config{
//		Concurrency: eng.MaxConcurrency(), OnThrottle: eng.Throttled})
//
// An Engine is safe for concurrent use.
type Engine struct {
	lim     *limiter.Limiter
	streams *limiter.Streams
	buffers *limiter.ByteBudget
	logger  *slog.Logger
}

// New returns an Engine with cfg's budgets.
func New(cfg Config) *Engine {
	lim := newLimiter(cfg.Concurrency, cfg.MaxConcurrency, cfg.ThrottleWindow)
	max := cfg.MaxBufferBytes
	if max == 0 {
		max = DefaultMaxBufferBytes
	}
	return &Engine{lim: lim, streams: newStreams(cfg.PartStreams, lim.Ceiling()), buffers: limiter.NewByteBudget(max), logger: cfg.Logger}
}

// Throttled tells the engine that a request was throttled (503 SlowDown,
// 429): the budget of requests in flight shrinks, and grows back as
// requests succeed. Stores call it (s3store.Config.OnThrottle) once per
// throttled attempt, retries included.
func (e *Engine) Throttled() { e.lim.Throttled() }

// MaxConcurrency is the most requests the engine ever has in flight: the
// size for the stores' connection pools (s3store.Config.Concurrency).
func (e *Engine) MaxConcurrency() int { return e.lim.Ceiling() }

// Concurrency is the budget of requests in flight now: fixed, or where
// the search stands.
func (e *Engine) Concurrency() int { return e.lim.Limit() }

// Do runs one request under the engine's budget of requests in flight,
// for a caller that makes requests of its own beside the engine's runs.
func (e *Engine) Do(ctx context.Context, req func(context.Context) error) error {
	return do(ctx, e.lim, req)
}

// newLimiter returns the budget of requests in flight: fixed at fixed
// (halved by throttling, grown back to fixed) when it is above 0, else
// found by measuring from DefaultConcurrency up to ceiling (0:
// DefaultMaxConcurrency).
func newLimiter(fixed, ceiling int, window time.Duration) *limiter.Limiter {
	if fixed > 0 {
		var opts []limiter.Option
		if window > 0 {
			opts = append(opts, limiter.WithWindow(window))
		}
		return limiter.New(fixed, max(1, fixed/16), opts...)
	}
	if ceiling <= 0 {
		ceiling = DefaultMaxConcurrency
	}
	return limiter.NewSearching(DefaultConcurrency, ceiling, max(1, min(ceiling, DefaultConcurrency)/16))
}

// newStreams returns the limiter of part uploads: fixed at fixed when it
// is above 0, else searching from DefaultPartStreams up to ceiling.
func newStreams(fixed, ceiling int) *limiter.Streams {
	if fixed > 0 {
		return limiter.NewStreams(fixed, fixed)
	}
	return limiter.NewStreams(DefaultPartStreams, ceiling)
}

// Endpoint is one side of a job: a store and a location in it. For a local
// store the location's key is relative to the store's root directory.
type Endpoint struct {
	Store store.Store
	Loc   s3url.Location
}

// Job says what to move.
type Job struct {
	Src Endpoint
	Dst Endpoint
	// Recursive treats a non-wildcard source as a prefix ("directory").
	Recursive bool
	// Move deletes each source object after it was transferred.
	Move bool
	// Remove makes the job a deletion of the objects Src names (Dst is not
	// used): see delete.go.
	Remove bool
	// From, when set, gives the objects to copy, move or sync instead of a
	// listing of Src, which still names the prefix and the base of their
	// destination names: objects outside it are left out. Src must not
	// hold a wildcard, and a remove does not take it.
	From Objects
	// Sync, when set, makes the job a sync of Src's prefix to Dst's: see
	// SyncOptions.
	Sync *SyncOptions
	// VersionID, for a job of one source object, copies (or moves, or
	// removes) that version of it rather than the current one: a move
	// deletes that version for good. The source store must be a
	// store.VersionPinner.
	VersionID string
	// AllVersions copies every version and delete marker of every key
	// Src names, each key's oldest first, so that a versioned destination
	// ends with the same history (see versions.go).
	AllVersions bool
}

// Options say how one run goes. The zero value is usable.
type Options struct {
	// PartSize fixes the part size of multipart transfers; 0 chooses it per
	// object (parts.Auto).
	PartSize int64
	// PartStreams, when above 0, fixes the part uploads in flight for
	// this run alone, instead of the engine's shared budget
	// (Config.PartStreams).
	PartStreams int
	// MaxBufferBytes, when not 0, gives this run a budget of buffered
	// part bytes of its own (negative: no bound) instead of the engine's
	// (Config.MaxBufferBytes).
	MaxBufferBytes int64
	// MultipartThreshold is the size from which objects move in parts; 0
	// chooses it per kind of transfer (parts.Threshold).
	MultipartThreshold int64
	// DryRun plans and reports without touching any store.
	DryRun bool
	// NoClobber skips objects whose destination already exists (the
	// result's Reason is ReasonExists).
	NoClobber bool
	// Filter, when set, is asked about every listed source object (and,
	// in a sync, every destination object that could be deleted) with its
	// key relative to the source's base: the name it has at the
	// destination. A false answer skips it silently (it is not part of the
	// plan).
	Filter func(store.Object) bool
	// Shard, when its Count is above 1, keeps only the objects whose key
	// relative to the source's base falls in it, so that n runs with
	// shards 0/n to n-1/n together cover every object once.
	Shard shard.Shard
	// Workers bounds the object workers; 0 means as many as the budget of
	// requests in flight allows (they start as its limit grows). A job of
	// one object needs one (its parts still use the whole budget).
	Workers int
	// Metadata, when set, changes what is written with each uploaded or
	// copied object.
	Metadata *MetadataOptions
	// Props says which properties of an S3 source a copy to S3 keeps
	// (the AWS CLI v2's --copy-props); the zero value keeps them all.
	Props CopyProps
	// Tags, when not nil, is the tag set of every object written (an
	// empty set: none), instead of the source's.
	Tags store.Tags
	// CopyLock copies Object Lock settings from each source object (one
	// HEAD of it per server-side copy).
	CopyLock LockCopy
	// ChecksumAlgorithm, when set (one of store.ChecksumAlgorithms), is
	// the algorithm of the checksum of every object written to S3; empty
	// keeps the source's, and leaves an object from a local file (or a
	// source without one) to the store's default (store/checksum.go).
	ChecksumAlgorithm string
	// Observer is called once per task when it ends, from worker
	// goroutines, concurrently; it must not block for long.
	Observer func(Result)
	// Progress, when set, receives the run's counters.
	Progress *Progress
	// Journal, when set, makes the run resumable: objects it records as
	// done are skipped, finished and failed objects and multipart
	// checkpoints are appended, and checkpointed multipart uploads are
	// resumed instead of restarted. The caller opens and closes it. Syncs
	// and removes do not use it: rerunning them compares the listings
	// again.
	Journal Journal
	// StopAfter stops the run, with a *StoppedError, once this many
	// objects in a row have failed with the same server error (a status of
	// 5xx, 401 or 403, or the same connection failure), each after its
	// retries: a failure every object would share. 0 means
	// DefaultStopAfter; negative never stops. Failures every object
	// shares for certain (bad credentials, a missing bucket, a wrong
	// region) stop the run at the first.
	StopAfter int
	// TaskTimeout bounds one whole small-object task; 0 means none. Request
	// level stalls are the store's business.
	TaskTimeout time.Duration
	// Restarts is how many times one object is started over, after its
	// first attempt, when it failed as a whole in a way a fresh attempt
	// can fix: its source changed while it was read, its multipart upload
	// vanished (a lifecycle rule or another client aborted it), or its
	// bytes did not match their checksum or ETag. Each restart aborts what
	// the attempt left (its multipart upload, its temp file), waits a
	// moment and reads the source afresh; the last attempt's error is the
	// object's. 0 means DefaultRestarts; negative never restarts. Once
	// 10 objects have failed on every attempt and none was saved by a
	// restart, the run restarts no more: restarts are not helping.
	Restarts int
}

// MetadataOptions change the metadata written with each object. By default
// an object keeps its source's metadata (a copy reads it, an upload guesses
// the content type from the name) and Set's non-empty fields replace those
// fields; Set.User's entries are added to the source's user metadata. A
// server-side copy then sends the whole set (S3's REPLACE directive), which
// costs a HEAD of the source.
type MetadataOptions struct {
	Set store.Metadata
	// Replace drops the source's metadata first: the object gets Set, and
	// a content type guessed from its name unless Set has one.
	Replace bool
}

// FatalError is a failure that stops the whole run: nothing else can
// succeed (bad credentials, missing bucket, a listing that fails).
type FatalError struct {
	Op  string
	URL string
	Err error
}

func (e *FatalError) Error() string { return prefixOnce(e.Op+" "+e.URL, e.Err) }

// prefixOnce writes "prefix: err", unless err's message already starts with
// prefix: a store's errors name their operation and object themselves.
func prefixOnce(prefix string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, prefix+":") {
		return msg
	}
	return prefix + ": " + msg
}
func (e *FatalError) Unwrap() error { return e.Err }

// Run plans and executes job (Execute of Plan), returning when every task
// has ended. The error is nil when the run went through, even if some
// objects failed (see Summary.Failed); it is a *FatalError, a
// *StoppedError, or ctx's error, when the run stopped.
func (e *Engine) Run(ctx context.Context, job Job, opts Options) (Summary, error) {
	if opts.Progress == nil {
		opts.Progress = &Progress{} // the plan's counts and the run's in one
	}
	return e.Execute(ctx, e.Plan(ctx, job, opts), opts)
}

// Execute carries out plan's tasks, as they come, on the engine's budgets,
// and returns when every task has ended (see Run for the error). Each task
// ends in one Result, told to opts.Observer and counted in the Summary and
// opts.Progress (and opts.Journal, for a copy or move). With opts.DryRun,
// nothing is carried out: each task is reported as StatusDryRun (a skip as
// StatusSkipped), in the plan's order.
func (e *Engine) Execute(ctx context.Context, plan Plan, opts Options) (Summary, error) {
	ex := e.newExecutor(plan.Job, opts)
	if plan.unchanged != nil {
		ex.unchanged = plan.unchanged
	} else {
		ex.countPlanned = true // a plan of tasks the caller had: no planner counted them
	}
	if plan.cancel != nil {
		ex.stopPlan = plan.cancel
		defer plan.cancel(nil)
	}
	switch {
	case opts.DryRun:
		return ex.render(ctx, plan.Tasks)
	case plan.Job.Remove:
		return ex.remove(ctx, plan.Tasks)
	case plan.Job.Sync != nil:
		return ex.runSync(ctx, plan.Tasks)
	}
	return ex.run(ctx, plan.Tasks)
}

// render is a dry run: each task of the plan reported, none carried out.
func (e *executor) render(ctx context.Context, tasks iter.Seq2[Task, error]) (Summary, error) {
	start := time.Now()
	e.progress.start.Store(start.UnixNano())
	for t, err := range tasks {
		if err != nil {
			if n, ok := heldDeletes(err); ok {
				e.progress.skipped.Add(n)
				e.mu.Lock()
				e.summary.Skipped += n
				e.mu.Unlock()
			}
			e.setFatal(err)
			break
		}
		e.planned(t)
		r := Result{Task: t, Status: StatusDryRun}
		if t.Op == OpSkip {
			r.Status = StatusSkipped
		}
		e.finish(r)
	}
	e.progress.planDone.Store(true)
	return e.summarize(ctx, start)
}

// executor runs one job: its plan (Plan makes one for planning alone) or
// its execution (Execute). Its state is grouped by the stage it serves.
type executor struct {
	job  Job
	opts Options
	budgets
	planState
	execState
	observed
}

// budgets are the engine's budgets as one run uses them (execute; the
// planner's listings take slots of lim too).
type budgets struct {
	lim *limiter.Limiter
	// concurrency is the most requests the run may ever have in flight: it
	// bounds goroutines, not requests.
	concurrency int
	// buffers bounds the bytes of parts held in memory at once, run-wide;
	// partBuffers hands out and reuses the buffers themselves.
	buffers     *limiter.ByteBudget
	partBuffers *partBuffers
	// streams bounds the part uploads in flight, run-wide.
	streams *limiter.Streams
}

// planState is what the planner keeps between tasks (plan).
type planState struct {
	// deletes holds a sync's deletes until its copies are planned.
	deletes *diff.Spool
	// sourceObjects counts the objects a sync's source listed, folder
	// markers aside, before filters: none, with deletes held, is an
	// EmptySourceError.
	sourceObjects atomic.Int64
	// unchanged counts the pairs a sync's plan found the same (Plan).
	unchanged *atomic.Int64
	// shardListed is set once the listings list only the run's shard:
	// keep then leaves the shard alone.
	shardListed bool
}

// execState is what executing a plan keeps (execute).
type execState struct {
	logger     *slog.Logger
	resumedIDs resumed
	// restartsWon and restartsLost count the restarted objects that then
	// arrived, and those that failed on every attempt (restartsUseless).
	restartsWon, restartsLost atomic.Int64
	// streak holds the latest failures that share a cause (StopAfter).
	streak streak
	// moves, in a move from a store that deletes in batches, deletes the
	// sources of finished copies; nil deletes each one after its copy.
	moves *moveDeletes
	// noPartCopy is set once the destination answered that it has no
	// UploadPartCopy: later copies go straight to the fallback.
	noPartCopy atomic.Bool
	// noCopyChecksum is set once the destination gave parts copied into
	// an upload of a checksum of its own a wrong one: copies in parts
	// then leave the checksum to the server's default.
	noCopyChecksum atomic.Bool
	// copyObjectMax is the largest object one CopyObject copies
	// (parts.MaxCopyObject; lowered by tests).
	copyObjectMax int64
	// said holds the fallbacks already logged (sayOnce).
	said sync.Map
	// chains orders the tasks of each destination key (Job.AllVersions).
	chains *chains
	// limited is a plan's refusal of its deletes (a *DeleteLimitError or
	// an *EmptySourceError): the run's error once its copies have ended.
	limited error
	// stopPlan, for a plan from Engine.Plan, stops its listings when the
	// run stops.
	stopPlan context.CancelCauseFunc
	// countPlanned counts the tasks as planned as they come: a planner
	// (Engine.Plan) counts them itself, as it emits them.
	countPlanned bool
}

// observed is what the run reports (observe): its counters, the fold of
// its results, and the error that stopped it.
type observed struct {
	progress *Progress
	mu       sync.Mutex
	summary  Summary
	fatal    error
}

// sayOnce logs msg at level the first time the run takes the fallback
// that topic names.
func (e *execState) sayOnce(topic string, level slog.Level, msg string, args ...any) {
	if _, dup := e.said.LoadOrStore(topic, true); dup || e.logger == nil {
		return
	}
	e.logger.Log(context.Background(), level, msg, args...)
}

func (en *Engine) newExecutor(job Job, opts Options) *executor {
	p := opts.Progress
	if p == nil {
		p = &Progress{}
	}
	p.limiter.Store(en.lim)
	streams := en.streams
	if opts.PartStreams > 0 {
		streams = newStreams(opts.PartStreams, opts.PartStreams)
	}
	buffers := en.buffers
	if opts.MaxBufferBytes != 0 {
		buffers = limiter.NewByteBudget(opts.MaxBufferBytes)
	}
	if j := opts.Journal; j != nil {
		if v := reflect.ValueOf(j); v.Kind() == reflect.Pointer && v.IsNil() {
			opts.Journal = nil // a nil *T in the interface: no journal, not a crash
		}
	}
	stopAfter := opts.StopAfter
	if stopAfter == 0 {
		stopAfter = DefaultStopAfter
	}
	if job.Remove || job.Sync != nil {
		// Deleting is idempotent, and a sync is its own journal:
		// rerunning either compares the listings again.
		opts.Journal = nil
	}
	e := &executor{job: job, opts: opts,
		budgets:   budgets{lim: en.lim, concurrency: en.lim.Ceiling(), buffers: buffers, partBuffers: &partBuffers{budget: buffers}, streams: streams},
		planState: planState{unchanged: new(atomic.Int64)},
		observed:  observed{progress: p}}
	e.logger, e.streak, e.copyObjectMax = en.logger, streak{limit: stopAfter}, parts.MaxCopyObject
	if job.AllVersions && !job.Remove {
		e.chains = newChains() // filled as the plan is executed (pour)
	}
	return e
}

// maxWorkers is the most object workers the run may start.
func (e *executor) maxWorkers() int {
	if e.opts.Workers > 0 {
		return min(e.opts.Workers, e.concurrency)
	}
	return e.concurrency
}

// wantWorkers is how many object workers keep the limit busy now: the
// limit and an eighth more, so that some always wait for a slot (the
// search only grows a limit that demand fills).
func (e *executor) wantWorkers() int {
	n := e.lim.Limit()
	return min(e.maxWorkers(), n+n/8+8)
}

// run executes the tasks of a copy or move on the object workers.
func (e *executor) run(ctx context.Context, plan iter.Seq2[Task, error]) (Summary, error) {
	start := time.Now()
	e.progress.start.Store(start.UnixNano())
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	// The queue between the planner and the workers is bounded: the listing
	// runs ahead of the copies by at most this many tasks, so memory stays
	// flat whatever the number of keys.
	tasks, planned := e.feed(ctx, cancel, plan, 2*e.concurrency+1000)
	if bd, ok := e.job.Src.Store.(store.BatchDeleter); ok && e.job.Move && e.job.VersionID == "" {
		e.moves = e.startMoveDeletes(ctx, bd)
	}

	// Object-level workers: a fixed pool of long-lived goroutines, not one
	// goroutine per object. A request through the SDK runs deep call
	// chains; a fresh goroutine per object pays for growing its stack each
	// time (measured: a fifth of the client's CPU on small copies). Each
	// request any worker makes (parts included) takes a slot of the one
	// limiter, so objects x parts never multiply requests in flight.
	//
	// The pool grows with the limit: a worker that finds fewer workers than
	// the limit wants starts one more before its next task.
	var workers errgroup.Group
	var started atomic.Int64
	var worker func() error
	grow := func() {
		for n := started.Load(); n < int64(e.wantWorkers()); n = started.Load() {
			if started.CompareAndSwap(n, n+1) {
				workers.Go(worker)
			}
		}
	}
	worker = func() error {
		for t := range tasks {
			grow()
			if ctx.Err() != nil {
				continue // drain so the planner can finish; start nothing new
			}
			r := e.executeInTurn(ctx, t)
			switch {
			case r.Status == StatusDone && t.DeleteSource && e.moves != nil && t.VersionID == "":
				e.moves.add(r) // finished once its source is deleted
			case r.Status == StatusFailed && retry.StopsRun(r.Err):
				if !e.firstFatal(r.Err) {
					continue // the cause that stopped the run, reported once
				}
				e.finish(r)
				cancel(r.Err)
			case r.Status == StatusFailed && ctx.Err() != nil && errors.Is(r.Err, context.Canceled):
				continue // stopped by the run's end, like the tasks drained above: not a failure
			default:
				e.settle(r, cancel)
			}
		}
		return nil
	}
	grow()
	_ = workers.Wait()
	for _, r := range e.streak.drain() {
		e.finish(r)
	}
	planned()
	if e.moves != nil {
		e.moves.close()
	}
	if ctx.Err() == nil {
		e.abortStaleUploads(context.WithoutCancel(ctx))
	}
	return e.summarize(ctx, start)
}

// summarize folds the run's results into its Summary and picks its error,
// for every kind of run.
func (e *executor) summarize(ctx context.Context, start time.Time) (Summary, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.summary
	s.Skipped += e.unchanged.Load()
	s.Shard = e.opts.Shard
	s.Planned = e.progress.planned.Load()
	s.Elapsed = time.Since(start)
	s.Seconds = s.Elapsed.Seconds()
	if e.fatal != nil {
		return s, e.fatal
	}
	if ctx.Err() != nil {
		return s, ctx.Err()
	}
	return s, nil
}

// feed ranges over the plan in a goroutine, feeding a channel of queue
// tasks, closed when the plan ends; a plan's error is the run's fatal error
// and cancels it, but for a refusal of a sync's deletes (e.limited), which
// lets the copies end. wait returns once the plan has ended.
func (e *executor) feed(ctx context.Context, cancel context.CancelCauseFunc, plan iter.Seq2[Task, error], queue int) (tasks <-chan Task, wait func()) {
	ch := make(chan Task, queue)
	var g errgroup.Group
	g.Go(func() error {
		defer close(ch)
		if e.stopPlan != nil {
			// A listing in flight ends with the run, not with its page.
			defer context.AfterFunc(ctx, func() { e.stopPlan(context.Cause(ctx)) })()
		}
		err := e.pour(ctx, plan, ch)
		e.progress.planDone.Store(true)
		switch _, held := heldDeletes(err); {
		case held:
			e.limited = err
		case err != nil:
			e.setFatal(err)
			cancel(err)
		}
		return nil
	})
	return ch, func() { _ = g.Wait() }
}

// pour sends the plan's tasks to ch. In a copy
// of all versions, each key's tasks are held until the next key's come
// and registered as one chain, which the workers run in order.
func (e *executor) pour(ctx context.Context, plan iter.Seq2[Task, error], ch chan<- Task) error {
	send := func(t Task) error {
		select {
		case ch <- t:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var group []Task
	flush := func() error {
		e.chains.add(group[0].DstKey, group)
		for _, t := range group {
			if err := send(t); err != nil {
				return err
			}
		}
		group = group[:0]
		return nil
	}
	for t, err := range plan {
		if err != nil {
			return err
		}
		e.planned(t)
		if e.chains == nil {
			if err := send(t); err != nil {
				return err
			}
			continue
		}
		if len(group) > 0 && group[0].DstKey != t.DstKey {
			if err := flush(); err != nil {
				return err
			}
		}
		group = append(group, t)
	}
	if len(group) > 0 {
		return flush()
	}
	return ctx.Err()
}

// planned counts t as planned, for a plan no planner counted.
func (e *executor) planned(t Task) {
	if !e.countPlanned {
		return
	}
	e.progress.planned.Add(1)
	e.progress.plannedBytes.Add(t.Size)
}

// firstFatal records err as the run's fatal error and reports whether it
// is the first: the tasks that fail for the same cause before the run stops
// are not news.
func (e *observed) firstFatal(err error) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return false
	}
	e.fatal = err
	return true
}

func (e *observed) setFatal(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal == nil && !errors.Is(err, context.Canceled) {
		e.fatal = err
	}
}

// settle ends r: reported now, or held while it is one of a streak of
// objects failing the same way; a streak that reaches Options.StopAfter
// stops the run, and its failures are counted but not reported one by one.
func (e *executor) settle(r Result, cancel context.CancelCauseFunc) {
	if e.streak.pass(r) {
		e.finish(r)
		return
	}
	report, quiet, stop := e.streak.add(r)
	for _, r := range report {
		e.finish(r)
	}
	for _, r := range quiet {
		e.record(r)
	}
	if stop != nil && e.firstFatal(stop) {
		cancel(stop)
	}
}

func (e *executor) finish(r Result) {
	e.record(r)
	if e.opts.Observer != nil {
		e.opts.Observer(r)
	}
}

// record counts r in the journal, the progress and the summary.
func (e *executor) record(r Result) {
	if j := e.opts.Journal; j != nil && !r.journaled {
		var err error
		switch r.Status {
		case StatusDone:
			err = j.Done(r.Task.object(), r.Task.DstKey)
		case StatusFailed:
			err = j.Failed(r.Task.object(), r.Task.DstKey, r.Err)
		}
		if err != nil {
			e.setFatal(&FatalError{Op: "write journal", URL: journalName(j), Err: err})
		}
	}
	switch r.Status {
	case StatusDone, StatusDryRun:
		e.progress.done.Add(1)
		if r.Task.Op == OpDelete {
			e.progress.deleted.Add(1)
			e.progress.settledBytes.Add(r.Task.Size)
		} else {
			e.progress.bytes.Add(r.Task.Size)
		}
	case StatusFailed:
		e.progress.failed.Add(1)
		e.progress.settledBytes.Add(r.Task.Size)
	case StatusSkipped:
		e.progress.skipped.Add(1)
		e.progress.settledBytes.Add(r.Task.Size)
	}
	e.mu.Lock()
	e.summary.add(r)
	e.mu.Unlock()
}

// do runs one request under the run's budget of requests in flight, and
// tells the budget how long it took (the search measures it).
func (e *budgets) do(ctx context.Context, req func(context.Context) error) error {
	return do(ctx, e.lim, req)
}

// listHeld runs list, a listing by callback, as one request of the budget
// that gives its slot back while pass runs: pass is for what a listed
// entry leads to, such as a task sent to the executor, which waits for
// slots of its own (at --concurrency 1 a slot kept through that send
// would stop the run). The listing's length is no request's latency:
// the search is told nothing of it.
func (e *budgets) listHeld(ctx context.Context, list func(pass func(func() error) error) error) error {
	if err := e.lim.Acquire(ctx); err != nil {
		return err
	}
	held := true
	err := list(func(f func() error) error {
		e.lim.Release()
		held = false
		err := f()
		if aerr := e.lim.Acquire(ctx); aerr != nil {
			return aerr
		}
		held = true
		return err
	})
	if held {
		e.lim.Release()
	}
	return err
}

func do(ctx context.Context, lim *limiter.Limiter, req func(context.Context) error) error {
	if err := lim.Acquire(ctx); err != nil {
		return err
	}
	start := time.Now()
	err := req(ctx)
	lim.Release()
	if err == nil {
		lim.Completed(time.Since(start))
	}
	return err
}
