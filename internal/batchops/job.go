package batchops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3control"
	"github.com/aws/aws-sdk-go-v2/service/s3control/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	smithyendpoints "github.com/aws/smithy-go/endpoints"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/store"
)

// Job statuses, as S3 Control names them. A job moves New, Preparing, Ready,
// Active, then Completing/Complete, Failing/Failed or Cancelling/Cancelled.
const (
	StatusNew        = "New"
	StatusPreparing  = "Preparing"
	StatusReady      = "Ready"
	StatusActive     = "Active"
	StatusSuspended  = "Suspended"
	StatusPausing    = "Pausing"
	StatusPaused     = "Paused"
	StatusCompleting = "Completing"
	StatusComplete   = "Complete"
	StatusFailing    = "Failing"
	StatusFailed     = "Failed"
	StatusCancelling = "Cancelling"
	StatusCancelled  = "Cancelled"
)

// Report scopes.
const (
	ReportAllTasks    = "AllTasks"
	ReportFailedTasks = "FailedTasksOnly"
)

// Job is what DescribeJob says about a job.
type Job struct {
	ID          string
	ARN         string
	Status      string
	Description string
	Priority    int32
	Total       int64 // tasks, one per manifest line
	Succeeded   int64
	Failed      int64
	// Active is ElapsedTimeInActiveSeconds: time spent copying, without the
	// start-up.
	Active         time.Duration
	Created        time.Time
	Terminated     time.Time
	FailureReasons []string
	StatusReason   string
	Report         ReportLocation
	RoleArn        string
	// Copy is the job's S3PutObjectCopy operation, when it is one.
	Copy *CopyTarget
}

// CopyTarget is where a copy job writes.
type CopyTarget struct {
	DestBucket, DestPrefix, StorageClass string
	// Written is what the job sets on every copy.
	Written Written
}

// Written is what a copy job sets on every object it writes, and what the
// objects it leaves to this machine get too: CopySpec's ObjectLock and
// ChecksumAlgorithm.
type Written struct {
	ObjectLock        store.ObjectLock
	ChecksumAlgorithm string
}

// Done reports whether the job reached a final status.
func (j Job) Done() bool {
	switch j.Status {
	case StatusComplete, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// ReportLocation is where a job writes its completion report.
type ReportLocation struct {
	Enabled bool
	Bucket  string // name, not ARN
	Prefix  string
	Scope   string // ReportAllTasks or ReportFailedTasks
}

// Generator lets S3 build a job's manifest from a listing of its own
// (S3JobManifestGenerator), so a copy of billions of objects needs no
// listing here. Its filters are S3's, not cp's: key prefixes and suffixes,
// sizes, creation times, storage classes.
type Generator struct {
	SourceBucket string
	Prefixes     []string
	Suffixes     []string
	// SizeBelow keeps only objects smaller than it (ObjectSizeLessThanBytes);
	// 0 means MaxCopySize + 1, so a job is never given what it cannot copy.
	SizeBelow      int64
	CreatedAfter   time.Time
	CreatedBefore  time.Time
	StorageClasses []string
}

func (g *Generator) filter() *types.JobManifestGeneratorFilter {
	f := &types.JobManifestGeneratorFilter{ObjectSizeLessThanBytes: aws.Int64(g.SizeBelow)}
	if g.SizeBelow <= 0 {
		f.ObjectSizeLessThanBytes = aws.Int64(MaxCopySize + 1)
	}
	if len(g.Prefixes)+len(g.Suffixes) > 0 {
		f.KeyNameConstraint = &types.KeyNameConstraint{MatchAnyPrefix: g.Prefixes, MatchAnySuffix: g.Suffixes}
	}
	if !g.CreatedAfter.IsZero() {
		f.CreatedAfter = aws.Time(g.CreatedAfter)
	}
	if !g.CreatedBefore.IsZero() {
		f.CreatedBefore = aws.Time(g.CreatedBefore)
	}
	for _, c := range g.StorageClasses {
		f.MatchAnyStorageClass = append(f.MatchAnyStorageClass, types.S3StorageClass(c))
	}
	return f
}

// CopySpec is an S3PutObjectCopy job.
type CopySpec struct {
	// Manifest lists the objects, unless Generator is set: then S3 lists
	// them itself.
	Manifest  Manifest
	Generator *Generator
	RoleArn   string
	// DestBucket receives the copies, each under DestPrefix + source key.
	DestBucket string
	DestPrefix string
	// StorageClass of the copies; empty keeps S3's default (STANDARD).
	StorageClass string
	// ObjectLock is the Object Lock settings of every copy (the
	// operation's ObjectLockMode, ObjectLockRetainUntilDate and
	// ObjectLockLegalHoldStatus); zero sets none. The destination bucket
	// must have Object Lock, or every task fails.
	ObjectLock store.ObjectLock
	// ChecksumAlgorithm, when set (one of store.ChecksumAlgorithms), is
	// the algorithm of the copies' checksums; empty keeps each source's,
	// as CopyObject does.
	ChecksumAlgorithm string
	// Metadata, when not nil, replaces the objects' metadata (REPLACE
	// directive); nil copies it (COPY).
	Metadata *Metadata
	Report   ReportLocation
	Priority int32
	// Description shows in the console and ListJobs.
	Description string
	// Tags are the job's own tags (not the objects').
	Tags map[string]string
	// Confirm creates the job Suspended: it runs once confirmed (Run).
	Confirm bool
	// ExpectedBucketOwner, when set, is the account that must own the
	// report's (and a generated manifest's source) bucket, or the job
	// fails rather than write into someone else's bucket.
	ExpectedBucketOwner string
	// Token makes CreateJob idempotent: a retry with the same token returns
	// the first job. Empty derives it from the manifest's ARN and ETag and
	// the destination, so resubmitting the same manifest never starts a
	// second job.
	Token string
}

// Metadata replaces an object's metadata in a copy job: store's, but for
// the storage class, which is CopySpec.StorageClass.
type Metadata = store.Metadata

// ClientOptions configures a Client.
type ClientOptions struct {
	// AccountID owns the jobs; empty asks STS GetCallerIdentity once.
	AccountID string
	// ControlEndpoint replaces AWS's S3 Control endpoint, for S3-compatible
	// control planes and tests. It is used as given: AWS's endpoint rules
	// would prepend "<account-id>." to its host, which is only right for
	// AWS's own DNS.
	ControlEndpoint string
	// STSEndpoint replaces the STS endpoint used to find the account id.
	STSEndpoint string
}

// Client creates, watches and cancels Batch Operations jobs.
type Client struct {
	control *s3control.Client
	sts     *sts.Client
	region  string

	mu        sync.Mutex
	accountID string
}

// NewClient returns a client for cfg's region and credentials.
func NewClient(cfg aws.Config, o ClientOptions) (*Client, error) {
	var copts []func(*s3control.Options)
	if o.ControlEndpoint != "" {
		u, err := url.Parse(o.ControlEndpoint)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("control endpoint %q: want a URL like https://host:port", o.ControlEndpoint)
		}
		copts = append(copts, func(opt *s3control.Options) {
			opt.EndpointResolverV2 = fixedEndpoint{u: *u, next: s3control.NewDefaultEndpointResolverV2()}
		})
	}
	var sopts []func(*sts.Options)
	if o.STSEndpoint != "" {
		sopts = append(sopts, func(opt *sts.Options) { opt.BaseEndpoint = aws.String(o.STSEndpoint) })
	}
	return &Client{
		control:   s3control.NewFromConfig(cfg, copts...),
		sts:       sts.NewFromConfig(cfg, sopts...),
		region:    cfg.Region,
		accountID: o.AccountID,
	}, nil
}

// Region is the region the client's jobs live in: S3 Control is regional,
// and a job is only seen in the region it was created in.
func (c *Client) Region() string { return c.region }

// Partition is the ARN partition of the client's region.
func (c *Client) Partition() string { return Partition(c.region) }

// ForRegion returns a client for the jobs of region, sharing this one's
// credentials, endpoint and account. A copy job must be created in its
// destination bucket's region (see BucketRegion).
func (c *Client) ForRegion(region string) *Client {
	if region == "" || region == c.region {
		return c
	}
	acct, _ := c.cachedAccount()
	return &Client{
		control:   s3control.New(c.control.Options(), func(o *s3control.Options) { o.Region = region }),
		sts:       c.sts,
		region:    region,
		accountID: acct,
	}
}

func (c *Client) cachedAccount() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accountID, c.accountID != ""
}

// fixedEndpoint sends every S3 Control request to one URL. It resolves AWS's
// endpoint first so the request is signed the way S3 Control expects (service
// "s3", the client's region), then swaps in the URL, keeping the account id
// in the x-amz-account-id header only.
type fixedEndpoint struct {
	u    url.URL
	next s3control.EndpointResolverV2
}

func (r fixedEndpoint) ResolveEndpoint(ctx context.Context, p s3control.EndpointParameters) (smithyendpoints.Endpoint, error) {
	p.Endpoint = nil
	p.UseFIPS, p.UseDualStack = aws.Bool(false), aws.Bool(false)
	ep, err := r.next.ResolveEndpoint(ctx, p)
	if err != nil {
		return ep, err
	}
	ep.URI = r.u
	return ep, nil
}

// AccountID returns the account that owns the jobs, asking STS the first
// time when none was given.
func (c *Client) AccountID(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.accountID != "" {
		return c.accountID, nil
	}
	out, err := c.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", fmt.Errorf("find account id (pass --account-id to skip): %w", err)
	}
	c.accountID = aws.ToString(out.Account)
	if c.accountID == "" {
		return "", errors.New("find account id: STS returned none")
	}
	return c.accountID, nil
}

// Create submits a copy job that runs at once (no console confirmation)
// and returns its id.
func (c *Client) Create(ctx context.Context, s CopySpec) (string, error) {
	acct, err := c.AccountID(ctx)
	if err != nil {
		return "", err
	}
	if err := s.Validate(); err != nil {
		return "", err
	}
	if s.Manifest.ETag == "" && s.Generator == nil {
		return "", errors.New("create job: manifest has no ETag")
	}
	part := c.Partition()
	token := s.Token
	if token == "" {
		token = s.token()
	}
	in := &s3control.CreateJobInput{
		AccountId:            aws.String(acct),
		ClientRequestToken:   aws.String(token),
		ConfirmationRequired: aws.Bool(s.Confirm),
		Description:          optString(s.Description),
		Priority:             aws.Int32(s.Priority),
		RoleArn:              aws.String(s.RoleArn),
		Operation:            &types.JobOperation{S3PutObjectCopy: s.copyOperation(part)},
		Report:               s.jobReport(part),
	}
	for _, k := range slices.Sorted(maps.Keys(s.Tags)) {
		in.Tags = append(in.Tags, types.S3Tag{Key: aws.String(k), Value: aws.String(s.Tags[k])})
	}
	if s.ExpectedBucketOwner != "" && s.Report.Enabled {
		in.Report.ExpectedBucketOwner = aws.String(s.ExpectedBucketOwner)
	}
	what := s.setManifest(in, part)
	out, err := c.control.CreateJob(ctx, in)
	if err != nil {
		return "", fmt.Errorf("create job for %s: %w", what, err)
	}
	return aws.ToString(out.JobId), nil
}

// copyOperation is the job's operation: a CopyObject of each manifest row
// into the destination, with the spec's class, Object Lock, checksum and
// metadata.
func (s CopySpec) copyOperation(part string) *types.S3CopyObjectOperation {
	op := &types.S3CopyObjectOperation{
		TargetResource:    aws.String(BucketARN(part, s.DestBucket)),
		MetadataDirective: types.S3MetadataDirectiveCopy,
	}
	if s.DestPrefix != "" {
		op.TargetKeyPrefix = aws.String(s.DestPrefix)
	}
	if s.StorageClass != "" {
		op.StorageClass = types.S3StorageClass(s.StorageClass)
	}
	if l := s.ObjectLock; !l.IsZero() {
		op.ObjectLockMode = types.S3ObjectLockMode(l.Mode)
		op.ObjectLockLegalHoldStatus = types.S3ObjectLockLegalHoldStatus(l.LegalHold)
		if !l.RetainUntil.IsZero() {
			op.ObjectLockRetainUntilDate = aws.Time(l.RetainUntil)
		}
	}
	op.ChecksumAlgorithm = types.S3ChecksumAlgorithm(s.ChecksumAlgorithm)
	if m := s.Metadata; m != nil {
		op.MetadataDirective = types.S3MetadataDirectiveReplace
		op.NewObjectMetadata = &types.S3ObjectMetadata{
			CacheControl:       optString(m.CacheControl),
			ContentDisposition: optString(m.ContentDisposition),
			ContentEncoding:    optString(m.ContentEncoding),
			ContentLanguage:    optString(m.ContentLanguage),
			ContentType:        optString(m.ContentType),
			UserMetadata:       m.User,
		}
	}
	return op
}

// jobReport is the job's completion report, or none.
func (s CopySpec) jobReport(part string) *types.JobReport {
	report := &types.JobReport{Enabled: false}
	if s.Report.Enabled {
		scope := s.Report.Scope
		if scope == "" {
			scope = ReportAllTasks
		}
		report = &types.JobReport{
			Enabled:     true,
			Bucket:      aws.String(BucketARN(part, s.Report.Bucket)),
			Format:      types.JobReportFormatReportCsv20180820,
			Prefix:      optString(strings.TrimSuffix(s.Report.Prefix, "/")),
			ReportScope: types.JobReportScope(scope),
		}
	}
	return report
}

// setManifest gives in the spec's manifest (a CSV of its own, an
// inventory report's, or one S3 generates) and names it for errors.
func (s CopySpec) setManifest(in *s3control.CreateJobInput, part string) (what string) {
	what = s.Manifest.ARN(part)
	if g := s.Generator; g != nil {
		what = "a manifest S3 generates from " + BucketARN(part, g.SourceBucket)
		in.ManifestGenerator = &types.JobManifestGeneratorMemberS3JobManifestGenerator{Value: types.S3JobManifestGenerator{
			SourceBucket:         aws.String(BucketARN(part, g.SourceBucket)),
			ExpectedBucketOwner:  optString(s.ExpectedBucketOwner),
			EnableManifestOutput: false,
			Filter:               g.filter(),
		}}
	} else if s.Manifest.Inventory {
		in.Manifest = &types.JobManifest{
			Spec: &types.JobManifestSpec{Format: types.JobManifestFormatS3InventoryReportCsv20161130},
			Location: &types.JobManifestLocation{
				ObjectArn: aws.String(s.Manifest.ARN(part)),
				ETag:      aws.String(s.Manifest.ETag),
			},
		}
	} else {
		fields := []types.JobManifestFieldName{types.JobManifestFieldNameBucket, types.JobManifestFieldNameKey}
		if s.Manifest.Versioned {
			fields = append(fields, types.JobManifestFieldNameVersionId)
		}
		in.Manifest = &types.JobManifest{
			Spec: &types.JobManifestSpec{
				Format: types.JobManifestFormatS3BatchOperationsCsv20180820,
				Fields: fields,
			},
			Location: &types.JobManifestLocation{
				ObjectArn: aws.String(s.Manifest.ARN(part)),
				ETag:      aws.String(s.Manifest.ETag),
			},
		}
	}
	return what
}

// token is a stable idempotency token for this job: a hash of every field
// of the spec, so that a rerun that changes anything (priority,
// description, report scope, metadata...) is a new job and an unchanged
// rerun is the same job. S3 Control accepts up to 64 characters.
func (s CopySpec) token() string {
	s.Token = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // strings, numbers, maps of strings: cannot fail
	}
	h := sha256.Sum256(b)
	return "s3bulk-" + hex.EncodeToString(h[:])[:40]
}

// Describe returns the job's current state.
func (c *Client) Describe(ctx context.Context, id string) (Job, error) {
	acct, err := c.AccountID(ctx)
	if err != nil {
		return Job{}, err
	}
	out, err := c.control.DescribeJob(ctx, &s3control.DescribeJobInput{AccountId: aws.String(acct), JobId: aws.String(id)})
	if err != nil {
		return Job{}, fmt.Errorf("describe job %s: %w", id, err)
	}
	if out.Job == nil {
		return Job{}, fmt.Errorf("describe job %s: empty answer", id)
	}
	return jobFrom(out.Job), nil
}

func jobFrom(d *types.JobDescriptor) Job {
	j := Job{
		ID:           aws.ToString(d.JobId),
		ARN:          aws.ToString(d.JobArn),
		Status:       string(d.Status),
		Description:  aws.ToString(d.Description),
		Priority:     d.Priority,
		Created:      aws.ToTime(d.CreationTime),
		Terminated:   aws.ToTime(d.TerminationDate),
		StatusReason: aws.ToString(d.StatusUpdateReason),
		RoleArn:      aws.ToString(d.RoleArn),
	}
	j.Total, j.Succeeded, j.Failed = taskCounts(d.ProgressSummary)
	if p := d.ProgressSummary; p != nil && p.Timers != nil {
		j.Active = time.Duration(aws.ToInt64(p.Timers.ElapsedTimeInActiveSeconds)) * time.Second
	}
	for _, f := range d.FailureReasons {
		j.FailureReasons = append(j.FailureReasons, strings.TrimSpace(aws.ToString(f.FailureCode)+" "+aws.ToString(f.FailureReason)))
	}
	if op := d.Operation; op != nil && op.S3PutObjectCopy != nil {
		c := op.S3PutObjectCopy
		j.Copy = &CopyTarget{
			DestBucket:   bucketFromARN(aws.ToString(c.TargetResource)),
			DestPrefix:   aws.ToString(c.TargetKeyPrefix),
			StorageClass: string(c.StorageClass),
			Written: Written{ChecksumAlgorithm: string(c.ChecksumAlgorithm), ObjectLock: store.ObjectLock{
				Mode: string(c.ObjectLockMode), RetainUntil: aws.ToTime(c.ObjectLockRetainUntilDate), LegalHold: string(c.ObjectLockLegalHoldStatus)}},
		}
	}
	if r := d.Report; r != nil {
		j.Report = ReportLocation{
			Enabled: r.Enabled,
			Bucket:  bucketFromARN(aws.ToString(r.Bucket)),
			Prefix:  aws.ToString(r.Prefix),
			Scope:   string(r.ReportScope),
		}
	}
	return j
}

// WaitOptions say how Wait follows a job.
type WaitOptions struct {
	// Interval between two DescribeJob calls; 0 means 5s.
	Interval time.Duration
	// Progress, when set, is called with each state seen.
	Progress func(Job)
	// NotFoundGrace is how long "no such job" is taken for S3 Control not
	// having caught up with CreateJob yet (the user guide warns that a new
	// job may not be visible at once); 0 means DefaultNotFoundGrace.
	NotFoundGrace time.Duration
	// ErrorBudget is how long DescribeJob may keep failing with transient
	// errors (throttling, 5xx, lost connections) before Wait gives up; 0
	// means DefaultErrorBudget.
	ErrorBudget time.Duration
	// Backoff spaces the retries of failed calls; its zero value starts at
	// Interval and is capped at 30s.
	Backoff retry.Backoff
}

// Defaults of WaitOptions.
const (
	DefaultNotFoundGrace = 2 * time.Minute
	DefaultErrorBudget   = 5 * time.Minute
)

// Wait polls the job until it reaches a final status and returns the last
// state seen. A DescribeJob that fails transiently, or says the job does not
// exist during the NotFoundGrace, is retried with backoff for up to
// ErrorBudget; other errors end the watch at once. Cancelling ctx stops the
// watch, not the job.
func (c *Client) Wait(ctx context.Context, id string, o WaitOptions) (Job, error) {
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.NotFoundGrace <= 0 {
		o.NotFoundGrace = DefaultNotFoundGrace
	}
	if o.ErrorBudget <= 0 {
		o.ErrorBudget = DefaultErrorBudget
	}
	if o.Backoff.Base <= 0 {
		o.Backoff.Base = o.Interval
		o.Backoff.ThrottleBase = o.Interval
	}
	if o.Backoff.Max <= 0 {
		o.Backoff.Max = max(30*time.Second, o.Interval)
	}
	start := time.Now()
	var last Job
	var failingSince time.Time
	attempt := 0
	for {
		j, err := c.Describe(ctx, id)
		wait := o.Interval
		if err != nil {
			if ctx.Err() != nil {
				return last, ctx.Err()
			}
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			attempt++
			class := retry.Classify(err)
			switch {
			case isNoSuchJob(err) && time.Since(start) < o.NotFoundGrace:
				class = retry.Retryable
			case isNoSuchJob(err):
				return last, fmt.Errorf("%w (still unknown %s after it was created)", err, time.Since(start).Round(time.Second))
			case !class.Retry():
				return last, err
			case time.Since(failingSince) > o.ErrorBudget:
				return last, fmt.Errorf("%w (failing for %s)", err, time.Since(failingSince).Round(time.Second))
			}
			wait = o.Backoff.Delay(attempt, class)
		} else {
			failingSince, attempt, last = time.Time{}, 0, j
			if o.Progress != nil {
				o.Progress(j)
			}
			if j.Done() {
				return j, nil
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return last, ctx.Err()
		case <-t.C:
		}
	}
}

// isNoSuchJob reports S3 Control's answer for a job it does not know: the
// model's NotFoundException, or NoSuchJob as some answers name it.
func isNoSuchJob(err error) bool {
	var nf *types.NotFoundException
	if errors.As(err, &nf) {
		return true
	}
	var ae smithy.APIError
	return errors.As(err, &ae) && (ae.ErrorCode() == "NoSuchJob" || ae.ErrorCode() == "NotFoundException")
}

// Run confirms a job created with Confirm, which waits Suspended until
// then, and returns the status it moved to. A job still New or Preparing
// (reading its manifest) cannot be confirmed yet: S3 refuses the update,
// so Run waits, asking again after a growing pause (up to 5 s), until
// it is past them.
func (c *Client) Run(ctx context.Context, id string) (string, error) {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		j, err := c.Describe(ctx, id)
		if err != nil {
			return "", fmt.Errorf("run job %s: %w", id, err)
		}
		if j.Status != "New" && j.Status != "Preparing" {
			break
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("run job %s: still %s: %w", id, j.Status, ctx.Err())
		case <-time.After(wait):
		}
	}
	return c.setStatus(ctx, id, types.RequestedJobStatusReady, "confirmed with s3bulk batch run")
}

// SetPriority changes a job's priority: among an account's jobs, higher
// runs first.
func (c *Client) SetPriority(ctx context.Context, id string, priority int32) error {
	if priority < 0 {
		return fmt.Errorf("set priority of job %s: %d: %w (priority is 0 or more)", id, priority, ErrInvalidJob)
	}
	acct, err := c.AccountID(ctx)
	if err != nil {
		return err
	}
	_, err = c.control.UpdateJobPriority(ctx, &s3control.UpdateJobPriorityInput{AccountId: aws.String(acct), JobId: aws.String(id), Priority: priority})
	if err != nil {
		return fmt.Errorf("set priority of job %s: %w", id, err)
	}
	return nil
}

func (c *Client) setStatus(ctx context.Context, id string, want types.RequestedJobStatus, reason string) (string, error) {
	acct, err := c.AccountID(ctx)
	if err != nil {
		return "", err
	}
	out, err := c.control.UpdateJobStatus(ctx, &s3control.UpdateJobStatusInput{
		AccountId:          aws.String(acct),
		JobId:              aws.String(id),
		RequestedJobStatus: want,
		StatusUpdateReason: optString(reason),
	})
	if err != nil {
		verb := "cancel"
		if want == types.RequestedJobStatusReady {
			verb = "run"
		}
		return "", fmt.Errorf("%s job %s: %w", verb, id, err)
	}
	return string(out.Status), nil
}

// Cancel asks S3 to cancel the job and returns the status it moved to
// (Cancelling while tasks in flight finish, or Cancelled).
func (c *Client) Cancel(ctx context.Context, id, reason string) (string, error) {
	return c.setStatus(ctx, id, types.RequestedJobStatusCancelled, reason)
}

// JobSummary is one entry of ListJobs.
type JobSummary struct {
	ID          string
	Description string
	Operation   string
	Priority    int32
	Status      string
	Created     time.Time
	Terminated  time.Time
	Total       int64
	Succeeded   int64
	Failed      int64
}

// List calls fn for every job in the account (in the statuses given, or all),
// following pagination.
func (c *Client) List(ctx context.Context, statuses []string, fn func(JobSummary) error) error {
	acct, err := c.AccountID(ctx)
	if err != nil {
		return err
	}
	in := &s3control.ListJobsInput{AccountId: aws.String(acct)}
	for _, s := range statuses {
		in.JobStatuses = append(in.JobStatuses, types.JobStatus(s))
	}
	p := s3control.NewListJobsPaginator(c.control, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list jobs: %w", err)
		}
		for _, d := range page.Jobs {
			s := JobSummary{
				ID:          aws.ToString(d.JobId),
				Description: aws.ToString(d.Description),
				Operation:   string(d.Operation),
				Priority:    d.Priority,
				Status:      string(d.Status),
				Created:     aws.ToTime(d.CreationTime),
				Terminated:  aws.ToTime(d.TerminationDate),
			}
			s.Total, s.Succeeded, s.Failed = taskCounts(d.ProgressSummary)
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// taskCounts are a job's tasks in all, succeeded and failed, as DescribeJob
// and ListJobs report them (none before the job has counted them).
func taskCounts(p *types.JobProgressSummary) (total, succeeded, failed int64) {
	if p == nil {
		return 0, 0, 0
	}
	return aws.ToInt64(p.TotalNumberOfTasks), aws.ToInt64(p.NumberOfTasksSucceeded), aws.ToInt64(p.NumberOfTasksFailed)
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
