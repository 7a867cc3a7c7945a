package fakecontrol_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

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
	ctx := context.Background()
	w := newWorld(t, fakecontrol.Options{})
	out, err := w.ctl.CreateJob(ctx, w.input(t, "t1"))
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
	j := d.Job
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
