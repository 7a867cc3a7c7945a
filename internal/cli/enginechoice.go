package cli

import (
	"context"
	"errors"
	"fmt"
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
	engineAuto     = batchops.EngineAuto
)

// engineFlags choose who copies: this machine (local) or an S3 Batch
// Operations job (batchops), or let s3bulk measure its own rate and decide
// (auto).
type engineFlags struct {
	c batchops.EngineChoice
	// lock and checksum are what a job sets on every copy (cp's
	// --object-lock-* values and --checksum-algorithm); lockCopy: an
	// --object-lock-* flag is copy, which a job cannot do.
	lock     store.ObjectLock
	lockCopy bool
	checksum string
	// window is how many finished objects auto measures before deciding.
	window int64
	batch  batchFlags
}

func (f *engineFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	a := batchops.JobAssumptions()
	fl.StringVar(&f.c.Engine, "engine", engineLocal, "who copies S3 to S3: local, batchops (an S3 Batch Operations job) or auto (start here, measure s3bulk's rate, hand the rest to a job only if the model says it wins)")
	fl.StringVar(&f.c.Prefer, "prefer", batchops.PreferTime, "what --engine auto optimises: time or cost")
	fl.DurationVar(&f.c.JobStartup, "job-startup", a.BatchStartup, "a job's start-up time, for --engine auto (e.g. from 's3bulk bench --role-arn')")
	fl.Float64Var(&f.c.JobRate, "job-rate", a.BatchObjectsPerSec, "a job's objects/s once active, for --engine auto")
	fl.Int64Var(&f.window, "auto-window", batchops.DefaultAutoWindow, "objects --engine auto copies here before deciding")
	_ = fl.MarkHidden("auto-window")
	fl.StringVar(&f.c.RoleArn, "role-arn", "", "`ARN` of the IAM role for --engine batchops/auto (see 's3bulk batch policy')")
	fl.StringVar(&f.batch.accountID, "account-id", "", "AWS account for --engine batchops (default: asked from STS)")
	fl.StringVar(&f.batch.controlEndpoint, "control-endpoint-url", "", "S3 Control endpoint URL for --engine batchops")
	fl.DurationVar(&f.batch.pollInterval, "poll-interval", defaultPollInterval, "how often a job is asked for its state")
	_ = fl.MarkHidden("poll-interval")
}

// pickEngine checks the engine flags and returns the engine to run and, for
// auto, why a job is out of the question (then auto copies locally), in
// cp's words.
func pickEngine(f transferFlags, src, dst s3url.Location, move, metaSet bool) (string, []string, error) {
	c := f.engine.c
	mode, refusals, err := c.Pick(batchops.Transfer{
		Src: src, Dst: dst, Recursive: f.recursive, Move: move, NoClobber: f.noClobber,
		Selected: f.sel.active(), Metadata: metaSet, Object: f.obj.active(), LockCopy: f.engine.lockCopy, Journal: f.journal != "",
		Versions: f.versions.active(),
	})
	var ce *batchops.ChoiceError
	var re *batchops.RefusedError
	switch {
	case errors.As(err, &ce) && ce.Field == "Engine":
		return "", nil, usagef("--engine %q: want local, batchops or auto", c.Engine)
	case errors.As(err, &ce) && ce.Field == "Prefer":
		return "", nil, usagef("--prefer %q: want time or cost", c.Prefer)
	case errors.As(err, &ce):
		return "", nil, usagef("--job-startup %s --job-rate %g: want a duration of 0 or more and a rate above 0", c.JobStartup, c.JobRate)
	case errors.As(err, &re):
		return "", nil, usagef("--engine batchops: %s", refusalWords(re.Refusal))
	case errors.Is(err, batchops.ErrNoRole):
		return "", nil, usagef("--engine batchops needs --role-arn (see `s3bulk batch policy %s %s`)", src, dst)
	case err != nil:
		return "", nil, usageError{err}
	}
	reasons := make([]string, len(refusals))
	for i, r := range refusals {
		reasons[i] = refusalWords(r)
	}
	return mode, reasons, nil
}

// refusalWords says why a job cannot do a cp, naming the flags that ask
// for it (docs/batchops.md has the whole mapping).
func refusalWords(r batchops.Refusal) string {
	switch r.Kind {
	case batchops.RefuseMove:
		return "mv runs locally only (a job cannot delete the sources)"
	case batchops.RefuseNoClobber:
		return "--no-clobber needs --engine local: a job overwrites keys that exist (it has no condition on the destination)"
	case batchops.RefuseSelection:
		return "filters, shards and metadata flags need --engine local"
	case batchops.RefuseObjectOptions:
		return "encryption, ACL, request-payer and source-region and source-* flags need --engine local (a job cannot read SSE-C sources at all)"
	case batchops.RefuseLockCopy:
		return "--object-lock-* copy needs --engine local: a job sets one Object Lock value for all its objects, so it cannot keep each source's; copy with --engine local, or give the job one value for all (--object-lock-mode GOVERNANCE|COMPLIANCE with --object-lock-retain-until-date, --object-lock-legal-hold ON|OFF)"
	case batchops.RefuseJournal:
		return "--journal needs --engine local: a job's record is its completion report"
	case batchops.RefuseVersions:
		return "--version-id and --all-versions need --engine local: a job copies the current version of each object"
	case batchops.RefuseOneObject:
		return "a job copies a prefix or a wildcard match, not one object: use --recursive or --engine local"
	}
	return r.Why
}

// runAuto is one `cp --engine auto` (batchops.Auto): the local engine
// copies from the start while auto counts the source and measures its
// rate; when a job wins, the rest goes to one.
func (a *app) runAuto(ctx context.Context, s *session, ef engineFlags, blockers []string, job engine.Job, opts engine.Options, srcArg, dstArg string, raw bool) error {
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
	auto := batchops.StartAuto(ctx, job, batchops.AutoOptions{
		Prefer: ef.c.Prefer, JobStartup: ef.c.JobStartup, JobRate: ef.c.JobRate, Window: max(ef.window, 1),
		CanHandOver: ef.c.RoleArn != "", Out: a.stdio.Err, Engine: s.eng,
	})
	defer auto.Close()
	opts.Progress = auto.Progress()
	opts.Filter = auto.Filter

	localErr := a.execute(auto.Context(), s, job, opts)
	var local partialError
	after, handOver := auto.Finish(ctx, localErr, errors.As(localErr, &local))
	if !handOver {
		return localErr
	}
	bf := ef.batch
	jobErr := a.runBatchCp(ctx, &bf, jobRequest(ef, raw, srcArg, dstArg, after))
	var jp partialError
	switch {
	case jobErr == nil && local.failed > 0:
		return local
	case errors.As(jobErr, &jp):
		return partialError{failed: jp.failed + local.failed}
	}
	return jobErr
}

// lockStderr makes a.stdio.Err safe for writers in several goroutines until
// the returned func restores it. A terminal stays a terminal, for the
// progress bar.
func (a *app) lockStderr() func() {
	prev := a.stdio.Err
	a.stdio.Err = progress.LockedTerminal(prev)
	return func() { a.stdio.Err = prev }
}

// runJob hands a cp to an S3 Batch Operations job and waits for it.
func (a *app) runJob(ctx context.Context, f engineFlags, raw bool, srcArg, dstArg string) error {
	bf := f.batch
	return a.runBatchCp(ctx, &bf, jobRequest(f, raw, srcArg, dstArg, ""))
}

// jobRequest is the batch copy of a cp handed to a job: its keys after
// startAfter, waited for.
func jobRequest(f engineFlags, raw bool, srcArg, dstArg, startAfter string) batchops.CopyRequest {
	return batchops.CopyRequest{
		Src: srcArg, Dst: dstArg, Raw: raw, StartAfter: startAfter,
		RoleArn: f.c.RoleArn, ReportScope: "all", Priority: 10, Wait: true,
		ObjectLock: f.lock, ChecksumAlgorithm: f.checksum,
	}
}

// defaultPollInterval is how often a job started by cp is asked for its
// state, as `batch cp --wait` does by default.
const defaultPollInterval = 5 * time.Second
