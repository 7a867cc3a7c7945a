package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/filter"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// batchFlags are shared by every `batch` verb: how to reach S3 Control.
type batchFlags struct {
	accountID       string
	controlEndpoint string
	pollInterval    time.Duration
}

func (a *app) batchCmd() *cobra.Command {
	bf := &batchFlags{}
	cmd := &cobra.Command{
		Use:   "batch",
		Short: "Copy between buckets with an S3 Batch Operations job, and manage its jobs",
		Long: `Hand a bucket-to-bucket copy to S3 Batch Operations: AWS runs it, this machine
only lists the source into a manifest and watches the job.

` + wrapText(batchops.HelpText(), 78) + `

A copy job is created in its destination bucket's region, which s3bulk asks
S3 for; pass that region with --region to status, report, cancel and ls.`,
		Example: `  s3bulk batch policy s3://src s3://dst        the IAM role the job needs
  s3bulk batch cp s3://src s3://dst --role-arn arn:aws:iam::123456789012:role/s3bulk-batch --wait
  s3bulk batch status JOB | report JOB | retry JOB | cancel JOB | ls`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&bf.accountID, "account-id", "", "AWS account that owns the jobs (default: asked from STS)")
	pf.StringVar(&bf.controlEndpoint, "control-endpoint-url", "", "S3 Control endpoint URL, used as given (for S3-compatible control planes)")
	pf.DurationVar(&bf.pollInterval, "poll-interval", 5*time.Second, "how often --wait asks for the job's state")
	_ = pf.MarkHidden("poll-interval")
	cmd.AddCommand(
		a.batchCpCmd(bf),
		a.batchStatusCmd(bf),
		a.batchReportCmd(bf),
		a.batchCancelCmd(bf),
		a.batchRetryCmd(bf),
		a.batchRunCmd(bf),
		a.batchPriorityCmd(bf),
		a.batchLsCmd(bf),
		a.batchPolicyCmd(),
	)
	return cmd
}

// jobClient loads the AWS configuration (region, profile, credentials) for
// S3 Control and STS. Jobs are regional: without a region there is no job
// to find.
func (a *app) jobClient(ctx context.Context, bf *batchFlags) (*batchops.Client, error) {
	c, err := a.jobClientIn(ctx, bf)
	if err == nil && c.Region() == "" {
		return nil, usagef("no region: a job is found only in its own region (its destination bucket's); pass --region")
	}
	return c, err
}

// jobClientFor is the client for a job that copies into bucket: in the
// bucket's region, which it asks S3 for, since a copy job must be created
// in its destination's region.
func (a *app) jobClientFor(ctx context.Context, bf *batchFlags, s3c *s3.Client, bucket string) (*batchops.Client, error) {
	c, err := a.jobClientIn(ctx, bf)
	if err != nil {
		return nil, err
	}
	return c.ForBucket(ctx, s3c, bucket, func(msg string) { fmt.Fprintln(a.stdio.Err, msg) })
}

func (a *app) jobClientIn(ctx context.Context, bf *batchFlags) (*batchops.Client, error) {
	cfg, err := batchops.LoadAWSConfig(ctx, s3store.Config{Region: a.g.region, Profile: a.g.profile, Logger: a.logger}, a.env.get)
	if err != nil {
		return nil, err
	}
	c, err := batchops.NewClient(cfg, batchops.ClientOptions{AccountID: bf.accountID, ControlEndpoint: bf.controlEndpoint})
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// batchCpFlags are batch cp's: a batchops.CopyRequest, and the values
// its flags read.
type batchCpFlags struct {
	q             batchops.CopyRequest
	maxObjectSize sizeFlag
	createdAfter  filter.TimeValue
	createdBefore filter.TimeValue
}

// request is the copy the flags ask for.
func (f batchCpFlags) request() batchops.CopyRequest {
	q := f.q
	q.MaxSize, q.CreatedAfter, q.CreatedBefore = int64(f.maxObjectSize), f.createdAfter.T, f.createdBefore.T
	return q
}

func (a *app) batchCpCmd(bf *batchFlags) *cobra.Command {
	var f batchCpFlags
	cmd := &cobra.Command{
		Use:   "cp SRC DST --role-arn ARN",
		Short: "Copy a bucket, prefix or wildcard match with one S3 Batch Operations job",
		Long: `List SRC into a CSV manifest, upload it, and create an S3 Batch Operations
copy job that runs at once; with --wait, follow it to the end and print its
failed keys.

  s3bulk batch cp s3://src s3://dst --role-arn ARN --wait
  s3bulk batch cp 's3://src/*.json' s3://dst/copy/ --role-arn ARN --report s3://logs/batch

SRC is always copied recursively. Unlike cp, a job keeps whole source keys:
s3://src/logs/a.json goes to DST's prefix + "logs/a.json".

When the source bucket keeps versions, the manifest names the version of
each object listed (Bucket,Key,VersionId), so the job copies that version
even if the object is overwritten before its task runs; --version-ids off
copies whatever is current then.

A job cannot copy objects over 5 GiB; those are copied from this machine with
multipart copy after the job is created, or, with --no-local-fallback,
listed as excluded (and the exit code is 1). The plan says which up front.

The manifest goes to s3://DST-bucket/_batch/manifest/ and the completion
report to s3://DST-bucket/_batch/report/ unless --manifest and --report say
otherwise. ` + "`s3bulk batch policy SRC DST`" + ` prints the IAM role to pass as --role-arn.`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.q.Src, f.q.Dst = args[0], args[1]
			return a.runBatchCp(cmd.Context(), bf, f.request())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.q.RoleArn, "role-arn", "", "`ARN` of the IAM role Batch Operations assumes (see 's3bulk batch policy')")
	fl.StringVar(&f.q.Report, "report", "", "where the completion report goes, s3://bucket/prefix (default: s3://DST-bucket/_batch/report)")
	fl.StringVar(&f.q.ReportScope, "report-scope", "all", "which tasks the report lists: all or failed")
	fl.StringVar(&f.q.Manifest, "manifest", "", "where the manifest goes, s3://bucket/key.csv (default: under s3://DST-bucket/_batch/manifest/)")
	fl.Int32Var(&f.q.Priority, "priority", 10, "job priority: higher runs first among your jobs")
	fl.BoolVar(&f.q.Wait, "wait", false, "wait for the job to end, then print its report")
	fl.BoolVar(&f.q.NoLocalFallback, "no-local-fallback", false, "list objects over 5 GiB as excluded instead of copying them from here")
	fl.StringVar(&f.q.StorageClass, "storage-class", "", "storage class of the copies, e.g. STANDARD_IA (default: STANDARD)")
	fl.StringVar(&f.q.Description, "description", "", "job description shown by AWS (default: s3bulk cp SRC DST)")
	fl.BoolVar(&f.q.Raw, "raw", false, "treat '*' and '?' in the source as ordinary characters")
	fl.StringToStringVar(&f.q.Tags, "tag", nil, "tag the job (not the objects): --tag team=data, repeatable")
	fl.BoolVar(&f.q.Confirm, "confirm", false, "create the job Suspended, to run it with 's3bulk batch run JOB' once reviewed")
	fl.StringVar(&f.q.ExpectedOwner, "expected-bucket-owner", "", "account id that must own the report bucket (and the source, with --manifest-generator); the job fails otherwise")
	fl.BoolVar(&f.q.Generator, "manifest-generator", false, "let S3 list SRC itself (no listing here, for buckets of billions of objects); objects of 5 GB or more are left out")
	fl.StringSliceVar(&f.q.Suffixes, "suffix", nil, "with --manifest-generator: only keys ending so (S3's filter)")
	fl.Var(&f.createdAfter, "created-after", "with --manifest-generator: only objects created after this time (a date, RFC 3339 time or an age like 7d)")
	fl.Var(&f.createdBefore, "created-before", "with --manifest-generator: only objects created before this time")
	fl.StringSliceVar(&f.q.MatchClasses, "match-storage-class", nil, "with --manifest-generator: only objects in these storage classes")
	fl.StringVar(&f.q.Versions, "version-ids", batchops.VersionsAuto, "pin each object's version in the manifest, so the job copies the version listed: auto (when the source keeps versions), on or off")
	fl.Var(&f.maxObjectSize, "max-object-size", "largest object the job copies")
	_ = fl.MarkHidden("max-object-size") // for tests: 5 GiB is AWS's limit
	return cmd
}

// runBatchCp runs one batch copy; everything S3 Control would refuse is
// refused before the listing and the manifest upload.
func (a *app) runBatchCp(ctx context.Context, bf *batchFlags, q batchops.CopyRequest) error {
	o, err := q.Options(a.g.dryRun)
	if err != nil {
		return usageError{err}
	}
	return a.withRunner(ctx, bf, func(r *batchops.Runner) error { return r.Copy(ctx, o) })
}

// batchRunner is the batch workflows' runner for this command: the
// session's S3 client and budget, jobs in their destination's region, and
// output through internal/progress.
func (a *app) batchRunner(ctx context.Context, bf *batchFlags) (*batchops.Runner, error) {
	s := a.newSession()
	c, err := s.s3(ctx)
	if err != nil {
		return nil, err
	}
	return &batchops.Runner{
		Store: func(b string) store.Store { return c.Bucket(b) },
		Jobs: func(ctx context.Context, bucket string) (*batchops.Client, error) {
			return a.jobClientFor(ctx, bf, c.SDK(), bucket)
		},
		Observer: a.jobOutput(),
		Poll:     bf.pollInterval,
		Local:    engine.Options{Observer: a.renderer()},
		Engine:   s.eng,
	}, nil
}

func (a *app) jobOutput() *progress.JobOutput {
	return &progress.JobOutput{Out: a.stdio.Out, Err: a.stdio.Err, JSON: a.g.json, Quiet: a.g.quiet, Bar: a.showProgress()}
}

// onJob is the RunE of a verb that acts on jobs: fn runs with S3
// Control's client.
func (a *app) onJob(bf *batchFlags, fn func(ctx context.Context, jc *batchops.Client, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		jc, err := a.jobClient(cmd.Context(), bf)
		if err != nil {
			return err
		}
		return fn(cmd.Context(), jc, args)
	}
}

// withRunner runs a batch workflow with the command's runner and maps its
// error to the exit codes.
func (a *app) withRunner(ctx context.Context, bf *batchFlags, fn func(*batchops.Runner) error) error {
	r, err := a.batchRunner(ctx, bf)
	if err != nil {
		return err
	}
	return batchExit(fn(r))
}

// batchExit maps a batch workflow's error to the CLI's exit codes.
func batchExit(err error) error {
	switch {
	case err == nil:
		return nil
	case batchops.Failures(err) > 0:
		return partialError{failed: batchops.Failures(err)}
	case errors.Is(err, batchops.ErrInvalidJob):
		return usageError{err}
	}
	return err
}

// wrapText breaks text into lines of at most width columns, at spaces.
func wrapText(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

func (a *app) batchStatusCmd(bf *batchFlags) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "status JOB",
		Short: "Show a job's status and progress",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: a.onJob(bf, func(ctx context.Context, jc *batchops.Client, args []string) error {
			out := a.jobOutput()
			r := batchops.Runner{Observer: out, Poll: bf.pollInterval}
			j, err := r.Status(ctx, jc, args[0], wait)
			if err != nil {
				return err
			}
			out.Job(j)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the job to end")
	return cmd
}

func (a *app) batchReportCmd(bf *batchFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "report JOB",
		Short: "Read a finished job's completion report: failed keys and a summary",
		Long: `Read the completion report of a job that ended and print each failed task
(on stderr, as cp prints failed objects, or as JSON lines with --json) and a
summary. The exit code is 0 when every task succeeded, 1 when some failed.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: a.onJob(bf, func(ctx context.Context, jc *batchops.Client, args []string) error {
			return a.withRunner(ctx, bf, func(r *batchops.Runner) error { return r.Report(ctx, jc, args[0]) })
		}),
	}
}

func (a *app) batchRetryCmd(bf *batchFlags) *cobra.Command {
	var wait bool
	var eng string
	cmd := &cobra.Command{
		Use:   "retry JOB",
		Short: "Copy the failed tasks of an ended job again, with a new job or from this machine",
		Long: `Read the completion report of a job that ended, write its failed keys into a
new manifest (under the destination bucket's _batch/manifest/) and create a
job that copies them again to the same place, with the same role, storage
class, report location and priority. A rerun of the same retry is the same
job. With --engine local the failed objects are copied from this machine
instead, in one run, to where the job would have written them (a job whose
manifest pinned versions is retried with a job only). The exit code is that
of batch cp.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if eng != engineLocal && eng != engineBatchOps {
				return usagef("--engine %q: want batchops or local", eng)
			}
			return a.onJob(bf, func(ctx context.Context, jc *batchops.Client, args []string) error {
				return a.withRunner(ctx, bf, func(r *batchops.Runner) error {
					if eng == engineLocal {
						return r.RetryLocally(ctx, jc, args[0])
					}
					return r.Retry(ctx, jc, args[0], wait)
				})
			})(cmd, args)
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the new job to end, then print its report (a local retry always ends before the command)")
	cmd.Flags().StringVar(&eng, "engine", engineBatchOps, "who copies the failed objects again: batchops (a new job) or local (this machine)")
	return cmd
}

func (a *app) batchRunCmd(bf *batchFlags) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "run JOB",
		Short: "Run a job created with --confirm (it waits Suspended until then)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: a.onJob(bf, func(ctx context.Context, jc *batchops.Client, args []string) error {
			status, err := jc.Run(ctx, args[0])
			if err != nil {
				return err
			}
			a.jobOutput().JobStatus(args[0], status)
			if !wait {
				return nil
			}
			return a.withRunner(ctx, bf, func(r *batchops.Runner) error { return r.WaitAndReport(ctx, jc, args[0], 0) })
		}),
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the job to end, then print its report")
	return cmd
}

func (a *app) batchPriorityCmd(bf *batchFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "priority JOB N",
		Short: "Change a job's priority: higher runs first among the account's jobs",
		Args:  usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := strconv.ParseInt(args[1], 10, 32)
			if err != nil || n < 0 {
				return usagef("batch priority %s %s: want a whole number of 0 or more", args[0], args[1])
			}
			ctx := cmd.Context()
			jc, err := a.jobClient(ctx, bf)
			if err != nil {
				return err
			}
			if err := jc.SetPriority(ctx, args[0], int32(n)); err != nil {
				return err
			}
			a.jobOutput().JobPriority(args[0], n)
			return nil
		},
	}
}

func (a *app) batchCancelCmd(bf *batchFlags) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "cancel JOB",
		Short: "Cancel a job; tasks already done stay done",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: a.onJob(bf, func(ctx context.Context, jc *batchops.Client, args []string) error {
			status, err := jc.Cancel(ctx, args[0], reason)
			if err != nil {
				return err
			}
			a.jobOutput().JobStatus(args[0], status)
			return nil
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "cancelled with s3bulk batch cancel", "why, recorded with the job")
	return cmd
}

func (a *app) batchLsCmd(bf *batchFlags) *cobra.Command {
	var statuses []string
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the account's Batch Operations jobs, newest first",
		Args:  usageArgs(cobra.NoArgs),
		RunE: a.onJob(bf, func(ctx context.Context, jc *batchops.Client, _ []string) error {
			return jc.List(ctx, statuses, a.jobOutput().JobListed)
		}),
	}
	cmd.Flags().StringSliceVar(&statuses, "status", nil, "only jobs in these statuses (Active, Complete, Failed, Cancelled...)")
	return cmd
}

func (a *app) batchPolicyCmd() *cobra.Command {
	var report, manifest, roleArn, kmsKey string
	var raw bool
	cmd := &cobra.Command{
		Use:   "policy SRC DST",
		Short: "Print the IAM policies a batch copy from SRC to DST needs",
		Long: `Print three IAM policy documents for ` + "`s3bulk batch cp SRC DST`" + `:
the permissions policy of the role passed as --role-arn, the trust policy
that lets S3 Batch Operations assume it, and the permissions of whoever runs
s3bulk. Each is limited to the buckets and prefixes the copy uses.`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := batchops.CopyRequest{Src: args[0], Dst: args[1], Report: report, Manifest: manifest, ReportScope: "all", Raw: raw}
			pol, err := q.Policies(roleArn, kmsKey, a.g.region)
			if err != nil {
				return usageError{err}
			}
			if a.g.json {
				enc := json.NewEncoder(a.stdio.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(pol)
			}
			_, err = io.WriteString(a.stdio.Out, pol.Text())
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&report, "report", "", "report location, as for batch cp")
	fl.StringVar(&manifest, "manifest", "", "manifest location, as for batch cp")
	fl.StringVar(&roleArn, "role-arn", "", "the job's role, to limit iam:PassRole to it")
	fl.StringVar(&kmsKey, "kms-key-arn", "", "the KMS key of SSE-KMS sources or copies: the job and the local fallback need to use it")
	fl.BoolVar(&raw, "raw", false, "treat '*' and '?' in the source as ordinary characters")
	return cmd
}
