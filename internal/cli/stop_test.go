package cli

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// The tests in this file check that a failure every object would share
// stops the run once, with exit 3 and one line, however many objects the
// run holds.

func TestAFailureEveryObjectSharesStopsTheRunOnce(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	const n = 60
	seedObjects(t, srv, src, "", n, 100)
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("f%03d", i)] = "x"
	}
	lsrc := filepath.Join(t.TempDir(), "up")
	testfs.Write(t, lsrc, files)

	// A server that answers 500 to every write, for good: each object
	// outlives its retries, and the run must stop after a few of them
	// rather than spend its retries on every object.
	broken := startFaultProxy(t, srv, faultproxy.Config{InternalErrorRate: 1,
		Match: func(r *http.Request) bool { return r.Method == http.MethodPut }})

	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		first   string   // the one line starts so
		mention []string // and names these
	}{
		{"a wrong region stops a recursive upload at its first object", nil,
			[]string{"--region", "eu-west-1", "cp", "--recursive", lsrc, "s3://" + dst + "/up/"},
			"ERROR upload ", []string{`region "eu-west-1" is wrong`}},
		{"a wrong region stops a recursive copy at once", nil,
			[]string{"--region", "eu-west-1", "cp", "--recursive", "s3://" + src + "/", "s3://" + dst + "/c/"},
			"s3bulk: list s3://" + src + "/", []string{`region "eu-west-1" is wrong`}},
		{"a wrong secret stops a recursive upload at its first object", map[string]string{"AWS_SECRET_ACCESS_KEY": "not-the-secret"},
			[]string{"cp", "--recursive", lsrc, "s3://" + dst + "/up/"},
			"ERROR upload ", []string{"invalid credentials"}},
		{"a server that fails every write stops a copy early", map[string]string{"AWS_MAX_ATTEMPTS": "2"},
			[]string{"--endpoint-url", broken.URL(), "--concurrency", "4", "cp", "--recursive", "s3://" + src + "/", "s3://" + dst + "/c/"},
			fmt.Sprintf("s3bulk: stopped: %d objects in a row failed the same way: copy s3://%s/", engine.DefaultStopAfter, src),
			[]string{"InternalError", "status 500"}},
		{"a server that fails every write stops an upload early", map[string]string{"AWS_MAX_ATTEMPTS": "2"},
			[]string{"--endpoint-url", broken.URL(), "--concurrency", "4", "cp", "--recursive", lsrc, "s3://" + dst + "/up/"},
			fmt.Sprintf("s3bulk: stopped: %d objects in a row failed the same way: upload ", engine.DefaultStopAfter),
			[]string{"InternalError", "status 500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			switch {
			case strings.Contains(tt.name, "region"):
				srv.Require(t, s3test.SigningScope)
			case strings.Contains(tt.name, "secret"):
				srv.Require(t, s3test.Auth)
			}
			before := broken.Stats().Requests
			stdout, stderr, code := runCLIEnv(t, srv, tt.env, tt.args...)
			if code != ExitFatal {
				t.Errorf("exit %d, want %d", code, ExitFatal)
			}
			lines := errorLines(stderr)
			if len(lines) != 1 {
				t.Fatalf("want one line of error, got %d:\n%s", len(lines), stderr)
			}
			if !strings.HasPrefix(lines[0], tt.first) {
				t.Errorf("error %q does not start with %q", lines[0], tt.first)
			}
			for _, m := range tt.mention {
				if !strings.Contains(lines[0], m) {
					t.Errorf("error %q does not mention %q", lines[0], m)
				}
			}
			if stdout != "" {
				t.Errorf("stdout reports something done:\n%s", stdout)
			}
			if got := s3test.ListKeys(t, srv.Client(t), dst, ""); len(got) != 0 {
				t.Errorf("objects written: %v", got)
			}
			// Stopped early: far fewer requests than one round of retries
			// for every object would take.
			if sent := broken.Stats().Requests - before; sent > n {
				t.Errorf("%d requests reached the failing server for %d objects: the run did not stop early", sent, n)
			}
		})
	}
}
