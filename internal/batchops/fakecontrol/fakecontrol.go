package fakecontrol

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/s3bulk/s3bulk/store/s3store"
)

// Options configures the fake.
type Options struct {
	// AccountID is the only account the fake knows; requests for another get
	// 403 AccessDenied, like a wrong x-amz-account-id. Default 123456789012.
	AccountID string
	// Region appears in job ARNs. Default us-east-1.
	Region string
	// BeforeTask, when set, runs in the job's goroutine before each task
	// (task counts from 0). Tests block in it to cancel a job mid-way, or
	// change the source between listing and copying.
	BeforeTask func(jobID string, task int)
	// ListPageSize is how many jobs one ListJobs page holds. Default 1000.
	ListPageSize int
	// FailureThreshold is the task count after which a job whose tasks
	// mostly fail is failed, as AWS does after 1,000 tasks. Default 1000.
	FailureThreshold int
	// InvisibleFor is how long after CreateJob a DescribeJob of the new job
	// still answers NotFoundException, as S3 Control may while the job
	// propagates. Default 0.
	InvisibleFor time.Duration
	// FailDescribes makes the first n DescribeJob calls answer 500
	// InternalServiceException, a transient error S3 Control's model
	// declares for it.
	FailDescribes int
	// BucketRegion says which region a bucket is in; a copy job must be
	// created in its destination bucket's region. Nil asks the S3 server
	// (HeadBucket's x-amz-bucket-region).
	BucketRegion func(bucket string) string
	// MaxCopySize is the largest source a task copies ("Objects to be copied
	// can be up to 5 GB in size"); larger ones fail the task the way
	// CopyObject refuses them. Default 5,000,000,000 - 1 bytes; tests lower
	// it, since the server here cannot hold 5 GB objects.
	MaxCopySize int64
	// SSEC reports the sources stored with SSE-C (the server here does not
	// encrypt, so tests say which). A job's Copy cannot read them: their
	// tasks fail with 400 InvalidRequest, as AWS's do.
	SSEC func(bucket, key string) bool
}

// Server is a running fake.
type Server struct {
	// URL is the endpoint: ClientOptions.ControlEndpoint and STSEndpoint.
	URL string

	s3   *s3.Client
	opts Options
	http *httptest.Server

	ctx    context.Context // ends when the test ends; stops running jobs
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	jobs   map[string]*job
	order  []string // job ids by creation
	tokens map[string]tokenUse
	seq    int
	// describes counts DescribeJob calls, for FailDescribes.
	describes int
}

type tokenUse struct {
	jobID string
	body  string
}

type job struct {
	id       string
	token    string
	created  time.Time
	req      createJobRequest
	status   string
	history  []string
	reason   string
	failures []failure

	total, succeeded, failed int64
	activeSince              time.Time
	active                   time.Duration
	terminated               time.Time

	priority        int32
	cancelRequested bool
	pauseRequested  bool
	resume          chan struct{} // signalled to wake a Paused job (resume or cancel)
	readyRequested  chan struct{} // closed when a Suspended job is confirmed
	done            chan struct{} // closed at the final status
}

type failure struct{ code, reason string }

// New starts a fake whose jobs work against the S3 server behind s3c. It
// stops, and waits for its jobs, when the test ends.
func New(t testing.TB, s3c *s3.Client, opts Options) *Server {
	t.Helper()
	s := Start(s3c, opts)
	t.Cleanup(s.Close)
	return s
}

// Start is New for an Example, which has no testing.TB: the caller stops
// the fake with Close.
func Start(s3c *s3.Client, opts Options) *Server {
	if opts.AccountID == "" {
		opts.AccountID = "123456789012"
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.ListPageSize <= 0 {
		opts.ListPageSize = 1000
	}
	if opts.FailureThreshold <= 0 {
		opts.FailureThreshold = 1000
	}
	if opts.MaxCopySize <= 0 {
		opts.MaxCopySize = 5_000_000_000 - 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{s3: s3c, opts: opts, ctx: ctx, cancel: cancel, jobs: map[string]*job{}, tokens: map[string]tokenUse{}}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	return s
}

// Close stops the fake and waits for its jobs.
func (s *Server) Close() {
	s.cancel()
	s.http.Close()
	s.wg.Wait()
}

// AccountID is the fake's account.
func (s *Server) AccountID() string { return s.opts.AccountID }

// History returns the statuses job id went through, in order.
func (s *Server) History(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.jobs[id]; ok {
		return slices.Clone(j.history)
	}
	return nil
}

// Wait blocks until job id reaches a final status, and returns it. It is
// for tests that drive the fake without polling through the SDK.
func (s *Server) Wait(ctx context.Context, id string) (string, error) {
	s.mu.Lock()
	j, ok := s.jobs[id]
	s.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("fake control: no job %s", id)
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return j.status, nil
}

func final(status string) bool {
	return status == "Complete" || status == "Failed" || status == "Cancelled"
}

const ns = "http://awss3control.amazonaws.com/doc/2018-08-20/"

// signingRegion reads the region of a SigV4 Authorization header's
// credential scope: Credential=AKID/DATE/REGION/SERVICE/aws4_request.
func signingRegion(r *http.Request) string {
	_, cred, ok := strings.Cut(r.Header.Get("Authorization"), "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(cred, "/")
	if len(parts) != 5 {
		return ""
	}
	return parts[2]
}

// partition is the ARN partition of region, as the SDK's partitions.json
// says; the fake knows the ones s3bulk's tests use.
func partition(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" && r.Method == http.MethodPost {
		s.sts(w, r)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") ||
		!strings.Contains(r.Header.Get("Authorization"), "/s3/aws4_request") {
		// S3 Control requests are SigV4-signed for the "s3" service.
		writeError(w, http.StatusForbidden, "SignatureDoesNotMatch", "request is not SigV4-signed for service s3")
		return
	}
	if region := signingRegion(r); region != s.opts.Region {
		// S3 Control is regional: a request signed for another region
		// reaches another region's endpoint, or none.
		writeError(w, http.StatusBadRequest, "AuthorizationHeaderMalformed", fmt.Sprintf("the region %q is wrong; expecting %q", region, s.opts.Region))
		return
	}
	if acct := r.Header.Get("X-Amz-Account-Id"); acct != s.opts.AccountID {
		writeError(w, http.StatusForbidden, "AccessDenied", fmt.Sprintf("account %q is not %q", acct, s.opts.AccountID))
		return
	}
	const root = "/v20180820/jobs"
	rest, ok := strings.CutPrefix(r.URL.Path, root)
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, "NotFound", "no such path "+r.URL.Path)
	case rest == "" && r.Method == http.MethodPost:
		s.createJob(w, r)
	case rest == "" && r.Method == http.MethodGet:
		s.listJobs(w, r)
	case strings.HasSuffix(rest, "/priority") && r.Method == http.MethodPost:
		s.updateJobPriority(w, r, strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/priority"))
	case strings.HasSuffix(rest, "/status") && r.Method == http.MethodPost:
		s.updateJobStatus(w, r, strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/status"))
	case r.Method == http.MethodGet && strings.Count(rest, "/") == 1:
		s.describeJob(w, strings.TrimPrefix(rest, "/"))
	default:
		writeError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method+" "+r.URL.Path)
	}
}

// raw keeps an element's content as sent, so DescribeJob echoes exactly
// what CreateJob received.
type raw struct {
	Inner string `xml:",innerxml"`
}

type createJobRequest struct {
	XMLName              xml.Name `xml:"CreateJobRequest"`
	ClientRequestToken   string   `xml:"ClientRequestToken"`
	ConfirmationRequired bool     `xml:"ConfirmationRequired"`
	Description          string   `xml:"Description"`
	Priority             *int32   `xml:"Priority"`
	RoleArn              string   `xml:"RoleArn"`
	Manifest             struct {
		Spec struct {
			Format string   `xml:"Format"`
			Fields []string `xml:"Fields>member"`
		} `xml:"Spec"`
		Location struct {
			ObjectArn       string `xml:"ObjectArn"`
			ETag            string `xml:"ETag"`
			ObjectVersionID string `xml:"ObjectVersionId"`
		} `xml:"Location"`
	} `xml:"Manifest"`
	Generator *struct {
		ExpectedBucketOwner  string `xml:"ExpectedBucketOwner"`
		SourceBucket         string `xml:"SourceBucket"`
		EnableManifestOutput bool   `xml:"EnableManifestOutput"`
		Filter               *struct {
			CreatedAfter         string   `xml:"CreatedAfter"`
			CreatedBefore        string   `xml:"CreatedBefore"`
			Prefixes             []string `xml:"KeyNameConstraint>MatchAnyPrefix>member"`
			Suffixes             []string `xml:"KeyNameConstraint>MatchAnySuffix>member"`
			Substrings           []string `xml:"KeyNameConstraint>MatchAnySubstring>member"`
			SizeGreaterThan      *int64   `xml:"ObjectSizeGreaterThanBytes"`
			SizeLessThan         *int64   `xml:"ObjectSizeLessThanBytes"`
			MatchAnyStorageClass []string `xml:"MatchAnyStorageClass>member"`
		} `xml:"Filter"`
	} `xml:"ManifestGenerator>S3JobManifestGenerator"`
	Operation struct {
		Copy *struct {
			TargetResource    string `xml:"TargetResource"`
			TargetKeyPrefix   string `xml:"TargetKeyPrefix"`
			StorageClass      string `xml:"StorageClass"`
			MetadataDirective string `xml:"MetadataDirective"`
			// Object Lock and checksum of the copies, as S3's
			// S3CopyObjectOperation takes them.
			ObjectLockMode            string `xml:"ObjectLockMode"`
			ObjectLockRetainUntilDate string `xml:"ObjectLockRetainUntilDate"`
			ObjectLockLegalHoldStatus string `xml:"ObjectLockLegalHoldStatus"`
			ChecksumAlgorithm         string `xml:"ChecksumAlgorithm"`
			NewObjectMetadata         *struct {
				CacheControl       string `xml:"CacheControl"`
				ContentDisposition string `xml:"ContentDisposition"`
				ContentEncoding    string `xml:"ContentEncoding"`
				ContentLanguage    string `xml:"ContentLanguage"`
				ContentType        string `xml:"ContentType"`
				UserMetadata       []struct {
					Key   string `xml:"key"`
					Value string `xml:"value"`
				} `xml:"UserMetadata>entry"`
			} `xml:"NewObjectMetadata"`
		} `xml:"S3PutObjectCopy"`
	} `xml:"Operation"`
	Tags []struct {
		Key   string `xml:"Key"`
		Value string `xml:"Value"`
	} `xml:"Tags>member"`
	Report struct {
		ExpectedBucketOwner string `xml:"ExpectedBucketOwner"`
		Enabled             bool   `xml:"Enabled"`
		Bucket              string `xml:"Bucket"`
		Format              string `xml:"Format"`
		Prefix              string `xml:"Prefix"`
		ReportScope         string `xml:"ReportScope"`
	} `xml:"Report"`

	// The same elements, verbatim, for DescribeJob.
	rawManifest, rawOperation, rawReport, rawGenerator string
	hasDescription                                     bool
}

type rawParts struct {
	Generator raw `xml:"ManifestGenerator"`
	Manifest  raw `xml:"Manifest"`
	Operation raw `xml:"Operation"`
	Report    raw `xml:"Report"`
}

func (s *Server) createJob(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/xml" {
		writeError(w, http.StatusBadRequest, "BadRequestException", "Content-Type "+ct+", want application/xml")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
		return
	}
	var req createJobRequest
	var rp rawParts
	if err := xml.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "MalformedXML", err.Error())
		return
	}
	if err := xml.Unmarshal(body, &rp); err != nil {
		writeError(w, http.StatusBadRequest, "MalformedXML", err.Error())
		return
	}
	req.rawManifest, req.rawOperation, req.rawReport, req.rawGenerator = rp.Manifest.Inner, rp.Operation.Inner, rp.Report.Inner, rp.Generator.Inner
	req.hasDescription = bytes.Contains(body, []byte("<Description>")) || bytes.Contains(body, []byte("<Description/>"))
	if msg := s.validate(&req); msg != "" {
		writeError(w, http.StatusBadRequest, "BadRequestException", msg)
		return
	}
	// "You must create your Batch Operations Copy jobs in the destination
	// Region" (user guide, Copy objects).
	dst := s.unARN(req.Operation.Copy.TargetResource)
	if region, err := s.bucketRegion(r.Context(), dst); err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestException", fmt.Sprintf("cannot find the destination bucket %s: %v", dst, err))
		return
	} else if region != s.opts.Region {
		writeError(w, http.StatusBadRequest, "BadRequestException", fmt.Sprintf("the destination bucket %s is in %s: a copy job must be created in the destination's region, not %s", dst, region, s.opts.Region))
		return
	}

	s.mu.Lock()
	if use, ok := s.tokens[req.ClientRequestToken]; ok {
		s.mu.Unlock()
		if use.body != string(body) {
			writeError(w, http.StatusBadRequest, "IdempotencyException", "ClientRequestToken was used for a different request")
			return
		}
		writeXML(w, struct {
			XMLName xml.Name `xml:"CreateJobResult"`
			NS      string   `xml:"xmlns,attr"`
			JobID   string   `xml:"JobId"`
		}{NS: ns, JobID: use.jobID})
		return
	}
	s.seq++
	j := &job{
		id:             fmt.Sprintf("%08x-0000-4000-8000-%012x", s.seq, time.Now().UnixNano()&0xffffffffffff),
		token:          req.ClientRequestToken,
		created:        time.Now().UTC(),
		req:            req,
		readyRequested: make(chan struct{}),
		resume:         make(chan struct{}, 1),
		priority:       *req.Priority,
		done:           make(chan struct{}),
	}
	s.jobs[j.id] = j
	s.order = append(s.order, j.id)
	s.tokens[req.ClientRequestToken] = tokenUse{jobID: j.id, body: string(body)}
	s.setStatus(j, "New")
	s.wg.Add(1)
	s.mu.Unlock()

	go func() {
		defer s.wg.Done()
		s.run(j)
	}()
	writeXML(w, struct {
		XMLName xml.Name `xml:"CreateJobResult"`
		NS      string   `xml:"xmlns,attr"`
		JobID   string   `xml:"JobId"`
	}{NS: ns, JobID: j.id})
}

// Limits from the S3 Control API model (botocore
// s3control/2018-08-20/service-2.json): IAMRoleArn, S3KeyArnString,
// S3RegionalOrS3ExpressBucketArnString, S3BucketArnString patterns;
// S3StorageClass's enum.
var (
	roleArnRe   = regexp.MustCompile(`^arn:[^:]+:iam::\d{12}:role/.*$`)
	tagRe       = regexp.MustCompile(`^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$`)
	accountRe   = regexp.MustCompile(`^\d{12}$`)
	storageEnum = []string{"STANDARD", "STANDARD_IA", "ONEZONE_IA", "GLACIER", "INTELLIGENT_TIERING", "DEEP_ARCHIVE", "GLACIER_IR"}
)

// validate checks what AWS would reject at CreateJob, and what the fake
// does not implement.
func (s *Server) validate(req *createJobRequest) string {
	arn := "arn:" + partition(s.opts.Region) + ":s3:::"
	desc := utf8.RuneCountInString(req.Description)
	switch {
	case req.ClientRequestToken == "":
		return "ClientRequestToken is required"
	case len(req.ClientRequestToken) > 64:
		return "ClientRequestToken is longer than 64 characters"
	case req.Priority == nil:
		return "Priority is required"
	case *req.Priority < 0:
		return fmt.Sprintf("Priority %d is below the minimum of 0", *req.Priority)
	case req.hasDescription && desc == 0:
		return "Description is empty; its minimum length is 1"
	case desc > 256:
		return fmt.Sprintf("Description has %d characters; its maximum length is 256", desc)
	case len(req.RoleArn) > 2048 || !roleArnRe.MatchString(req.RoleArn):
		return "RoleArn is not an IAM role ARN: " + req.RoleArn
	case req.Generator != nil && req.rawManifest != "":
		return "specify either Manifest or ManifestGenerator, not both"
	case req.Generator != nil:
		return s.validateGenerator(req, arn)
	case req.Manifest.Spec.Format == inventoryFormat && len(req.Manifest.Spec.Fields) > 0:
		return "the fake reads an S3InventoryReport_CSV_20161130 manifest's columns from its fileSchema: give no Fields"
	case req.Manifest.Spec.Format != "S3BatchOperations_CSV_20180820" && req.Manifest.Spec.Format != inventoryFormat:
		return "the fake reads only S3BatchOperations_CSV_20180820 and S3InventoryReport_CSV_20161130 manifests, not " + req.Manifest.Spec.Format
	case req.Manifest.Spec.Format != inventoryFormat && !slices.Equal(req.Manifest.Spec.Fields, []string{"Bucket", "Key"}) && !slices.Equal(req.Manifest.Spec.Fields, []string{"Bucket", "Key", "VersionId"}):
		return fmt.Sprintf("the fake reads only Bucket,Key and Bucket,Key,VersionId manifests, not %v", req.Manifest.Spec.Fields)
	case !strings.HasPrefix(req.Manifest.Location.ObjectArn, arn):
		return "manifest ObjectArn is not an S3 object ARN of partition " + partition(s.opts.Region) + ": " + req.Manifest.Location.ObjectArn
	case req.Manifest.Location.ETag == "":
		return "manifest ETag is required"
	case req.Operation.Copy == nil:
		return "the fake runs only S3PutObjectCopy"
	case !strings.HasPrefix(req.Operation.Copy.TargetResource, arn):
		return "TargetResource is not a bucket ARN of partition " + partition(s.opts.Region) + ": " + req.Operation.Copy.TargetResource
	case utf8.RuneCountInString(req.Operation.Copy.TargetKeyPrefix) > 1024:
		return "TargetKeyPrefix is longer than 1024 characters"
	case req.Operation.Copy.StorageClass != "" && !slices.Contains(storageEnum, req.Operation.Copy.StorageClass):
		return fmt.Sprintf("StorageClass %q is not one of %v", req.Operation.Copy.StorageClass, storageEnum)
	case validateCopyLock(req.Operation.Copy.ObjectLockMode, req.Operation.Copy.ObjectLockRetainUntilDate, req.Operation.Copy.ObjectLockLegalHoldStatus) != "":
		return validateCopyLock(req.Operation.Copy.ObjectLockMode, req.Operation.Copy.ObjectLockRetainUntilDate, req.Operation.Copy.ObjectLockLegalHoldStatus)
	case req.Operation.Copy.ChecksumAlgorithm != "" && !slices.Contains(checksumEnum, req.Operation.Copy.ChecksumAlgorithm):
		return fmt.Sprintf("ChecksumAlgorithm %q is not one of %v", req.Operation.Copy.ChecksumAlgorithm, checksumEnum)
	case req.Report.Enabled && !strings.HasPrefix(req.Report.Bucket, arn):
		return "report Bucket is not a bucket ARN of partition " + partition(s.opts.Region)
	case req.Report.Enabled && req.Report.Format != "Report_CSV_20180820":
		return "report Format must be Report_CSV_20180820"
	case req.Report.Enabled && req.Report.ReportScope != "AllTasks" && req.Report.ReportScope != "FailedTasksOnly":
		return "report ReportScope must be AllTasks or FailedTasksOnly"
	case len(req.Report.Prefix) > 512:
		return "report Prefix is longer than 512 characters"
	case req.Report.ExpectedBucketOwner != "" && !accountRe.MatchString(req.Report.ExpectedBucketOwner):
		return "report ExpectedBucketOwner is not a 12-digit account id"
	}
	for _, t := range req.Tags {
		if n := utf8.RuneCountInString(t.Key); n < 1 || n > 128 || !tagRe.MatchString(t.Key) {
			return fmt.Sprintf("tag key %q does not match TagKeyString", t.Key)
		}
		if utf8.RuneCountInString(t.Value) > 256 || !tagRe.MatchString(t.Value) {
			return fmt.Sprintf("tag value %q does not match TagValueString", t.Value)
		}
	}
	return ""
}

// unARN strips an S3 ARN of the fake's partition down to bucket[/key].
func (s *Server) unARN(arn string) string {
	return strings.TrimPrefix(arn, "arn:"+partition(s.opts.Region)+":s3:::")
}

// validateGenerator checks an S3JobManifestGenerator, then the rest of
// the job as validate does.
func (s *Server) validateGenerator(req *createJobRequest, arn string) string {
	g := req.Generator
	switch {
	case !strings.HasPrefix(g.SourceBucket, arn):
		return "ManifestGenerator SourceBucket is not a bucket ARN of partition " + partition(s.opts.Region)
	case g.EnableManifestOutput:
		return "the fake does not write generated manifests (EnableManifestOutput)"
	}
	if f := g.Filter; f != nil {
		for _, t := range []string{f.CreatedAfter, f.CreatedBefore} {
			if _, err := time.Parse(time.RFC3339Nano, t); t != "" && err != nil {
				return "ManifestGenerator Filter: bad timestamp " + t
			}
		}
		for _, c := range f.MatchAnyStorageClass {
			if !slices.Contains(storageEnum, c) {
				return fmt.Sprintf("MatchAnyStorageClass %q is not one of %v", c, storageEnum)
			}
		}
	}
	// The rest of the job is checked as for a manifest.
	saved := req.Generator
	req.Generator = nil
	req.Manifest.Spec.Format, req.Manifest.Spec.Fields = "S3BatchOperations_CSV_20180820", []string{"Bucket", "Key"}
	req.Manifest.Location.ObjectArn, req.Manifest.Location.ETag = arn+"generated/manifest.csv", "generated"
	msg := s.validate(req)
	req.Generator = saved
	return msg
}

// generated lists what a manifest generator would put in its manifest, in
// key order, as Bucket and encoded key.
func (s *Server) generated(ctx context.Context, req *createJobRequest, fn func(task int, r row) (bool, error)) error {
	g := req.Generator
	bucket := s.unARN(g.SourceBucket)
	if o := g.ExpectedBucketOwner; o != "" && o != s.opts.AccountID {
		return fmt.Errorf("AccessDenied: the source bucket is owned by %s, not the expected %s", s.opts.AccountID, o)
	}
	var after, before time.Time
	var less, greater *int64
	var prefixes, suffixes, substrings, classes []string
	if f := g.Filter; f != nil {
		after, _ = time.Parse(time.RFC3339Nano, f.CreatedAfter)
		before, _ = time.Parse(time.RFC3339Nano, f.CreatedBefore)
		less, greater = f.SizeLessThan, f.SizeGreaterThan
		prefixes, suffixes, substrings, classes = f.Prefixes, f.Suffixes, f.Substrings, f.MatchAnyStorageClass
	}
	anyOf := func(list []string, match func(string) bool) bool {
		if len(list) == 0 {
			return true
		}
		return slices.ContainsFunc(list, match)
	}
	p := s3.NewListObjectsV2Paginator(s.s3, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	task := 0
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, o := range page.Contents {
			key, size, mod := aws.ToString(o.Key), aws.ToInt64(o.Size), aws.ToTime(o.LastModified)
			switch {
			case !anyOf(prefixes, func(p string) bool { return strings.HasPrefix(key, p) }),
				!anyOf(suffixes, func(x string) bool { return strings.HasSuffix(key, x) }),
				!anyOf(substrings, func(x string) bool { return strings.Contains(key, x) }),
				!anyOf(classes, func(c string) bool { return c == string(o.StorageClass) }),
				less != nil && size >= *less,
				greater != nil && size <= *greater,
				!after.IsZero() && !mod.After(after),
				!before.IsZero() && !mod.Before(before):
				continue
			}
			goOn, err := fn(task, row{bucket: bucket, encKey: url.QueryEscape(key)})
			if err != nil || !goOn {
				return err
			}
			task++
		}
	}
	return nil
}

// bucketRegion is the region of bucket, by Options.BucketRegion or the S3
// server's HeadBucket.
func (s *Server) bucketRegion(ctx context.Context, bucket string) (string, error) {
	if s.opts.BucketRegion != nil {
		return s.opts.BucketRegion(bucket), nil
	}
	out, err := s.s3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
	if err != nil {
		return "", err
	}
	if r := aws.ToString(out.BucketRegion); r != "" {
		return r, nil
	}
	// S3 always names the region in HeadBucket; some S3-compatible
	// servers (SeaweedFS, gofakes3, s3rver) only answer GetBucketLocation,
	// whose empty LocationConstraint means us-east-1.
	loc, err := s.s3.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String(bucket)})
	if err != nil {
		return "", fmt.Errorf("HeadBucket names no region, and GetBucketLocation: %w", err)
	}
	switch r := string(loc.LocationConstraint); r {
	case "":
		return "us-east-1", nil
	case "EU":
		return "eu-west-1", nil
	default:
		return r, nil
	}
}

// Pause makes job id go through Pausing to Paused before its next task,
// as AWS does on its own when a job of higher priority needs the capacity
// (S3 Control offers no way to ask for it: RequestedJobStatus is Cancelled
// or Ready). Resume sets it Active again.
func (s *Server) Pause(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok || j.status != "Active" {
		return fmt.Errorf("fake control: cannot pause job %s", id)
	}
	j.pauseRequested = true
	s.setStatus(j, "Pausing")
	return nil
}

// Resume lets a job paused by Pause go on.
func (s *Server) Resume(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok || !j.pauseRequested {
		return fmt.Errorf("fake control: job %s is not paused", id)
	}
	j.pauseRequested = false
	wake(j)
	return nil
}

func wake(j *job) {
	select {
	case j.resume <- struct{}{}:
	default:
	}
}

// pausePoint parks the job between two tasks while a pause is asked for.
func (s *Server) pausePoint(ctx context.Context, j *job) {
	s.mu.Lock()
	if !j.pauseRequested || j.cancelRequested {
		s.mu.Unlock()
		return
	}
	s.setStatus(j, "Paused")
	s.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			return
		case <-j.resume:
		}
		s.mu.Lock()
		if j.cancelRequested || !j.pauseRequested {
			if !j.cancelRequested {
				s.setStatus(j, "Active")
			}
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// setStatus records a status change; s.mu must be held.
func (s *Server) setStatus(j *job, status string) {
	if j.status == status {
		return
	}
	now := time.Now()
	if j.status == "Active" {
		j.active += now.Sub(j.activeSince)
	}
	if status == "Active" {
		j.activeSince = now
	}
	j.status = status
	j.history = append(j.history, status)
	if final(status) {
		j.terminated = now.UTC()
		close(j.done)
	}
}

// step moves j to status unless a cancel was requested, in which case the
// job ends Cancelled; it reports whether the job goes on.
func (s *Server) step(j *job, status string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j.cancelRequested || s.ctx.Err() != nil {
		return false
	}
	s.setStatus(j, status)
	return true
}

func (s *Server) run(j *job) {
	ctx := s.ctx
	if !s.step(j, "Preparing") {
		s.finishCancelled(ctx, j, nil)
		return
	}
	tasks, ok := s.prepareJob(ctx, j)
	if !ok {
		return
	}
	if j.req.ConfirmationRequired {
		if !s.step(j, "Suspended") {
			s.finishCancelled(ctx, j, nil)
			return
		}
		select {
		case <-j.readyRequested:
		case <-ctx.Done():
			return
		}
	}
	if !s.step(j, "Ready") || !s.step(j, "Active") {
		s.finishCancelled(ctx, j, nil)
		return
	}
	results := s.runTasks(ctx, j, tasks)

	s.mu.Lock()
	cancelled := j.cancelRequested
	failed := len(j.failures) > 0
	s.mu.Unlock()
	switch {
	case cancelled:
		s.finishCancelled(ctx, j, results)
	case failed:
		s.finish(ctx, j, results, "Failing", "Failed")
	default:
		s.finish(ctx, j, results, "Completing", "Complete")
	}
}

// taskRows calls fn with each task of a job, in order, until fn says stop.
type taskRows func(fn func(task int, r row) (bool, error)) error

// prepareJob reads (or generates) the job's manifest and counts its
// tasks, as Preparing does; a manifest that cannot be read or lists
// nothing fails the job (false).
func (s *Server) prepareJob(ctx context.Context, j *job) (taskRows, bool) {
	mBucket, mKey, _ := strings.Cut(s.unARN(j.req.Manifest.Location.ObjectArn), "/")
	versioned := slices.Contains(j.req.Manifest.Spec.Fields, "VersionId")
	tasks := func(fn func(task int, r row) (bool, error)) error {
		if j.req.Manifest.Spec.Format == inventoryFormat {
			return s.eachInventoryRow(ctx, mBucket, mKey, fn)
		}
		return s.eachLine(ctx, mBucket, mKey, versioned, fn)
	}
	var total int64
	var fcode, freason string
	if j.req.Generator != nil {
		tasks = func(fn func(task int, r row) (bool, error)) error {
			return s.generated(ctx, &j.req, fn)
		}
		if err := tasks(func(int, row) (bool, error) { total++; return true, nil }); err != nil {
			fcode, freason = "ManifestGenerationFailed", err.Error()
		} else if total == 0 {
			fcode, freason = "ManifestEmpty", "the generated manifest lists no objects"
		}
	} else {
		total, fcode, freason = s.prepare(ctx, mBucket, mKey, j.req.Manifest.Location.ETag, tasks)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fcode != "" {
		j.failures = append(j.failures, failure{fcode, freason})
		s.setStatus(j, "Failing")
		s.setStatus(j, "Failed")
		return nil, false
	}
	j.total = total
	return tasks, true
}

// runTasks copies the job's tasks, as Active does, until the last one, a
// cancel, or a failure rate that fails the job.
func (s *Server) runTasks(ctx context.Context, j *job, tasks taskRows) []result {
	var results []result
	err := tasks(func(task int, r row) (bool, error) {
		if s.opts.BeforeTask != nil {
			s.opts.BeforeTask(j.id, task)
		}
		s.pausePoint(ctx, j)
		s.mu.Lock()
		stop := j.cancelRequested
		s.mu.Unlock()
		if stop || ctx.Err() != nil {
			return false, nil
		}
		res := s.copyOne(ctx, j, r)
		results = append(results, res)
		s.mu.Lock()
		defer s.mu.Unlock()
		if res.status == "succeeded" {
			j.succeeded++
		} else {
			j.failed++
		}
		done := j.succeeded + j.failed
		if done >= int64(s.opts.FailureThreshold) && j.failed*2 > done {
			j.failures = append(j.failures, failure{"TaskFailureRateExceeded", fmt.Sprintf("%d of %d tasks failed", j.failed, done)})
			return false, nil
		}
		return true, nil
	})
	if err != nil && ctx.Err() == nil {
		s.mu.Lock()
		j.failures = append(j.failures, failure{"ManifestReadFailed", err.Error()})
		s.mu.Unlock()
	}
	return results
}

func (s *Server) finishCancelled(ctx context.Context, j *job, results []result) {
	s.finish(ctx, j, results, "Cancelling", "Cancelled")
}

// finish writes the report (AWS writes one when at least one task ran)
// while the job is in its -ing status, then ends it.
func (s *Server) finish(ctx context.Context, j *job, results []result, ing, final string) {
	s.mu.Lock()
	if j.status != ing {
		s.setStatus(j, ing)
	}
	s.mu.Unlock()
	if len(results) > 0 && j.req.Report.Enabled {
		if err := s.writeReport(ctx, j, results); err != nil && ctx.Err() == nil {
			s.mu.Lock()
			j.failures = append(j.failures, failure{"ReportWriteFailed", err.Error()})
			if final == "Complete" {
				s.setStatus(j, "Failing")
				final = "Failed"
			}
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	s.setStatus(j, final)
	s.mu.Unlock()
}

// prepare checks the manifest's ETag and counts its tasks.
func (s *Server) prepare(ctx context.Context, bucket, key, etag string, tasks func(func(int, row) (bool, error)) error) (int64, string, string) {
	head, err := s.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return 0, "ManifestNotFound", fmt.Sprintf("reading the manifest s3://%s/%s: %v", bucket, key, err)
	}
	if got := strings.Trim(aws.ToString(head.ETag), `"`); got != strings.Trim(etag, `"`) {
		return 0, "ManifestETagMismatch", fmt.Sprintf("the manifest's ETag is %s, the job names %s", got, etag)
	}
	var n int64
	err = tasks(func(int, row) (bool, error) { n++; return true, nil })
	if err != nil {
		return 0, "ManifestParseFailed", err.Error()
	}
	if n == 0 {
		return 0, "ManifestEmpty", "the manifest lists no objects"
	}
	return n, "", ""
}

// row is one manifest line, its fields as written (URL-encoded).
type row struct {
	bucket, encKey, encVersion string
}

// eachLine streams the manifest's lines: Bucket,Key, or with versioned
// (Fields Bucket,Key,VersionId) Bucket,Key,VersionId. As the user guide
// says, a manifest with a version ID field gives one for every object: a
// line with another number of columns, or an empty field, fails the
// manifest.
func (s *Server) eachLine(ctx context.Context, bucket, key string, versioned bool, fn func(task int, r row) (bool, error)) error {
	out, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return err
	}
	defer out.Body.Close()
	want, what := 2, "Bucket,Key"
	if versioned {
		want, what = 3, "Bucket,Key,VersionId"
	}
	sc := bufio.NewScanner(out.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for task := 0; sc.Scan(); task++ {
		line := sc.Text()
		f := strings.Split(line, ",")
		if len(f) != want || slices.Contains(f, "") {
			return fmt.Errorf("manifest line %d: %q is not %s", task+1, line, what)
		}
		r := row{bucket: f[0], encKey: f[1]}
		if versioned {
			r.encVersion = f[2]
		}
		if goOn, err := fn(task, r); err != nil || !goOn {
			return err
		}
	}
	return sc.Err()
}

type result struct {
	row
	status     string
	httpStatus int
	errorCode  string
	message    string
}

func (s *Server) copyOne(ctx context.Context, j *job, r row) result {
	res := result{row: r}
	bucket := r.bucket
	key, err := url.QueryUnescape(r.encKey)
	if err != nil {
		res.status, res.httpStatus, res.errorCode, res.message = "failed", 400, "InvalidManifestKey", err.Error()
		return res
	}
	// Version IDs are URL-encoded like keys, and decoded the same way: a
	// '+' left unencoded reads as a space and names no version.
	version, err := url.QueryUnescape(r.encVersion)
	if err != nil {
		res.status, res.httpStatus, res.errorCode, res.message = "failed", 400, "InvalidManifestVersionId", err.Error()
		return res
	}
	if s.opts.SSEC != nil && s.opts.SSEC(bucket, key) {
		res.status, res.httpStatus, res.errorCode = "failed", 400, "InvalidRequest"
		res.message = "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object."
		return res
	}
	head, err := s.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: opt(version)})
	if err == nil && aws.ToInt64(head.ContentLength) > s.opts.MaxCopySize {
		res.status, res.httpStatus, res.errorCode = "failed", 400, "InvalidRequest"
		res.message = fmt.Sprintf("The specified copy source is larger than the maximum allowable size for a copy source: %d", s.opts.MaxCopySize)
		return res
	}
	op := j.req.Operation.Copy
	// The copy source is encoded as s3bulk's own copies encode it:
	// url.QueryEscape's '+' for a space reads as a '+' on servers that
	// decode it as a path (SeaweedFS).
	in := &s3.CopyObjectInput{
		Bucket:     aws.String(s.unARN(op.TargetResource)),
		Key:        aws.String(op.TargetKeyPrefix + key),
		CopySource: aws.String(s3store.CopySource(bucket, key)),
	}
	if version != "" {
		*in.CopySource += "?versionId=" + url.QueryEscape(version)
	}
	if op.StorageClass != "" {
		in.StorageClass = s3types.StorageClass(op.StorageClass)
	}
	// Each copy carries the job's Object Lock settings and checksum
	// algorithm: the destination's server refuses them as S3 refuses
	// them (a bucket without Object Lock fails every task).
	in.ObjectLockMode = s3types.ObjectLockMode(op.ObjectLockMode)
	in.ObjectLockLegalHoldStatus = s3types.ObjectLockLegalHoldStatus(op.ObjectLockLegalHoldStatus)
	if op.ObjectLockRetainUntilDate != "" {
		t, _ := time.Parse(time.RFC3339Nano, op.ObjectLockRetainUntilDate) // validated
		in.ObjectLockRetainUntilDate = &t
	}
	in.ChecksumAlgorithm = s3types.ChecksumAlgorithm(op.ChecksumAlgorithm)
	if op.MetadataDirective == "REPLACE" && op.NewObjectMetadata != nil {
		m := op.NewObjectMetadata
		in.MetadataDirective = s3types.MetadataDirectiveReplace
		in.CacheControl = opt(m.CacheControl)
		in.ContentDisposition = opt(m.ContentDisposition)
		in.ContentEncoding = opt(m.ContentEncoding)
		in.ContentLanguage = opt(m.ContentLanguage)
		in.ContentType = opt(m.ContentType)
		if len(m.UserMetadata) > 0 {
			in.Metadata = map[string]string{}
			for _, e := range m.UserMetadata {
				in.Metadata[e.Key] = e.Value
			}
		}
	}
	_, err = s.s3.CopyObject(ctx, in)
	if err == nil {
		res.status, res.httpStatus, res.message = "succeeded", 200, "Successful"
		return res
	}
	res.status, res.httpStatus, res.errorCode, res.message = "failed", 500, "InternalError", err.Error()
	var ae smithy.APIError
	if errors.As(err, &ae) {
		res.errorCode, res.message = ae.ErrorCode(), ae.ErrorMessage()
	}
	var he interface{ HTTPStatusCode() int }
	if errors.As(err, &he) {
		res.httpStatus = he.HTTPStatusCode()
	}
	return res
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// writeReport writes results/<sha1>.csv files, one per task status, and the
// manifest.json that lists them, under <prefix>/job-<id>/.
func (s *Server) writeReport(ctx context.Context, j *job, results []result) error {
	rep := j.req.Report
	if o := rep.ExpectedBucketOwner; o != "" && o != s.opts.AccountID {
		// The fake's account owns every bucket of the server.
		return fmt.Errorf("AccessDenied: the report bucket is owned by %s, not the expected %s", s.opts.AccountID, o)
	}
	bucket := s.unARN(rep.Bucket)
	dir := "job-" + j.id
	if p := strings.TrimSuffix(rep.Prefix, "/"); p != "" {
		dir = p + "/" + dir
	}
	type file struct {
		TaskExecutionStatus string `json:"TaskExecutionStatus"`
		Bucket              string `json:"Bucket"`
		MD5Checksum         string `json:"MD5Checksum"`
		Key                 string `json:"Key"`
	}
	var files []file
	for _, status := range []string{"succeeded", "failed"} {
		if status == "succeeded" && rep.ReportScope == "FailedTasksOnly" {
			continue
		}
		var buf bytes.Buffer
		for _, r := range results {
			if r.status != status {
				continue
			}
			// AWS's rows put the HTTP status before the error code,
			// whatever the schema line says.
			fmt.Fprintf(&buf, "%s,%s,%s,%s,%d,%s,%s\n", r.bucket, r.encKey, r.encVersion, r.status, r.httpStatus, r.errorCode, csvQuote(r.message))
		}
		if buf.Len() == 0 {
			continue
		}
		sum := sha1.Sum([]byte(j.id + status))
		key := dir + "/results/" + hex.EncodeToString(sum[:]) + ".csv"
		md := md5.Sum(buf.Bytes())
		if err := s.put(ctx, bucket, key, buf.Bytes(), "text/csv"); err != nil {
			return err
		}
		files = append(files, file{TaskExecutionStatus: status, Bucket: bucket, MD5Checksum: hex.EncodeToString(md[:]), Key: key})
	}
	m, err := json.MarshalIndent(struct {
		Format             string `json:"Format"`
		ReportCreationDate string `json:"ReportCreationDate"`
		Results            []file `json:"Results"`
		ReportSchema       string `json:"ReportSchema"`
	}{
		Format:             "Report_CSV_20180820",
		ReportCreationDate: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		Results:            files,
		ReportSchema:       "Bucket, Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage",
	}, "", "    ")
	if err != nil {
		return err
	}
	return s.put(ctx, bucket, dir+"/manifest.json", m, "application/json")
}

func (s *Server) put(ctx context.Context, bucket, key string, body []byte, contentType string) error {
	_, err := s.s3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key),
		Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
		ContentType: aws.String(contentType),
	})
	return err
}

func csvQuote(s string) string {
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

type progressXML struct {
	TotalNumberOfTasks     int64 `xml:"TotalNumberOfTasks"`
	NumberOfTasksSucceeded int64 `xml:"NumberOfTasksSucceeded"`
	NumberOfTasksFailed    int64 `xml:"NumberOfTasksFailed"`
	Timers                 struct {
		ElapsedTimeInActiveSeconds int64 `xml:"ElapsedTimeInActiveSeconds"`
	} `xml:"Timers"`
}

type failureXML struct {
	FailureCode   string `xml:"FailureCode"`
	FailureReason string `xml:"FailureReason"`
}

type jobDescriptorXML struct {
	JobID                string       `xml:"JobId"`
	ConfirmationRequired bool         `xml:"ConfirmationRequired"`
	Description          string       `xml:"Description,omitempty"`
	JobArn               string       `xml:"JobArn"`
	Status               string       `xml:"Status"`
	Manifest             *raw         `xml:"Manifest"`
	Generator            *raw         `xml:"ManifestGenerator"`
	Operation            raw          `xml:"Operation"`
	Priority             int32        `xml:"Priority"`
	ProgressSummary      progressXML  `xml:"ProgressSummary"`
	StatusUpdateReason   string       `xml:"StatusUpdateReason,omitempty"`
	FailureReasons       []failureXML `xml:"FailureReasons>member,omitempty"`
	Report               raw          `xml:"Report"`
	CreationTime         string       `xml:"CreationTime"`
	TerminationDate      string       `xml:"TerminationDate,omitempty"`
	RoleArn              string       `xml:"RoleArn"`
}

// progress reads j's counters; s.mu must be held.
func (s *Server) progress(j *job) progressXML {
	p := progressXML{TotalNumberOfTasks: j.total, NumberOfTasksSucceeded: j.succeeded, NumberOfTasksFailed: j.failed}
	active := j.active
	if j.status == "Active" {
		active += time.Since(j.activeSince)
	}
	p.Timers.ElapsedTimeInActiveSeconds = int64(active / time.Second)
	return p
}

func optRaw(inner string) *raw {
	if inner == "" {
		return nil
	}
	return &raw{inner}
}

func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func (s *Server) describeJob(w http.ResponseWriter, id string) {
	s.mu.Lock()
	s.describes++
	if s.describes <= s.opts.FailDescribes {
		s.mu.Unlock()
		writeError(w, http.StatusInternalServerError, "InternalServiceException", "the fake was told to fail this DescribeJob")
		return
	}
	j, ok := s.jobs[id]
	if ok && time.Since(j.created) < s.opts.InvisibleFor {
		ok = false
	}
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "NotFoundException", "no job "+id)
		return
	}
	d := jobDescriptorXML{
		JobID:                j.id,
		ConfirmationRequired: j.req.ConfirmationRequired,
		Description:          j.req.Description,
		JobArn:               fmt.Sprintf("arn:%s:s3:%s:%s:job/%s", partition(s.opts.Region), s.opts.Region, s.opts.AccountID, j.id),
		Status:               j.status,
		Manifest:             optRaw(j.req.rawManifest),
		Generator:            optRaw(j.req.rawGenerator),
		Operation:            raw{j.req.rawOperation},
		Priority:             j.priority,
		ProgressSummary:      s.progress(j),
		StatusUpdateReason:   j.reason,
		Report:               raw{j.req.rawReport},
		CreationTime:         timestamp(j.created),
		TerminationDate:      timestamp(j.terminated),
		RoleArn:              j.req.RoleArn,
	}
	for _, f := range j.failures {
		d.FailureReasons = append(d.FailureReasons, failureXML{FailureCode: f.code, FailureReason: f.reason})
	}
	s.mu.Unlock()
	writeXML(w, struct {
		XMLName xml.Name         `xml:"DescribeJobResult"`
		NS      string           `xml:"xmlns,attr"`
		Job     jobDescriptorXML `xml:"Job"`
	}{NS: ns, Job: d})
}

func (s *Server) updateJobStatus(w http.ResponseWriter, r *http.Request, id string) {
	q := r.URL.Query()
	want := q.Get("requestedJobStatus")
	j, ok := s.lockJob(w, id)
	if !ok {
		return
	}
	switch {
	case want == "Cancelled" && !final(j.status):
		j.cancelRequested = true
		j.reason = q.Get("statusUpdateReason")
		// A job that has not started its tasks has nothing to wind down;
		// its goroutine notices the request at its next step.
		if j.status == "Active" || j.status == "Ready" {
			s.setStatus(j, "Cancelling")
		}
		if j.status == "Suspended" {
			close(j.readyRequested)
		}
		if j.status == "Paused" || j.status == "Pausing" {
			s.setStatus(j, "Cancelling")
			wake(j)
		}
	case want == "Ready" && j.status == "Suspended":
		j.reason = q.Get("statusUpdateReason")
		close(j.readyRequested)
	default:
		st := j.status
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, "JobStatusException", fmt.Sprintf("cannot move a job from %s to %q", st, want))
		return
	}
	out := struct {
		XMLName            xml.Name `xml:"UpdateJobStatusResult"`
		NS                 string   `xml:"xmlns,attr"`
		JobID              string   `xml:"JobId"`
		Status             string   `xml:"Status"`
		StatusUpdateReason string   `xml:"StatusUpdateReason,omitempty"`
	}{NS: ns, JobID: j.id, Status: j.status, StatusUpdateReason: j.reason}
	s.mu.Unlock()
	writeXML(w, out)
}

// lockJob returns job id with s.mu held, or answers NotFoundException
// without it.
func (s *Server) lockJob(w http.ResponseWriter, id string) (*job, bool) {
	s.mu.Lock()
	j, ok := s.jobs[id]
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "NotFoundException", "no job "+id)
	}
	return j, ok
}

// updateJobPriority is UpdateJobPriority: POST .../jobs/ID/priority?priority=N.
func (s *Server) updateJobPriority(w http.ResponseWriter, r *http.Request, id string) {
	n, err := strconv.ParseInt(r.URL.Query().Get("priority"), 10, 32)
	if err != nil || n < 0 {
		writeError(w, http.StatusBadRequest, "BadRequestException", "priority "+r.URL.Query().Get("priority")+" is not an integer of 0 or more")
		return
	}
	j, ok := s.lockJob(w, id)
	if !ok {
		return
	}
	j.priority = int32(n)
	s.mu.Unlock()
	writeXML(w, struct {
		XMLName  xml.Name `xml:"UpdateJobPriorityResult"`
		NS       string   `xml:"xmlns,attr"`
		JobID    string   `xml:"JobId"`
		Priority int32    `xml:"Priority"`
	}{NS: ns, JobID: id, Priority: int32(n)})
}

type jobListDescriptorXML struct {
	JobID           string      `xml:"JobId"`
	Description     string      `xml:"Description,omitempty"`
	Operation       string      `xml:"Operation"`
	Priority        int32       `xml:"Priority"`
	Status          string      `xml:"Status"`
	CreationTime    string      `xml:"CreationTime"`
	TerminationDate string      `xml:"TerminationDate,omitempty"`
	ProgressSummary progressXML `xml:"ProgressSummary"`
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	statuses := q["jobStatuses"]
	size := s.opts.ListPageSize
	if v := q.Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1000 {
			writeError(w, http.StatusBadRequest, "InvalidRequest", "maxResults "+v)
			return
		}
		if n > 0 {
			size = min(size, n)
		}
	}
	start := 0
	if t := q.Get("nextToken"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "InvalidNextTokenException", "nextToken "+t)
			return
		}
		start = n
	}
	s.mu.Lock()
	// Newest first, as AWS lists them; the token is an offset into that.
	var all []jobListDescriptorXML
	for i := len(s.order) - 1; i >= 0; i-- {
		j := s.jobs[s.order[i]]
		if len(statuses) > 0 && !slices.Contains(statuses, j.status) {
			continue
		}
		all = append(all, jobListDescriptorXML{
			JobID: j.id, Description: j.req.Description, Operation: "S3PutObjectCopy",
			Priority: j.priority, Status: j.status,
			CreationTime: timestamp(j.created), TerminationDate: timestamp(j.terminated),
			ProgressSummary: s.progress(j),
		})
	}
	s.mu.Unlock()
	var page []jobListDescriptorXML
	next := ""
	if start < len(all) {
		end := min(start+size, len(all))
		page = all[start:end]
		if end < len(all) {
			next = strconv.Itoa(end)
		}
	}
	writeXML(w, struct {
		XMLName   xml.Name               `xml:"ListJobsResult"`
		NS        string                 `xml:"xmlns,attr"`
		NextToken string                 `xml:"NextToken,omitempty"`
		Jobs      []jobListDescriptorXML `xml:"Jobs>member"`
	}{NS: ns, NextToken: next, Jobs: page})
}

// sts answers GetCallerIdentity (query protocol, form-encoded POST).
func (s *Server) sts(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("Action") != "GetCallerIdentity" {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>the fake answers only GetCallerIdentity</Message></Error><RequestId>fake</RequestId></ErrorResponse>`)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult>
    <Arn>arn:aws:iam::%[1]s:user/s3bulk-test</Arn>
    <UserId>AIDAFAKEFAKEFAKEFAKE</UserId>
    <Account>%[1]s</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata>
</GetCallerIdentityResponse>`, s.opts.AccountID)
}

func writeXML(w http.ResponseWriter, v any) {
	b, err := xml.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "InternalServiceException", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("X-Amz-Request-Id", "fake")
	io.WriteString(w, xml.Header)
	w.Write(b)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var b strings.Builder
	xml.EscapeText(&b, []byte(msg))
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `%s<ErrorResponse><Error><Code>%s</Code><Message>%s</Message></Error><RequestId>fake</RequestId><HostId>fake</HostId></ErrorResponse>`, xml.Header, code, b.String())
}

// checksumEnum is S3Control's S3ChecksumAlgorithm.
var checksumEnum = []string{"CRC32", "CRC32C", "SHA1", "SHA256", "CRC64NVME"}

// validateCopyLock checks an S3PutObjectCopy's Object Lock fields as S3
// Control's model takes them (S3ObjectLockMode, S3ObjectLockLegalHoldStatus,
// a timestamp), and as S3 takes a retention: a mode and a date together
// (S3 would fail each task's CopyObject; the fake refuses the job, which
// s3bulk never sends). It returns what is wrong, "" for nothing.
func validateCopyLock(mode, until, hold string) string {
	switch {
	case mode != "" && mode != "COMPLIANCE" && mode != "GOVERNANCE":
		return fmt.Sprintf("ObjectLockMode %q is not one of [COMPLIANCE GOVERNANCE]", mode)
	case hold != "" && hold != "OFF" && hold != "ON":
		return fmt.Sprintf("ObjectLockLegalHoldStatus %q is not one of [OFF ON]", hold)
	case (mode == "") != (until == ""):
		return "ObjectLockMode and ObjectLockRetainUntilDate must both be given, or neither"
	}
	if until != "" {
		if _, err := time.Parse(time.RFC3339Nano, until); err != nil {
			return fmt.Sprintf("ObjectLockRetainUntilDate %q is not a timestamp", until)
		}
	}
	return ""
}
