package fakecontrol_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3control"
	"github.com/aws/aws-sdk-go-v2/service/s3control/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func TestMain(m *testing.M) { s3test.Main(m) }

// stockClient is an S3 Control client with AWS's own endpoint rules, host
// prefix and all; only its dialer is pointed at the fake. It shows the fake
// speaks to the SDK exactly as configured for AWS.
func stockClient(t *testing.T, fake *fakecontrol.Server, srv *s3test.Server) *s3control.Client {
	t.Helper()
	u, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, u.Host)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return s3control.New(s3control.Options{
		Region:      srv.Region,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
		// AWS's endpoint is https; the fake is plain http behind the dialer.
		BaseEndpoint: aws.String("http://s3-control." + srv.Region + ".amazonaws.com"),
		HTTPClient:   &http.Client{Transport: tr},
	})
}

type world struct {
	srv      *s3test.Server
	fake     *fakecontrol.Server
	ctl      *s3control.Client
	src, dst string
}

func newWorld(t *testing.T, o fakecontrol.Options) *world {
	srv := s3test.Start(t)
	sdk := srv.Client(t)
	w := &world{srv: srv, fake: fakecontrol.New(t, sdk, o), src: srv.NewBucket(t), dst: srv.NewBucket(t)}
	w.ctl = stockClient(t, w.fake, srv)
	for _, k := range []string{"a", "b"} {
		s3test.PutObject(t, sdk, w.src, k, []byte(k))
	}
	s3test.PutObject(t, sdk, w.dst, "m.csv", []byte(w.src+",a\n"+w.src+",b\n"))
	return w
}

func (w *world) input(t *testing.T, token string) *s3control.CreateJobInput {
	t.Helper()
	out, err := w.srv.Client(t).HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(w.dst), Key: aws.String("m.csv")})
	if err != nil {
		t.Fatal(err)
	}
	return &s3control.CreateJobInput{
		AccountId:            aws.String(w.fake.AccountID()),
		ClientRequestToken:   aws.String(token),
		ConfirmationRequired: aws.Bool(false),
		Priority:             aws.Int32(1),
		RoleArn:              aws.String("arn:aws:iam::123456789012:role/r"),
		Operation:            &types.JobOperation{S3PutObjectCopy: &types.S3CopyObjectOperation{TargetResource: aws.String("arn:aws:s3:::" + w.dst), TargetKeyPrefix: aws.String("out/")}},
		Report:               &types.JobReport{Enabled: false},
		Manifest: &types.JobManifest{
			Spec:     &types.JobManifestSpec{Format: types.JobManifestFormatS3BatchOperationsCsv20180820, Fields: []types.JobManifestFieldName{"Bucket", "Key"}},
			Location: &types.JobManifestLocation{ObjectArn: aws.String("arn:aws:s3:::" + w.dst + "/m.csv"), ETag: out.ETag},
		},
	}
}

func TestStockSDKClientRunsAJob(t *testing.T) {
	w := newWorld(t, fakecontrol.Options{})
	j := w.runJob(t, "t1")
	if j.Status != types.JobStatusComplete || aws.ToInt64(j.ProgressSummary.NumberOfTasksSucceeded) != 2 {
		t.Errorf("job %s with %d succeeded, want Complete with 2", j.Status, aws.ToInt64(j.ProgressSummary.NumberOfTasksSucceeded))
	}
	// DescribeJob returns the job as it was created.
	if got := aws.ToString(j.Operation.S3PutObjectCopy.TargetKeyPrefix); got != "out/" {
		t.Errorf("TargetKeyPrefix echoed as %q", got)
	}
	if got := aws.ToString(j.Manifest.Location.ObjectArn); got != "arn:aws:s3:::"+w.dst+"/m.csv" {
		t.Errorf("manifest ARN echoed as %q", got)
	}
	if !strings.HasPrefix(aws.ToString(j.JobArn), "arn:aws:s3:us-east-1:123456789012:job/") || j.CreationTime == nil || j.TerminationDate == nil {
		t.Errorf("job ARN %q, created %v, terminated %v", aws.ToString(j.JobArn), j.CreationTime, j.TerminationDate)
	}
}

func TestReusedTokenWithAnotherRequestIsAnIdempotencyException(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, fakecontrol.Options{})
	in := w.input(t, "same")
	first, err := w.ctl.CreateJob(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	in.Priority = aws.Int32(2)
	_, err = w.ctl.CreateJob(ctx, in)
	var ie *types.IdempotencyException
	if !errors.As(err, &ie) {
		t.Errorf("CreateJob with a reused token = %v, want IdempotencyException", err)
	}
	if _, err := w.fake.Wait(ctx, *first.JobId); err != nil {
		t.Fatal(err)
	}
}

func TestConfirmationRequiredWaitsSuspendedUntilReady(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, fakecontrol.Options{})
	in := w.input(t, "confirm")
	in.ConfirmationRequired = aws.Bool(true)
	out, err := w.ctl.CreateJob(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	// Confirm as soon as the job is Suspended: ask until it is.
	for {
		d, err := w.ctl.DescribeJob(ctx, &s3control.DescribeJobInput{AccountId: in.AccountId, JobId: out.JobId})
		if err != nil {
			t.Fatal(err)
		}
		if d.Job.Status == types.JobStatusSuspended {
			break
		}
		if d.Job.Status != types.JobStatusNew && d.Job.Status != types.JobStatusPreparing {
			t.Fatalf("job went %s before being confirmed", d.Job.Status)
		}
	}
	if _, err := w.ctl.UpdateJobStatus(ctx, &s3control.UpdateJobStatusInput{AccountId: in.AccountId, JobId: out.JobId, RequestedJobStatus: types.RequestedJobStatusReady}); err != nil {
		t.Fatal(err)
	}
	if st, err := w.fake.Wait(ctx, *out.JobId); err != nil || st != "Complete" {
		t.Fatalf("job ended %s, %v", st, err)
	}
	want := []string{"New", "Preparing", "Suspended", "Ready", "Active", "Completing", "Complete"}
	if diff := cmp.Diff(want, w.fake.History(*out.JobId)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

func TestMostlyFailingTasksFailTheJob(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, fakecontrol.Options{FailureThreshold: 2})
	s3test.PutObject(t, w.srv.Client(t), w.dst, "m.csv", []byte(w.src+",missing-1\n"+w.src+",missing-2\n"+w.src+",a\n"))
	out, err := w.ctl.CreateJob(ctx, w.input(t, "fails"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := w.fake.Wait(ctx, *out.JobId); err != nil || st != "Failed" {
		t.Fatalf("job ended %s, %v; want Failed", st, err)
	}
	d, err := w.ctl.DescribeJob(ctx, &s3control.DescribeJobInput{AccountId: aws.String(w.fake.AccountID()), JobId: out.JobId})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Job.FailureReasons) != 1 || aws.ToString(d.Job.FailureReasons[0].FailureCode) != "TaskFailureRateExceeded" {
		t.Errorf("failure reasons %+v, want TaskFailureRateExceeded", d.Job.FailureReasons)
	}
	if n := aws.ToInt64(d.Job.ProgressSummary.NumberOfTasksFailed); n != 2 {
		t.Errorf("%d tasks failed, want the job stopped after 2", n)
	}
}

func TestUnsignedRequestsAreRefused(t *testing.T) {
	w := newWorld(t, fakecontrol.Options{})
	resp, err := http.Get(w.fake.URL + "/v20180820/jobs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("unsigned ListJobs: %s, want 403", resp.Status)
	}
}

func TestUnknownJobIsNotFound(t *testing.T) {
	w := newWorld(t, fakecontrol.Options{})
	_, err := w.ctl.DescribeJob(context.Background(), &s3control.DescribeJobInput{AccountId: aws.String(w.fake.AccountID()), JobId: aws.String("nope")})
	var nf *types.NotFoundException
	var ae smithy.APIError
	if !errors.As(err, &nf) || !errors.As(err, &ae) || ae.ErrorCode() != "NotFoundException" {
		t.Errorf("DescribeJob of an unknown job = %v, want NotFoundException", err)
	}
}

// apiCode is the error code of a failed call, "" when it succeeded.
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func TestCreateJobRefusesWhatS3ControlRefuses(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, fakecontrol.Options{})
	long := func(n int) *string { return aws.String(strings.Repeat("x", n)) }
	tests := []struct {
		name   string
		change func(in *s3control.CreateJobInput)
		want   string // in the message
	}{
		{"a negative priority", func(in *s3control.CreateJobInput) { in.Priority = aws.Int32(-1) }, "Priority -1"},
		{"a description of 257 characters", func(in *s3control.CreateJobInput) { in.Description = long(257) }, "maximum length is 256"},
		{"an empty description", func(in *s3control.CreateJobInput) { in.Description = aws.String("") }, "minimum length is 1"},
		{"a token of 65 characters", func(in *s3control.CreateJobInput) { in.ClientRequestToken = long(65) }, "64 characters"},
		{"a role of an account id that is not 12 digits", func(in *s3control.CreateJobInput) {
			in.RoleArn = aws.String("arn:aws:iam::1234:role/r")
		}, "not an IAM role ARN"},
		{"a user instead of a role", func(in *s3control.CreateJobInput) {
			in.RoleArn = aws.String("arn:aws:iam::123456789012:user/u")
		}, "not an IAM role ARN"},
		{"the reduced redundancy storage class", func(in *s3control.CreateJobInput) {
			in.Operation.S3PutObjectCopy.StorageClass = "REDUCED_REDUNDANCY"
		}, `StorageClass "REDUCED_REDUNDANCY"`},
		{"a manifest ARN of another partition", func(in *s3control.CreateJobInput) {
			in.Manifest.Location.ObjectArn = aws.String("arn:aws-cn:s3:::" + w.dst + "/m.csv")
		}, "partition aws"},
		{"a target ARN of another partition", func(in *s3control.CreateJobInput) {
			in.Operation.S3PutObjectCopy.TargetResource = aws.String("arn:aws-us-gov:s3:::" + w.dst)
		}, "partition aws"},
		{"a target key prefix of 1025 characters", func(in *s3control.CreateJobInput) {
			in.Operation.S3PutObjectCopy.TargetKeyPrefix = long(1025)
		}, "1024"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := w.input(t, fmt.Sprintf("bad-%d", i))
			tt.change(in)
			_, err := w.ctl.CreateJob(ctx, in)
			if apiCode(err) != "BadRequestException" || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CreateJob = %v, want BadRequestException saying %q", err, tt.want)
			}
		})
	}
}

func TestJobsAreRegional(t *testing.T) {
	ctx := context.Background()
	t.Run("a copy job whose destination is in another region is refused", func(t *testing.T) {
		w := newWorld(t, fakecontrol.Options{BucketRegion: func(string) string { return "eu-west-1" }})
		_, err := w.ctl.CreateJob(ctx, w.input(t, "region"))
		if apiCode(err) != "BadRequestException" || !strings.Contains(err.Error(), "must be created in the destination's region") {
			t.Errorf("CreateJob = %v, want BadRequestException about the destination's region", err)
		}
	})
	t.Run("a request signed for another region is refused", func(t *testing.T) {
		w := newWorld(t, fakecontrol.Options{Region: "eu-west-1", BucketRegion: func(string) string { return "eu-west-1" }})
		_, err := w.ctl.CreateJob(ctx, w.input(t, "signed")) // signed for the server's region
		if apiCode(err) != "AuthorizationHeaderMalformed" {
			t.Errorf("CreateJob signed for %s = %v, want AuthorizationHeaderMalformed", w.srv.Region, err)
		}
	})
	t.Run("by default the S3 server says where the destination is", func(t *testing.T) {
		w := newWorld(t, fakecontrol.Options{})
		out, err := w.ctl.CreateJob(ctx, w.input(t, "home"))
		if err != nil {
			t.Fatalf("CreateJob in the destination's own region = %v", err)
		}
		if _, err := w.fake.Wait(ctx, *out.JobId); err != nil {
			t.Fatal(err)
		}
	})
}

// runTasks creates a job over manifest (Bucket,Key lines) and returns its
// final state.
func (w *world) runTasks(t *testing.T, token, manifest string) *types.JobDescriptor {
	t.Helper()
	s3test.PutObject(t, w.srv.Client(t), w.dst, "m.csv", []byte(manifest))
	return w.runJob(t, token)
}

// runJob creates a job over w's manifest and returns its final state.
func (w *world) runJob(t *testing.T, token string) *types.JobDescriptor {
	t.Helper()
	ctx := context.Background()
	out, err := w.ctl.CreateJob(ctx, w.input(t, token))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.Wait(ctx, *out.JobId); err != nil {
		t.Fatal(err)
	}
	d, err := w.ctl.DescribeJob(ctx, &s3control.DescribeJobInput{AccountId: aws.String(w.fake.AccountID()), JobId: out.JobId})
	if err != nil {
		t.Fatal(err)
	}
	return d.Job
}

func TestTasksFailOnSourcesACopyJobCannotRead(t *testing.T) {
	t.Run("an SSE-C source", func(t *testing.T) {
		w := newWorld(t, fakecontrol.Options{SSEC: func(_, key string) bool { return key == "a" }})
		j := w.runTasks(t, "ssec", w.src+",a\n"+w.src+",b\n")
		if p := j.ProgressSummary; aws.ToInt64(p.NumberOfTasksFailed) != 1 || aws.ToInt64(p.NumberOfTasksSucceeded) != 1 {
			t.Errorf("%d failed, %d succeeded; want the SSE-C object's task failed alone", aws.ToInt64(p.NumberOfTasksFailed), aws.ToInt64(p.NumberOfTasksSucceeded))
		}
		if _, err := w.srv.Client(t).HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(w.dst), Key: aws.String("out/a")}); err == nil {
			t.Error("the SSE-C object was copied")
		}
	})
	t.Run("a source above the size limit", func(t *testing.T) {
		w := newWorld(t, fakecontrol.Options{MaxCopySize: 5})
		s3test.PutObject(t, w.srv.Client(t), w.src, "big", []byte("123456"))
		s3test.PutObject(t, w.srv.Client(t), w.src, "fits", []byte("12345"))
		j := w.runTasks(t, "big", w.src+",big\n"+w.src+",fits\n")
		if p := j.ProgressSummary; aws.ToInt64(p.NumberOfTasksFailed) != 1 || aws.ToInt64(p.NumberOfTasksSucceeded) != 1 {
			t.Errorf("%d failed, %d succeeded; want the 6-byte object's task failed alone", aws.ToInt64(p.NumberOfTasksFailed), aws.ToInt64(p.NumberOfTasksSucceeded))
		}
	})
}

func TestANewJobIsNotFoundForAWhile(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, fakecontrol.Options{InvisibleFor: 2 * time.Second})
	out, err := w.ctl.CreateJob(ctx, w.input(t, "late"))
	if err != nil {
		t.Fatal(err)
	}
	in := &s3control.DescribeJobInput{AccountId: aws.String(w.fake.AccountID()), JobId: out.JobId}
	if _, err := w.ctl.DescribeJob(ctx, in); apiCode(err) != "NotFoundException" {
		t.Fatalf("DescribeJob right after CreateJob = %v, want NotFoundException", err)
	}
	if _, err := w.fake.Wait(ctx, *out.JobId); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := w.ctl.DescribeJob(ctx, in)
		if err == nil {
			break
		}
		if apiCode(err) != "NotFoundException" || time.Now().After(deadline) {
			t.Fatalf("DescribeJob = %v, want the job visible after a while", err)
		}
		time.Sleep(50 * time.Millisecond) // waiting for the fake's clock, not ordering goroutines
	}
}

func TestAJobGoesThroughPausingAndPaused(t *testing.T) {
	ctx := context.Background()
	paused := make(chan string, 1)
	var w *world
	w = newWorld(t, fakecontrol.Options{BeforeTask: func(id string, task int) {
		if task == 1 {
			if err := w.fake.Pause(id); err != nil {
				t.Error(err)
			}
			paused <- id
		}
	}})
	out, err := w.ctl.CreateJob(ctx, w.input(t, "pause"))
	if err != nil {
		t.Fatal(err)
	}
	id := <-paused
	// Paused is not a status anyone may ask for.
	_, err = w.ctl.UpdateJobStatus(ctx, &s3control.UpdateJobStatusInput{AccountId: aws.String(w.fake.AccountID()), JobId: out.JobId, RequestedJobStatus: "Paused"})
	if apiCode(err) != "JobStatusException" {
		t.Errorf("UpdateJobStatus to Paused = %v, want JobStatusException", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(w.fake.History(id), "Paused") {
		if time.Now().After(deadline) {
			t.Fatalf("the job never paused: %v", w.fake.History(id))
		}
		runtime.Gosched()
	}
	if err := w.fake.Resume(id); err != nil {
		t.Fatal(err)
	}
	if st, err := w.fake.Wait(ctx, id); err != nil || st != "Complete" {
		t.Fatalf("job ended %s, %v", st, err)
	}
	want := []string{"New", "Preparing", "Ready", "Active", "Pausing", "Paused", "Active", "Completing", "Complete"}
	if diff := cmp.Diff(want, w.fake.History(id)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

func TestManifestGeneratorListsTheBucketWithItsFilters(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, fakecontrol.Options{})
	sdk := w.srv.Client(t)
	for k, v := range map[string]string{"logs/1.json": "1", "logs/2.txt": "2", "logs/big.json": "123456", "other/3.json": "3"} {
		s3test.PutObject(t, sdk, w.src, k, []byte(v))
	}
	in := w.input(t, "generated")
	in.Manifest = nil
	in.ManifestGenerator = &types.JobManifestGeneratorMemberS3JobManifestGenerator{Value: types.S3JobManifestGenerator{
		SourceBucket: aws.String("arn:aws:s3:::" + w.src),
		Filter: &types.JobManifestGeneratorFilter{
			KeyNameConstraint:       &types.KeyNameConstraint{MatchAnyPrefix: []string{"logs/"}, MatchAnySuffix: []string{".json"}},
			ObjectSizeLessThanBytes: aws.Int64(5),
		},
	}}
	out, err := w.ctl.CreateJob(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := w.fake.Wait(ctx, *out.JobId); err != nil || st != "Complete" {
		t.Fatalf("job ended %s, %v", st, err)
	}
	if diff := cmp.Diff([]string{"out/logs/1.json"}, s3test.ListKeys(t, sdk, w.dst, "out/")); diff != "" {
		t.Errorf("copied (-want +got):\n%s", diff)
	}
	t.Run("with a manifest as well it is refused", func(t *testing.T) {
		both := w.input(t, "both")
		both.ManifestGenerator = in.ManifestGenerator
		if _, err := w.ctl.CreateJob(ctx, both); apiCode(err) != "BadRequestException" {
			t.Errorf("CreateJob with both = %v, want BadRequestException", err)
		}
	})
}

func TestTagsPriorityAndExpectedOwner(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, fakecontrol.Options{})
	t.Run("a tag key outside TagKeyString is refused", func(t *testing.T) {
		in := w.input(t, "tag")
		in.Tags = []types.S3Tag{{Key: aws.String("a*b"), Value: aws.String("v")}}
		if _, err := w.ctl.CreateJob(ctx, in); apiCode(err) != "BadRequestException" {
			t.Errorf("CreateJob = %v, want BadRequestException", err)
		}
	})
	t.Run("UpdateJobPriority changes what DescribeJob says, and refuses a negative one", func(t *testing.T) {
		in := w.input(t, "prio")
		in.ConfirmationRequired = aws.Bool(true) // stays Suspended: nothing races the checks
		out, err := w.ctl.CreateJob(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.ctl.UpdateJobPriority(ctx, &s3control.UpdateJobPriorityInput{AccountId: in.AccountId, JobId: out.JobId, Priority: 42}); err != nil {
			t.Fatal(err)
		}
		d, err := w.ctl.DescribeJob(ctx, &s3control.DescribeJobInput{AccountId: in.AccountId, JobId: out.JobId})
		if err != nil || d.Job.Priority != 42 {
			t.Errorf("DescribeJob priority %v, %v; want 42", d.Job.Priority, err)
		}
		if _, err := w.ctl.UpdateJobPriority(ctx, &s3control.UpdateJobPriorityInput{AccountId: in.AccountId, JobId: out.JobId, Priority: -1}); apiCode(err) != "BadRequestException" {
			t.Errorf("a negative priority = %v, want BadRequestException", err)
		}
		if _, err := w.ctl.UpdateJobStatus(ctx, &s3control.UpdateJobStatusInput{AccountId: in.AccountId, JobId: out.JobId, RequestedJobStatus: types.RequestedJobStatusCancelled}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.fake.Wait(ctx, *out.JobId); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a report bucket of another owner fails the job", func(t *testing.T) {
		in := w.input(t, "owner")
		in.Report = &types.JobReport{Enabled: true, Bucket: aws.String("arn:aws:s3:::" + w.dst), Format: types.JobReportFormatReportCsv20180820,
			ReportScope: types.JobReportScopeAllTasks, ExpectedBucketOwner: aws.String("111111111111")}
		out, err := w.ctl.CreateJob(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := w.fake.Wait(ctx, *out.JobId); err != nil || st != "Failed" {
			t.Errorf("job ended %s, %v; want Failed", st, err)
		}
	})
}

// copySources records the x-amz-copy-source header of every request.
type copySources struct {
	mu   sync.Mutex
	seen []string
}

func (c *copySources) RoundTrip(r *http.Request) (*http.Response, error) {
	if v := r.Header.Get("X-Amz-Copy-Source"); v != "" {
		c.mu.Lock()
		c.seen = append(c.seen, v)
		c.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestACopySourceIsEncodedAsS3BulkEncodesIt(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Start(t)
	rec := &copySources{}
	sdk := s3.New(srv.Client(t).Options(), func(o *s3.Options) { o.HTTPClient = &http.Client{Transport: rec} })
	w := &world{srv: srv, fake: fakecontrol.New(t, sdk, fakecontrol.Options{}), src: srv.NewBucket(t), dst: srv.NewBucket(t)}
	w.ctl = stockClient(t, w.fake, srv)
	const key = "a b+c"
	s3test.PutObject(t, sdk, w.src, key, []byte("x"))
	// Manifest keys are URL-encoded, a space as '+'.
	s3test.PutObject(t, sdk, w.dst, "m.csv", []byte(w.src+","+url.QueryEscape(key)+"\n"))
	out, err := w.ctl.CreateJob(ctx, w.input(t, "t1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.Wait(ctx, *out.JobId); err != nil {
		t.Fatal(err)
	}
	want := s3store.CopySource(w.src, key)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if diff := cmp.Diff([]string{want}, rec.seen); diff != "" {
		t.Errorf("copy source headers (-want +got):\n%s", diff)
	}
}
