package batchops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func TestMain(m *testing.M) { s3test.Main(m) }

const testRole = "arn:aws:iam::123456789012:role/s3bulk-batch"

// env is one test's world: the real S3 server, two buckets, the fake
// control plane over that server, and a job client speaking to the fake.
type env struct {
	srv      *s3test.Server
	sdk      *s3.Client
	s3       *s3store.Client
	src, dst string
	fake     *fakecontrol.Server
	jobs     *Client
}

func newEnv(t *testing.T, fo fakecontrol.Options, co ClientOptions) *env {
	t.Helper()
	return newEnvOn(t, s3test.Start(t), fo, co)
}

// newEnvOn is newEnv on a server of the test's choosing.
func newEnvOn(t *testing.T, srv *s3test.Server, fo fakecontrol.Options, co ClientOptions) *env {
	t.Helper()
	e := &env{srv: srv, sdk: srv.Client(t), src: srv.NewBucket(t), dst: srv.NewBucket(t)}
	var err error
	e.s3, err = s3store.NewClient(context.Background(), s3store.Config{
		EndpointURL: srv.Endpoint, Region: srv.Region,
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
		ChecksumWhenRequired: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.fake = fakecontrol.New(t, e.sdk, fo)
	if co.ControlEndpoint == "" {
		co.ControlEndpoint = e.fake.URL
	}
	e.jobs, err = NewClient(e.awsConfig(), co)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) awsConfig() aws.Config {
	return aws.Config{
		Region:      e.srv.Region,
		Credentials: credentials.NewStaticCredentialsProvider(e.srv.AccessKey, e.srv.SecretKey, ""),
	}
}

func (e *env) put(t *testing.T, bucket string, objs map[string]string) {
	t.Helper()
	for k, v := range objs {
		s3test.PutObject(t, e.sdk, bucket, k, []byte(v))
	}
}

func (e *env) open(bucket string) (store.Store, error) { return e.s3.Bucket(bucket), nil }

// manifest lists the whole source bucket into the destination bucket.
func (e *env) manifest(t *testing.T, opts ManifestOptions) Manifest {
	t.Helper()
	if opts.Bucket == "" {
		opts.Bucket = e.src
	}
	m, err := PutManifest(context.Background(), e.s3.Bucket(e.src), opts, e.s3.Bucket(e.dst), e.dst, "_batch/manifest/test.csv", 0)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (e *env) spec(m Manifest) CopySpec {
	return CopySpec{
		Manifest: m, RoleArn: testRole,
		DestBucket: e.dst, DestPrefix: "copy/",
		Report:   ReportLocation{Enabled: true, Bucket: e.dst, Prefix: "_batch/report", Scope: ReportAllTasks},
		Priority: 10, Description: testDescription,
	}
}

const testDescription = "s3bulk test job"

// runJob creates the job of spec and waits for it to end.
func (e *env) runJob(t *testing.T, spec CopySpec) Job {
	t.Helper()
	id, err := e.jobs.Create(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	j, err := e.jobs.Wait(t.Context(), id, WaitOptions{Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func (e *env) report(t *testing.T, j Job) (ReportSummary, []TaskResult) {
	t.Helper()
	var rows []TaskResult
	sum, err := ReadReport(context.Background(), e.open, j.Report.Bucket, j.Report.Prefix, j.ID, func(r TaskResult) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(rows, func(i, k int) bool { return rows[i].Key < rows[k].Key })
	return sum, rows
}

func TestJobCopiesEveryObjectAndReports(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	objs := map[string]string{"1/100/file-01.json": `{"a":1}`, "1/100/file-02.json": `{"a":2}`, "2/200/file-01.json": `{"b":1}`}
	e.put(t, e.src, objs)

	m := e.manifest(t, ManifestOptions{})
	if m.Stats.Objects != 3 || m.ETag == "" {
		t.Fatalf("manifest = %+v, want 3 objects and an ETag", m)
	}
	id, err := e.jobs.Create(ctx, e.spec(m))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	j, err := e.jobs.Wait(ctx, id, WaitOptions{Interval: time.Millisecond, Progress: func(j Job) {
		if len(seen) == 0 || seen[len(seen)-1] != j.Status {
			seen = append(seen, j.Status)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != StatusComplete || j.Total != 3 || j.Succeeded != 3 || j.Failed != 0 {
		t.Errorf("job = %s %d/%d/%d, want Complete with 3 of 3 tasks succeeded", j.Status, j.Succeeded, j.Failed, j.Total)
	}
	if j.Terminated.IsZero() || j.Created.IsZero() || j.Report.Bucket != e.dst || j.Report.Prefix != "_batch/report" || j.Priority != 10 || j.Description != testDescription {
		t.Errorf("job = %+v, want creation and termination times, its report location, priority and description", j)
	}
	if seen[len(seen)-1] != StatusComplete {
		t.Errorf("progress saw %v, want it to end with Complete", seen)
	}
	want := []string{"New", "Preparing", "Ready", "Active", "Completing", "Complete"}
	if diff := cmp.Diff(want, e.fake.History(id)); diff != "" {
		t.Errorf("status history (-want +got):\n%s", diff)
	}
	for k, v := range objs {
		if got := string(s3test.GetObject(t, e.sdk, e.dst, "copy/"+k)); got != v {
			t.Errorf("copy/%s = %q, want %q", k, got, v)
		}
	}
	sum, rows := e.report(t, j)
	if sum.Succeeded != 3 || sum.Failed != 0 || sum.Files != 1 || sum.Created.IsZero() {
		t.Errorf("report summary = %+v, want 3 succeeded in one file", sum)
	}
	var keys []string
	for _, r := range rows {
		keys = append(keys, r.Key)
		if r.Bucket != e.src || r.Status != TaskSucceeded || r.HTTPStatus != 200 {
			t.Errorf("report row %+v, want a succeeded copy from %s", r, e.src)
		}
	}
	if diff := cmp.Diff([]string{"1/100/file-01.json", "1/100/file-02.json", "2/200/file-01.json"}, keys); diff != "" {
		t.Errorf("report keys (-want +got):\n%s", diff)
	}
}

func TestJobCopiesOddKeys(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.srv.Require(t, s3test.OddKeys)
	keys := []string{
		"a b/c  d.txt",
		"日本語/ファイル.txt",
		"x+y=z.txt",
		"100%/50%25.txt",
		"comma,key,.txt",
		"quote\"and'apostrophe.txt",
		"emoji 🎉/é.txt",
		"semi;colon&amp?.txt",
	}
	objs := map[string]string{}
	for i, k := range keys {
		objs[k] = fmt.Sprintf("body %d", i)
	}
	e.put(t, e.src, objs)
	m := e.manifest(t, ManifestOptions{})

	body := s3test.GetObject(t, e.sdk, e.dst, m.Key)
	for _, line := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		if strings.Count(line, ",") != 1 || strings.ContainsAny(line, " +\"") {
			t.Errorf("manifest line %q must be Bucket,Key with the key URL-encoded", line)
		}
	}
	j := e.runJob(t, e.spec(m))
	if j.Status != StatusComplete || j.Succeeded != int64(len(keys)) {
		t.Fatalf("job = %s with %d/%d succeeded (failures %v), want every task done", j.Status, j.Succeeded, j.Total, j.FailureReasons)
	}
	for k, v := range objs {
		if got := string(s3test.GetObject(t, e.sdk, e.dst, "copy/"+k)); got != v {
			t.Errorf("copy of %q = %q, want %q", k, got, v)
		}
	}
	_, rows := e.report(t, j)
	var got []string
	for _, r := range rows {
		got = append(got, r.Key)
	}
	want := slices.Clone(keys)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report keys decoded (-want +got):\n%s", diff)
	}
}

func TestJobWithFailedTasksReportsThem(t *testing.T) {
	ctx := context.Background()
	var e *env
	e = newEnv(t, fakecontrol.Options{
		// The source changes between listing and copying: two objects go.
		BeforeTask: func(_ string, task int) {
			if task == 0 {
				for _, k := range []string{"gone-1", "gone 2"} {
					if err := e.s3.Bucket(e.src).Delete(ctx, k); err != nil {
						t.Error(err)
					}
				}
			}
		},
	}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"gone 2": "x", "gone-1": "x", "kept": "x"})
	m := e.manifest(t, ManifestOptions{})
	spec := e.spec(m)
	spec.Report.Scope = ReportFailedTasks
	j := e.runJob(t, spec)
	if j.Status != StatusComplete || j.Succeeded != 1 || j.Failed != 2 {
		t.Errorf("job = %s %d succeeded, %d failed; want Complete with 1 and 2", j.Status, j.Succeeded, j.Failed)
	}
	sum, rows := e.report(t, j)
	if sum.Failed != 2 || sum.Succeeded != 0 {
		t.Errorf("report summary = %+v, want only the 2 failed tasks (FailedTasksOnly)", sum)
	}
	for i, k := range []string{"gone 2", "gone-1"} {
		if i >= len(rows) {
			break
		}
		r := rows[i]
		if r.Key != k || r.Status != TaskFailed || r.HTTPStatus != 404 || r.ErrorCode != "NoSuchKey" {
			t.Errorf("report row %+v, want %q failed with 404 NoSuchKey", r, k)
		}
	}
	if sum.Errors["NoSuchKey"] != 2 {
		t.Errorf("errors by code = %v, want 2 NoSuchKey", sum.Errors)
	}
}

func TestJobCancelledWhileActive(t *testing.T) {
	ctx := context.Background()
	reached := make(chan struct{})
	proceed := make(chan struct{})
	e := newEnv(t, fakecontrol.Options{
		BeforeTask: func(_ string, task int) {
			if task == 1 {
				close(reached)
				<-proceed
			}
		},
	}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1", "b": "2", "c": "3"})
	id, err := e.jobs.Create(ctx, e.spec(e.manifest(t, ManifestOptions{})))
	if err != nil {
		t.Fatal(err)
	}
	<-reached
	status, err := e.jobs.Cancel(ctx, id, "test cancels")
	close(proceed)
	if err != nil {
		t.Fatal(err)
	}
	if status != StatusCancelling {
		t.Errorf("cancel moved the job to %s, want Cancelling while its task finishes", status)
	}
	j, err := e.jobs.Wait(ctx, id, WaitOptions{Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != StatusCancelled || j.Succeeded != 1 || j.StatusReason != "test cancels" {
		t.Errorf("job = %s with %d succeeded, reason %q; want Cancelled after 1 task, with the reason", j.Status, j.Succeeded, j.StatusReason)
	}
	want := []string{"New", "Preparing", "Ready", "Active", "Cancelling", "Cancelled"}
	if diff := cmp.Diff(want, e.fake.History(id)); diff != "" {
		t.Errorf("status history (-want +got):\n%s", diff)
	}
	sum, _ := e.report(t, j)
	if sum.Succeeded != 1 {
		t.Errorf("report of the cancelled job = %+v, want the 1 task that ran", sum)
	}
	if _, err := e.jobs.Cancel(ctx, id, ""); err == nil {
		t.Error("cancelling a cancelled job succeeded, want JobStatusException")
	}
}

func TestJobFailsWhenTheManifestChanged(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1"})
	m := e.manifest(t, ManifestOptions{})
	// Someone rewrites the manifest after s3bulk read its ETag.
	s3test.PutObject(t, e.sdk, e.dst, m.Key, []byte(e.src+",other\n"))
	j := e.runJob(t, e.spec(m))
	if j.Status != StatusFailed || len(j.FailureReasons) != 1 || !strings.HasPrefix(j.FailureReasons[0], "ManifestETagMismatch") {
		t.Errorf("job = %s, reasons %q; want Failed with ManifestETagMismatch", j.Status, j.FailureReasons)
	}
}

func TestCreateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1"})
	spec := e.spec(e.manifest(t, ManifestOptions{}))
	id1, err := e.jobs.Create(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	id2, err := e.jobs.Create(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 {
		t.Errorf("the same spec created jobs %s and %s, want one job", id1, id2)
	}
	spec.DestPrefix = "elsewhere/"
	id3, err := e.jobs.Create(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if id3 == id1 {
		t.Error("a different destination reused the first job")
	}
	if _, err := e.fake.Wait(ctx, id1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fake.Wait(ctx, id3); err != nil {
		t.Fatal(err)
	}
}

func TestAccountIDComesFromSTS(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{AccountID: "210987654321"}, ClientOptions{})
	jobs, err := NewClient(e.awsConfig(), ClientOptions{ControlEndpoint: e.fake.URL, STSEndpoint: e.fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := jobs.AccountID(ctx)
	if err != nil || acct != "210987654321" {
		t.Errorf("AccountID = %q, %v; want the fake's 210987654321", acct, err)
	}
	wrong, err := NewClient(e.awsConfig(), ClientOptions{ControlEndpoint: e.fake.URL, AccountID: "111111111111"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.Describe(ctx, "nope"); err == nil {
		t.Error("Describe with another account succeeded, want AccessDenied")
	}
}

func TestListJobsFollowsPages(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakecontrol.Options{ListPageSize: 1}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"a": "1"})
	spec := e.spec(e.manifest(t, ManifestOptions{}))
	var ids []string
	for _, p := range []string{"x/", "y/", "z/"} {
		spec.DestPrefix = p
		id, err := e.jobs.Create(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.fake.Wait(ctx, id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var got []string
	err := e.jobs.List(ctx, []string{StatusComplete}, func(s JobSummary) error {
		got = append(got, s.ID)
		if s.Operation != "S3PutObjectCopy" || s.Total != 1 || s.Succeeded != 1 {
			t.Errorf("job summary %+v, want a finished copy job of one task", s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(ids) // newest first
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("listed jobs (-want +got):\n%s", diff)
	}
	got = nil
	if err := e.jobs.List(ctx, []string{StatusActive}, func(s JobSummary) error { got = append(got, s.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("Active jobs = %v, want none", got)
	}
}

func TestDescribeUnknownJob(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	_, err := e.jobs.Describe(context.Background(), "00000000-0000-0000-0000-000000000000")
	if err == nil || !strings.Contains(err.Error(), "NotFoundException") {
		t.Errorf("Describe = %v, want NotFoundException", err)
	}
}

func TestOversizeObjectsAreRoutedOutOfTheManifest(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	e.put(t, e.src, map[string]string{"small-1": "12345", "big": strings.Repeat("x", 2000), "small-2": "1"})
	var routed []store.Object
	m := e.manifest(t, ManifestOptions{MaxSize: 1000, Route: func(o store.Object, _ string) error {
		routed = append(routed, o)
		return nil
	}})
	if len(routed) != 1 || routed[0].Key != "big" || routed[0].Size != 2000 {
		t.Errorf("routed %+v, want only big (2000 bytes)", routed)
	}
	if m.Stats != (ManifestStats{Objects: 2, Bytes: 6, Oversize: 1, OversizeBytes: 2000}) {
		t.Errorf("stats = %+v", m.Stats)
	}
	j := e.runJob(t, e.spec(m))
	if j.Total != 2 || j.Succeeded != 2 {
		t.Errorf("job ran %d of %d tasks, want the 2 small objects", j.Succeeded, j.Total)
	}
	if got := s3test.ListKeys(t, e.sdk, e.dst, "copy/"); !slices.Equal(got, []string{"copy/small-1", "copy/small-2"}) {
		t.Errorf("destination = %v, want only the small objects", got)
	}
}

func TestPutManifestOfNothingFails(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	_, err := PutManifest(context.Background(), e.s3.Bucket(e.src), ManifestOptions{Bucket: e.src}, e.s3.Bucket(e.dst), e.dst, "m.csv", 0)
	if !errors.Is(err, ErrNothingToCopy) {
		t.Errorf("PutManifest of an empty bucket = %v, want ErrNothingToCopy", err)
	}
	if keys := s3test.ListKeys(t, e.sdk, e.dst, ""); len(keys) != 0 {
		t.Errorf("destination holds %v, want no manifest left behind", keys)
	}
}

// generated lists n keys without holding them: the listing side of a
// bucket of millions, to measure what the manifest writer itself keeps.
type generated struct {
	n       int
	every   int
	observe func(i int)
}

func (g generated) List(ctx context.Context, prefix, _ string, fn func(store.Object) error) error {
	for i := range g.n {
		if g.observe != nil && i%g.every == 0 {
			g.observe(i)
		}
		k := fmt.Sprintf("%scompany-%03d/user-%06d/file-%02d-with-a-long-enough-name.json", prefix, i%13, i/4, i%4)
		if err := fn(store.Object{Key: k, Size: 100 << 10}); err != nil {
			return err
		}
	}
	return nil
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestPutManifestStreamsWithFlatMemory writes a manifest of 250,000 lines
// (~22 MB, several parts) and checks that the heap never grows by more than
// a part buffer and change while it does.
func TestPutManifestStreamsWithFlatMemory(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	const n = 250_000
	base := heapInUse()
	var peak uint64
	src := generated{n: n, every: 25_000, observe: func(int) {
		if h := heapInUse(); h > peak {
			peak = h
		}
	}}
	m, err := PutManifest(context.Background(), src, ManifestOptions{Bucket: e.src}, e.s3.Bucket(e.dst), e.dst, "big.csv", minPartSize)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := e.s3.Bucket(e.dst).Head(context.Background(), "big.csv")
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats.Objects != n || obj.Size < 20<<20 {
		t.Fatalf("manifest of %d lines, %d bytes; want %d lines over 20 MiB", m.Stats.Objects, obj.Size, n)
	}
	if !strings.Contains(m.ETag, "-") && e.srv.Has(t, s3test.MultipartETag) {
		t.Errorf("manifest ETag %q is not a multipart ETag: it was not streamed in parts", m.ETag)
	}
	growth := int64(peak) - int64(base)
	const limit = 3 * minPartSize // the part buffer, the SDK's request, slack
	t.Logf("heap grew by %.1f MiB while writing a %.1f MiB manifest", float64(growth)/(1<<20), float64(obj.Size)/(1<<20))
	if growth > limit {
		t.Errorf("heap grew by %d bytes for a %d-byte manifest, want under %d: the manifest is being held in memory", growth, obj.Size, limit)
	}
	// Spot-check the streamed content: the last line is the last key.
	rc, err := e.s3.Bucket(e.dst).Get(context.Background(), "big.csv", obj.Size-200, -1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var tail bytes.Buffer
	tail.ReadFrom(rc)
	want := fmt.Sprintf("%s,company-%03d/user-%06d/file-%02d-with-a-long-enough-name.json\n", e.src, (n-1)%13, (n-1)/4, (n-1)%4)
	if !strings.HasSuffix(tail.String(), want) {
		t.Errorf("manifest ends %q, want %q", tail.String(), want)
	}
}

func TestPutManifestAbortsTheUploadWhenTheListingFails(t *testing.T) {
	e := newEnv(t, fakecontrol.Options{}, ClientOptions{AccountID: "123456789012"})
	boom := errors.New("listing broke")
	src := generated{n: 200_000, every: 150_000, observe: func(i int) {}}
	failing := listerFunc(func(ctx context.Context, prefix, d string, fn func(store.Object) error) error {
		return src.List(ctx, prefix, d, func(o store.Object) error {
			if strings.Contains(o.Key, "user-037500/") { // after more than one part
				return boom
			}
			return fn(o)
		})
	})
	_, err := PutManifest(context.Background(), failing, ManifestOptions{Bucket: e.src}, e.s3.Bucket(e.dst), e.dst, "broken.csv", minPartSize)
	if !errors.Is(err, boom) {
		t.Fatalf("PutManifest = %v, want the listing's error", err)
	}
	if up := s3test.ListUploads(t, e.sdk, e.dst); len(up) != 0 {
		t.Errorf("multipart uploads left behind: %v", up)
	}
	if keys := s3test.ListKeys(t, e.sdk, e.dst, ""); len(keys) != 0 {
		t.Errorf("objects left behind: %v", keys)
	}
}

// TestRealBatchOperations runs one small job on AWS itself. It needs a role
// Batch Operations can assume and real S3: S3BULK_TEST_BATCH_ROLE_ARN, and
// S3BULK_TEST_ENDPOINT pointing at an AWS S3 endpoint with AWS credentials
// in the environment.
func TestRealBatchOperations(t *testing.T) {
	role := os.Getenv("S3BULK_TEST_BATCH_ROLE_ARN")
	endpoint := os.Getenv(s3test.EndpointEnv)
	if role == "" || !strings.Contains(endpoint, "amazonaws.com") {
		t.Skip("needs real AWS: set S3BULK_TEST_BATCH_ROLE_ARN and S3BULK_TEST_ENDPOINT to an amazonaws.com S3 endpoint (the fake control plane covers everything else)")
	}
	ctx := context.Background()
	srv := s3test.Start(t)
	sdk := srv.Client(t)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	s3c, err := s3store.NewClient(ctx, s3store.Config{EndpointURL: srv.Endpoint, Region: srv.Region, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		s3test.PutObject(t, sdk, src, fmt.Sprintf("real test/%d+%d.txt", i, i), []byte("x"))
	}
	m, err := PutManifest(ctx, s3c.Bucket(src), ManifestOptions{Bucket: src}, s3c.Bucket(dst), dst, "_batch/manifest/real.csv", 0)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := NewClient(aws.Config{Region: srv.Region, Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, "")}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := jobs.Create(ctx, CopySpec{
		Manifest: m, RoleArn: role, DestBucket: dst, DestPrefix: "copy/", Priority: 10,
		Report: ReportLocation{Enabled: true, Bucket: dst, Prefix: "_batch/report", Scope: ReportAllTasks},
	})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	j, err := jobs.Wait(wctx, id, WaitOptions{Interval: 5 * time.Second, Progress: func(j Job) { t.Logf("%s %d/%d", j.Status, j.Succeeded, j.Total) }})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != StatusComplete || j.Succeeded != 3 {
		t.Fatalf("job = %+v, want Complete with 3 tasks", j)
	}
	sum, err := ReadReport(ctx, func(b string) (store.Store, error) { return s3c.Bucket(b), nil }, j.Report.Bucket, j.Report.Prefix, id, nil)
	if err != nil || sum.Succeeded != 3 {
		t.Fatalf("report = %+v, %v; want 3 succeeded", sum, err)
	}
	t.Logf("real job %s: active %s, wall %s", id, j.Active, j.Terminated.Sub(j.Created))
}
