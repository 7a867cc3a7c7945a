package batchops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// Observer is told what a batch workflow does, in order; a renderer
// (internal/progress) prints it as text or JSON lines.
type Observer interface {
	// Note is a line of information for the user (stderr).
	Note(msg string)
	// Warning is something the user should know went wrong without
	// failing the run.
	Warning(msg string)
	Plan(PlanRecord)
	GeneratorPlan(GeneratorPlanRecord, GeneratorText)
	Excluded(ExcludedRecord)
	JobCreated(JobCreatedRecord)
	// Progress is the state of a job being waited for; StopProgress ends
	// the watch with the last state seen (ID "" when none was).
	Progress(Job)
	StopProgress(Job)
	// Task is a failed (or unreadable) row of a completion report.
	Task(j Job, r TaskResult) error
	// Summary is the end of a job.
	Summary(Job)
}

// GeneratorText is what the text form of a GeneratorPlanRecord says.
type GeneratorText struct {
	Bucket, Prefix string
	MaxSize        int64
}

// PartialError reports a copy that ended with some objects failed or
// excluded (the rest is done).
type PartialError struct{ Failed int64 }

func (e *PartialError) Error() string { return fmt.Sprintf("%d object(s) failed", e.Failed) }

// Failures is the count of a *PartialError in err's chain, 0 without one.
func Failures(err error) int64 {
	var pe *PartialError
	if errors.As(err, &pe) {
		return pe.Failed
	}
	return 0
}

// partial is nil for no failures, else a *PartialError.
func partial(failed int64) error {
	if failed > 0 {
		return &PartialError{Failed: failed}
	}
	return nil
}

// Engine plans and runs local jobs: an *engine.Engine's Plan and Run.
type Engine interface {
	Plan(ctx context.Context, job engine.Job, opts engine.Options) engine.Plan
	Run(ctx context.Context, job engine.Job, opts engine.Options) (engine.Summary, error)
}

// Runner runs batch workflows: a copy (its plan, manifest, job, local
// fallback, watch and report), a retry, the report of a job.
type Runner struct {
	// Store opens a bucket of the run's S3 endpoint.
	Store func(bucket string) store.Store
	// Jobs is the S3 Control client for jobs that copy into bucket: in the
	// bucket's region.
	Jobs func(ctx context.Context, bucket string) (*Client, error)
	// Observer renders what happens.
	Observer Observer
	// Poll is how often a job being waited for is asked for its state.
	Poll time.Duration
	// Engine plans the copies and runs the local ones; nil means
	// an engine.New with the default budgets.
	Engine Engine
	// Local are the engine options of the runs on this machine (the
	// fallback for objects a job cannot copy, retry --engine local):
	// budgets and the per-object observer.
	Local engine.Options
}

// CopyOptions is one batch copy.
type CopyOptions struct {
	Plan CopyPlan
	// Spec holds the job's fields; the manifest (or Generator) is filled
	// in by Copy.
	Spec CopySpec
	// Generator, when set, lets S3 list the source itself: nothing is
	// listed here.
	Generator *Generator
	// NoLocalFallback reports objects a job cannot copy as excluded
	// instead of copying them from this machine.
	NoLocalFallback bool
	// DryRun plans (and lists) but writes nothing and creates no job.
	DryRun bool
	// Wait follows the job to its end and reads its report.
	Wait bool
	// Inventory, when set, is the manifest.json of an S3 Inventory report
	// given to the job as its manifest (CopyRequest.Inventory).
	Inventory s3url.Location
}

// Copy runs one batch copy: it plans the source through the engine,
// streams the plan into the manifest, creates the job, copies what a job
// cannot with one local engine run, then (with Wait) follows the job and
// reads its report. The error maps to cp's exit codes: nil when all was
// copied, a *PartialError when some objects failed or were left out, an
// error wrapping ErrInvalidJob for what S3 Control refuses, any other for
// a job that failed or could not be made.
func (r *Runner) Copy(ctx context.Context, o CopyOptions) error {
	p := o.Plan
	if base := SourceBase(p.Src); base != "" {
		r.Observer.Note(fmt.Sprintf("note: a job keeps whole source keys: %s%s... goes to %s...",
			"s3://"+p.Src.Bucket+"/", base, "s3://"+p.Dst.Bucket+"/"+JobDest(p.Src, p.Dst).Key))
	}
	if o.Generator != nil {
		return r.generated(ctx, o)
	}
	if o.Inventory.Key != "" {
		return r.fromInventory(ctx, o)
	}
	src, mst := r.Store(p.Src.Bucket), r.Store(p.Manifest.Bucket)
	pl := &planned{}
	var m Manifest
	var err error
	if o.DryRun {
		m.Stats, err = pl.write(ctx, r.engine(), p, src, r.Store(p.Dst.Bucket), r.Local, io.Discard)
	} else {
		m, err = putManifest(ctx, p.Manifest.Bucket, p.Manifest.Key, mst, func(w io.Writer) (ManifestStats, error) {
			return pl.write(ctx, r.engine(), p, src, r.Store(p.Dst.Bucket), r.Local, w)
		})
	}
	m.Versioned = pl.versioned
	if errors.Is(err, ErrNothingToCopy) && len(pl.routed) > 0 {
		err = nil // only objects a job cannot copy: no job, the fallback does it all
	}
	if err != nil {
		return err
	}
	r.plan(p, m, pl.routed, o)
	if o.DryRun {
		return nil
	}

	var jobID string
	var jc *Client
	if m.Stats.Objects > 0 {
		jc, err = r.Jobs(ctx, p.Dst.Bucket)
		if err == nil {
			spec := o.Spec
			spec.Manifest = m
			jobID, err = jc.Create(ctx, spec)
		}
		if err != nil {
			return r.dropManifest(ctx, mst, p.Manifest.Key, err)
		}
		r.created(jobID, jc.Region())
		defer func() {
			if ctx.Err() != nil {
				r.Observer.Note(fmt.Sprintf("the job goes on without this command: s3bulk batch status %s --region %s (or cancel %s)", jobID, jc.Region(), jobID))
			}
		}()
	}

	var failed int64
	if len(pl.routed) > 0 {
		if o.NoLocalFallback {
			failed += int64(len(pl.routed))
		} else {
			failed += r.copyLocally(ctx, p.Src.Bucket, p.Dst, pl.routed, nil, Written{ObjectLock: o.Spec.ObjectLock, ChecksumAlgorithm: o.Spec.ChecksumAlgorithm})
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	if jobID == "" || !o.Wait {
		return partial(failed)
	}
	return r.WaitAndReport(ctx, jc, jobID, failed)
}

func (r *Runner) engine() Engine {
	if r.Engine == nil {
		return engine.New(engine.Config{})
	}
	return r.Engine
}

func (r *Runner) created(id, region string) {
	r.Observer.JobCreated(JobCreatedRecord{Type: "job", JobID: id, Region: region})
	r.Observer.Note(fmt.Sprintf("job %s runs in %s (pass --region %s to batch status, report or cancel)", id, region, region))
}

// routedObject is an object a job cannot copy, and why.
type routedObject struct {
	obj    store.Object // Key is the whole source key
	reason string
}

// planned is the engine's plan of a copy turned into a manifest: the
// tasks go into the manifest; the objects a job cannot copy are routed
// aside by the plan's Filter, which sees their storage class.
type planned struct {
	mu     sync.Mutex // the Filter runs on the planner's goroutine
	routed []routedObject
	stats  ManifestStats
	marker *store.Object // the source prefix's own folder marker
	// versioned: the manifest pins the version of each object listed.
	versioned bool
}

// versionLister is a store that lists the current version of each object
// with its version ID (s3store.Store).
type versionLister interface {
	Versioned(ctx context.Context) (bool, error)
	ListCurrentVersions(ctx context.Context, prefix string, fn func(store.Object) error) error
}

// versionedSource is a source store whose listings carry version IDs, so
// that the plan's tasks do.
type versionedSource struct {
	store.Store
	vl versionLister
}

func (v versionedSource) List(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error {
	if delimiter != "" {
		return v.Store.List(ctx, prefix, delimiter, fn)
	}
	return v.vl.ListCurrentVersions(ctx, prefix, fn)
}

// sourceFor is src as the plan lists it: with version IDs when the bucket
// keeps versions (VersionsAuto, VersionsOn). VersionsOn refuses a bucket
// that keeps none: its objects have no version to pin (an overwrite
// replaces the "null" version in place).
func sourceFor(ctx context.Context, p CopyPlan, src store.Store) (store.Store, bool, error) {
	if p.Versions == VersionsOff {
		return src, false, nil
	}
	vl, ok := src.(versionLister)
	on := false
	if ok {
		var err error
		if on, err = vl.Versioned(ctx); err != nil {
			return nil, false, err
		}
	}
	switch {
	case !on && p.Versions == VersionsOn:
		return nil, false, fmt.Errorf("versioned manifest of %s: s3://%s keeps no versions, so there is none to pin: %w", p.Src, p.Src.Bucket, ErrInvalidJob)
	case !on:
		return src, false, nil
	}
	return versionedSource{Store: src, vl: vl}, true, nil
}

// write streams the plan of p into w as manifest lines. Objects a job
// cannot copy are few: keeping them to copy after the job is created costs
// little memory and no second listing of the source.
func (pl *planned) write(ctx context.Context, eng Engine, p CopyPlan, src, dst store.Store, local engine.Options, w io.Writer) (ManifestStats, error) {
	src, versioned, err := sourceFor(ctx, p, src)
	if err != nil {
		return ManifestStats{}, err
	}
	pl.versioned = versioned
	job := p.engineJob(src, dst)
	base := SourceBase(p.Src)
	maxSize := p.maxSize()
	opts := engine.Options{Workers: local.Workers}
	opts.Filter = func(o store.Object) bool {
		o.Key = base + o.Key // the Filter sees keys relative to the base
		if o.IsPrefix || !p.keep(o.Key) {
			return false
		}
		reason := ""
		switch {
		case o.Size > maxSize:
			reason = ReasonTooBig
		case archived(o.StorageClass):
			reason = ReasonArchived
		}
		pl.mu.Lock()
		defer pl.mu.Unlock()
		switch {
		case reason == ReasonTooBig:
			pl.stats.Oversize++
			pl.stats.OversizeBytes += o.Size
		case reason == ReasonArchived:
			pl.stats.Archived++
			pl.stats.ArchivedBytes += o.Size
		case o.Key == base:
			// The plan names nothing by the prefix itself, but a job
			// copies its folder marker as it copies every key.
			pl.marker = &o
			return false
		default:
			return true
		}
		pl.routed = append(pl.routed, routedObject{o, reason})
		return false
	}
	mw := newManifestWriter(w, p.Src.Bucket)
	mw.versioned = versioned
	err = eng.Plan(ctx, job, opts).Each(func(t engine.Task) error {
		switch {
		case t.Op == engine.OpSkip && t.Reason != "folder marker":
			return nil
		case t.Op == engine.OpDelete:
			return nil
		}
		return mw.add(store.Object{Key: t.SrcKey, Size: t.Size, VersionID: t.VersionID})
	})
	if errors.As(err, new(*engine.NoMatchError)) {
		err = nil // a wildcard that matches nothing: nothing to copy, as below
	}
	if err == nil && pl.marker != nil {
		err = mw.add(*pl.marker)
	}
	if err == nil {
		err = mw.flush()
	}
	st := mw.stats
	st.Oversize, st.OversizeBytes = pl.stats.Oversize, pl.stats.OversizeBytes
	st.Archived, st.ArchivedBytes = pl.stats.Archived, pl.stats.ArchivedBytes
	if err != nil {
		return st, fmt.Errorf("write manifest of s3://%s/%s: %w", p.Src.Bucket, p.ListPrefix(), err)
	}
	if st.Objects == 0 {
		return st, fmt.Errorf("write manifest of s3://%s/%s: %w", p.Src.Bucket, p.ListPrefix(), ErrNothingToCopy)
	}
	return st, nil
}

// copyLocally copies the objects a job cannot with one engine run, so that
// their parts share one budget of requests in flight, and names them as
// the job names its copies. The run lists the routed objects' common
// directory once (one object is read with a HEAD) and keeps only them. It
// returns how many failed. The objects get w, as the job's copies do.
func (r *Runner) copyLocally(ctx context.Context, srcBucket string, dst s3url.Location, routed []routedObject, meta *engine.MetadataOptions, w Written) int64 {
	// The ETag each object was listed with, "" when unknown (a retry):
	// an object changed since is not copied but reported, so the fallback
	// copies what the plan listed, as the job does.
	listed := make(map[string]string, len(routed))
	for _, ro := range routed {
		listed[ro.obj.Key] = ro.obj.ETag
	}
	ss, ds := r.Store(srcBucket), r.Store(dst.Bucket)
	if s, ok := ds.(*s3store.Store); ok && !w.ObjectLock.IsZero() {
		o := s.Options()
		o.ObjectLock = w.ObjectLock
		var err error
		if ds, err = s.WithOptions(o); err != nil {
			r.Observer.Warning(fmt.Sprintf("ERROR %v", err))
			return int64(len(routed))
		}
	}
	job := engine.Job{Recursive: true}
	if len(routed) == 1 {
		k := routed[0].obj.Key
		job = engine.Job{
			Src: engine.Endpoint{Store: ss, Loc: s3url.Location{Bucket: srcBucket, Key: k, Literal: true}},
			Dst: engine.Endpoint{Store: ds, Loc: s3url.Location{Bucket: dst.Bucket, Key: s3url.JoinKey(dst.AsDir().Key, k), Literal: true}},
		}
	} else {
		from := s3url.Location{Bucket: srcBucket, Key: commonDir(routed), Literal: true}
		job.Src = engine.Endpoint{Store: ss, Loc: from}
		job.Dst = engine.Endpoint{Store: ds, Loc: JobDest(from, dst)}
	}
	opts := r.Local
	opts.Metadata = meta
	opts.ChecksumAlgorithm = w.ChecksumAlgorithm
	// Written by the planner's goroutine, read after the run.
	found := make(map[string]bool, len(routed))
	changed := map[string]string{}
	base := job.Src.Loc.Base()
	opts.Filter = func(o store.Object) bool {
		k := base + o.Key
		etag, ok := listed[k]
		switch {
		case !ok:
			return false
		case etag != "" && o.ETag != etag:
			found[k], changed[k] = true, o.ETag
			return false
		}
		found[k] = true
		return true
	}
	sum, err := r.engine().Run(ctx, job, opts)
	if err != nil && ctx.Err() == nil {
		r.Observer.Warning(fmt.Sprintf("ERROR %v", err))
	}
	if err == nil {
		for _, ro := range routed {
			switch etag, ok := changed[ro.obj.Key]; {
			case ok:
				r.Observer.Warning(fmt.Sprintf("ERROR copy s3://%s/%s: changed since it was listed (ETag %s, now %s): not copied", srcBucket, ro.obj.Key, ro.obj.ETag, etag))
			case !found[ro.obj.Key]:
				r.Observer.Warning(fmt.Sprintf("ERROR copy s3://%s/%s: %v (it is gone from the source)", srcBucket, ro.obj.Key, store.ErrNotFound))
			}
		}
	}
	// Every routed object not copied counts: failed ones, and any the run
	// never reached (it stopped, or the object went away).
	return max(int64(len(routed))-sum.Copied()-sum.Skipped, sum.Failed+int64(len(changed)))
}

// commonDir is the longest directory ("a/b/") holding every routed key.
func commonDir(routed []routedObject) string {
	c := routed[0].obj.Key
	for _, ro := range routed[1:] {
		k := ro.obj.Key
		n := 0
		for n < len(c) && n < len(k) && c[n] == k[n] {
			n++
		}
		c = c[:n]
	}
	return dirOf(c)
}

func (r *Runner) plan(p CopyPlan, m Manifest, routed []routedObject, o CopyOptions) {
	st := m.Stats
	rec := PlanRecord{Type: "plan", Objects: st.Objects, Bytes: st.Bytes, Oversize: st.Oversize, OversizeBytes: st.OversizeBytes,
		Archived: st.Archived, ArchivedBytes: st.ArchivedBytes, Versioned: m.Versioned,
		ManifestPlanned: "s3://" + p.Manifest.Bucket + "/" + p.Manifest.Key, DryRun: o.DryRun, MaxSize: p.maxSize()}
	if m.ETag != "" {
		rec.Manifest, rec.ETag = "s3://"+m.Bucket+"/"+m.Key, m.ETag
	}
	if len(routed) > 0 {
		rec.OversizeAction = ActionLocalCopy
		if o.NoLocalFallback {
			rec.OversizeAction = ActionExcluded
		}
	}
	r.Observer.Plan(rec)
	if !o.NoLocalFallback {
		return
	}
	for _, ro := range routed {
		r.Observer.Excluded(ExcludedRecord{Type: "excluded", Src: "s3://" + p.Src.Bucket + "/" + ro.obj.Key, Size: ro.obj.Size, Reason: ro.reason, MaxSize: p.maxSize()})
	}
}

// generated creates a job whose manifest S3 generates from the source
// bucket: nothing is listed here.
func (r *Runner) generated(ctx context.Context, o CopyOptions) error {
	p := o.Plan
	g := *o.Generator
	g.SourceBucket = p.Src.Bucket
	g.SizeBelow = p.maxSize() + 1
	prefix := p.ListPrefix()
	if prefix != "" {
		g.Prefixes = []string{prefix}
	}
	spec := o.Spec
	spec.Generator = &g
	r.Observer.GeneratorPlan(GeneratorPlanRecord{Type: "plan", Generator: "s3://" + p.Src.Bucket + "/" + prefix, SizeBelow: g.SizeBelow},
		GeneratorText{Bucket: p.Src.Bucket, Prefix: prefix, MaxSize: p.maxSize()})
	if o.DryRun {
		return nil
	}
	return r.startJob(ctx, p.Dst.Bucket, spec, o.Wait)
}

// startJob creates the job spec describes, which writes into bucket, and
// with wait follows it to its end and reads its report.
func (r *Runner) startJob(ctx context.Context, bucket string, spec CopySpec, wait bool) error {
	jc, err := r.Jobs(ctx, bucket)
	if err != nil {
		return err
	}
	id, err := jc.Create(ctx, spec)
	if err != nil {
		return err
	}
	r.created(id, jc.Region())
	if !wait {
		return nil
	}
	return r.WaitAndReport(ctx, jc, id, 0)
}

// dropManifest deletes the manifest of a job that was not created, so a
// failed CreateJob leaves nothing behind, or says where it is.
func (r *Runner) dropManifest(ctx context.Context, st store.Store, key string, createErr error) error {
	if err := DropManifest(ctx, st, key); err != nil {
		r.Observer.Warning(fmt.Sprintf("WARNING the manifest %s is left behind: %v", st.URL(key), err))
	}
	return createErr
}

// DropManifest deletes the manifest key of st, whose job was not created,
// even after ctx was cancelled (for at most 30 s).
func DropManifest(ctx context.Context, st store.Store, key string) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return st.Delete(dctx, key)
}

// WaitAndReport follows job id to its end, then reads its report: see
// Finish. alreadyFailed counts objects that failed before (the local
// fallback's).
func (r *Runner) WaitAndReport(ctx context.Context, jc *Client, id string, alreadyFailed int64) error {
	j, err := jc.Wait(ctx, id, WaitOptions{Interval: r.Poll, Progress: r.Observer.Progress})
	r.Observer.StopProgress(j)
	if err != nil {
		return err
	}
	return r.Finish(ctx, j, alreadyFailed)
}

// Finish reads the report of ended job j, passes its failed tasks to the
// Observer and maps the outcome to cp's exit codes: nil when all was
// copied, a *PartialError when some tasks failed (or alreadyFailed > 0, or
// the job was cancelled), an error when the job itself failed.
func (r *Runner) Finish(ctx context.Context, j Job, alreadyFailed int64) error {
	failed := alreadyFailed + j.Failed
	if j.Report.Enabled && (j.Succeeded+j.Failed > 0) {
		if _, err := r.readReport(ctx, j, func(tr TaskResult) error { return r.Observer.Task(j, tr) }); err != nil {
			if ctx.Err() != nil {
				return err
			}
			// The job's counts still tell the outcome; only the failed keys
			// are unknown (often: no s3:GetObject on the report prefix).
			r.Observer.Warning(fmt.Sprintf("WARNING %v: failed keys unknown, the counts below come from the job", err))
		}
	}
	r.Observer.Summary(j)
	switch j.Status {
	case StatusFailed:
		return fmt.Errorf("job %s failed: %s", j.ID, strings.Join(j.FailureReasons, "; "))
	case StatusCancelled:
		return partial(max(failed, j.Total-j.Succeeded))
	}
	return partial(failed)
}

// readReport passes the failed and unreadable rows of j's report to fn.
func (r *Runner) readReport(ctx context.Context, j Job, fn func(TaskResult) error) (ReportSummary, error) {
	open := func(b string) (store.Store, error) { return r.Store(b), nil }
	return ReadReport(ctx, open, j.Report.Bucket, j.Report.Prefix, j.ID, func(tr TaskResult) error {
		if tr.Status == TaskSucceeded {
			return nil
		}
		return fn(tr)
	})
}

// Report reads the completion report of job id, which must have ended
// with one: see Finish.
func (r *Runner) Report(ctx context.Context, jc *Client, id string) error {
	j, err := jc.Describe(ctx, id)
	if err != nil {
		return err
	}
	if !j.Done() {
		return fmt.Errorf("report of job %s: the job is %s; its report is written when it ends (s3bulk batch status --wait %s)", j.ID, j.Status, j.ID)
	}
	if !j.Report.Enabled {
		return fmt.Errorf("report of job %s: the job was created without a completion report", j.ID)
	}
	return r.Finish(ctx, j, 0)
}

// Status is job id's state; with wait, once it has ended (the Observer
// sees its progress meanwhile).
func (r *Runner) Status(ctx context.Context, jc *Client, id string, wait bool) (Job, error) {
	if !wait {
		return jc.Describe(ctx, id)
	}
	j, err := jc.Wait(ctx, id, WaitOptions{Interval: r.Poll, Progress: r.Observer.Progress})
	r.Observer.StopProgress(j)
	return j, err
}

// CopyOnce lists src (a bucket's root or a prefix, as a job keeps whole
// keys) into a manifest at manifestKey in dst's bucket, creates one Copy
// job to dst with spec, and waits for it to end, without reading its
// report: bench's batchops method, timed by its caller. A manifest whose
// job was not created is deleted. The job's failures are an error.
func (r *Runner) CopyOnce(ctx context.Context, src, dst s3url.Location, spec CopySpec, manifestKey string) (Job, Manifest, error) {
	mst := r.Store(dst.Bucket)
	m, err := PutManifest(ctx, r.Store(src.Bucket), ManifestOptions{Bucket: src.Bucket}, mst, dst.Bucket, manifestKey, 0)
	if err != nil {
		return Job{}, m, err
	}
	jc, err := r.Jobs(ctx, dst.Bucket)
	var id string
	if err == nil {
		spec.Manifest = m
		id, err = jc.Create(ctx, spec)
	}
	if err != nil {
		return Job{}, m, r.dropManifest(ctx, mst, manifestKey, err)
	}
	j, err := jc.Wait(ctx, id, WaitOptions{Interval: r.Poll})
	if err != nil {
		return j, m, err
	}
	if j.Status != StatusComplete || j.Failed > 0 {
		return j, m, fmt.Errorf("job %s: %s, %d of %d tasks failed", id, j.Status, j.Failed, j.Total)
	}
	return j, m, nil
}
