package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

var updateBatchGolden = flag.Bool("update-batch", false, "rewrite the batch golden files")

const batchRole = "arn:aws:iam::123456789012:role/s3bulk-batch"

// batchEnv runs the CLI in-process against the real S3 server and the fake
// S3 Control plane.
type batchEnv struct {
	srv      *s3test.Server
	sdk      *s3.Client
	fake     *fakecontrol.Server
	src, dst string
}

// newBatchEnvLosing is newBatchEnv whose first job finds keys deleted from
// the source before its first task.
func newBatchEnvLosing(t *testing.T, keys ...string) *batchEnv {
	t.Helper()
	var e *batchEnv
	var once sync.Once
	e = newBatchEnv(t, fakecontrol.Options{BeforeTask: func(_ string, task int) {
		if task == 0 {
			once.Do(func() {
				for _, k := range keys {
					if _, err := e.sdk.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &e.src, Key: ptr(k)}); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}})
	return e
}

func newBatchEnv(t *testing.T, fo fakecontrol.Options) *batchEnv {
	t.Helper()
	srv := s3test.Start(t)
	sdk := srv.Client(t)
	return &batchEnv{srv: srv, sdk: sdk, fake: fakecontrol.New(t, sdk, fo), src: srv.NewBucket(t), dst: srv.NewBucket(t)}
}

type runResult struct {
	code     int
	out, err string
}

func (e *batchEnv) run(ctx context.Context, args ...string) runResult {
	var out, errb bytes.Buffer
	all := append([]string{
		"--endpoint-url", e.srv.Endpoint, "--region", e.srv.Region, "--checksum-when-required",
	}, args...)
	if slices.Contains(args, "batch") {
		all = append(all, "--control-endpoint-url", e.fake.URL, "--account-id", e.fake.AccountID(), "--poll-interval", "1ms")
	}
	code := Run(ctx, all, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, Env: e.srv.Env()})
	return runResult{code, out.String(), errb.String()}
}

func (e *batchEnv) seed(t *testing.T, objs map[string]string) {
	t.Helper()
	for k, v := range objs {
		s3test.PutObject(t, e.sdk, e.src, k, []byte(v))
	}
}

var jobLine = regexp.MustCompile(`(?m)^job (\S+)$`)

func jobID(t *testing.T, out string) string {
	t.Helper()
	m := jobLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no job id in stdout %q", out)
	}
	return m[1]
}

func TestBatchCpWaitCopiesEveryObject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.srv.Require(t, s3test.OddKeys)
	objs := map[string]string{"1/100/file-01.json": "a", "1/100/file 02+x.json": "b", "2/日本.json": "c"}
	e.seed(t, objs)

	r := e.run(ctx, "batch", "cp", "s3://"+e.src, "s3://"+e.dst+"/copy", "--role-arn", batchRole, "--wait")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	id := jobID(t, r.out)
	for k, v := range objs {
		if got := string(s3test.GetObject(t, e.sdk, e.dst, "copy/"+k)); got != v {
			t.Errorf("copy/%s = %q, want %q", k, got, v)
		}
	}
	for _, want := range []string{
		"plan: 3 objects (3 B) for the job, manifest s3://" + e.dst + "/_batch/manifest/",
		"job " + id + ": Complete, 3 of 3 tasks succeeded, 0 failed",
	} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}
	if diff := cmp.Diff([]string{"New", "Preparing", "Ready", "Active", "Completing", "Complete"}, e.fake.History(id)); diff != "" {
		t.Errorf("job history (-want +got):\n%s", diff)
	}
	// The manifest and the report stay under _batch/, outside the copy.
	keys := s3test.ListKeys(t, e.sdk, e.dst, "_batch/report/job-"+id+"/")
	if !slices.Contains(keys, "_batch/report/job-"+id+"/manifest.json") {
		t.Errorf("report keys %v lack manifest.json", keys)
	}

	// status and report read the same job back.
	st := e.run(ctx, "batch", "status", id)
	if st.code != ExitOK || !strings.Contains(st.out, "status:      Complete") || !strings.Contains(st.out, "tasks:       3 succeeded, 0 failed, 3 total") {
		t.Errorf("batch status: exit %d\n%s%s", st.code, st.out, st.err)
	}
	rep := e.run(ctx, "batch", "report", id)
	if rep.code != ExitOK || strings.Contains(rep.err, "ERROR") {
		t.Errorf("batch report: exit %d\n%s", rep.code, rep.err)
	}
	ls := e.run(ctx, "batch", "ls")
	if ls.code != ExitOK || !strings.Contains(ls.out, id) {
		t.Errorf("batch ls: exit %d, want job %s listed:\n%s%s", ls.code, id, ls.out, ls.err)
	}
}

func TestBatchCpWithFailedTasksExits1AndPrintsThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var e *batchEnv
	e = newBatchEnv(t, fakecontrol.Options{BeforeTask: func(_ string, task int) {
		if task == 0 { // the source changes after the listing
			if _, err := e.sdk.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &e.src, Key: ptr("gone, really.json")}); err != nil {
				t.Error(err)
			}
		}
	}})
	e.seed(t, map[string]string{"gone, really.json": "x", "kept.json": "y"})
	r := e.run(ctx, "batch", "cp", "s3://"+e.src+"/", "s3://"+e.dst+"/", "--role-arn", batchRole, "--wait")
	if r.code != ExitPartial {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitPartial, r.err)
	}
	want := "ERROR copy s3://" + e.src + "/gone, really.json: NoSuchKey (404):"
	if !strings.Contains(r.err, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.err)
	}
	if !strings.Contains(r.err, "1 of 2 tasks succeeded, 1 failed") {
		t.Errorf("stderr lacks the job summary:\n%s", r.err)
	}
	if got := string(s3test.GetObject(t, e.sdk, e.dst, "kept.json")); got != "y" {
		t.Errorf("kept.json = %q", got)
	}
	// report says the same later, as JSON lines too.
	rep := e.run(ctx, "--json", "batch", "report", jobID(t, r.out))
	if rep.code != ExitPartial || !strings.Contains(rep.out, `"src":"s3://`+e.src+`/gone, really.json"`) || !strings.Contains(rep.out, `"error_code":"NoSuchKey"`) {
		t.Errorf("batch report --json: exit %d\n%s%s", rep.code, rep.out, rep.err)
	}
}

func TestBatchCpRoutesOversizeObjects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	big := strings.Repeat("x", 3000)
	e.seed(t, map[string]string{"a/small.json": "s", "a/big.bin": big})

	t.Run("to a local multipart copy by default", func(t *testing.T) {
		r := e.run(ctx, "batch", "cp", "s3://"+e.src, "s3://"+e.dst+"/local/", "--role-arn", batchRole, "--wait", "--max-object-size", "1KiB")
		if r.code != ExitOK {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
		}
		if !strings.Contains(r.err, "plan: 1 objects (2.9 KiB) are over 1.0 KiB, which a job cannot copy: copied from this machine with multipart copy") {
			t.Errorf("the plan does not say up front where the big object goes:\n%s", r.err)
		}
		if planAt, jobAt := strings.Index(r.err, "plan: 1 objects"), strings.Index(r.err, "job "); planAt < 0 || jobAt < planAt {
			t.Errorf("the plan must come before the job's progress:\n%s", r.err)
		}
		if got := string(s3test.GetObject(t, e.sdk, e.dst, "local/a/big.bin")); got != big {
			t.Errorf("local/a/big.bin holds %d bytes, want %d", len(got), len(big))
		}
		if got := string(s3test.GetObject(t, e.sdk, e.dst, "local/a/small.json")); got != "s" {
			t.Errorf("local/a/small.json = %q", got)
		}
		if !strings.Contains(r.err, "1 of 1 tasks succeeded") {
			t.Errorf("the job should hold only the small object:\n%s", r.err)
		}
	})
	t.Run("to the excluded list with --no-local-fallback", func(t *testing.T) {
		r := e.run(ctx, "batch", "cp", "s3://"+e.src, "s3://"+e.dst+"/excl/", "--role-arn", batchRole, "--wait", "--max-object-size", "1KiB", "--no-local-fallback")
		if r.code != ExitPartial {
			t.Fatalf("exit %d, want %d (an object was left out); stderr:\n%s", r.code, ExitPartial, r.err)
		}
		if !strings.Contains(r.err, "EXCLUDED (--no-local-fallback)") || !strings.Contains(r.err, "EXCLUDED s3://"+e.src+"/a/big.bin (2.9 KiB)") {
			t.Errorf("stderr does not list the excluded object:\n%s", r.err)
		}
		if keys := s3test.ListKeys(t, e.sdk, e.dst, "excl/"); !slices.Equal(keys, []string{"excl/a/small.json"}) {
			t.Errorf("destination = %v, want only the small object", keys)
		}
	})
}

func TestBatchCancelStopsAJobMidway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reached, proceed := make(chan struct{}), make(chan struct{})
	e := newBatchEnv(t, fakecontrol.Options{BeforeTask: func(_ string, task int) {
		if task == 1 {
			close(reached)
			<-proceed
		}
	}})
	e.seed(t, map[string]string{"a": "1", "b": "2", "c": "3"})
	r := e.run(ctx, "batch", "cp", "s3://"+e.src, "s3://"+e.dst, "--role-arn", batchRole)
	if r.code != ExitOK {
		t.Fatalf("batch cp without --wait: exit %d\n%s", r.code, r.err)
	}
	id := jobID(t, r.out)
	<-reached
	c := e.run(ctx, "batch", "cancel", id)
	close(proceed)
	if c.code != ExitOK || c.out != "job "+id+": Cancelling\n" {
		t.Errorf("batch cancel: exit %d, out %q, err %q", c.code, c.out, c.err)
	}
	st := e.run(ctx, "batch", "status", "--wait", id)
	if st.code != ExitOK || !strings.Contains(st.out, "status:      Cancelled") || !strings.Contains(st.out, "reason:      cancelled with s3bulk batch cancel") {
		t.Errorf("batch status --wait: exit %d\n%s%s", st.code, st.out, st.err)
	}
	rep := e.run(ctx, "batch", "report", id)
	if rep.code != ExitPartial || !strings.Contains(rep.err, "Cancelled, 1 of 3 tasks succeeded") {
		t.Errorf("report of a cancelled job: exit %d, want %d\n%s", rep.code, ExitPartial, rep.err)
	}
}

func TestBatchCpInterruptedWhileWaitingLeavesTheJobRunning(t *testing.T) {
	t.Parallel()
	reached, proceed := make(chan struct{}), make(chan struct{})
	e := newBatchEnv(t, fakecontrol.Options{BeforeTask: func(_ string, task int) {
		if task == 0 {
			close(reached)
			<-proceed
		}
	}})
	e.seed(t, map[string]string{"a": "1"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan runResult)
	go func() {
		done <- e.run(ctx, "batch", "cp", "s3://"+e.src, "s3://"+e.dst, "--role-arn", batchRole, "--wait")
	}()
	select {
	case <-reached:
	case r := <-done: // the job never ran a task: fail rather than hang
		cancel()
		t.Fatalf("batch cp ended before its job ran a task: exit %d\n%s", r.code, r.err)
	}
	cancel() // Ctrl-C
	r := <-done
	close(proceed)
	if r.code != ExitInterrupted {
		t.Errorf("exit %d, want %d", r.code, ExitInterrupted)
	}
	id := jobID(t, r.out)
	if !strings.Contains(r.err, "the job goes on without this command: s3bulk batch status "+id) {
		t.Errorf("stderr does not say the job goes on:\n%s", r.err)
	}
	st, err := e.fake.Wait(context.Background(), id)
	if err != nil || st != "Complete" {
		t.Errorf("job ended %s, %v; want Complete: an interrupted watch must not cancel the job", st, err)
	}
}

func TestBatchCpDryRunTouchesNothing(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.seed(t, map[string]string{"x/1": "1", "x/2": "2", "y/3": "3"})
	r := e.run(context.Background(), "--dry-run", "batch", "cp", "s3://"+e.src+"/x/*", "s3://"+e.dst)
	if r.code != ExitOK || !strings.Contains(r.err, "plan: 2 objects (2 B) for the job, manifest (dry run: not written)") {
		t.Errorf("exit %d\n%s", r.code, r.err)
	}
	if !strings.Contains(r.err, "note: a job keeps whole source keys") {
		t.Errorf("a wildcard below a prefix should warn about job naming:\n%s", r.err)
	}
	if keys := s3test.ListKeys(t, e.sdk, e.dst, ""); len(keys) != 0 {
		t.Errorf("dry run wrote %v", keys)
	}
}

func TestBatchUsageErrors(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, fakecontrol.Options{})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a local source is refused", []string{"batch", "cp", "./dir", "s3://" + e.dst, "--role-arn", batchRole}, "both ends must be s3:// URLs"},
		{"a missing role is refused before anything is listed", []string{"batch", "cp", "s3://" + e.src, "s3://" + e.dst}, "--role-arn is required"},
		{"an unknown report scope is refused", []string{"batch", "cp", "s3://" + e.src, "s3://" + e.dst, "--role-arn", batchRole, "--report-scope", "some"}, "want all or failed"},
		{"an unknown --version-ids is refused", []string{"batch", "cp", "s3://" + e.src, "s3://" + e.dst, "--role-arn", batchRole, "--version-ids", "some"}, "want auto, on or off"},
		{"--version-ids with a manifest S3 writes is refused", []string{"batch", "cp", "s3://" + e.src, "s3://" + e.dst, "--role-arn", batchRole, "--manifest-generator", "--version-ids", "on"}, "S3 writes that manifest itself"},
		{"versions of a bucket that keeps none are refused", []string{"batch", "cp", "s3://" + e.src, "s3://" + e.dst, "--role-arn", batchRole, "--version-ids", "on"}, "keeps no versions"},
		{"status needs a job id", []string{"batch", "status"}, "accepts 1 arg"},
		{"an unknown verb is a usage error", []string{"batch", "frobnicate"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.run(context.Background(), tt.args...)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.err, ExitUsage, tt.want)
			}
		})
	}
}

func TestBatchStatusOfAnUnknownJobIsFatal(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, fakecontrol.Options{})
	r := e.run(context.Background(), "batch", "status", "00000000-0000-0000-0000-000000000000")
	if r.code != ExitFatal || !strings.Contains(r.err, "NotFoundException") {
		t.Errorf("exit %d, stderr %q; want %d and NotFoundException", r.code, r.err, ExitFatal)
	}
}

func TestBatchPolicyGolden(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"batch", "policy", "s3://src-bucket/1/", "s3://dst-bucket/copy/",
		"--report", "s3://logs-bucket/batch", "--role-arn", batchRole}, Stdio{Out: &out, Err: &errb, Env: []string{}})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// The golden files of batch live with the package that writes the
	// policies.
	path := filepath.Join("..", "batchops", "testdata", "cli-policy.golden.txt")
	if *updateBatchGolden {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update-batch to create it)", err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("batch policy output (-want +got):\n%s", diff)
	}
	for _, w := range []string{`"Service": "batchoperations.s3.amazonaws.com"`, `"arn:aws:s3:::src-bucket/1/*"`, `"arn:aws:s3:::dst-bucket/copy/*"`, `"arn:aws:s3:::logs-bucket/batch/*"`, `"arn:aws:s3:::dst-bucket/_batch/manifest/*"`} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("policy lacks %s", w)
		}
	}
}

// TestBatchCpRefusesWhatS3ControlWouldBeforeUploading checks each of
// CreateJob's limits before the listing: nothing is written.
func TestBatchCpRefusesWhatS3ControlWouldBeforeUploading(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.seed(t, map[string]string{"a": "1"})
	src, dst := "s3://"+e.src, "s3://"+e.dst
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a negative priority", []string{"--role-arn", batchRole, "--priority", "-1"}, "priority -1"},
		{"reduced redundancy", []string{"--role-arn", batchRole, "--storage-class", "REDUCED_REDUNDANCY"}, `storage class "REDUCED_REDUNDANCY"`},
		{"a role ARN of a short account id", []string{"--role-arn", "arn:aws:iam::1234:role/r"}, "role ARN"},
		{"a description of 257 characters", []string{"--role-arn", batchRole, "--description", strings.Repeat("d", 257)}, "at most 256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.run(context.Background(), append([]string{"batch", "cp", src, dst}, tt.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.err, ExitUsage, tt.want)
			}
			if keys := s3test.ListKeys(t, e.sdk, e.dst, ""); len(keys) != 0 {
				t.Errorf("wrote %v", keys)
			}
		})
	}
}

func TestBatchCpWhoseJobIsRefusedLeavesNoManifest(t *testing.T) {
	t.Parallel()
	// The destination is in another region than the control plane's.
	e := newBatchEnv(t, fakecontrol.Options{BucketRegion: func(string) string { return "eu-west-1" }})
	e.seed(t, map[string]string{"a": "1"})
	r := e.run(context.Background(), "batch", "cp", "s3://"+e.src, "s3://"+e.dst, "--role-arn", batchRole)
	if r.code != ExitFatal || !strings.Contains(r.err, "BadRequestException") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	if keys := s3test.ListKeys(t, e.sdk, e.dst, "_batch/"); len(keys) != 0 {
		t.Errorf("left behind %v", keys)
	}
}

func TestBatchCpCutsALongDefaultDescription(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.seed(t, map[string]string{"a": "1"})
	long := strings.Repeat(strings.Repeat("p", 50)+"/", 6) // 306 characters
	r := e.run(context.Background(), "batch", "cp", "s3://"+e.src, "s3://"+e.dst+"/"+long, "--role-arn", batchRole, "--wait")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	st := e.run(context.Background(), "batch", "status", jobID(t, r.out))
	if !strings.Contains(st.out, "description: s3bulk cp s3://"+e.src+" ") || !strings.Contains(st.out, "...\n") {
		t.Errorf("batch status:\n%s", st.out)
	}
}

func TestBatchCpWaitsForAJobNotVisibleYet(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, fakecontrol.Options{InvisibleFor: 300 * time.Millisecond})
	e.seed(t, map[string]string{"a": "1"})
	r := e.run(context.Background(), "batch", "cp", "s3://"+e.src, "s3://"+e.dst+"/c/", "--role-arn", batchRole, "--wait")
	if r.code != ExitOK || !strings.Contains(r.err, "Complete, 1 of 1 tasks succeeded") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.err)
	}
}

func TestBatchCpWithTheManifestGenerator(t *testing.T) {
	t.Parallel()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.seed(t, map[string]string{"logs/a.json": "1", "logs/b.txt": "2", "logs/big.json": "12345", "top.json": "3"})
	r := e.run(context.Background(), "batch", "cp", "s3://"+e.src+"/logs/", "s3://"+e.dst+"/g/", "--role-arn", batchRole,
		"--manifest-generator", "--suffix", ".json", "--max-object-size", "4", "--wait")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	if !strings.Contains(r.err, "plan: S3 lists s3://"+e.src+"/logs/ itself (manifest generator); objects over 4 B are left out") {
		t.Errorf("stderr does not give the plan:\n%s", r.err)
	}
	if diff := cmp.Diff([]string{"g/logs/a.json"}, s3test.ListKeys(t, e.sdk, e.dst, "g/")); diff != "" {
		t.Errorf("copied (-want +got):\n%s", diff)
	}
	if keys := s3test.ListKeys(t, e.sdk, e.dst, "_batch/manifest/"); len(keys) != 0 {
		t.Errorf("a manifest was written here: %v", keys)
	}
	for _, tt := range []struct {
		name, want string
		args       []string
	}{
		{"a wildcard is refused", "not wildcards", []string{"s3://" + e.src + "/logs/*.json"}},
		{"S3's filters need the generator", "need --manifest-generator", []string{"s3://" + e.src, "--suffix", ".json"}},
		{"a report inside the source is refused", "lies inside the source", []string{"s3://" + e.dst}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"batch", "cp"}, tt.args[0], "s3://"+e.dst+"/x/", "--role-arn", batchRole)
			if tt.name != "S3's filters need the generator" {
				args = append(args, "--manifest-generator")
			}
			r := e.run(context.Background(), append(args, tt.args[1:]...)...)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.want) {
				t.Errorf("exit %d, stderr %q; want a usage error saying %q", r.code, r.err, tt.want)
			}
		})
	}
}

func TestBatchRetryCopiesTheFailedTasksAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Gone between the listing and the first job's copy.
	e := newBatchEnvLosing(t, "back soon.json")
	e.seed(t, map[string]string{"back soon.json": "x", "kept.json": "y"})
	first := e.run(ctx, "batch", "cp", "s3://"+e.src, "s3://"+e.dst+"/r/", "--role-arn", batchRole, "--wait")
	if first.code != ExitPartial {
		t.Fatalf("exit %d, stderr:\n%s", first.code, first.err)
	}
	s3test.PutObject(t, e.sdk, e.src, "back soon.json", []byte("x"))
	retry := e.run(ctx, "batch", "retry", jobID(t, first.out), "--wait")
	if retry.code != ExitOK {
		t.Fatalf("retry: exit %d, stderr:\n%s", retry.code, retry.err)
	}
	if !strings.Contains(retry.err, "plan: 1 failed objects of job "+jobID(t, first.out)) || !strings.Contains(retry.err, "Complete, 1 of 1 tasks succeeded") {
		t.Errorf("retry stderr:\n%s", retry.err)
	}
	if got := string(s3test.GetObject(t, e.sdk, e.dst, "r/back soon.json")); got != "x" {
		t.Errorf("r/back soon.json = %q after the retry", got)
	}
	again := e.run(ctx, "batch", "retry", jobID(t, retry.out))
	if again.code != ExitOK || !strings.Contains(again.err, "nothing to retry") {
		t.Errorf("retry of a clean job: exit %d, stderr %q", again.code, again.err)
	}
}

func TestBatchRetryWithTheLocalEngineCopiesTheFailedTasksFromHere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Gone between the listing and the job's copies.
	e := newBatchEnvLosing(t, "logs/a b.json", "logs/x/c.json")
	e.seed(t, map[string]string{"logs/a b.json": "a", "logs/x/c.json": "c", "logs/kept.json": "k"})
	first := e.run(ctx, "batch", "cp", "s3://"+e.src+"/logs/", "s3://"+e.dst+"/r/", "--role-arn", batchRole, "--wait")
	if first.code != ExitPartial {
		t.Fatalf("exit %d, stderr:\n%s", first.code, first.err)
	}
	id := jobID(t, first.out)
	if r := e.run(ctx, "batch", "retry", id, "--engine", "local"); r.code != ExitPartial || !strings.Contains(r.err, "ERROR") {
		t.Errorf("a local retry of objects still gone: exit %d, want %d; stderr:\n%s", r.code, ExitPartial, r.err)
	}
	s3test.PutObject(t, e.sdk, e.src, "logs/a b.json", []byte("a"))
	s3test.PutObject(t, e.sdk, e.src, "logs/x/c.json", []byte("c"))
	jobs := len(e.fake.History(id))
	r := e.run(ctx, "batch", "retry", id, "--engine", "local")
	if r.code != ExitOK || !strings.Contains(r.err, "plan: 2 failed objects of job "+id+", copied from this machine") {
		t.Fatalf("retry --engine local: exit %d, stderr:\n%s", r.code, r.err)
	}
	for k, v := range map[string]string{"r/logs/a b.json": "a", "r/logs/x/c.json": "c"} {
		if got := string(s3test.GetObject(t, e.sdk, e.dst, k)); got != v {
			t.Errorf("%s = %q after the local retry, want %q", k, got, v)
		}
	}
	if jobID := jobLine.FindStringSubmatch(r.out); jobID != nil || len(e.fake.History(id)) != jobs {
		t.Errorf("a local retry created a job: stdout %q", r.out)
	}
	if bad := e.run(ctx, "batch", "retry", id, "--engine", "auto"); bad.code != ExitUsage || !strings.Contains(bad.err, "want batchops or local") {
		t.Errorf("--engine auto: exit %d, stderr %q", bad.code, bad.err)
	}
}

func TestBatchConfirmRunPriorityAndTags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.seed(t, map[string]string{"a": "1"})
	r := e.run(ctx, "batch", "cp", "s3://"+e.src, "s3://"+e.dst+"/c/", "--role-arn", batchRole, "--confirm", "--tag", "team=data")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	id := jobID(t, r.out)
	if p := e.run(ctx, "batch", "priority", id, "77"); p.code != ExitOK || !strings.Contains(p.out, "priority 77") {
		t.Errorf("batch priority: exit %d\n%s%s", p.code, p.out, p.err)
	}
	if st := e.run(ctx, "batch", "status", id); !strings.Contains(st.out, "priority:    77") {
		t.Errorf("batch status after priority:\n%s", st.out)
	}
	if p := e.run(ctx, "batch", "priority", id, "-1"); p.code != ExitUsage {
		t.Errorf("a negative priority: exit %d", p.code)
	}
	run := e.run(ctx, "batch", "run", id, "--wait")
	if run.code != ExitOK || !strings.Contains(run.err, "Complete, 1 of 1 tasks succeeded") {
		t.Fatalf("batch run: exit %d, stderr:\n%s", run.code, run.err)
	}
	if !slices.Contains(e.fake.History(id), "Suspended") {
		t.Errorf("history %v: the job did not wait to be confirmed", e.fake.History(id))
	}
	for _, tt := range []struct {
		name, want string
		args       []string
	}{
		{"a bad tag is refused before anything is written", "tag key", []string{"--tag", "a*b=c"}},
		{"--confirm with --wait is refused", "--confirm and --wait", []string{"--confirm", "--wait"}},
		{"an expected owner that is not an account", "expected bucket owner", []string{"--expected-bucket-owner", "me"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.run(ctx, append([]string{"batch", "cp", "s3://" + e.src, "s3://" + e.dst + "/x/", "--role-arn", batchRole}, tt.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.err, tt.want) {
				t.Errorf("exit %d, stderr %q; want a usage error saying %q", r.code, r.err, tt.want)
			}
		})
	}
	t.Run("a report bucket of another owner fails the job", func(t *testing.T) {
		r := e.run(ctx, "batch", "cp", "s3://"+e.src, "s3://"+e.dst+"/o/", "--role-arn", batchRole, "--expected-bucket-owner", "111111111111", "--wait")
		if r.code != ExitFatal || !strings.Contains(r.err, "ReportWriteFailed") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.err)
		}
	})
}
