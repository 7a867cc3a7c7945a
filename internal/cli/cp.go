package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/journal"
	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/internal/objopts"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
	"github.com/s3bulk/s3bulk/transfer"
)

// transferFlags are shared by cp and mv.
type transferFlags struct {
	recursive          bool
	raw                bool
	noClobber          bool
	partSize           sizeFlag
	partConcurrency    int
	multipartThreshold sizeFlag
	journal            string
	followSymlinks     bool
	maxBuffer          sizeFlag
	engine             engineFlags
	sel                selectFlags
	meta               metaFlags
	obj                objectFlags
	versions           versionFlags
	lock               lockFlags
	from               fromFlags
}

func (f *transferFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVarP(&f.recursive, "recursive", "r", false, "copy every object under the source prefix or directory")
	fl.BoolVar(&f.raw, "raw", false, "treat '*' and '?' in the source as ordinary characters")
	fl.BoolVarP(&f.noClobber, "no-clobber", "n", false, "skip objects whose destination already exists")
	fl.Var(&f.maxBuffer, "max-buffer", "most part bytes held in memory at once, run-wide, e.g. 256MiB (default 512MiB)")
	fl.BoolVar(&f.followSymlinks, "follow-symlinks", false, "follow symbolic links in local sources (loops are detected and skipped); by default links are skipped with a warning")
	fl.Var(&f.partSize, "part-size", "part size for multipart transfers, e.g. 64MiB (default: chosen per object)")
	fl.Var(&f.multipartThreshold, "multipart-threshold", "size from which objects move in parts (default: chosen per kind of transfer)")
	fl.IntVar(&f.partConcurrency, "part-concurrency", 0, "part uploads in flight at once for the whole run (default: found by measuring, from 4 up to --concurrency)")
	f.engine.register(cmd)
	f.sel.register(cmd, true)
	f.meta.register(cmd)
	f.obj.register(cmd)
	f.lock.register(cmd)
	f.from.register(cmd)
	fl.StringVar(&f.journal, "journal", "", "record progress in this file so that rerunning the same command resumes ('auto': a file in the user cache directory)")
}

func (a *app) cpCmd() *cobra.Command {
	return a.transferCmd(&cobra.Command{
		Use:   "cp SRC DST",
		Short: "Copy objects: S3 to S3 (server-side), local to S3, S3 to local",
		Long: `Copy one object, a prefix (--recursive) or a wildcard match.

Wildcards are s5cmd's: '*' matches any run of characters, '/' included
(so 's3://b/dir/*' is the whole tree below dir/, and '**' is the same as
'*'), '?' one character; --raw makes them ordinary characters. In a local
path they stay within one directory level, as s5cmd's and a shell's do
('src/*.json' is not 'src/sub/x.json'; a directory matched is taken
whole) and '**' crosses levels ('src/**.json' takes both). A wildcard
source needs a bucket, a prefix ending in '/' or a directory as its
destination, and one that matches nothing exits 1. Destination keys keep
the part of the source key after the source prefix (or after the last '/'
before the first wildcard). --include and --exclude are the AWS CLI's:
matched against the key relative to the source prefix, '*' and '?' cross
'/', [seq] and [!seq] are classes, the last matching filter decides, and
an --include given first selects (so --include '*.json' alone copies only
JSON files). Zero-byte "folder markers" (keys ending in '/') are skipped.
A --recursive copy of an empty prefix exits 0 with a warning. S3 to S3
copies are server-side: the bytes never pass through this machine.
Downloads are written to a temporary file and renamed when complete.

Objects written can be encrypted (--sse AES256, --sse aws:kms with
--sse-kms-key-id, or SSE-C: --sse-c AES256 --sse-c-key file://key.bin) and
given a canned ACL (--acl). SSE-C keys are 32 bytes, raw or base64, read
from a file (file://PATH) or an environment variable (env://VAR), never
from the command line. For a download --sse-c is the key of the objects
read; for an S3 to S3 copy --sse-c is the key of the copies and
--sse-c-copy-source with --sse-c-copy-source-key that of the sources.
--request-payer requester is sent on every request to both buckets;
--source-region names the source bucket's region when it is not --region.

--version-id copies one version of one object. --all-versions copies every
version and delete marker of every key, each key's oldest first, into a
bucket whose versioning is Enabled, so that it ends with the same history.
--object-lock-mode with --object-lock-retain-until-date, and
--object-lock-legal-hold, set the Object Lock of the objects written, each
a value or 'copy' (the source's); the destination bucket must have Object
Lock.

A source on another provider or account is named with --source-endpoint-url
and/or --source-profile (the profile wins over AWS_* credentials in the
environment, which the destination keeps using). Objects are then streamed
through this machine, checked against the source's checksum on the way;
a server-side copy is made whenever both sides are one endpoint and one
access key. '-' is standard input (of any length, uploaded in parts with
memory bounded by --max-buffer) or standard output.`,
		Example: `  s3bulk cp s3://src/a.json s3://dst/b.json          one object to an exact key
  s3bulk cp s3://src/a.json s3://dst/dir/            into a "directory"
  s3bulk cp --recursive s3://src/logs/ s3://dst/archive/
  s3bulk cp 's3://src/logs/2026-*/*.json' s3://dst/archive/
  s3bulk cp --recursive ./photos s3://bucket/photos/
  s3bulk cp 's3://bucket/*.csv' ./data/
  s3bulk cp --recursive --source-endpoint-url https://other.example \
      --source-profile other s3://theirs/data/ s3://mine/data/
  tar c dir | s3bulk cp - s3://bucket/dir.tar         standard input
  s3bulk cp s3://bucket/dir.tar - | tar x              standard output`,
	}, false)
}

// transferCmd is cmd (cp, or mv when move) with the flags the two share,
// run by runTransfer; mv takes --version-id but not --all-versions.
func (a *app) transferCmd(cmd *cobra.Command, move bool) *cobra.Command {
	var f transferFlags
	cmd.Args = usageArgs(cobra.ExactArgs(2))
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.runTransfer(cmd.Context(), args[0], args[1], f, move)
	}
	f.register(cmd)
	if move {
		f.versions.register(cmd, "move", false)
	} else {
		f.versions.register(cmd, "copy", true)
	}
	return cmd
}

// usageArgs makes cobra's argument-count errors usage errors (exit 2).
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{fmt.Errorf("%s: %w", cmd.Name(), err)}
		}
		return nil
	}
}

// runTransfer is cp and mv: flags -> job -> one run (transfer.Runner: here,
// by a Batch Operations job, or by auto, which starts here) -> exit code.
func (a *app) runTransfer(ctx context.Context, srcArg, dstArg string, f transferFlags, move bool) error {
	if srcArg == stdioArg || dstArg == stdioArg {
		if f.versions.active() || f.lock.active() {
			return usagef("--version-id, --all-versions and --object-lock-*: not with '-' (standard input or output)")
		}
		return a.runStdio(ctx, srcArg, dstArg, f, move)
	}
	src, dst, err := parsePair(srcArg, dstArg, f.raw)
	if err != nil {
		return err
	}
	t, err := f.check(a.env, src, dst)
	if err != nil {
		return err
	}
	s, err := a.linkSession(f.followSymlinks)
	if err != nil {
		return err
	}
	verb := map[bool]string{false: "cp", true: "mv"}[move]
	if err := f.checkVersions(verb, src); err != nil {
		return err
	}
	// A job sets one Object Lock value and one checksum algorithm on every
	// copy; it cannot copy each source's Object Lock settings.
	q := transfer.Request{Choice: f.engine.choice(), Options: t.opts, ObjectLock: t.lock.Fixed}
	if q.Choice.Engine != engineLocal { // a copy here has nothing to weigh
		q.Asks = f.asks(src, dst, move, t.metaSet, t.lock.Copy != (engine.LockCopy{}))
		q.Choice.Engine, err = pickEngine(q.Choice, q.Asks)
	}
	if err == nil && q.Choice.Engine == engineBatchOps && f.lock.active() {
		// Refused before a job is made, as a local run refuses it.
		var dstEP engine.Endpoint
		if dstEP, err = s.openDest(ctx, dst, true, t.dstOpts); err == nil {
			err = f.lock.checkObjectLock(ctx, dstEP)
		}
	}
	switch {
	case err != nil:
		return err
	case f.from.given() && q.Choice.Engine == engineBatchOps:
		return a.runInventoryJob(ctx, f, src, dst, q)
	case f.from.given():
		q.Choice.Engine = engineLocal // the list is the source: nothing to count for auto
	}
	var j *journal.Writer
	if q.Choice.Engine != engineBatchOps { // a job lists the source itself
		var closeFrom func()
		q.Job, closeFrom, err = a.openTransfer(ctx, s, f, src, dst, t, move)
		defer closeFrom()
		if err != nil {
			return err
		}
		if !q.Job.Recursive && !src.HasWildcard() {
			q.Options.Workers = 1
		}
		if j, err = a.openJournal(f.journal, f.journalID(a.env, verb, src, dst, t.side)); err != nil {
			return err
		}
		if j != nil {
			q.Options.Journal = j // a nil *journal.Writer is not a nil Journal
		}
	}
	q.Options.DryRun = a.g.dryRun
	sum, err := a.runTransferRequest(ctx, s, f.engine.batch, q)
	if err == nil && q.Choice.Engine == engineLocal && f.recursive && !src.HasWildcard() {
		a.warnEmpty(src.String(), sum, t.opts.Filter != nil)
	}
	return a.closeJournal(j, transferOutcome(sum, err))
}

// runTransferRequest is the one run of a cp or mv, rendered as every local
// run is (or, for `plan`, its plan printed); auto's lines come from the
// planner's goroutine and meet the workers' result lines on stderr.
func (a *app) runTransferRequest(ctx context.Context, s *session, bf batchFlags, q transfer.Request) (engine.Summary, error) {
	if q.Choice.Engine == engineAuto {
		defer a.lockStderr()()
	}
	r := a.transferRunner(s, bf)
	switch {
	case a.planOnly:
		enc := progress.NewJSON(a.stdio.Out)
		r.Plan = func(t engine.Task) error { return enc.Encode(t) }
	case q.Choice.Engine != engineBatchOps:
		var end func(engine.Summary) engine.Summary
		q.Options, end = a.startRun(s, q.Job, q.Options)
		r.Ended = func(sum engine.Summary, _ error) { end(sum) }
	}
	sum, err := r.Run(ctx, q)
	return sum, flagHints(err)
}

// transferChecks is what a cp or mv's flags ask for, checked against its
// locations before anything is opened.
type transferChecks struct {
	// opts are the engine options of the flags (all but the journal and
	// the workers); metaSet says whether they change what a copy writes.
	opts    engine.Options
	metaSet bool
	// srcOpts and dstOpts are the stores' options, side where the source
	// lives, lock the Object Lock of the copies.
	srcOpts, dstOpts s3store.Options
	side             sourceSide
	lock             objopts.LockPlan
}

// check checks a cp or mv's locations and flags, in one place: the flags
// of a key list, of the stores' options and of Object Lock are checked
// (each in its own file) only when given.
func (f *transferFlags) check(env environ, src, dst s3url.Location) (t transferChecks, err error) {
	if err := s3url.CheckDest(src, dst); err != nil {
		return t, usageError{err}
	}
	if err := checkPartFlags(f.partSize, f.partConcurrency); err != nil {
		return t, err
	}
	if f.from.given() {
		if err := f.from.check(src); err != nil {
			return t, err
		}
	}
	if t.opts, t.metaSet, err = f.options(env, dst); err != nil {
		return t, err
	}
	if f.obj.active() {
		if t.srcOpts, t.dstOpts, t.side, err = f.obj.stores(src, dst, env); err != nil {
			return t, err
		}
	}
	if f.lock.active() {
		if t.lock, err = f.lock.plan(src, dst); err != nil {
			return t, err
		}
		t.dstOpts.ObjectLock, t.opts.CopyLock = t.lock.Fixed, t.lock.Copy
	}
	return t, nil
}

// options are a cp or mv's engine options from its flags (all but the
// lock, journal and workers), and whether they change what a copy writes
// (metadata, properties or tags), which a job does as CopyObject does.
func (f *transferFlags) options(env environ, dst s3url.Location) (engine.Options, bool, error) {
	var sel engine.Options
	if err := f.sel.apply(&sel, env); err != nil {
		return sel, false, err
	}
	meta, err := f.meta.options()
	if err != nil {
		return sel, false, err
	}
	var props engine.Options
	if err := f.meta.apply(&props); err != nil {
		return sel, false, err
	}
	if err := checkWritten(props, dst); err != nil {
		return sel, false, err
	}
	metaSet := meta != nil || props.Props != engine.CopyPropsDefault || props.Tags != nil
	return engine.Options{
		NoClobber:          f.noClobber,
		PartSize:           int64(f.partSize),
		PartStreams:        f.partConcurrency,
		MultipartThreshold: int64(f.multipartThreshold),
		MaxBufferBytes:     int64(f.maxBuffer),
		Filter:             sel.Filter,
		Shard:              sel.Shard,
		Metadata:           meta,
		Props:              props.Props,
		Tags:               props.Tags,
		ChecksumAlgorithm:  props.ChecksumAlgorithm,
	}, metaSet, nil
}

// checkVersions checks the version flags of a cp or mv against the rest.
func (f *transferFlags) checkVersions(verb string, src s3url.Location) error {
	if f.versions.active() {
		if err := f.versions.check(verb, src, f.recursive); err != nil {
			return err
		}
		switch {
		case f.versions.all && f.noClobber:
			return usagef("cp --all-versions --no-clobber: a copy of every version writes each key many times; drop --no-clobber")
		case f.from.given():
			return usagef("--version-id and --all-versions: not with --files-from or --from-inventory, whose entries name their versions")
		}
	}
	if src.IsS3() && src.IsDirLike() && !src.HasWildcard() && !f.recursive && !f.from.given() {
		return usagef("copy %s: is a prefix: use --recursive or a wildcard", src)
	}
	return nil
}

// openTransfer opens a cp or mv's endpoints (and its list of objects) and
// checks what only the stores can say; closeFrom closes the list.
func (a *app) openTransfer(ctx context.Context, s *session, f transferFlags, src, dst s3url.Location, t transferChecks, move bool) (job engine.Job, closeFrom func(), err error) {
	closeFrom = func() {}
	srcEP, err := s.openSource(ctx, src, f.recursive, t.side, t.srcOpts)
	if err != nil {
		return job, closeFrom, err
	}
	if move {
		if err := checkLiteral(ctx, "mv", src, srcEP); err != nil {
			return job, closeFrom, err
		}
	}
	var from engine.Objects
	if f.from.given() {
		if from, closeFrom, err = f.from.open(ctx, a, s, src, srcEP, t.side, t.srcOpts); err != nil {
			return job, func() {}, err
		}
	}
	many := f.recursive || src.HasWildcard() || from != nil
	dstEP, err := s.openDest(ctx, dst, many, t.dstOpts)
	if err == nil && f.versions.all {
		err = checkVersioned(ctx, dstEP)
	}
	if err == nil && f.lock.active() {
		err = f.lock.checkObjectLock(ctx, dstEP)
	}
	job = engine.Job{Src: srcEP, Dst: dstEP, Recursive: f.recursive || from != nil, Move: move, VersionID: f.versions.id, AllVersions: f.versions.all, From: from}
	return job, closeFrom, err
}

// journalID names a cp or mv's job for its journal: another source,
// filter or version choice is another job.
func (f *transferFlags) journalID(env environ, verb string, src, dst s3url.Location, side sourceSide) transfer.JournalID {
	return transfer.JournalID{
		Verb: verb, Src: src, Dst: dst, Recursive: f.recursive, Raw: f.raw,
		Selection: f.sel.fingerprint(env), From: f.from.fingerprint(),
		Versions: f.versions.active(), VersionID: f.versions.id, AllVersions: f.versions.all,
		SourceEndpoint: side.endpointURL, SourceProfile: side.profile,
	}
}

// openJournal opens the run's journal, or returns nil when none was asked
// for (or in a dry run, which must not create files).
func (a *app) openJournal(path string, id transfer.JournalID) (*journal.Writer, error) {
	if path == "" || a.g.dryRun {
		return nil, nil
	}
	id.Endpoint = a.g.endpointURL
	if id.Endpoint == "" {
		id.Endpoint = a.env.get("AWS_ENDPOINT_URL_S3") + "|" + a.env.get("AWS_ENDPOINT_URL")
	}
	id.Region, id.Profile = a.g.region, a.g.profile
	fp := id.Fingerprint()
	if path == "auto" {
		path = journal.DefaultPath(fp)
	}
	j, err := journal.Open(path, fp)
	if err != nil {
		if errors.Is(err, journal.ErrOtherJob) || errors.Is(err, journal.ErrNotJournal) {
			return nil, usagef("--journal %s: %v", path, err)
		}
		return nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	if st := j.State().Stats(); st.Done > 0 || st.Uploads > 0 {
		fmt.Fprintf(a.stdio.Err, "resuming from %s: %d objects done, %d multipart uploads checkpointed\n", path, st.Done, st.Uploads)
	}
	return j, nil
}

// closeJournal flushes the journal and tells an interrupted user how to go on.
func (a *app) closeJournal(j *journal.Writer, runErr error) error {
	if j == nil {
		return runErr
	}
	if err := j.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("close journal %s: %w", j.Path(), err)
	}
	if runErr != nil {
		fmt.Fprintf(a.stdio.Err, "progress saved in %s: run the same command again to resume\n", j.Path())
	}
	return runErr
}

// checkPartFlags checks --part-size against S3's limits and
// --part-concurrency, for cp, mv and sync.
func checkPartFlags(partSize sizeFlag, partConcurrency int) error {
	if ps := int64(partSize); ps != 0 && (ps < parts.MinPartSize || ps > parts.MaxPartSize) {
		return usagef("--part-size %s: must be between 5 MiB and 5 GiB", units.FormatSize(ps))
	}
	if partConcurrency < 0 {
		return usagef("--part-concurrency %d: must be 1 or more (0: found by measuring)", partConcurrency)
	}
	return nil
}

// execute runs a job with the run's renderers and turns its outcome into
// the command's error.
func (a *app) execute(ctx context.Context, s *session, job engine.Job, opts engine.Options) error {
	_, err := a.executeSum(ctx, s, job, opts)
	return err
}

// executeSum is execute that also returns the run's summary (the zero
// Summary for a plan that was only printed).
func (a *app) executeSum(ctx context.Context, s *session, job engine.Job, opts engine.Options) (engine.Summary, error) {
	sum, err := a.runLocal(ctx, s, job, opts)
	if err == nil && sum.Failed > 0 {
		err = partialError{failed: sum.Failed}
	}
	return sum, err
}

// runLocal runs a job on the session's engine with the run's renderers
// (or prints its plan, for `plan`); its error is the engine's, and the
// objects that failed are in the summary.
func (a *app) runLocal(ctx context.Context, s *session, job engine.Job, opts engine.Options) (engine.Summary, error) {
	// The session's engine holds the budgets: what one command learnt
	// about requests and part uploads serves the other lines of a run file
	// too.
	opts.DryRun = a.g.dryRun
	if a.planOnly {
		return engine.Summary{}, a.writePlan(ctx, s, job, opts)
	}
	opts, end := a.startRun(s, job, opts)
	sum, err := s.eng.Run(ctx, job, opts)
	return end(sum), flagHints(err)
}

// startRun starts rendering a run of job: the options returned carry the
// renderers (Observer, Progress) and the metrics. end stops them once the
// run has ended with sum, prints the summary (a run file collects it
// instead) and returns sum with the session's requests counted.
func (a *app) startRun(s *session, job engine.Job, opts engine.Options) (_ engine.Options, end func(sum engine.Summary) engine.Summary) {
	if opts.Progress == nil {
		opts.Progress = &engine.Progress{}
	}
	out := progress.RunOutput{
		Out: a.stdio.Out, Err: a.stdio.Err, JSON: a.g.json, Quiet: a.g.quiet, Verbose: a.g.verbose,
		Bar: a.showProgress(), OutTerminal: isTerminal(a.stdio.Out), Explain: explain,
	}.Start(opts.Progress)
	opts.Observer = func(r engine.Result) { out.Result(withFlagHints(r)) }
	if m := a.metrics; m != nil {
		m.Track(opts.Progress, jobCommand(job), opts.Shard.Index, opts.Shard.Count)
		render := opts.Observer
		opts.Observer = func(r engine.Result) { m.Observe(r); render(r) }
	}
	return opts, func(sum engine.Summary) engine.Summary {
		out.Stop()
		sum.Requests = s.requests.Counts()
		if a.collect != nil {
			a.collect(sum)
		} else if !a.g.quiet || a.g.json {
			progress.PrintSummary(a.stdio.Err, sum, a.g.json, s.eng.Concurrency(), summaryVerb(job))
		}
		return sum
	}
}

// warnEmpty tells on stderr that a recursive run found nothing to do: the
// AWS CLI exits 0 then, and so does s3bulk, but silence would hide a
// mistyped prefix. It says nothing when the run planned or failed
// anything, nor for `plan`.
func (a *app) warnEmpty(loc string, sum engine.Summary, filtered bool) {
	switch {
	case a.planOnly, sum.Planned > 0 || sum.Failed > 0:
	case filtered:
		fmt.Fprintf(a.stdio.Err, "warning: no object under %s is kept by the filters\n", loc)
	default:
		fmt.Fprintf(a.stdio.Err, "warning: no object under %s\n", loc)
	}
}

// checkLiteral refuses a wildcard source that is also the exact name of an
// existing object (a key with a literal '*' or '?'): rm and mv would
// otherwise delete every match where the user may have meant that one
// object.
func checkLiteral(ctx context.Context, verb string, loc s3url.Location, ep engine.Endpoint) error {
	if !engine.NamesObject(ctx, ep) {
		return nil // no wildcard, missing, or not ours to know: the pattern it is
	}
	return usagef("%s %s: an object has exactly this name, and '*' or '?' in it are wildcards: use --raw to %s only that object", verb, loc, map[string]string{"rm": "delete", "mv": "move"}[verb])
}

// jobCommand names the command of a job, for the metrics.
func jobCommand(job engine.Job) string {
	switch {
	case job.Remove:
		return "rm"
	case job.Move:
		return "mv"
	case job.Sync != nil:
		return "sync"
	}
	return "cp"
}

// summaryVerb names what a job does with the objects it does not delete:
// a sync copies them, an rm deletes them all.
func summaryVerb(job engine.Job) string {
	return map[string]string{"rm": "", "mv": "moved", "sync": "copied", "cp": "copied"}[jobCommand(job)]
}

// showProgress: a bar only when stderr is a terminal and nobody asked for
// machine-readable or quiet output.
func (a *app) showProgress() bool {
	if a.g.noProgress || a.g.quiet || a.g.json {
		return false
	}
	return isTerminal(a.stdio.Err)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
