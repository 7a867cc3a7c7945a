package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// batchFlags are shared by every `batch` verb: how to reach S3 Control.
type batchFlags struct {
	accountID       string
	controlEndpoint string
	pollInterval    time.Duration
}

// Default places for the manifest and the report, under the destination
// bucket as report 1 did (_batch/report/).
const (
	defaultManifestPrefix = "_batch/manifest/"
	defaultReportPrefix   = "_batch/report"
)

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
	region, err := batchops.BucketRegion(ctx, s3c, bucket)
	if err != nil {
		return nil, err
	}
	if c.Region() != "" && c.Region() != region {
		fmt.Fprintf(a.stdio.Err, "note: s3://%s is in %s, not %s: the job is created there\n", bucket, region, c.Region())
	}
	return c.ForRegion(region), nil
}

func (a *app) jobClientIn(ctx context.Context, bf *batchFlags) (*batchops.Client, error) {
	cfg, err := s3store.LoadAWSConfig(ctx, a.env.s3Config(s3store.Config{Region: a.g.region, Profile: a.g.profile, Logger: a.logger}))
	if err != nil {
		var noProfile config.SharedConfigProfileNotExistError
		if errors.As(err, &noProfile) {
			return nil, fmt.Errorf("load aws config: %w: %w", store.ErrInvalidCredentials, err)
		}
		return nil, fmt.Errorf("load aws config: %w", err)
	}
	if ep := a.env.get("AWS_ENDPOINT_URL"); ep != "" && a.env.endpointURL() != "" {
		// As the SDK reads it: the global endpoint variable is every
		// service's (S3 and S3 Control) unless a flag names another.
		cfg.BaseEndpoint = &ep
	}
	c, err := batchops.NewClient(cfg, batchops.ClientOptions{AccountID: bf.accountID, ControlEndpoint: bf.controlEndpoint})
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

type batchCpFlags struct {
	roleArn         string
	report          string
	reportScope     string
	manifest        string
	priority        int32
	wait            bool
	noLocalFallback bool
	storageClass    string
	description     string
	raw             bool
	maxObjectSize   sizeFlag
	// startAfter leaves out the keys up to it: cp --engine auto copied
	// them from this machine before handing the rest to the job.
	startAfter    string
	tags          map[string]string
	confirm       bool
	expectedOwner string
	// generator lets S3 list the source (S3JobManifestGenerator), with
	// S3's own filters.
	generator     bool
	suffixes      []string
	createdAfter  timeFlag
	createdBefore timeFlag
	matchClasses  []string
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

A job cannot copy objects over 5 GiB; those are copied from this machine with
multipart copy after the job is created, or, with --no-local-fallback,
listed as excluded (and the exit code is 1). The plan says which up front.

The manifest goes to s3://DST-bucket/_batch/manifest/ and the completion
report to s3://DST-bucket/_batch/report/ unless --manifest and --report say
otherwise. ` + "`s3bulk batch policy SRC DST`" + ` prints the IAM role to pass as --role-arn.`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runBatchCp(cmd.Context(), bf, f, args[0], args[1])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.roleArn, "role-arn", "", "`ARN` of the IAM role Batch Operations assumes (see 's3bulk batch policy')")
	fl.StringVar(&f.report, "report", "", "where the completion report goes, s3://bucket/prefix (default: s3://DST-bucket/_batch/report)")
	fl.StringVar(&f.reportScope, "report-scope", "all", "which tasks the report lists: all or failed")
	fl.StringVar(&f.manifest, "manifest", "", "where the manifest goes, s3://bucket/key.csv (default: under s3://DST-bucket/_batch/manifest/)")
	fl.Int32Var(&f.priority, "priority", 10, "job priority: higher runs first among your jobs")
	fl.BoolVar(&f.wait, "wait", false, "wait for the job to end, then print its report")
	fl.BoolVar(&f.noLocalFallback, "no-local-fallback", false, "list objects over 5 GiB as excluded instead of copying them from here")
	fl.StringVar(&f.storageClass, "storage-class", "", "storage class of the copies, e.g. STANDARD_IA (default: STANDARD)")
	fl.StringVar(&f.description, "description", "", "job description shown by AWS (default: s3bulk cp SRC DST)")
	fl.BoolVar(&f.raw, "raw", false, "treat '*' and '?' in the source as ordinary characters")
	fl.StringToStringVar(&f.tags, "tag", nil, "tag the job (not the objects): --tag team=data, repeatable")
	fl.BoolVar(&f.confirm, "confirm", false, "create the job Suspended, to run it with 's3bulk batch run JOB' once reviewed")
	fl.StringVar(&f.expectedOwner, "expected-bucket-owner", "", "account id that must own the report bucket (and the source, with --manifest-generator); the job fails otherwise")
	fl.BoolVar(&f.generator, "manifest-generator", false, "let S3 list SRC itself (no listing here, for buckets of billions of objects); objects of 5 GB or more are left out")
	fl.StringSliceVar(&f.suffixes, "suffix", nil, "with --manifest-generator: only keys ending so (S3's filter)")
	fl.Var(&f.createdAfter, "created-after", "with --manifest-generator: only objects created after this time (a date, RFC 3339 time or an age like 7d)")
	fl.Var(&f.createdBefore, "created-before", "with --manifest-generator: only objects created before this time")
	fl.StringSliceVar(&f.matchClasses, "match-storage-class", nil, "with --manifest-generator: only objects in these storage classes")
	fl.Var(&f.maxObjectSize, "max-object-size", "largest object the job copies")
	_ = fl.MarkHidden("max-object-size") // for tests: 5 GiB is AWS's limit
	return cmd
}

// batchPlan is where a batch copy reads and writes.
type batchPlan struct {
	src, dst    s3url.Location
	dstPrefix   string
	manifestLoc s3url.Location
	reportLoc   s3url.Location
	reportScope string
	startAfter  string
	maxSize     int64
}

func (a *app) planBatch(srcArg, dstArg string, f batchCpFlags) (batchPlan, error) {
	var p batchPlan
	var err error
	if p.src, err = parseLocation(srcArg, f.raw); err != nil {
		return p, err
	}
	if p.dst, err = parseLocation(dstArg, true); err != nil {
		return p, err
	}
	if !p.src.IsS3() || !p.dst.IsS3() {
		return p, usagef("batch cp %s %s: both ends must be s3:// URLs (a job copies between buckets)", p.src, p.dst)
	}
	p.dstPrefix = p.dst.AsDir().Key
	p.startAfter = f.startAfter
	if f.report == "" {
		p.reportLoc = s3url.Location{Bucket: p.dst.Bucket, Key: defaultReportPrefix}
	} else if p.reportLoc, err = parseLocation(f.report, true); err != nil {
		return p, err
	} else if !p.reportLoc.IsS3() {
		return p, usagef("--report %s: want s3://bucket/prefix", f.report)
	}
	switch f.reportScope {
	case "all":
		p.reportScope = batchops.ReportAllTasks
	case "failed":
		p.reportScope = batchops.ReportFailedTasks
	default:
		return p, usagef("--report-scope %q: want all or failed", f.reportScope)
	}
	if f.manifest == "" {
		p.manifestLoc = s3url.Location{Bucket: p.dst.Bucket, Key: defaultManifestPrefix + runID() + ".csv"}
	} else if p.manifestLoc, err = parseLocation(f.manifest, true); err != nil {
		return p, err
	} else if !p.manifestLoc.IsS3() || p.manifestLoc.IsDirLike() {
		return p, usagef("--manifest %s: want s3://bucket/key.csv", f.manifest)
	}
	return p, nil
}

// runID names one run's manifest: sortable by time, unique across machines.
func runID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// keep decides whether a listed object belongs to the copy: it matches the
// source, and it is not one of s3bulk's own manifests or reports when those
// live in the source bucket.
func (p batchPlan) keep(o store.Object) bool {
	if p.startAfter != "" && o.Key <= p.startAfter {
		return false
	}
	if p.src.HasWildcard() && !p.src.Match(o.Key) {
		return false
	}
	if p.manifestLoc.Bucket == p.src.Bucket && strings.HasPrefix(o.Key, dirOf(p.manifestLoc.Key)) {
		return false
	}
	if p.reportLoc.Bucket == p.src.Bucket && strings.HasPrefix(o.Key, p.reportLoc.AsDir().Key) {
		return false
	}
	return true
}

func dirOf(key string) string { return key[:strings.LastIndexByte(key, '/')+1] }

func (a *app) runBatchCp(ctx context.Context, bf *batchFlags, f batchCpFlags, srcArg, dstArg string) error {
	p, err := a.planBatch(srcArg, dstArg, f)
	if err != nil {
		return err
	}
	if f.roleArn == "" && !a.g.dryRun {
		return usagef("batch cp: --role-arn is required (see `s3bulk batch policy %s %s`)", p.src, p.dst)
	}
	s := a.newSession()
	c, err := s.s3(ctx)
	if err != nil {
		return err
	}
	srcStore := c.Bucket(p.src.Bucket)
	if base := batchops.SourceBase(p.src); base != "" {
		fmt.Fprintf(a.stdio.Err, "note: a job keeps whole source keys: %s%s... goes to %s\n",
			"s3://"+p.src.Bucket+"/", base, "s3://"+p.dst.Bucket+"/"+batchops.DestKey(p.dstPrefix, base)+"...")
	}

	// Everything S3 Control would refuse is refused before the listing and
	// the manifest upload.
	desc := f.description
	if desc == "" {
		desc = batchops.TruncateDescription("s3bulk cp " + p.src.String() + " " + p.dst.String())
	}
	spec := batchops.CopySpec{
		RoleArn:      f.roleArn,
		DestBucket:   p.dst.Bucket,
		DestPrefix:   p.dstPrefix,
		StorageClass: f.storageClass,
		Report:       batchops.ReportLocation{Enabled: true, Bucket: p.reportLoc.Bucket, Prefix: p.reportLoc.Key, Scope: p.reportScope},
		Priority:     f.priority,
		Description:  desc,
		Tags:         f.tags,
		Confirm:      f.confirm,

		ExpectedBucketOwner: f.expectedOwner,
	}
	if f.confirm && f.wait {
		return usagef("--confirm and --wait: a job that waits to be confirmed would never end; run it with `s3bulk batch run JOB --wait`")
	}
	if err := spec.Validate(); err != nil && !(a.g.dryRun && f.roleArn == "") {
		return usageError{err}
	}

	maxSize := int64(f.maxObjectSize)
	if maxSize <= 0 {
		maxSize = batchops.MaxCopySize
	}
	p.maxSize = maxSize
	if f.generator {
		return a.runGeneratedJob(ctx, bf, c, p, f, spec)
	}
	if len(f.suffixes)+len(f.matchClasses) > 0 || !f.createdAfter.t.IsZero() || !f.createdBefore.t.IsZero() {
		return usagef("--suffix, --created-after, --created-before and --match-storage-class are S3's filters: they need --manifest-generator")
	}
	var routed []routedObject
	mopts := batchops.ManifestOptions{
		Bucket:  p.src.Bucket,
		Prefix:  p.listPrefix(),
		Match:   p.keep,
		MaxSize: maxSize,
		// Objects a job cannot copy are few: keeping them to copy after
		// the job is created costs little memory and no second listing.
		Route: func(o store.Object, reason string) error {
			routed = append(routed, routedObject{o, reason})
			return nil
		},
	}

	var m batchops.Manifest
	if a.g.dryRun {
		m.Stats, err = batchops.WriteManifest(ctx, srcStore, mopts, io.Discard)
	} else {
		m, err = batchops.PutManifest(ctx, srcStore, mopts, c.Bucket(p.manifestLoc.Bucket), p.manifestLoc.Bucket, p.manifestLoc.Key, 0)
	}
	if errors.Is(err, batchops.ErrNothingToCopy) && len(routed) > 0 {
		err = nil // only objects a job cannot copy: no job, the fallback does it all
	}
	if err != nil {
		return err
	}
	a.printBatchPlan(p, m, routed, f.noLocalFallback)
	if a.g.dryRun {
		return nil
	}

	var jobID string
	var jc *batchops.Client
	if m.Stats.Objects > 0 {
		jc, err = a.jobClientFor(ctx, bf, c.SDK(), p.dst.Bucket)
		if err == nil {
			spec.Manifest = m
			jobID, err = jc.Create(ctx, spec)
		}
		if err != nil {
			return a.dropManifest(ctx, c.Bucket(p.manifestLoc.Bucket), p.manifestLoc.Key, err)
		}
		a.printJobCreated(jobID)
		fmt.Fprintf(a.stdio.Err, "job %s runs in %s (pass --region %s to batch status, report or cancel)\n", jobID, jc.Region(), jc.Region())
		defer func() {
			if ctx.Err() != nil {
				fmt.Fprintf(a.stdio.Err, "the job goes on without this command: s3bulk batch status %s --region %s (or cancel %s)\n", jobID, jc.Region(), jobID)
			}
		}()
	}

	oversize := make([]store.Object, 0, len(routed))
	for _, r := range routed {
		oversize = append(oversize, r.obj)
	}
	var failed int64
	if len(oversize) > 0 {
		if f.noLocalFallback {
			failed += int64(len(oversize))
		} else {
			failed += a.copyOversize(ctx, s, p, oversize)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	if jobID == "" || !f.wait {
		if failed > 0 {
			return partialError{failed: failed}
		}
		return nil
	}
	return a.waitAndReport(ctx, jc, bf, jobID, failed)
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

// runGeneratedJob creates a job whose manifest S3 generates from the
// source bucket: nothing is listed here.
func (a *app) runGeneratedJob(ctx context.Context, bf *batchFlags, c *s3store.Client, p batchPlan, f batchCpFlags, spec batchops.CopySpec) error {
	if p.src.HasWildcard() {
		return usagef("--manifest-generator: S3 filters keys by prefix and suffix, not wildcards: give %s as a prefix and use --suffix", p.src)
	}
	prefix := p.listPrefix()
	for _, loc := range []s3url.Location{p.reportLoc, {Bucket: p.manifestLoc.Bucket, Key: dirOf(p.manifestLoc.Key)}} {
		if loc.Bucket == p.src.Bucket && (strings.HasPrefix(loc.AsDir().Key, prefix) || strings.HasPrefix(prefix, loc.AsDir().Key)) {
			return usagef("--manifest-generator: s3://%s/%s lies inside the source, and S3 would copy it too: put --report elsewhere", loc.Bucket, loc.Key)
		}
	}
	g := &batchops.Generator{SourceBucket: p.src.Bucket, Suffixes: f.suffixes, SizeBelow: p.maxSize + 1,
		CreatedAfter: f.createdAfter.t, CreatedBefore: f.createdBefore.t, StorageClasses: f.matchClasses}
	if prefix != "" {
		g.Prefixes = []string{prefix}
	}
	for _, sc := range f.matchClasses {
		if !slices.Contains(batchops.StorageClasses(), sc) {
			return usagef("--match-storage-class %q: want one of %v", sc, batchops.StorageClasses())
		}
	}
	spec.Generator = g
	if a.g.json {
		_ = json.NewEncoder(a.stdio.Out).Encode(struct {
			Type      string `json:"type"`
			Generator string `json:"manifest_generator"`
			SizeBelow int64  `json:"size_below"`
		}{"plan", "s3://" + p.src.Bucket + "/" + prefix, g.SizeBelow})
	} else {
		fmt.Fprintf(a.stdio.Err, "plan: S3 lists s3://%s/%s itself (manifest generator); objects %s are left out: copy them with `s3bulk cp --recursive --min-size %d`\n",
			p.src.Bucket, prefix, p.sizeLimit(), g.SizeBelow)
	}
	if a.g.dryRun {
		return nil
	}
	jc, err := a.jobClientFor(ctx, bf, c.SDK(), p.dst.Bucket)
	if err != nil {
		return err
	}
	id, err := jc.Create(ctx, spec)
	if err != nil {
		if errors.Is(err, batchops.ErrInvalidJob) {
			return usageError{err}
		}
		return err
	}
	a.printJobCreated(id)
	fmt.Fprintf(a.stdio.Err, "job %s runs in %s (pass --region %s to batch status, report or cancel)\n", id, jc.Region(), jc.Region())
	if !f.wait {
		return nil
	}
	return a.waitAndReport(ctx, jc, bf, id, 0)
}

// routedObject is an object a job cannot copy, and why.
type routedObject struct {
	obj    store.Object
	reason string
}

// dropManifest deletes the manifest of a job that was not created, so a
// failed CreateJob leaves nothing behind, or says where it is.
func (a *app) dropManifest(ctx context.Context, st store.Store, key string, createErr error) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := st.Delete(dctx, key); err != nil {
		fmt.Fprintf(a.stdio.Err, "WARNING the manifest %s is left behind: %v\n", st.URL(key), err)
	}
	if errors.Is(createErr, batchops.ErrInvalidJob) {
		return usageError{createErr}
	}
	return createErr
}

// listPrefix is what the listing asks S3 for: the literal start of a
// wildcard, or the source as a directory.
func (p batchPlan) listPrefix() string {
	if p.src.HasWildcard() {
		return p.src.Prefix()
	}
	return p.src.AsDir().Key
}

func (a *app) printBatchPlan(p batchPlan, m batchops.Manifest, routed []routedObject, noFallback bool) {
	st := m.Stats
	action := "copied from this machine"
	if noFallback {
		action = "EXCLUDED (--no-local-fallback)"
	}
	if a.g.json {
		rec := struct {
			Type          string `json:"type"`
			Manifest      string `json:"manifest,omitempty"`
			ETag          string `json:"etag,omitempty"`
			Objects       int64  `json:"objects"`
			Bytes         int64  `json:"bytes"`
			Oversize      int64  `json:"oversize"`
			OversizeBytes int64  `json:"oversize_bytes"`
			Archived      int64  `json:"archived"`
			ArchivedBytes int64  `json:"archived_bytes"`
			Oversized     string `json:"oversize_action,omitempty"`
		}{Type: "plan", Objects: st.Objects, Bytes: st.Bytes, Oversize: st.Oversize, OversizeBytes: st.OversizeBytes, Archived: st.Archived, ArchivedBytes: st.ArchivedBytes}
		if m.ETag != "" {
			rec.Manifest, rec.ETag = "s3://"+m.Bucket+"/"+m.Key, m.ETag
		}
		if len(routed) > 0 {
			rec.Oversized = "local-multipart-copy"
			if noFallback {
				rec.Oversized = "excluded"
			}
		}
		_ = json.NewEncoder(a.stdio.Out).Encode(rec)
	} else {
		where := "s3://" + p.manifestLoc.Bucket + "/" + p.manifestLoc.Key
		if a.g.dryRun {
			where = "(dry run: not written)"
		}
		fmt.Fprintf(a.stdio.Err, "plan: %d objects (%s) for the job, manifest %s\n", st.Objects, progress.HumanBytes(st.Bytes), where)
		if st.Oversize > 0 {
			fmt.Fprintf(a.stdio.Err, "plan: %d objects (%s) are %s, which a job cannot copy: %s with multipart copy\n",
				st.Oversize, progress.HumanBytes(st.OversizeBytes), p.sizeLimit(), action)
		}
		if st.Archived > 0 {
			fmt.Fprintf(a.stdio.Err, "plan: %d objects (%s) are in GLACIER or DEEP_ARCHIVE, which a job fails on until they are restored: %s (restore them first, or their copies fail)\n",
				st.Archived, progress.HumanBytes(st.ArchivedBytes), action)
		}
	}
	if !noFallback {
		return
	}
	for _, r := range routed {
		o := r.obj
		if a.g.json {
			_ = json.NewEncoder(a.stdio.Out).Encode(struct {
				Type   string `json:"type"`
				Src    string `json:"src"`
				Size   int64  `json:"size"`
				Reason string `json:"reason"`
			}{"excluded", "s3://" + p.src.Bucket + "/" + o.Key, o.Size, r.reason})
			continue
		}
		why := r.reason
		if why == batchops.ReasonTooBig {
			why = p.sizeLimit() + ", a job cannot copy it"
		}
		fmt.Fprintf(a.stdio.Err, "EXCLUDED s3://%s/%s (%s): %s\n", p.src.Bucket, o.Key, progress.HumanBytes(o.Size), why)
	}
}

// sizeLimit names the object sizes a job leaves to this machine.
func (p batchPlan) sizeLimit() string {
	if p.maxSize == batchops.MaxCopySize {
		return "5 GB or more"
	}
	return "over " + progress.HumanBytes(p.maxSize)
}

func (a *app) printJobCreated(id string) {
	if a.g.json {
		_ = json.NewEncoder(a.stdio.Out).Encode(struct {
			Type  string `json:"type"`
			JobID string `json:"job_id"`
		}{"job", id})
		return
	}
	fmt.Fprintf(a.stdio.Out, "job %s\n", id)
}

// copyOversize copies the objects a job cannot, one engine run each so that
// each object's parts share the run's whole budget of requests. Their
// destination keys follow the job's naming, not cp's. It returns how many
// failed.
func (a *app) copyOversize(ctx context.Context, s *session, p batchPlan, objs []store.Object) int64 {
	c, err := s.s3(ctx)
	if err != nil {
		fmt.Fprintf(a.stdio.Err, "ERROR %v\n", err)
		return int64(len(objs))
	}
	var observe func(engine.Result)
	if a.g.json {
		observe = (&progress.JSONLines{Out: a.stdio.Out}).Result
	} else {
		observe = (&progress.Lines{Out: a.stdio.Out, ErrOut: a.stdio.Err, Quiet: a.g.quiet}).Result
	}
	var failed int64
	for i, o := range objs {
		if ctx.Err() != nil {
			return failed + int64(len(objs)-i)
		}
		job := engine.Job{
			Src: engine.Endpoint{Store: c.Bucket(p.src.Bucket), Loc: s3url.Location{Bucket: p.src.Bucket, Key: o.Key, Literal: true}},
			Dst: engine.Endpoint{Store: c.Bucket(p.dst.Bucket), Loc: s3url.Location{Bucket: p.dst.Bucket, Key: batchops.DestKey(p.dstPrefix, o.Key), Literal: true}},
		}
		sum, err := engine.Run(ctx, job, engine.Options{Concurrency: a.g.concurrency, Limiter: s.lim, Observer: observe})
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(a.stdio.Err, "ERROR %v\n", err)
		}
		if err != nil || sum.Failed > 0 {
			failed++
		}
	}
	return failed
}

// waitAndReport follows the job to its end, then reads its report and maps
// the outcome to cp's exit codes: 0 all copied, 1 some tasks failed (or
// excluded, or the job was cancelled), 3 the job itself failed.
func (a *app) waitAndReport(ctx context.Context, jc *batchops.Client, bf *batchFlags, id string, alreadyFailed int64) error {
	w := a.newJobWatcher()
	j, err := jc.Wait(ctx, id, batchops.WaitOptions{Interval: bf.pollInterval, Progress: w.update})
	w.stop(j)
	if err != nil {
		return err
	}
	return a.finishJob(ctx, j, alreadyFailed)
}

func (a *app) finishJob(ctx context.Context, j batchops.Job, alreadyFailed int64) error {
	failed := alreadyFailed + j.Failed
	if j.Report.Enabled && (j.Succeeded+j.Failed > 0) {
		if _, err := a.printReport(ctx, j); err != nil {
			if ctx.Err() != nil {
				return err
			}
			// The job's counts still tell the outcome; only the failed keys
			// are unknown (often: no s3:GetObject on the report prefix).
			fmt.Fprintf(a.stdio.Err, "WARNING %v: failed keys unknown, the counts below come from the job\n", err)
		}
	}
	a.printJobSummary(j)
	switch j.Status {
	case batchops.StatusFailed:
		return fmt.Errorf("job %s failed: %s", j.ID, strings.Join(j.FailureReasons, "; "))
	case batchops.StatusCancelled:
		return partialError{failed: max(failed, j.Total-j.Succeeded)}
	}
	if failed > 0 {
		return partialError{failed: failed}
	}
	return nil
}

// printReport reads the job's completion report and prints each failed
// task as cp prints a failed object.
func (a *app) printReport(ctx context.Context, j batchops.Job) (batchops.ReportSummary, error) {
	s := a.newSession()
	c, err := s.s3(ctx)
	if err != nil {
		return batchops.ReportSummary{}, err
	}
	open := func(b string) (store.Store, error) { return c.Bucket(b), nil }
	enc := json.NewEncoder(a.stdio.Out)
	enc.SetEscapeHTML(false)
	return batchops.ReadReport(ctx, open, j.Report.Bucket, j.Report.Prefix, j.ID, func(r batchops.TaskResult) error {
		switch r.Status {
		case batchops.TaskSucceeded:
			return nil
		case batchops.TaskUnreadable:
			_, err := fmt.Fprintf(a.stdio.Err, "WARNING report of job %s: %s\n", j.ID, oneLineText(r.Message))
			return err
		}
		src := "s3://" + r.Bucket + "/" + r.Key
		if a.g.json {
			return enc.Encode(struct {
				Type       string `json:"type"`
				Status     string `json:"status"`
				Src        string `json:"src"`
				ErrorCode  string `json:"error_code"`
				HTTPStatus int    `json:"http_status"`
				Error      string `json:"error"`
			}{"task", r.Status, src, r.ErrorCode, r.HTTPStatus, r.Message})
		}
		_, err := fmt.Fprintf(a.stdio.Err, "ERROR copy %s: %s (%d): %s\n", src, r.ErrorCode, r.HTTPStatus, oneLineText(r.Message))
		return err
	})
}

func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func (a *app) printJobSummary(j batchops.Job) {
	if a.g.json {
		_ = json.NewEncoder(a.stdio.Err).Encode(jobRecord(j))
		return
	}
	if a.g.quiet && j.Status == batchops.StatusComplete && j.Failed == 0 {
		return
	}
	fmt.Fprintf(a.stdio.Err, "job %s: %s, %d of %d tasks succeeded, %d failed; %s active, %s wall clock\n",
		j.ID, j.Status, j.Succeeded, j.Total, j.Failed, j.Active, wallClock(j).Round(time.Second))
	for _, r := range j.FailureReasons {
		fmt.Fprintf(a.stdio.Err, "job %s: %s\n", j.ID, r)
	}
}

func wallClock(j batchops.Job) time.Duration {
	if j.Created.IsZero() || j.Terminated.IsZero() {
		return 0
	}
	return j.Terminated.Sub(j.Created)
}

// jobState is the JSON form of a job (status, --json).
type jobState struct {
	Type           string   `json:"type"`
	JobID          string   `json:"job_id"`
	Status         string   `json:"status"`
	Description    string   `json:"description,omitempty"`
	Priority       int32    `json:"priority"`
	Total          int64    `json:"total"`
	Succeeded      int64    `json:"succeeded"`
	Failed         int64    `json:"failed"`
	ActiveSeconds  float64  `json:"active_seconds"`
	Created        string   `json:"created,omitempty"`
	Terminated     string   `json:"terminated,omitempty"`
	FailureReasons []string `json:"failure_reasons,omitempty"`
	Report         string   `json:"report,omitempty"`
}

func jobRecord(j batchops.Job) jobState {
	r := jobState{
		Type: "job", JobID: j.ID, Status: j.Status, Description: j.Description, Priority: j.Priority,
		Total: j.Total, Succeeded: j.Succeeded, Failed: j.Failed, ActiveSeconds: j.Active.Seconds(),
		FailureReasons: j.FailureReasons,
	}
	if !j.Created.IsZero() {
		r.Created = j.Created.UTC().Format(time.RFC3339)
	}
	if !j.Terminated.IsZero() {
		r.Terminated = j.Terminated.UTC().Format(time.RFC3339)
	}
	if j.Report.Enabled {
		r.Report = "s3://" + j.Report.Bucket + "/" + batchops.ReportManifestKey(j.Report.Prefix, j.ID)
	}
	return r
}

// jobWatcher shows a job's progress while --wait polls: a bar on a
// terminal, else one line per change of status.
type jobWatcher struct {
	a    *app
	p    *mpb.Progress
	bar  *mpb.Bar
	mu   sync.Mutex // the bar's decorators read last from mpb's goroutine
	last batchops.Job
	seen bool
}

func (a *app) newJobWatcher() *jobWatcher {
	w := &jobWatcher{a: a}
	if a.showProgress() {
		w.p = mpb.New(mpb.WithOutput(a.stdio.Err), mpb.WithWidth(40))
		w.bar = w.p.AddBar(1,
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return w.snapshot().Status })),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
				j := w.snapshot()
				return fmt.Sprintf("%d/%d tasks  %d failed  %s active", j.Succeeded+j.Failed, j.Total, j.Failed, j.Active)
			})),
		)
	}
	return w
}

func (w *jobWatcher) snapshot() batchops.Job {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

func (w *jobWatcher) update(j batchops.Job) {
	w.mu.Lock()
	changed := !w.seen || j.Status != w.last.Status
	w.last, w.seen = j, true
	w.mu.Unlock()
	if w.bar != nil {
		w.bar.SetTotal(max(j.Total, 1), false)
		w.bar.SetCurrent(j.Succeeded + j.Failed)
		return
	}
	if changed && !w.a.g.quiet && !w.a.g.json {
		fmt.Fprintf(w.a.stdio.Err, "job %s: %s, %d/%d tasks done, %d failed, %s active\n",
			j.ID, j.Status, j.Succeeded+j.Failed, j.Total, j.Failed, j.Active)
	}
}

func (w *jobWatcher) stop(j batchops.Job) {
	if w.bar == nil {
		return
	}
	if j.ID != "" {
		w.update(j)
	}
	w.bar.Abort(false)
	w.p.Wait()
}

func (a *app) batchStatusCmd(bf *batchFlags) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "status JOB",
		Short: "Show a job's status and progress",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			jc, err := a.jobClient(ctx, bf)
			if err != nil {
				return err
			}
			var j batchops.Job
			if wait {
				w := a.newJobWatcher()
				j, err = jc.Wait(ctx, args[0], batchops.WaitOptions{Interval: bf.pollInterval, Progress: w.update})
				w.stop(j)
			} else {
				j, err = jc.Describe(ctx, args[0])
			}
			if err != nil {
				return err
			}
			a.printJob(j)
			return nil
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the job to end")
	return cmd
}

func (a *app) printJob(j batchops.Job) {
	r := jobRecord(j)
	if a.g.json {
		_ = json.NewEncoder(a.stdio.Out).Encode(r)
		return
	}
	out := a.stdio.Out
	fmt.Fprintf(out, "job:         %s\n", j.ID)
	fmt.Fprintf(out, "status:      %s\n", j.Status)
	if j.Description != "" {
		fmt.Fprintf(out, "description: %s\n", j.Description)
	}
	fmt.Fprintf(out, "priority:    %d\n", j.Priority)
	fmt.Fprintf(out, "tasks:       %d succeeded, %d failed, %d total\n", j.Succeeded, j.Failed, j.Total)
	fmt.Fprintf(out, "active:      %s\n", j.Active)
	if r.Created != "" {
		fmt.Fprintf(out, "created:     %s\n", r.Created)
	}
	if r.Terminated != "" {
		fmt.Fprintf(out, "terminated:  %s (wall clock %s)\n", r.Terminated, wallClock(j).Round(time.Second))
	}
	if j.StatusReason != "" {
		fmt.Fprintf(out, "reason:      %s\n", j.StatusReason)
	}
	for _, f := range j.FailureReasons {
		fmt.Fprintf(out, "failure:     %s\n", f)
	}
	if r.Report != "" {
		fmt.Fprintf(out, "report:      %s\n", r.Report)
	}
}

func (a *app) batchReportCmd(bf *batchFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "report JOB",
		Short: "Read a finished job's completion report: failed keys and a summary",
		Long: `Read the completion report of a job that ended and print each failed task
(on stderr, as cp prints failed objects, or as JSON lines with --json) and a
summary. The exit code is 0 when every task succeeded, 1 when some failed.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			jc, err := a.jobClient(ctx, bf)
			if err != nil {
				return err
			}
			j, err := jc.Describe(ctx, args[0])
			if err != nil {
				return err
			}
			if !j.Done() {
				return fmt.Errorf("report of job %s: the job is %s; its report is written when it ends (s3bulk batch status --wait %s)", j.ID, j.Status, j.ID)
			}
			if !j.Report.Enabled {
				return fmt.Errorf("report of job %s: the job was created without a completion report", j.ID)
			}
			return a.finishJob(ctx, j, 0)
		},
	}
}

func (a *app) batchRetryCmd(bf *batchFlags) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "retry JOB",
		Short: "Copy the failed tasks of an ended job again, with a new job",
		Long: `Read the completion report of a job that ended, write its failed keys into a
new manifest (under the destination bucket's _batch/manifest/) and create a
job that copies them again to the same place, with the same role, storage
class, report location and priority. A rerun of the same retry is the same
job. The exit code is that of batch cp.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			jc, err := a.jobClient(ctx, bf)
			if err != nil {
				return err
			}
			j, err := jc.Describe(ctx, args[0])
			if err != nil {
				return err
			}
			s := a.newSession()
			c, err := s.s3(ctx)
			if err != nil {
				return err
			}
			open := func(b string) (store.Store, error) { return c.Bucket(b), nil }
			var mb string
			if j.Copy != nil {
				mb = j.Copy.DestBucket
			}
			key := defaultManifestPrefix + "retry-" + j.ID + ".csv"
			spec, err := batchops.RetrySpec(ctx, open, j, c.Bucket(mb), mb, key)
			if errors.Is(err, batchops.ErrNothingToRetry) {
				fmt.Fprintf(a.stdio.Err, "job %s: nothing to retry, every task succeeded\n", j.ID)
				return nil
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdio.Err, "plan: %d failed objects of job %s for a new job, manifest s3://%s/%s\n", spec.Manifest.Stats.Objects, j.ID, mb, key)
			id, err := jc.Create(ctx, spec)
			if err != nil {
				return a.dropManifest(ctx, c.Bucket(mb), key, err)
			}
			a.printJobCreated(id)
			if !wait {
				return nil
			}
			return a.waitAndReport(ctx, jc, bf, id, 0)
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the new job to end, then print its report")
	return cmd
}

func (a *app) batchRunCmd(bf *batchFlags) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "run JOB",
		Short: "Run a job created with --confirm (it waits Suspended until then)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			jc, err := a.jobClient(ctx, bf)
			if err != nil {
				return err
			}
			status, err := jc.Run(ctx, args[0])
			if err != nil {
				return err
			}
			a.printJobStatus(args[0], status)
			if !wait {
				return nil
			}
			return a.waitAndReport(ctx, jc, bf, args[0], 0)
		},
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
			if a.g.json {
				return json.NewEncoder(a.stdio.Out).Encode(struct {
					Type     string `json:"type"`
					JobID    string `json:"job_id"`
					Priority int64  `json:"priority"`
				}{"job", args[0], n})
			}
			_, err = fmt.Fprintf(a.stdio.Out, "job %s: priority %d\n", args[0], n)
			return err
		},
	}
}

func (a *app) printJobStatus(id, status string) {
	if a.g.json {
		_ = json.NewEncoder(a.stdio.Out).Encode(struct {
			Type   string `json:"type"`
			JobID  string `json:"job_id"`
			Status string `json:"status"`
		}{"job", id, status})
		return
	}
	fmt.Fprintf(a.stdio.Out, "job %s: %s\n", id, status)
}

func (a *app) batchCancelCmd(bf *batchFlags) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "cancel JOB",
		Short: "Cancel a job; tasks already done stay done",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			jc, err := a.jobClient(ctx, bf)
			if err != nil {
				return err
			}
			status, err := jc.Cancel(ctx, args[0], reason)
			if err != nil {
				return err
			}
			if a.g.json {
				return json.NewEncoder(a.stdio.Out).Encode(struct {
					Type   string `json:"type"`
					JobID  string `json:"job_id"`
					Status string `json:"status"`
				}{"job", args[0], status})
			}
			_, err = fmt.Fprintf(a.stdio.Out, "job %s: %s\n", args[0], status)
			return err
		},
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			jc, err := a.jobClient(ctx, bf)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(a.stdio.Out)
			return jc.List(ctx, statuses, func(s batchops.JobSummary) error {
				if a.g.json {
					return enc.Encode(struct {
						Type        string `json:"type"`
						JobID       string `json:"job_id"`
						Status      string `json:"status"`
						Operation   string `json:"operation"`
						Description string `json:"description,omitempty"`
						Total       int64  `json:"total"`
						Succeeded   int64  `json:"succeeded"`
						Failed      int64  `json:"failed"`
						Created     string `json:"created"`
					}{"job", s.ID, s.Status, s.Operation, s.Description, s.Total, s.Succeeded, s.Failed, s.Created.UTC().Format(time.RFC3339)})
				}
				_, err := fmt.Fprintf(a.stdio.Out, "%s  %-10s %s  %d/%d done, %d failed  %s\n",
					s.Created.UTC().Format("2006-01-02 15:04:05"), s.Status, s.ID, s.Succeeded+s.Failed, s.Total, s.Failed, s.Description)
				return err
			})
		},
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
			p, err := a.planBatch(args[0], args[1], batchCpFlags{report: report, manifest: manifest, reportScope: "all", raw: raw})
			if err != nil {
				return err
			}
			manifestPrefix := defaultManifestPrefix
			if manifest != "" {
				manifestPrefix = dirOf(p.manifestLoc.Key)
			}
			pol := batchops.NewPolicies(batchops.PolicyInput{
				SourceBucket: p.src.Bucket, SourcePrefix: p.listPrefix(),
				DestBucket: p.dst.Bucket, DestPrefix: p.dstPrefix,
				ManifestBucket: p.manifestLoc.Bucket, ManifestPrefix: manifestPrefix,
				ReportBucket: p.reportLoc.Bucket, ReportPrefix: p.reportLoc.AsDir().Key,
				RoleArn: roleArn, KMSKeyARN: kmsKey,
				// Buckets of the region's partition: aws-cn, aws-us-gov...
				Partition: batchops.Partition(a.g.region),
			})
			if a.g.json {
				enc := json.NewEncoder(a.stdio.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(pol)
			}
			_, err = fmt.Fprintf(a.stdio.Out, `# Permissions policy of the job's role (pass the role with --role-arn):
%s

# Trust policy of that role, so S3 Batch Operations can assume it:
%s

# Permissions of the user or role that runs s3bulk batch:
%s
`, pol.Role.JSON(), pol.Trust.JSON(), pol.Caller.JSON())
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
