package cli

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

// startUploads starts one multipart upload per key, as a killed process
// would leave them, and returns their IDs by key.
func startUploads(t *testing.T, srv *s3test.Server, bucket string, keys ...string) map[string]string {
	t.Helper()
	c := srv.Client(t)
	ids := map[string]string{}
	for _, k := range keys {
		out, err := c.CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(k)})
		if err != nil {
			t.Fatalf("create upload of %s: %v", k, err)
		}
		ids[k] = aws.ToString(out.UploadId)
	}
	return ids
}

// lines returns the non-empty lines of s, sorted: aborts run in parallel.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

func TestMPUListsAndAbortsUnfinishedUploads(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.MultipartUploadListing)
	ids := startUploads(t, srv, bucket, "keep/a.bin", "tmp/b.bin", "tmp/c d.bin")
	url := func(k string) string { return "s3://" + bucket + "/" + k }

	t.Run("ls prints one line per upload under the prefix", func(t *testing.T) {
		out := mustRun(t, srv, "mpu", "ls", "s3://"+bucket+"/tmp/")
		// "2006-01-02 15:04:05  ID  URL": the time is local and may be
		// the same for both, so lines are compared from the ID on.
		var got []string
		for _, l := range lines(out) {
			if len(l) < 21 || l[19:21] != "  " {
				t.Fatalf("line %q does not start with a date and time", l)
			}
			got = append(got, l[21:])
		}
		sort.Strings(got)
		want := []string{ids["tmp/b.bin"] + "  " + url("tmp/b.bin"), ids["tmp/c d.bin"] + "  " + url("tmp/c d.bin")}
		sort.Strings(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("output (-want +got):\n%s", diff)
		}
	})
	t.Run("ls --json prints the documented fields", func(t *testing.T) {
		out := mustRun(t, srv, "--json", "mpu", "ls", "s3://"+bucket+"/keep/")
		var rec map[string]any
		if err := json.Unmarshal([]byte(out), &rec); err != nil {
			t.Fatalf("not one JSON document: %v\n%s", err, out)
		}
		initiated, _ := rec["initiated"].(string)
		if ts, err := time.Parse(time.RFC3339, initiated); err != nil || time.Since(ts) > time.Hour {
			t.Errorf("initiated = %q: want a recent RFC 3339 time", initiated)
		}
		delete(rec, "initiated")
		want := map[string]any{"url": url("keep/a.bin"), "upload_id": ids["keep/a.bin"]}
		if diff := cmp.Diff(want, rec); diff != "" {
			t.Errorf("record (-want +got):\n%s", diff)
		}
	})
	t.Run("a wildcard selects among the uploads under its prefix", func(t *testing.T) {
		got := lines(mustRun(t, srv, "mpu", "ls", "s3://"+bucket+"/tmp/c*"))
		if len(got) != 1 || !strings.HasSuffix(got[0], url("tmp/c d.bin")) {
			t.Errorf("got %q, want the one upload of tmp/c d.bin", got)
		}
	})
	t.Run("abort --dry-run only says what it would abort", func(t *testing.T) {
		got := lines(mustRun(t, srv, "--dry-run", "mpu", "abort", "s3://"+bucket+"/tmp/"))
		want := []string{
			"DRY-RUN abort " + url("tmp/b.bin") + " " + ids["tmp/b.bin"],
			"DRY-RUN abort " + url("tmp/c d.bin") + " " + ids["tmp/c d.bin"],
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("output (-want +got):\n%s", diff)
		}
		if got := s3test.ListUploads(t, srv.Client(t), bucket); len(got) != 3 {
			t.Errorf("uploads after a dry run: %v; want all 3", got)
		}
	})
	t.Run("abort --older-than spares younger uploads", func(t *testing.T) {
		// Ages as the filters' --older-than takes them: weeks, fractions.
		for _, age := range []string{"1d", "2w", "1.5d", "12h1d"} {
			if out := mustRun(t, srv, "mpu", "abort", "--older-than", age, "s3://"+bucket+"/"); out != "" {
				t.Errorf("--older-than %s aborted uploads started seconds ago:\n%s", age, out)
			}
			if got := s3test.ListUploads(t, srv.Client(t), bucket); len(got) != 3 {
				t.Errorf("uploads left after --older-than %s: %v; want all 3", age, got)
			}
		}
	})
	t.Run("abort frees every upload under the prefix and no other", func(t *testing.T) {
		got := lines(mustRun(t, srv, "mpu", "abort", "--older-than", "1ns", "s3://"+bucket+"/tmp/"))
		want := []string{
			"abort " + url("tmp/b.bin") + " " + ids["tmp/b.bin"],
			"abort " + url("tmp/c d.bin") + " " + ids["tmp/c d.bin"],
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("output (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"keep/a.bin"}, s3test.ListUploads(t, srv.Client(t), bucket)); diff != "" {
			t.Errorf("uploads left (-want +got):\n%s", diff)
		}
	})
}

func TestMPUExitCodes(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.MultipartUploadListing)
	startUploads(t, srv, bucket, "x/1", "x/2", "y/3")
	// Every abort fails, once, as a server error: it is reported per
	// upload and the others go on.
	env := withEnv(srv, "AWS_MAX_ATTEMPTS=1")
	proxy := startFaultProxy(t, srv, faultproxy.Config{Seed: 11, InternalErrorRate: 1, Match: func(r *http.Request) bool {
		return r.Method == http.MethodDelete && r.URL.Query().Has("uploadId") && strings.Contains(r.URL.Path, "/x/")
	}})
	tests := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"a local path is a usage error", []string{"mpu", "ls", t.TempDir()}, ExitUsage, "s3://"},
		{"a bad age is a usage error", []string{"mpu", "abort", "--older-than", "soon", "s3://" + bucket + "/"}, ExitUsage, "older-than"},
		{"a bad age says what an age is", []string{"mpu", "abort", "--older-than", "-1d", "s3://" + bucket + "/"}, ExitUsage, `"-1d": want an age such as 90m, 24h, 7d, 2w, 1.5d or 1d12h`},
		{"a missing argument is a usage error", []string{"mpu", "abort"}, ExitUsage, "accepts 1 arg"},
		{"a missing bucket is fatal", []string{"mpu", "ls", "s3://" + missing(t, 148) + "/"}, ExitFatal, missing(t, 148)},
		{"failed aborts exit 1 and name each upload", []string{"--endpoint-url", proxy.URL(), "mpu", "abort", "s3://" + bucket + "/"}, ExitPartial, "ERROR abort s3://" + bucket + "/x/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, env, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			if !strings.Contains(errOut, tt.message) {
				t.Errorf("stderr %q does not mention %q", errOut, tt.message)
			}
			if tt.code == ExitPartial {
				if n := strings.Count(errOut, "ERROR abort"); n != 2 {
					t.Errorf("%d failures reported, want 2:\n%s", n, errOut)
				}
				if !strings.Contains(out, "abort s3://"+bucket+"/y/3 ") {
					t.Errorf("the abort that worked is not reported:\n%s", out)
				}
			}
		})
	}
	if diff := cmp.Diff([]string{"x/1", "x/2"}, s3test.ListUploads(t, srv.Client(t), bucket)); diff != "" {
		t.Errorf("uploads left (-want +got):\n%s", diff)
	}
}
