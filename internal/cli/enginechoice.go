package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/transfer"
)

// Engines `cp --engine` names.
const (
	engineLocal    = transfer.Local
	engineBatchOps = transfer.BatchOps
	engineAuto     = transfer.Auto
)

// engineFlags choose who copies: this machine (local) or an S3 Batch
// Operations job (batchops), or let s3bulk measure its own rate and decide
// (auto).
type engineFlags struct {
	c transfer.Choice
	// window is how many finished objects auto measures before deciding.
	window int64
	batch  batchFlags
}

func (f *engineFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	d := transfer.DefaultChoice()
	fl.StringVar(&f.c.Engine, "engine", engineLocal, "who copies S3 to S3: local, batchops (an S3 Batch Operations job) or auto (start here, measure s3bulk's rate, hand the rest to a job only if the model says it wins)")
	fl.StringVar(&f.c.Prefer, "prefer", d.Prefer, "what --engine auto optimises: time or cost")
	fl.DurationVar(&f.c.JobStartup, "job-startup", d.JobStartup, "a job's start-up time, for --engine auto (e.g. from 's3bulk bench --role-arn')")
	fl.Float64Var(&f.c.JobRate, "job-rate", d.JobRate, "a job's objects/s once active, for --engine auto")
	fl.Int64Var(&f.window, "auto-window", batchops.DefaultAutoWindow, "objects --engine auto copies here before deciding")
	_ = fl.MarkHidden("auto-window")
	fl.StringVar(&f.c.RoleArn, "role-arn", "", "`ARN` of the IAM role for --engine batchops/auto (see 's3bulk batch policy')")
	fl.StringVar(&f.batch.accountID, "account-id", "", "AWS account for --engine batchops (default: asked from STS)")
	fl.StringVar(&f.batch.controlEndpoint, "control-endpoint-url", "", "S3 Control endpoint URL for --engine batchops")
	fl.DurationVar(&f.batch.pollInterval, "poll-interval", defaultPollInterval, "how often a job is asked for its state")
	_ = fl.MarkHidden("poll-interval")
}

// choice is the engine choice of the flags, auto's window at least one
// object.
func (f engineFlags) choice() transfer.Choice {
	c := f.c
	c.Window = max(f.window, 1)
	return c
}

// asks is what a cp or mv asks for that a job may not honour, from its
// flags (before any endpoint is opened).
func (f transferFlags) asks(src, dst s3url.Location, move, metaSet, lockCopy bool) transfer.Asks {
	return transfer.Asks{
		Src: src, Dst: dst, Recursive: f.recursive, Move: move, NoClobber: f.noClobber,
		Selected: f.sel.active(), Metadata: metaSet, Object: f.obj.active(), LockCopy: lockCopy,
		Journal: f.journal != "", Versions: f.versions.active(),
	}
}

// pickEngine checks the engine flags against what the copy asks and
// returns the engine to run, in cp's words.
func pickEngine(c transfer.Choice, asks transfer.Asks) (string, error) {
	mode, _, err := c.Pick(asks)
	var ce *transfer.ChoiceError
	var re *transfer.RefusedError
	switch {
	case errors.As(err, &ce) && ce.Field == "Engine":
		return "", usagef("--engine %q: want local, batchops or auto", c.Engine)
	case errors.As(err, &ce) && ce.Field == "Prefer":
		return "", usagef("--prefer %q: want time or cost", c.Prefer)
	case errors.As(err, &ce):
		return "", usagef("--job-startup %s --job-rate %g: want a duration of 0 or more and a rate above 0", c.JobStartup, c.JobRate)
	case errors.As(err, &re):
		return "", usagef("--engine batchops: %s", refusalWords(re.Refusal))
	case errors.Is(err, transfer.ErrNoRole):
		return "", usagef("--engine batchops needs --role-arn (see `s3bulk batch policy %s %s`)", asks.Src, asks.Dst)
	case err != nil:
		return "", usageError{err}
	}
	return mode, nil
}

// refusalWords says why a job cannot do a cp, naming the flags that ask
// for it (docs/batchops.md has the whole mapping).
func refusalWords(r transfer.Refusal) string {
	switch r.Kind {
	case transfer.RefuseMove:
		return "mv runs locally only (a job cannot delete the sources)"
	case transfer.RefuseNoClobber:
		return "--no-clobber needs --engine local: a job overwrites keys that exist (it has no condition on the destination)"
	case transfer.RefuseSelection:
		return "filters, shards and metadata flags need --engine local"
	case transfer.RefuseObjectOptions:
		return "encryption, ACL, request-payer and source-region and source-* flags need --engine local (a job cannot read SSE-C sources at all)"
	case transfer.RefuseLockCopy:
		return "--object-lock-* copy needs --engine local: a job sets one Object Lock value for all its objects, so it cannot keep each source's; copy with --engine local, or give the job one value for all (--object-lock-mode GOVERNANCE|COMPLIANCE with --object-lock-retain-until-date, --object-lock-legal-hold ON|OFF)"
	case transfer.RefuseJournal:
		return "--journal needs --engine local: a job's record is its completion report"
	case transfer.RefuseVersions:
		return "--version-id and --all-versions need --engine local: a job copies the current version of each object"
	case transfer.RefuseOneObject:
		return "a job copies a prefix or a wildcard match, not one object: use --recursive or --engine local"
	}
	return r.Why
}

// transferRunner is the runner of a cp or mv: local runs on the session's
// engine, jobs through `batch cp`'s workflow, auto's lines and the
// refusals in cp's words on stderr.
func (a *app) transferRunner(s *session, bf batchFlags) *transfer.Runner {
	return &transfer.Runner{Engine: s.eng, Jobs: cpJobs{a: a, bf: bf}, Out: a.stdio.Err, Words: refusalWords}
}

// cpJobs hands a cp to an S3 Batch Operations job, as `batch cp --wait`
// does, and waits for it.
type cpJobs struct {
	a  *app
	bf batchFlags
}

func (j cpJobs) Copy(ctx context.Context, q transfer.JobRequest) error {
	bf := j.bf
	return j.a.runBatchCp(ctx, &bf, batchops.CpRequest(q.Src, q.Dst, q.StartAfter, q.RoleArn, q.ObjectLock, q.ChecksumAlgorithm))
}

// transferOutcome is the command's error for a run that copied
// sum here and ended with err (a job's, when one copied the rest): the
// objects that failed here and in the job add up.
func transferOutcome(sum engine.Summary, err error) error {
	var jp partialError
	switch {
	case err == nil && sum.Failed > 0:
		return partialError{failed: sum.Failed}
	case errors.As(err, &jp):
		return partialError{failed: jp.failed + sum.Failed}
	}
	return err
}

// lockStderr makes a.stdio.Err safe for writers in several goroutines until
// the returned func restores it. A terminal stays a terminal, for the
// progress bar.
func (a *app) lockStderr() func() {
	prev := a.stdio.Err
	a.stdio.Err = progress.LockedTerminal(prev)
	return func() { a.stdio.Err = prev }
}

// defaultPollInterval is how often a job started by cp is asked for its
// state, as `batch cp --wait` does by default.
const defaultPollInterval = 5 * time.Second
