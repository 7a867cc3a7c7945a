package cli

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

func seedKeys(t *testing.T, srv *s3test.Server, bucket string, keys ...string) {
	t.Helper()
	c := srv.Client(t)
	for _, k := range keys {
		s3test.PutObject(t, c, bucket, k, []byte("body of "+k))
	}
}

func TestRm(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	all := []string{"logs/a.json", "logs/b.txt", "logs/sub/c.json", "logs2/d.json", "top.json", "with space.json"}
	tests := []struct {
		name string
		args []string
		left []string
	}{
		{"one key deletes one object", []string{"rm", "top.json"}, []string{"logs/a.json", "logs/b.txt", "logs/sub/c.json", "logs2/d.json", "with space.json"}},
		{"a missing key is not an error", []string{"rm", "nope"}, all},
		{"a recursive prefix spares its siblings", []string{"rm", "--recursive", "logs"}, []string{"logs2/d.json", "top.json", "with space.json"}},
		{"a wildcard deletes its matches at every depth", []string{"rm", "logs/*.json"}, []string{"logs/b.txt", "logs2/d.json", "top.json", "with space.json"}},
		{"a wildcard below a prefix spares its siblings", []string{"rm", "logs/*"}, []string{"logs2/d.json", "top.json", "with space.json"}},
		{"a double star crosses slashes", []string{"rm", "**.json"}, []string{"logs/b.txt"}},
		{"filters choose among a prefix", []string{"rm", "--recursive", "--include", "logs/*", "--exclude", "*.txt", ""}, []string{"logs/b.txt", "logs2/d.json", "top.json", "with space.json"}},
		{"the last matching filter decides", []string{"rm", "--recursive", "--exclude", "*.txt", "--include", "logs/*", ""}, []string{}},
		{"an excluded subtree is kept at every depth", []string{"rm", "--recursive", "--exclude", "sub/*", "logs/"}, []string{"logs/sub/c.json", "logs2/d.json", "top.json", "with space.json"}},
		{"several arguments are each deleted", []string{"rm", "top.json", "with space.json"}, []string{"logs/a.json", "logs/b.txt", "logs/sub/c.json", "logs2/d.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket := srv.NewBucket(t)
			seedKeys(t, srv, bucket, all...)
			args := []string{tt.args[0]}
			for _, a := range tt.args[1:] {
				if !strings.HasPrefix(a, "-") && !strings.HasSuffix(args[len(args)-1], "clude") {
					a = "s3://" + bucket + "/" + a
				}
				args = append(args, a)
			}
			mustRun(t, srv, args...)
			left := s3test.ListKeys(t, srv.Client(t), bucket, "")
			sort.Strings(left)
			if diff := cmp.Diff(tt.left, left); diff != "" {
				t.Errorf("left (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRmBatchesAThousandKeysARequest(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.Listing)
	seedEmpty(t, srv, bucket, "k/%04d", 1500)

	out, errOut := mustRunJSON(t, srv, "rm", "--recursive", "s3://"+bucket+"/k/")
	if diff := cmp.Diff(map[string]int64{"ListObjectsV2": 2, "DeleteObjects": 2}, requestsOf(t, errOut)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if n := strings.Count(out, `"op":"rm","kind":"delete","status":"done"`); n != 1500 {
		t.Errorf("%d done results, want 1500", n)
	}
	if n := len(s3test.ListKeys(t, srv.Client(t), bucket, "")); n != 0 {
		t.Errorf("%d objects left", n)
	}
}

func TestRmDryRunPrintsThePlanAndDeletesNothing(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	seedKeys(t, srv, bucket, "a/1", "a/2", "b/3")
	out, errOut := mustRunJSON(t, srv, "--dry-run", "rm", "--recursive", "s3://"+bucket+"/a/")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines)
	want := []string{
		fmt.Sprintf(`{"op":"rm","kind":"delete","status":"dry-run","src":"s3://%s/a/1","size":11,"seconds":0}`, bucket),
		fmt.Sprintf(`{"op":"rm","kind":"delete","status":"dry-run","src":"s3://%s/a/2","size":11,"seconds":0}`, bucket),
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if _, ok := requestsOf(t, errOut)["DeleteObjects"]; ok {
		t.Error("a dry run sent DeleteObjects")
	}
	if n := len(s3test.ListKeys(t, srv.Client(t), bucket, "")); n != 3 {
		t.Errorf("%d objects left, want 3", n)
	}
}

func TestRmExitCodes(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	seedKeys(t, srv, bucket, "dir/a")
	tests := []struct {
		name, message string
		args          []string
		code          int
	}{
		{"a prefix without --recursive is a usage error", "--recursive", []string{"rm", "s3://" + bucket + "/dir/"}, ExitUsage},
		{"a bucket without --recursive is a usage error", "--recursive", []string{"rm", "s3://" + bucket}, ExitUsage},
		{"a local path is a usage error", "not local files", []string{"rm", t.TempDir()}, ExitUsage},
		{"one bad argument among good ones touches nothing", "s3://", []string{"rm", "s3://" + bucket + "/dir/a", "s3://"}, ExitUsage},
		{"a missing bucket is fatal", missing(t, 118), []string{"rm", "--recursive", "s3://" + missing(t, 118) + "/x/"}, ExitFatal},
		{"no argument is a usage error", "requires at least 1 arg", []string{"rm"}, ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, srv, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.message) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, errOut, tt.code, tt.message)
			}
		})
	}
	if diff := cmp.Diff([]string{"dir/a"}, s3test.ListKeys(t, srv.Client(t), bucket, "")); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
}
