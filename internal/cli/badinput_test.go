package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/internal/unprivileged"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/localstore"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// The tests in this file feed s3bulk what users get wrong, and what the
// world does to a run, and check three things each time: the exit code
// documented in `s3bulk help`, one line of error that names the argument
// or object and the cause, and that nothing was lost or written.

// runCLIEnv is runCLI with some of the environment replaced after the
// server's: a missing or wrong credential, say.
func runCLIEnv(t *testing.T, srv *s3test.Server, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var kv []string
	for k, v := range env {
		kv = append(kv, k+"="+v)
	}
	return runCLI(t, withEnv(srv, kv...), args...)
}

// summaryLine matches the run summary that cp prints on stderr.
var summaryLine = regexp.MustCompile(`^(copied|moved|deleted) .* [0-9,]+ failed, [0-9,]+ skipped(, [0-9,]+ restarted)?$`)

// errorLines returns the lines of stderr that are not the run summary.
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" && !summaryLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// snapshot is everything a bad command could have changed.
type snapshot struct {
	Src, Dst           map[string]string // buckets
	LocalSrc, LocalDst map[string]string
}

func TestBadInputGivesOneLineErrorAndTouchesNothing(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	for k, v := range map[string]string{"k": "kk", "dir/a.txt": "a", "star*key": "*"} {
		s3test.PutObject(t, c, src, k, []byte(v))
	}
	lsrc, ldst := t.TempDir(), t.TempDir()
	testfs.Write(t, lsrc, map[string]string{"f.txt": "f", "sub/g.txt": "g"})
	testfs.Write(t, ldst, map[string]string{"file": "a file, not a directory"})

	// An endpoint that was there a moment ago and is not any more.
	gone := s3test.StartPrivate(t)
	if err := gone.Stop(); err != nil {
		t.Fatal(err)
	}

	// SSE-C keys: one of the right size, one short, one missing, and one
	// typed literally, which must not be echoed.
	keys := t.TempDir()
	goodKey, shortKey, missingKey := filepath.Join(keys, "good"), filepath.Join(keys, "short"), filepath.Join(keys, "missing")
	if err := os.WriteFile(goodKey, bytes.Repeat([]byte("k"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shortKey, bytes.Repeat([]byte("k"), 31), 0o600); err != nil {
		t.Fatal(err)
	}
	const literalKey = "literal-sse-c-key-never-echo-it!"
	lf := filepath.Join(lsrc, "f.txt")

	take := func() snapshot {
		return snapshot{bucketContents(t, srv, src, ""), bucketContents(t, srv, dst, ""), testfs.Read(t, lsrc), testfs.Read(t, ldst)}
	}
	before := take()

	S, D := "s3://"+src, "s3://"+dst
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		mentions []string // the error line names these: the argument and the cause
		// once is said exactly once in the line (default mentions[0]): an
		// error wrapped twice says its operation and URL twice.
		once string
	}{
		// Usage errors: what was typed cannot be right. Exit 2, before any request.
		{"a URL without a bucket is a usage error", []string{"cp", "s3://", D + "/"}, nil, ExitUsage, []string{`"s3://"`, "missing bucket name"}, ""},
		{"a key without a bucket is a usage error", []string{"cp", "s3:///k", D + "/"}, nil, ExitUsage, []string{`"s3:///k"`, "missing bucket name"}, ""},
		{"an upper-case bucket name is a usage error", []string{"cp", "s3://Bad_Bucket/k", D + "/"}, nil, ExitUsage, []string{"s3://Bad_Bucket/k", "invalid bucket name"}, ""},
		{"a wildcard in a bucket name is a usage error", []string{"cp", "s3://buck*/k", D + "/"}, nil, ExitUsage, []string{"s3://buck*/k", "wildcards are not allowed in bucket names"}, ""},
		{"a triple star is a wildcard like one, here matching nothing", []string{"cp", S + "/a***", D + "/"}, nil, ExitPartial, []string{"no object matches " + S + "/a***"}, ""},
		{"an upper-case scheme is a usage error", []string{"cp", "S3://" + src + "/k", D + "/"}, nil, ExitUsage, []string{"S3://" + src + "/k", "lowercase s3://"}, ""},
		{"a mistyped scheme is a usage error", []string{"cp", "s3:" + src + "/k", D + "/"}, nil, ExitUsage, []string{"s3:" + src + "/k", "mistyped"}, ""},
		{"another cloud's scheme is a usage error", []string{"cp", "gs://b/k", D + "/"}, nil, ExitUsage, []string{"gs://b/k", "unsupported scheme"}, ""},
		{"an empty destination is a usage error", []string{"cp", S + "/k", ""}, nil, ExitUsage, []string{`""`, "empty location"}, ""},
		{"a wildcard in the destination is a usage error", []string{"cp", S + "/k", D + "/*"}, nil, ExitUsage, []string{D + "/*", "wildcards are only allowed in the source"}, ""},
		{"an unknown flag is a usage error that suggests the flag meant", []string{"cp", "--recursiv", S + "/k", D + "/"}, nil, ExitUsage, []string{"--recursiv", "unknown flag", "did you mean --recursive?"}, "unknown flag"},
		{"an unknown shorthand before the verb is named as one", []string{"-q", "cp", S + "/k", D + "/"}, nil, ExitUsage, []string{"unknown shorthand flag: 'q' in -q", "did you mean --quiet?"}, ""},
		{"a mistyped verb gets suggestions on one line", []string{"cpp", S + "/k", D + "/"}, nil, ExitUsage, []string{`unknown command "cpp" (did you mean cp`, "see 's3bulk --help'"}, ""},
		{"an unknown command is a usage error", []string{"copy", S + "/k", D + "/"}, nil, ExitUsage, []string{`"copy"`, "unknown command"}, ""},
		{"a missing argument is a usage error", []string{"cp", S + "/k"}, nil, ExitUsage, []string{"cp", "accepts 2 arg(s), received 1"}, ""},
		{"an extra argument is a usage error", []string{"cp", S + "/k", D + "/", "extra"}, nil, ExitUsage, []string{"cp", "accepts 2 arg(s), received 3"}, ""},
		{"a part size that is no size is a usage error", []string{"cp", "--part-size", "big", S + "/k", D + "/"}, nil, ExitUsage, []string{"--part-size", `"big"`}, ""},
		{"a part size below S3's 5 MiB is a usage error", []string{"cp", "--part-size", "1KiB", S + "/k", D + "/"}, nil, ExitUsage, []string{"--part-size", "5 MiB"}, ""},
		{"a part size above S3's 5 GiB is a usage error", []string{"cp", "--part-size", "6GiB", S + "/k", D + "/"}, nil, ExitUsage, []string{"--part-size", "5 GiB"}, ""},
		{"sync checks the part size too", []string{"sync", "--part-size", "1KiB", S + "/", D + "/"}, nil, ExitUsage, []string{"--part-size", "5 MiB"}, ""},
		{"a negative part concurrency is a usage error", []string{"cp", "--part-concurrency", "-1", S + "/k", D + "/"}, nil, ExitUsage, []string{"--part-concurrency -1", "1 or more"}, ""},
		{"sync checks the part concurrency", []string{"sync", "--part-concurrency", "-2", S + "/", D + "/"}, nil, ExitUsage, []string{"--part-concurrency -2"}, ""},
		{"a concurrency of 0 is a usage error", []string{"--concurrency", "0", "cp", S + "/k", D + "/"}, nil, ExitUsage, []string{"--concurrency 0", "at least 1"}, ""},
		{"a negative concurrency is a usage error", []string{"--concurrency", "-5", "cp", S + "/k", D + "/"}, nil, ExitUsage, []string{"--concurrency -5", "at least 1"}, ""},
		{"a max concurrency of 0 is a usage error", []string{"--max-concurrency", "0", "cp", S + "/k", D + "/"}, nil, ExitUsage, []string{"--max-concurrency 0", "at least 1"}, ""},
		{"an unknown log level is a usage error", []string{"--log-level", "loud", "cp", S + "/k", D + "/"}, nil, ExitUsage, []string{`--log-level "loud"`}, ""},
		{"an unknown path style is a usage error", []string{"--path-style", "maybe", "ls", S}, nil, ExitUsage, []string{`--path-style "maybe"`}, ""},
		{"a negative stall timeout is a usage error", []string{"--stall-timeout", "-1s", "ls", S}, nil, ExitUsage, []string{"--stall-timeout -1s", "must not be negative"}, ""},
		{"a stall timeout that is no duration is a usage error", []string{"--stall-timeout", "5", "ls", S}, nil, ExitUsage, []string{"--stall-timeout", `"5"`, "missing unit"}, ""},
		{"an endpoint that is no URL is a usage error", []string{"--endpoint-url", "::nope", "ls", S}, nil, ExitUsage, []string{"--endpoint-url", "::nope"}, ""},
		{"ls of a local path is a usage error", []string{"ls", lsrc}, nil, ExitUsage, []string{lsrc, "want an s3:// URL"}, ""},
		{"mb with a key is a usage error", []string{"mb", S + "/k"}, nil, ExitUsage, []string{S + "/k", "want s3://bucket"}, ""},
		{"a local directory without --recursive is a usage error", []string{"cp", lsrc, D + "/"}, nil, ExitUsage, []string{lsrc, "--recursive"}, ""},
		{"an S3 prefix without --recursive is a usage error", []string{"cp", S + "/dir/", ldst}, nil, ExitUsage, []string{S + "/dir/", "--recursive"}, ""},
		{"a file where a directory is needed is a usage error", []string{"cp", "--recursive", S + "/dir/", filepath.Join(ldst, "file")}, nil, ExitUsage, []string{filepath.Join(ldst, "file"), "is a file"}, ""},
		{"an unknown --sse is a usage error", []string{"cp", "--sse", "AES128", lf, D + "/"}, nil, ExitUsage, []string{`--sse "AES128"`, "want AES256 or aws:kms"}, ""},
		{"a KMS key with SSE-S3 is a usage error", []string{"cp", "--sse", "AES256", "--sse-kms-key-id", "alias/k", lf, D + "/"}, nil, ExitUsage, []string{"--sse-kms-key-id", "needs --sse aws:kms"}, ""},
		{"an SSE-C key that is not 32 bytes is a usage error", []string{"cp", "--sse-c", "AES256", "--sse-c-key", "file://" + shortKey, lf, D + "/"}, nil, ExitUsage, []string{"--sse-c-key file://" + shortKey, "31 bytes, want 32"}, ""},
		{"a missing SSE-C key file is a usage error", []string{"cp", "--sse-c", "AES256", "--sse-c-key", "file://" + missingKey, lf, D + "/"}, nil, ExitUsage, []string{"--sse-c-key file://" + missingKey, "no such file"}, ""},
		{"an unset SSE-C key variable is a usage error", []string{"cp", "--sse-c", "AES256", "--sse-c-key", "env://S3BULK_TEST_NO_SUCH_KEY", S + "/k", ldst + "/"}, nil, ExitUsage, []string{"--sse-c-key env://S3BULK_TEST_NO_SUCH_KEY", "not set"}, ""},
		{"--sse-c without a key is a usage error", []string{"cp", "--sse-c", "AES256", lf, D + "/"}, nil, ExitUsage, []string{"--sse-c AES256", "needs --sse-c-key"}, ""},
		{"an SSE-C key typed on the command line is a usage error", []string{"cp", "--sse-c", "AES256", "--sse-c-key", literalKey, lf, D + "/"}, nil, ExitUsage, []string{"--sse-c-key", "file://PATH or env://VAR"}, ""},
		{"an SSE-C algorithm other than AES256 is a usage error", []string{"sync", "--sse-c", "AES128", "--sse-c-key", "file://" + shortKey, lsrc, D + "/"}, nil, ExitUsage, []string{`--sse-c "AES128"`, "want AES256"}, ""},
		{"a copy-source key for an upload is a usage error", []string{"cp", "--sse-c-copy-source", "AES256", "--sse-c-copy-source-key", "file://" + goodKey, lf, D + "/"}, nil, ExitUsage, []string{"--sse-c-copy-source", "only for S3 to S3 copies"}, ""},
		{"SSE-C and SSE together are a usage error", []string{"cp", "--sse", "aws:kms", "--sse-c", "AES256", "--sse-c-key", "file://" + goodKey, lf, D + "/"}, nil, ExitUsage, []string{"--sse-c and --sse", "one kind"}, ""},
		{"an unknown canned ACL is a usage error", []string{"mv", "--acl", "public", lf, D + "/"}, nil, ExitUsage, []string{`--acl "public"`, "want one of", "bucket-owner-full-control"}, ""},
		{"an ACL for a download is a usage error", []string{"cp", "--acl", "private", S + "/k", ldst + "/"}, nil, ExitUsage, []string{"--acl", "destination " + ldst + "/ is local"}, ""},
		{"a request payer other than requester is a usage error", []string{"sync", "--request-payer", "owner", lsrc, D + "/"}, nil, ExitUsage, []string{`--request-payer "owner"`, "want requester"}, ""},
		{"a source region for an upload is a usage error", []string{"cp", "--source-region", "eu-west-1", lf, D + "/"}, nil, ExitUsage, []string{"--source-region", "the source " + lf + " is local"}, ""},
		{"object flags with a Batch Operations job are a usage error", []string{"cp", "--engine", "batchops", "--sse", "AES256", S + "/k", D + "/"}, nil, ExitUsage, []string{"--engine batchops", "need --engine local"}, ""},

		// Fatal errors: the command line is fine, the world is not. Exit 3.
		{"a missing source bucket is fatal", []string{"cp", "s3://" + missing(t, 300) + "/k", D + "/"}, nil, ExitFatal, []string{"s3://" + missing(t, 300) + "/k", "no such bucket"}, ""},
		{"a missing destination bucket is fatal", []string{"cp", S + "/k", "s3://" + missing(t, 301) + "/k"}, nil, ExitFatal, []string{"s3://" + missing(t, 301) + "/k", "no such bucket"}, ""},
		{"an upload to a missing bucket is fatal", []string{"cp", "--recursive", lsrc, "s3://" + missing(t, 302) + "/up/"}, nil, ExitFatal, []string{lsrc + string(filepath.Separator), "s3://" + missing(t, 302) + "/up/", "no such bucket"}, ""},
		{"a missing key matches nothing", []string{"cp", S + "/missing", ldst + "/"}, nil, ExitPartial, []string{S + "/missing", "no object matches"}, ""},
		{"a literal star that names no key matches nothing", []string{"cp", "--raw", S + "/star*", ldst + "/"}, nil, ExitPartial, []string{S + "/star*", "no object matches"}, ""},
		{"a missing local file matches nothing", []string{"cp", filepath.Join(lsrc, "nope"), D + "/"}, nil, ExitPartial, []string{filepath.Join(lsrc, "nope"), "no such file"}, ""},
		{"a sync to a missing bucket is fatal and names both sides", []string{"sync", lsrc, "s3://" + missing(t, 306) + "/x/"}, nil, ExitFatal, []string{"sync " + lsrc + " to s3://" + missing(t, 306) + "/x/: ", "no such bucket"}, "no such bucket"},
		{"listing a missing bucket is fatal and says how to make it", []string{"ls", "s3://" + missing(t, 307)}, nil, ExitFatal, []string{"s3://" + missing(t, 307), "no such bucket", "create it with `s3bulk mb s3://" + missing(t, 307) + "`"}, "no such bucket"},
		{"removing a missing bucket is fatal", []string{"rb", "s3://" + missing(t, 308)}, nil, ExitFatal, []string{"s3://" + missing(t, 308), "no such bucket"}, ""},
		{"removing a bucket that holds objects is fatal and says how to empty it", []string{"rb", S}, nil, ExitFatal, []string{S, "BucketNotEmpty", "s3bulk rm --recursive " + S + "/"}, "BucketNotEmpty"},
		{"making a bucket that exists is fatal", []string{"mb", S}, nil, ExitFatal, []string{S, "already exists"}, ""},
		{"a wrong secret key is fatal", []string{"cp", S + "/k", D + "/"}, map[string]string{"AWS_SECRET_ACCESS_KEY": "not-the-secret"}, ExitFatal, []string{S + "/k", "invalid credentials"}, ""},
		{"an unknown access key is fatal", []string{"ls", S}, map[string]string{"AWS_ACCESS_KEY_ID": "AKIDUNKNOWN"}, ExitFatal, []string{S, "invalid credentials"}, ""},
		{"missing credentials are fatal", []string{"ls", S}, map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""}, ExitFatal, []string{"AWS_ACCESS_KEY_ID", "credentials"}, ""},
		{"a session token the server does not know is fatal", []string{"ls", S}, map[string]string{"AWS_SESSION_TOKEN": "token-nobody-issued"}, ExitFatal, []string{S, "invalid credentials"}, ""},
		{"an unknown profile is fatal", []string{"--profile", "no-such-profile", "ls", S}, nil, ExitFatal, []string{"profile no-such-profile", "invalid credentials"}, ""},
		{"a wrong region is fatal and names the right one", []string{"--region", "eu-west-1", "cp", S + "/k", D + "/"}, nil, ExitFatal, []string{S + "/k", `region "eu-west-1" is wrong`, "use --region " + srv.Region}, ""},
		// No AWS_MAX_ATTEMPTS: three refusals before any answer end it.
		{"an endpoint that is down is fatal and asks whether it runs", []string{"--endpoint-url", gone.Endpoint, "ls", S}, nil, ExitFatal, []string{S, "connection refused", "is the endpoint running?"}, ""},
		{"an endpoint that is down stops an upload at its first object", []string{"--endpoint-url", gone.Endpoint, "cp", "--recursive", lsrc, S + "/up/"}, nil, ExitFatal, []string{S + "/up/", "connection refused"}, "connection refused"},
		{"a download below a file is fatal", []string{"cp", S + "/k", filepath.Join(ldst, "file", "k")}, nil, ExitFatal, []string{filepath.Join(ldst, "file"), "not a directory"}, ""},

		// Object failures: the run went through, this object did not. Exit 1.
		{"copying an object onto itself fails that object", []string{"cp", S + "/k", S + "/k"}, nil, ExitPartial, []string{S + "/k", "copy an object to itself"}, "copy " + S + "/k to"},
	}
	// What some servers do not do: credentials and regions they do not
	// check, a copy onto itself they allow.
	needs := map[string]s3test.Capability{
		"a wrong secret key is fatal":                       s3test.Auth,
		"an unknown access key is fatal":                    s3test.Auth,
		"a session token the server does not know is fatal": s3test.SigningScope,
		"a wrong region is fatal and names the right one":   s3test.SigningScope,
		"copying an object onto itself fails that object":   s3test.CopyOntoItself,
		"an upload to a missing bucket is fatal":            s3test.NoAutoCreate,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, ok := needs[tt.name]; ok {
				srv.Require(t, c)
			}
			stdout, stderr, code := runCLIEnv(t, srv, tt.env, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			lines := errorLines(stderr)
			switch {
			case len(lines) != 1:
				t.Errorf("want one line of error, got %d:\n%s", len(lines), stderr)
			default:
				for _, m := range tt.mentions {
					if !strings.Contains(lines[0], m) {
						t.Errorf("error %q does not mention %q", lines[0], m)
					}
				}
				once := tt.once
				if once == "" {
					once = tt.mentions[0]
				}
				if n := strings.Count(lines[0], once); n > 1 {
					t.Errorf("error %q says %q %d times: wrapped twice", lines[0], once, n)
				}
			}
			if stdout != "" {
				t.Errorf("stdout reports something done:\n%s", stdout)
			}
			if strings.Contains(stderr, literalKey) {
				t.Errorf("the key typed on the command line was echoed:\n%s", stderr)
			}
			if after := take(); !cmp.Equal(before, after) {
				t.Errorf("buckets or directories changed (-before +after):\n%s", cmp.Diff(before, after))
				before = after // so that the next cases report only their own changes
			}
		})
	}
	t.Logf("%d bad inputs tried", len(tests))
}

func TestUnreadableLocalFileFailsThatFileAndNamesIt(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	// Against the same server; the server's config files are in a
	// directory only root reads.
	if unprivileged.Rerun(t, append(srv.Env(), s3test.EndpointEnv+"="+srv.Endpoint,
		"AWS_CONFIG_FILE="+os.DevNull, "AWS_SHARED_CREDENTIALS_FILE="+os.DevNull)...) {
		return
	}
	bucket := srv.NewBucket(t)
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"ok.txt": "ok", "secret.txt": "s", "locked/inside.txt": "i"})
	for _, p := range []string{"secret.txt", "locked"} {
		p := filepath.Join(local, p)
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o755) })
	}

	t.Run("one file", func(t *testing.T) {
		p := filepath.Join(local, "secret.txt")
		_, stderr, code := runCLI(t, srv, "cp", p, "s3://"+bucket+"/one/")
		if code != ExitPartial {
			t.Errorf("exit %d, want %d", code, ExitPartial)
		}
		lines := errorLines(stderr)
		if len(lines) != 1 || !strings.Contains(lines[0], p) || !strings.Contains(lines[0], "permission denied") {
			t.Errorf("want one line naming %s and permission denied, got:\n%s", p, stderr)
		}
	})
	t.Run("a directory holding an unreadable file and directory", func(t *testing.T) {
		_, stderr, code := runCLI(t, srv, "cp", "--recursive", local, "s3://"+bucket+"/all/")
		if code != ExitPartial {
			t.Errorf("exit %d, want %d", code, ExitPartial)
		}
		secret, locked := filepath.Join(local, "secret.txt"), filepath.Join(local, "locked")
		if !regexp.MustCompile(`(?m)^ERROR upload ` + regexp.QuoteMeta(secret) + ` .*permission denied$`).MatchString(stderr) {
			t.Errorf("no error line names %s and permission denied:\n%s", secret, stderr)
		}
		if !strings.Contains(stderr, locked) || !strings.Contains(stderr, "unreadable directory: permission denied") {
			t.Errorf("nothing says %s was left out because it is unreadable:\n%s", locked, stderr)
		}
	})
	if diff := cmp.Diff(map[string]string{"all/ok.txt": "ok"}, bucketContents(t, srv, bucket, "")); diff != "" {
		t.Errorf("bucket (-want +got):\n%s", diff)
	}
}

// vanishingStore is a local source whose file vanish is deleted, or grow
// appended to, just before the listing yields it: the file changes between
// the plan and the transfer, as it does when another program writes the
// directory during a run. The listing and the files are real.
type vanishingStore struct {
	*localstore.Store
	vanish, grow string
}

func (v vanishingStore) List(ctx context.Context, prefix, delim string, fn func(store.Object) error) error {
	return v.Store.List(ctx, prefix, delim, func(o store.Object) error {
		p := filepath.Join(v.Root(), filepath.FromSlash(o.Key))
		switch o.Key {
		case v.vanish:
			if err := os.Remove(p); err != nil {
				return err
			}
		case v.grow:
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteString(" and more")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
		return fn(o)
	})
}

// directClient is an s3store client straight to the server.
func directClient(t *testing.T, srv *s3test.Server) *s3store.Client {
	t.Helper()
	return engineClient(t, srv, srv.Endpoint, s3store.Config{Concurrency: 8})
}

// collect runs job and returns its summary and failed results by source.
func collect(t *testing.T, job engine.Job, opts engine.Options) (engine.Summary, map[string]error) {
	t.Helper()
	var mu sync.Mutex
	failed := map[string]error{}
	opts.Observer = func(r engine.Result) {
		if r.Status == engine.StatusFailed {
			mu.Lock()
			failed[r.Task.Src] = r.Err
			mu.Unlock()
		}
	}
	sum, err := engine.New(engine.Config{Concurrency: 4}).Run(t.Context(), job, opts)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return sum, failed
}

func TestLocalSourceChangedMidRunFailsThatFileOnly(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	c := directClient(t, srv)
	// A file that grew since the listing is restarted, as it is now
	// (rclone retries it, and uploads the file as it is then); one that
	// vanished is not: nothing is left to upload.
	tests := []struct {
		name     string
		restarts int
		done     int64
		causes   map[string]string
		want     map[string]string
	}{
		{"with restarts, the grown file is uploaded as it is now", 0, 3,
			map[string]string{"gone.txt": "no such file or directory"},
			map[string]string{"a.txt": "a", "grown.txt": "short and more", "z.txt": "z"}},
		{"without restarts, the grown file fails", -1, 2,
			map[string]string{"gone.txt": "no such file or directory", "grown.txt": "body has 14 bytes, want 5"},
			map[string]string{"a.txt": "a", "z.txt": "z"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			testfs.Write(t, dir, map[string]string{"a.txt": "a", "gone.txt": "here at planning", "grown.txt": "short", "z.txt": "z"})
			st, err := localstore.New(dir, localstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			prefix := fmt.Sprintf("%d/", i)
			sum, failed := collect(t, engine.Job{
				Src:       engine.Endpoint{Store: vanishingStore{Store: st, vanish: "gone.txt", grow: "grown.txt"}, Loc: s3url.Location{Local: true}},
				Dst:       bucketEndpoint(t, c, "s3://"+bucket+"/"+prefix),
				Recursive: true,
			}, engine.Options{Restarts: tt.restarts})
			if sum.Objects != tt.done || sum.Failed != int64(len(tt.causes)) {
				t.Errorf("%d done, %d failed; want %d, %d", sum.Objects, sum.Failed, tt.done, len(tt.causes))
			}
			for key, cause := range tt.causes {
				p := filepath.Join(dir, key)
				err := failed[p]
				if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), cause) {
					t.Errorf("%s: error %v; want one naming it and %q", key, err, cause)
				}
			}
			if len(failed) != len(tt.causes) {
				t.Errorf("failed: %v; want only %v", failed, tt.causes)
			}
			want := map[string]string{}
			for k, v := range tt.want {
				want[prefix+k] = v
			}
			if diff := cmp.Diff(want, bucketContents(t, srv, bucket, prefix)); diff != "" {
				t.Errorf("bucket (-want +got):\n%s", diff)
			}
		})
	}
}

// rewritingStore is a local source whose file rewrite is rewritten in
// place, same size, while an upload reads it: after the first half of the
// bytes of the first read, as when another program saves the file during
// a run. The files, their reader and its checks are real.
type rewritingStore struct {
	*localstore.Store
	rewrite string
}

// fileBody is what a local store's Get returns.
type fileBody interface {
	io.ReadSeekCloser
	io.ReaderAt
	store.ChangeChecker
}

func (s rewritingStore) Get(ctx context.Context, key string, off, length int64, ifMatch string) (io.ReadCloser, error) {
	rc, err := s.Store.Get(ctx, key, off, length, ifMatch)
	if err != nil || key != s.rewrite {
		return rc, err
	}
	return &rewritingReader{fileBody: rc.(fileBody), path: filepath.Join(s.Root(), filepath.FromSlash(key))}, nil
}

type rewritingReader struct {
	fileBody
	path string
	done bool
}

func (r *rewritingReader) ReadAt(p []byte, off int64) (int, error) {
	if r.done || len(p) < 2 {
		return r.fileBody.ReadAt(p, off)
	}
	r.done = true
	n, err := r.fileBody.ReadAt(p[:len(p)/2], off)
	if err != nil {
		return n, err
	}
	fi, err := os.Stat(r.path)
	if err == nil {
		err = os.WriteFile(r.path, bytes.Repeat([]byte("B"), int(fi.Size())), 0o644)
	}
	if err == nil {
		// As the write itself does, unless it falls in the same tick of
		// the file system's clock.
		err = os.Chtimes(r.path, fi.ModTime(), fi.ModTime().Add(time.Second))
	}
	if err != nil {
		return n, err
	}
	m, err := r.fileBody.ReadAt(p[n:], off+int64(n))
	return n + m, err
}

func TestLocalSourceRewrittenWhileUploadedFailsThatFileOnly(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.Checksums)
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"a.txt": "a", "saved.txt": strings.Repeat("A", 64<<10)})
	st, err := localstore.New(dir, localstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Uploads with the CRC64NVME they carry by default (engineClient's
	// clients send none).
	c, err := s3store.NewClient(t.Context(), s3store.Config{EndpointURL: srv.Endpoint, Region: srv.Region,
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	sum, failed := collect(t, engine.Job{
		Src:       engine.Endpoint{Store: rewritingStore{Store: st, rewrite: "saved.txt"}, Loc: s3url.Location{Local: true}},
		Dst:       bucketEndpoint(t, c, "s3://"+bucket+"/"),
		Recursive: true,
	}, engine.Options{})
	if sum.Objects != 1 || sum.Failed != 1 {
		t.Errorf("%d done, %d failed; want 1, 1", sum.Objects, sum.Failed)
	}
	p := filepath.Join(dir, "saved.txt")
	if err := failed[p]; err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "changed while it was read") {
		t.Errorf("saved.txt: error %v; want one naming it and that it changed while it was read", err)
	}
	// Nothing of half one version, half the other.
	if diff := cmp.Diff(map[string]string{"a.txt": "a"}, bucketContents(t, srv, bucket, "")); diff != "" {
		t.Errorf("bucket (-want +got):\n%s", diff)
	}
}

// fullDisk is a local destination whose disk fills after room bytes: writes
// beyond fail with ENOSPC. The failure is made up; the temp files, renames
// and clean-up around it are localstore's own.
type fullDisk struct {
	*localstore.Store
	room int64
}

var _ store.RandomWriter = fullDisk{}

func (d fullDisk) Put(ctx context.Context, key string, body io.Reader, size int64, meta store.Metadata) error {
	return d.Store.Put(ctx, key, &enospcReader{r: body, left: d.room}, size, meta)
}

func (d fullDisk) CreateTemp(ctx context.Context, key string, size int64) (store.TempFile, error) {
	f, err := d.Store.CreateTemp(ctx, key, size)
	if err != nil {
		return nil, err
	}
	return &enospcTemp{TempFile: f, room: d.room}, nil
}

// enospcReader hands over left bytes, then fails as a write to a full disk
// would: the bytes read are the bytes written.
type enospcReader struct {
	r    io.Reader
	left int64
}

func (e *enospcReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, syscall.ENOSPC
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	return n, err
}

type enospcTemp struct {
	store.TempFile
	room int64
}

func (e *enospcTemp) WriteAt(b []byte, off int64) (int, error) {
	if off+int64(len(b)) > e.room {
		return 0, &os.PathError{Op: "write", Path: "temp file", Err: syscall.ENOSPC}
	}
	return e.TempFile.WriteAt(b, off)
}

func TestFullDiskOnDownloadFailsCleanly(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	objs := map[string][]byte{"small.bin": bodyFor(1, 64<<10), "big.bin": bodyFor(2, 11<<20)}
	if err := putAll(t.Context(), srv.Client(t), bucket, objs); err != nil {
		t.Fatal(err)
	}
	c := directClient(t, srv)
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"small.bin": "older copy"})
	st, err := localstore.New(dir, localstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, failed := collect(t, engine.Job{
		Src:       bucketEndpoint(t, c, "s3://"+bucket+"/"),
		Dst:       engine.Endpoint{Store: fullDisk{Store: st, room: 32 << 10}, Loc: s3url.Location{Local: true}},
		Recursive: true,
	}, engine.Options{PartSize: 5 << 20, MultipartThreshold: 5 << 20})
	if sum.Failed != 2 {
		t.Errorf("%d failed, want both", sum.Failed)
	}
	for key := range objs {
		err := failed["s3://"+bucket+"/"+key]
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, key)) || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: error %v; want one naming %s and no space left on device", key, err, filepath.Join(dir, key))
		}
	}
	// No partial file under a final name, no temp file, the older copy kept.
	if diff := cmp.Diff(map[string]string{"small.bin": "older copy"}, testfs.Read(t, dir)); diff != "" {
		t.Errorf("local directory (-want +got):\n%s", diff)
	}
}

func TestSourceChangedDuringMultipartCopyFailsWithoutALeftover(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t, s3test.PartCopy, s3test.ConditionalCopy)
	c := srv.Client(t)
	// changes is how many attempts find the source changed: once, the
	// restart copies the new version; on every attempt (the restarts'
	// bound and one), the object fails after the bound.
	for _, tt := range []struct {
		name    string
		changes int
	}{
		{"changed once: restarted, the new version lands whole", 1},
		{"changed on every attempt: fails after the bound, leaves nothing", 1 + engine.DefaultRestarts},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key := fmt.Sprintf("big-%d.bin", tt.changes)
			s3test.PutObject(t, c, src, key, bodyFor(0, 11<<20))
			// The proxy overwrites the source when the first part copy of
			// an upload arrives, before any part copy of it reaches the
			// server: every part then asks for a source that changed since
			// the plan (or the restart) read its ETag.
			var mu sync.Mutex
			uploads := map[string]bool{}
			var last []byte
			proxy := startFaultProxy(t, srv, faultproxy.Config{Match: func(r *http.Request) bool {
				if r.Method != http.MethodPut || !r.URL.Query().Has("partNumber") || r.Header.Get("X-Amz-Copy-Source") == "" {
					return false
				}
				mu.Lock()
				defer mu.Unlock()
				id := r.URL.Query().Get("uploadId")
				if uploads[id] || len(uploads) >= tt.changes {
					return false
				}
				uploads[id] = true
				last = bodyFor(len(uploads), 11<<20)
				_, err := c.PutObject(context.Background(), &s3.PutObjectInput{
					Bucket: aws.String(src), Key: aws.String(key), Body: bytes.NewReader(last),
				})
				if err != nil {
					t.Errorf("change the source: %v", err)
				}
				return false
			}})
			_, stderr, code := runCLI(t, srv, "--endpoint-url", proxy.URL(), "cp", "--part-size", "5MiB", "--multipart-threshold", "5MiB",
				"s3://"+src+"/"+key, "s3://"+dst+"/"+key)
			if up := s3test.ListUploads(t, c, dst); len(up) != 0 {
				t.Errorf("multipart uploads left behind: %v", up)
			}
			if !bytes.Equal(s3test.GetObject(t, c, src, key), last) {
				t.Error("the source is not its last version")
			}
			if tt.changes == 1 {
				if code != ExitOK || !strings.Contains(stderr, "1 restarted") {
					t.Errorf("exit %d, want 0, and a summary that says one object was restarted; stderr:\n%s", code, stderr)
				}
				if !bytes.Equal(s3test.GetObject(t, c, dst, key), last) {
					t.Error("the destination is not the source's new version, whole")
				}
				return
			}
			if code != ExitPartial {
				t.Errorf("exit %d, want %d", code, ExitPartial)
			}
			lines := errorLines(stderr)
			if len(lines) != 1 || !strings.Contains(lines[0], "s3://"+src+"/"+key) || !strings.Contains(lines[0], "source changed") ||
				!strings.Contains(lines[0], "restarted 2 times, then gave up") {
				t.Errorf("want one line naming the source, that it changed, and that it was restarted 2 times, got:\n%s", stderr)
			}
			if got := s3test.ListKeys(t, c, dst, key); len(got) != 0 {
				t.Errorf("destination holds %v; want nothing (neither version, nor a mix)", got)
			}
		})
	}
}

func TestSymlinkLoopsOnUploadAreNotFollowed(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"f.txt": "f", "sub/g.txt": "g"})
	for link, target := range map[string]string{"loop": ".", "sub/up": ".."} {
		if err := os.Symlink(target, filepath.Join(local, link)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"f.txt": "f", "sub/g.txt": "g"}

	t.Run("by default a symlink is reported and left out", func(t *testing.T) {
		bucket := srv.NewBucket(t)
		_, stderr, code := runCLI(t, srv, "cp", "--recursive", local, "s3://"+bucket+"/")
		if code != ExitOK {
			t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
		}
		for _, link := range []string{"loop", "sub/up"} {
			p := filepath.Join(local, link)
			if !strings.Contains(stderr, p) || !strings.Contains(stderr, "symlink not followed") {
				t.Errorf("nothing says %s was not followed:\n%s", p, stderr)
			}
		}
		if diff := cmp.Diff(want, bucketContents(t, srv, bucket, "")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
	})
	t.Run("followed, a loop is detected and left out", func(t *testing.T) {
		// The CLI has no --follow-symlinks yet: the store option is what
		// it would set.
		bucket := srv.NewBucket(t)
		var mu sync.Mutex
		var skipped []string
		st, err := localstore.New(local, localstore.Options{FollowSymlinks: true, OnSkip: func(p, reason string) {
			mu.Lock()
			skipped = append(skipped, strings.TrimPrefix(p, local+string(filepath.Separator))+": "+reason)
			mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		c := directClient(t, srv)
		sum, failed := collect(t, engine.Job{
			Src: engine.Endpoint{Store: st, Loc: s3url.Location{Local: true}}, Dst: bucketEndpoint(t, c, "s3://"+bucket+"/"), Recursive: true,
		}, engine.Options{})
		if sum.Objects != 2 || len(failed) != 0 {
			t.Errorf("%d done, failed %v; want 2 done", sum.Objects, failed)
		}
		wantSkips := []string{"loop: symlink loop: it points to a directory above it", "sub/up: symlink loop: it points to a directory above it"}
		if diff := cmp.Diff(wantSkips, skipped); diff != "" {
			t.Errorf("skips (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, bucketContents(t, srv, bucket, "")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
	})
}

func TestExistingLocalFileIsOverwrittenUnlessNoClobber(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	s3test.PutObject(t, srv.Client(t), bucket, "k.txt", []byte("new"))

	t.Run("by default the object replaces the file", func(t *testing.T) {
		dir := t.TempDir()
		testfs.Write(t, dir, map[string]string{"k.txt": "old"})
		mustRun(t, srv, "cp", "s3://"+bucket+"/k.txt", dir+"/")
		if diff := cmp.Diff(map[string]string{"k.txt": "new"}, testfs.Read(t, dir)); diff != "" {
			t.Errorf("local (-want +got):\n%s", diff)
		}
	})
	t.Run("with --no-clobber the file is kept and the skip reported", func(t *testing.T) {
		dir := t.TempDir()
		testfs.Write(t, dir, map[string]string{"k.txt": "old"})
		_, stderr, code := runCLI(t, srv, "cp", "--no-clobber", "s3://"+bucket+"/k.txt", dir+"/")
		if code != ExitOK {
			t.Errorf("exit %d, want 0", code)
		}
		if !strings.Contains(stderr, "skipped 1 object: destination exists (--no-clobber)") {
			t.Errorf("the skip is not reported:\n%s", stderr)
		}
		if diff := cmp.Diff(map[string]string{"k.txt": "old"}, testfs.Read(t, dir)); diff != "" {
			t.Errorf("local (-want +got):\n%s", diff)
		}
	})
}

func TestHostileKeysOnDownloadWriteNothingOutsideTheDestination(t *testing.T) {
	t.Parallel()
	t.Run("keys the server stores", func(t *testing.T) {
		srv, bucket := newBucket(t, s3test.BackslashKeys)
		hostile := []string{`a\b.txt`, `..\evil.txt`, `C:evil.txt`, `x:\evil.txt`}
		for _, k := range append(hostile, "ok.txt") {
			s3test.PutObject(t, srv.Client(t), bucket, k, []byte("x"))
		}
		parent := t.TempDir()
		dst := filepath.Join(parent, "dst")
		_, stderr, code := runCLI(t, srv, "cp", "--recursive", "s3://"+bucket+"/", dst)
		if code != ExitPartial {
			t.Errorf("exit %d, want %d", code, ExitPartial)
		}
		lines := errorLines(stderr)
		if len(lines) != len(hostile) {
			t.Errorf("%d error lines, want one per hostile key (%d):\n%s", len(lines), len(hostile), stderr)
		}
		for _, k := range hostile {
			if !strings.Contains(stderr, "ERROR download s3://"+bucket+"/"+k+" ") || !strings.Contains(stderr, fmt.Sprintf("unsafe key %q", k)) {
				t.Errorf("no error line names %q as unsafe:\n%s", k, stderr)
			}
		}
		if diff := cmp.Diff(map[string]string{"dst/ok.txt": "x"}, testfs.Read(t, parent)); diff != "" {
			t.Errorf("files under the destination's parent (-want +got):\n%s", diff)
		}
	})
	t.Run("keys only a hostile server sends", func(t *testing.T) {
		parent := t.TempDir()
		dst := filepath.Join(parent, "dst")
		abs := filepath.Join(parent, "absolute.txt")
		// A fake source: the real server refuses or rewrites these keys.
		src := &keyedSource{objects: map[string]int64{
			"ok.txt":              3,
			"../evil.txt":         3,
			"a/../../evil.txt":    3,
			"a/../b.txt":          3,
			abs:                   3, // an absolute path
			"C:/evil.txt":         3,
			"nul\x00.txt":         3,
			`..\..\evil.txt`:      3,
			"./dot.txt":           3,
			"a//b.txt":            3,
			"../big-evil.bin":     6 << 20, // takes the ranged download's path
			"../../../../../etc/": 0,
		}}
		st, err := localstore.New(dst, localstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sum, failed := collect(t, engine.Job{
			Src:       engine.Endpoint{Store: src, Loc: s3url.Location{Bucket: "hostile", Key: ""}},
			Dst:       engine.Endpoint{Store: st, Loc: s3url.Location{Local: true}},
			Recursive: true,
		}, engine.Options{PartSize: 5 << 20, MultipartThreshold: 5 << 20})
		if sum.Objects != 1 {
			t.Errorf("%d downloaded, want only ok.txt", sum.Objects)
		}
		for k := range src.objects {
			if k == "ok.txt" || strings.HasSuffix(k, "/") {
				continue
			}
			err := failed[src.URL(k)]
			if !errors.Is(err, store.ErrUnsafeKey) || !strings.Contains(err.Error(), src.URL(k)) {
				t.Errorf("key %q: error %v; want an unsafe-key error naming it", k, err)
			}
		}
		if diff := cmp.Diff(map[string]string{"dst/ok.txt": "xxx"}, testfs.Read(t, parent)); diff != "" {
			t.Errorf("files under the destination's parent (-want +got):\n%s", diff)
		}
	})
}

// keyedSource is a fake store that lists the keys a hostile or broken
// server could send, each object a run of 'x'.
type keyedSource struct {
	objects map[string]int64
}

func (s *keyedSource) List(_ context.Context, prefix, _ string, fn func(store.Object) error) error {
	keys := make([]string, 0, len(s.objects))
	for k := range s.objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(store.Object{Key: k, Size: s.objects[k], ModTime: time.Unix(0, 0)}); err != nil {
			return err
		}
	}
	return nil
}

func (s *keyedSource) Head(_ context.Context, key string) (store.Object, store.Metadata, error) {
	n, ok := s.objects[key]
	if !ok {
		return store.Object{}, store.Metadata{}, store.ErrNotFound
	}
	return store.Object{Key: key, Size: n}, store.Metadata{}, nil
}

func (s *keyedSource) Get(_ context.Context, key string, off, length int64, _ string) (io.ReadCloser, error) {
	n, ok := s.objects[key]
	if !ok {
		return nil, store.ErrNotFound
	}
	if length < 0 {
		length = n - off
	}
	return io.NopCloser(bytes.NewReader(bytes.Repeat([]byte("x"), int(length)))), nil
}

func (s *keyedSource) Put(context.Context, string, io.Reader, int64, store.Metadata) error {
	return errors.ErrUnsupported
}
func (s *keyedSource) Delete(context.Context, string) error { return errors.ErrUnsupported }
func (s *keyedSource) URL(key string) string                { return "s3://hostile/" + key }
