package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// environment is the whole environment of one in-process command line:
// a server's (s3test.Server.Env: its endpoint, credentials and region, and
// nothing of the developer's), or an envList. Tests never change the
// process's environment, so that they can run in parallel.
type environment interface{ Env() []string }

// envList is an environment of KEY=value entries; the last of a key wins.
type envList []string

func (e envList) Env() []string { return e }

// withEnv is base's environment with kv added after it, so kv wins: a
// wrong secret, fewer attempts, a variable a flag names.
func withEnv(base environment, kv ...string) envList {
	return append(slices.Clone(base.Env()), kv...)
}

// runCLI runs one s3bulk command line in-process in env, usually a
// server's, with an empty stdin.
func runCLI(t *testing.T, env environment, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIStdin(t, env, strings.NewReader(""), args...)
}

// runCLIStdin is runCLI with stdin.
func runCLIStdin(t *testing.T, env environment, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), append([]string{"--no-progress"}, args...), Stdio{In: stdin, Out: &out, Err: &errOut, Env: env.Env()})
	return out.String(), errOut.String(), code
}

func mustRun(t *testing.T, env environment, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, env, args...)
	if code != 0 {
		t.Fatalf("s3bulk %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// missing names a bucket no test creates: its own for each test, line and
// run, because a server that creates buckets on first write (SeaweedFS)
// would let one test's write make another test's missing bucket exist.
func missing(t *testing.T, line int) string {
	return s3test.BucketName(t.Name()+"-missing", int64(line))
}

func bucketContents(t *testing.T, srv *s3test.Server, bucket, prefix string) map[string]string {
	t.Helper()
	c := srv.Client(t)
	got := map[string]string{}
	for _, k := range s3test.ListKeys(t, c, bucket, prefix) {
		got[k] = string(s3test.GetObject(t, c, bucket, k))
	}
	return got
}

// oddKeys are keys that break naive URL handling.
var oddKeys = map[string]string{
	"odd/with space.txt":    "space",
	"odd/ünïcödé-日本.txt":    "unicode",
	"odd/plus+sign.txt":     "plus",
	"odd/percent%20x.txt":   "percent",
	"odd/equals=sign.txt":   "equals",
	"odd/empty.txt":         "",
	"odd/deep/er/file.json": "deep",
}

func TestCopyInAllThreeDirections(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t, s3test.OddKeys)
	local := t.TempDir()
	testfs.Write(t, local, oddKeys)

	t.Run("upload a directory recursively keeps relative keys", func(t *testing.T) {
		out := mustRun(t, srv, "cp", "--recursive", local+"/", "s3://"+src+"/up/")
		if n := strings.Count(out, "\n"); n != len(oddKeys) {
			t.Errorf("printed %d lines, want %d:\n%s", n, len(oddKeys), out)
		}
		want := map[string]string{}
		for k, v := range oddKeys {
			want["up/"+k] = v
		}
		if diff := cmp.Diff(want, bucketContents(t, srv, src, "up/")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
	})
	t.Run("copy bucket to bucket server-side keeps keys after the prefix", func(t *testing.T) {
		mustRun(t, srv, "cp", "--recursive", "s3://"+src+"/up/odd/", "s3://"+dst+"/archive/")
		want := map[string]string{}
		for k, v := range oddKeys {
			want["archive/"+strings.TrimPrefix(k, "odd/")] = v
		}
		if diff := cmp.Diff(want, bucketContents(t, srv, dst, "archive/")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
	})
	t.Run("download with a wildcard writes only matching files", func(t *testing.T) {
		down := t.TempDir()
		mustRun(t, srv, "cp", "s3://"+dst+"/archive/*.txt", down+"/")
		want := map[string]string{}
		for k, v := range oddKeys {
			if !strings.Contains(strings.TrimPrefix(k, "odd/"), "/") && strings.HasSuffix(k, ".txt") {
				want[strings.TrimPrefix(k, "odd/")] = v
			}
		}
		if diff := cmp.Diff(want, testfs.Read(t, down)); diff != "" {
			t.Errorf("local (-want +got):\n%s", diff)
		}
	})
	t.Run("a double star download crosses slashes", func(t *testing.T) {
		down := t.TempDir()
		mustRun(t, srv, "cp", "s3://"+dst+"/archive/**.json", down)
		if diff := cmp.Diff(map[string]string{"deep/er/file.json": "deep"}, testfs.Read(t, down)); diff != "" {
			t.Errorf("local (-want +got):\n%s", diff)
		}
	})
	t.Run("one object to an exact key and into a directory", func(t *testing.T) {
		mustRun(t, srv, "cp", "s3://"+src+"/up/odd/plus+sign.txt", "s3://"+dst+"/exact.txt")
		mustRun(t, srv, "cp", "s3://"+src+"/up/odd/plus+sign.txt", "s3://"+dst+"/dir/")
		got := bucketContents(t, srv, dst, "")
		if got["exact.txt"] != "plus" || got["dir/plus+sign.txt"] != "plus" {
			t.Errorf("got keys %v, want exact.txt and dir/plus+sign.txt", keys(got))
		}
		down := t.TempDir()
		mustRun(t, srv, "cp", "s3://"+dst+"/exact.txt", filepath.Join(down, "named.txt"))
		if diff := cmp.Diff(map[string]string{"named.txt": "plus"}, testfs.Read(t, down)); diff != "" {
			t.Errorf("local (-want +got):\n%s", diff)
		}
	})
	t.Run("downloads leave no temporary files", func(t *testing.T) {
		down := t.TempDir()
		mustRun(t, srv, "cp", "--recursive", "s3://"+src+"/up/", down)
		for k := range testfs.Read(t, down) {
			if strings.Contains(k, "tmp") {
				t.Errorf("temporary file left: %s", k)
			}
		}
		if got := len(testfs.Read(t, down)); got != len(oddKeys) {
			t.Errorf("downloaded %d files, want %d", got, len(oddKeys))
		}
	})
}

// keys are m's keys in order.
func keys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func TestCopyMoreThanOnePageOfKeys(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t, s3test.Listing)
	local := t.TempDir()
	const n = 1234 // more than one ListObjectsV2 page of 1,000
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("company-%04d/file-%04d.json", i%7, i)] = fmt.Sprint(i)
	}
	testfs.Write(t, local, files)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local, "s3://"+src)
	mustRun(t, srv, "--quiet", "cp", "--recursive", "s3://"+src, "s3://"+dst+"/copy/")
	got := bucketContents(t, srv, dst, "copy/")
	if len(got) != n {
		t.Fatalf("copied %d objects, want %d", len(got), n)
	}
	for k, v := range files {
		if got["copy/"+k] != v {
			t.Fatalf("copy/%s = %q, want %q", k, got["copy/"+k], v)
		}
	}
}

func TestDryRunTouchesNothing(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	s3test.PutObject(t, srv.Client(t), src, "a/1.txt", []byte("1"))
	s3test.PutObject(t, srv.Client(t), src, "a/2.txt", []byte("22"))
	down := filepath.Join(t.TempDir(), "new-dir")

	out := mustRun(t, srv, "--dry-run", "cp", "--recursive", "s3://"+src+"/a/", "s3://"+dst+"/b/")
	want := fmt.Sprintf("DRY-RUN cp s3://%[1]s/a/1.txt s3://%[2]s/b/1.txt\nDRY-RUN cp s3://%[1]s/a/2.txt s3://%[2]s/b/2.txt\n", src, dst)
	if diff := cmp.Diff(want, sortLines(out)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	mustRun(t, srv, "--dry-run", "cp", "--recursive", "s3://"+src+"/a/", down)
	if got := bucketContents(t, srv, dst, ""); len(got) != 0 {
		t.Errorf("dry run wrote objects: %v", keys(got))
	}
	if _, err := os.Stat(down); !os.IsNotExist(err) {
		t.Errorf("dry run created the local destination (stat: %v)", err)
	}
}

func sortLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func TestJSONOutputFollowsTheSchema(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	s3test.PutObject(t, srv.Client(t), src, "k", []byte("hello"))
	out, errOut, code := runCLI(t, srv, "--json", "cp", "s3://"+src+"/k", "s3://"+dst+"/k2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	delete(rec, "seconds")
	want := map[string]any{"op": "cp", "kind": "copy", "status": "done", "src": "s3://" + src + "/k", "dst": "s3://" + dst + "/k2", "size": float64(5)}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(errOut)), &sum); err != nil {
		t.Fatalf("stderr summary is not JSON: %v\n%s", err, errOut)
	}
	for _, field := range []string{"type", "objects", "bytes", "failed", "skipped", "seconds", "objects_per_second", "mib_per_second"} {
		if _, ok := sum[field]; !ok {
			t.Errorf("summary lacks %q: %v", field, sum)
		}
	}
	if sum["objects"] != float64(1) || sum["failed"] != float64(0) {
		t.Errorf("summary = %v, want 1 object, 0 failed", sum)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	s3test.PutObject(t, srv.Client(t), bucket, "ok", []byte("x"))
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"file": "x"})
	tests := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"a successful copy exits 0", []string{"cp", "s3://" + bucket + "/ok", "s3://" + bucket + "/ok2"}, ExitOK, ""},
		{"an unknown flag is a usage error", []string{"cp", "--no-such-flag", "a", "b"}, ExitUsage, "unknown flag"},
		{"an unknown command is a usage error", []string{"copy", "a", "b"}, ExitUsage, "unknown command"},
		{"a missing argument is a usage error", []string{"cp", "s3://" + bucket + "/ok"}, ExitUsage, "accepts 2 arg"},
		{"a malformed URL is a usage error", []string{"cp", "s3://", "s3://" + bucket + "/x"}, ExitUsage, "s3://"},
		{"an unsupported scheme is a usage error", []string{"cp", "gs://b/k", "s3://" + bucket + "/x"}, ExitUsage, "unsupported scheme"},
		{"a wildcard in the destination is a usage error", []string{"cp", "s3://" + bucket + "/ok", "s3://" + bucket + "/*"}, ExitUsage, "wildcards"},
		{"a bad log level is a usage error", []string{"--log-level", "loud", "ls"}, ExitUsage, "log-level"},
		{"a directory without --recursive is a usage error", []string{"cp", local, "s3://" + bucket + "/"}, ExitUsage, "--recursive"},
		{"a missing bucket is fatal", []string{"cp", "s3://" + missing(t, 400) + "/k", "s3://" + bucket + "/x"}, ExitFatal, missing(t, 400)},
		{"a missing key matches nothing and names it", []string{"cp", "s3://" + bucket + "/missing", local + "/x"}, ExitPartial, "no object matches s3://" + bucket + "/missing"},
		{"a missing local file matches nothing", []string{"cp", local + "/nope", "s3://" + bucket + "/x"}, ExitPartial, "no such file"},
		{"a file where a directory is needed is a usage error", []string{"cp", "--recursive", "s3://" + bucket + "/", local + "/file"}, ExitUsage, "is a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, srv, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			if tt.message != "" && !strings.Contains(errOut, tt.message) {
				t.Errorf("stderr %q does not mention %q", errOut, tt.message)
			}
			if tt.code != 0 && strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
				t.Errorf("error is not short: %q", errOut)
			}
		})
	}
}

func TestWrongCredentialsGiveAClearError(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.Auth)
	_, errOut, code := runCLI(t, withEnv(srv, "AWS_SECRET_ACCESS_KEY=wrong-secret-value"), "ls", "s3://"+bucket)
	if code != ExitFatal {
		t.Errorf("exit %d, want %d; stderr: %s", code, ExitFatal, errOut)
	}
	if !strings.Contains(strings.ToLower(errOut), "signature") && !strings.Contains(strings.ToLower(errOut), "credentials") {
		t.Errorf("stderr does not say what is wrong: %s", errOut)
	}
	if strings.Contains(errOut, "wrong-secret-value") {
		t.Errorf("the secret key appears in the output: %s", errOut)
	}
}

func TestListAndBuckets(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	c := srv.Client(t)
	s3test.PutObject(t, c, bucket, "dir/a.txt", []byte("a"))
	s3test.PutObject(t, c, bucket, "dir/sub/b.txt", []byte("bb"))
	s3test.PutObject(t, c, bucket, "top.txt", []byte("ccc"))

	out := mustRun(t, srv, "ls", "s3://"+bucket+"/")
	if !strings.Contains(out, "PRE dir/") || !strings.Contains(out, "top.txt") || strings.Contains(out, "a.txt") {
		t.Errorf("one-level listing:\n%s", out)
	}
	out = mustRun(t, srv, "ls", "--recursive", "s3://"+bucket+"/dir/")
	if !strings.Contains(out, "dir/a.txt") || !strings.Contains(out, "dir/sub/b.txt") || strings.Contains(out, "top.txt") {
		t.Errorf("recursive listing:\n%s", out)
	}
	out = mustRun(t, srv, "--json", "ls", "--recursive", "s3://"+bucket+"/")
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("--json printed %d lines, want 3:\n%s", n, out)
	}

	name := srv.NewBucket(t) + "-mb"
	mustRun(t, srv, "mb", "s3://"+name)
	// Bucket lines are aws s3 ls's: the date, a space, the bare name.
	if out := mustRun(t, srv, "ls"); !strings.Contains(out, " "+name+"\n") {
		t.Errorf("bucket list lacks %s:\n%s", name, out)
	}
	mustRun(t, srv, "rb", "s3://"+name)
	if out := mustRun(t, srv, "ls"); strings.Contains(out, " "+name+"\n") {
		t.Errorf("bucket %s still listed:\n%s", name, out)
	}
}
