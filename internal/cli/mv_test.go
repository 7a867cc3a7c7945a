package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

func TestMv(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	local := t.TempDir()
	tree := map[string]string{"a.txt": "a", "dir/b.txt": "bb"}
	testfs.Write(t, local, tree)

	t.Run("a local directory moved to S3 is gone locally", func(t *testing.T) {
		mustRun(t, srv, "mv", "--recursive", local+"/", "s3://"+src+"/in/")
		if diff := cmp.Diff(tree, unprefixed("in/", bucketContents(t, srv, src, "in/"))); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
		if got := testfs.Read(t, local); len(got) != 0 {
			t.Errorf("local files left: %v", got)
		}
	})
	t.Run("a prefix moved between buckets is gone at the source", func(t *testing.T) {
		out := mustRun(t, srv, "mv", "--recursive", "s3://"+src+"/in/", "s3://"+dst+"/out/")
		if !strings.HasPrefix(out, "mv s3://") {
			t.Errorf("results do not say mv:\n%s", out)
		}
		if diff := cmp.Diff(tree, unprefixed("out/", bucketContents(t, srv, dst, "out/"))); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
		if n := len(s3test.ListKeys(t, srv.Client(t), src, "")); n != 0 {
			t.Errorf("%d objects left at the source", n)
		}
	})
	t.Run("one object moved to a local file", func(t *testing.T) {
		down := filepath.Join(t.TempDir(), "b.txt")
		mustRun(t, srv, "mv", "s3://"+dst+"/out/dir/b.txt", down)
		if b, err := os.ReadFile(down); err != nil || string(b) != "bb" {
			t.Errorf("downloaded %q, %v; want bb", b, err)
		}
		if diff := cmp.Diff([]string{"out/a.txt"}, s3test.ListKeys(t, srv.Client(t), dst, "")); diff != "" {
			t.Errorf("left (-want +got):\n%s", diff)
		}
	})
	t.Run("a failed copy keeps its source", func(t *testing.T) {
		_, _, code := runCLI(t, srv, "mv", "s3://"+dst+"/out/a.txt", "s3://"+missing(t, 59)+"/a.txt")
		if code == ExitOK {
			t.Error("a move into a missing bucket succeeded")
		}
		if diff := cmp.Diff([]string{"out/a.txt"}, s3test.ListKeys(t, srv.Client(t), dst, "")); diff != "" {
			t.Errorf("left (-want +got):\n%s", diff)
		}
	})
}

func TestMvDeletesSourcesInBatches(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t, s3test.Listing)
	local := t.TempDir()
	files := map[string]string{}
	for i := range 1500 {
		files[fmt.Sprintf("f/%04d", i)] = fmt.Sprint(i)
	}
	testfs.Write(t, local, files)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local+"/", "s3://"+src+"/")

	out, errOut := mustRunJSON(t, srv, "mv", "--recursive", "s3://"+src+"/", "s3://"+dst+"/")
	if n := strings.Count(out, `"status":"done"`); n != 1500 {
		t.Errorf("%d objects reported done, want 1500", n)
	}
	reqs := requestsOf(t, errOut)
	// 1,500 keys: at least 2 batches, and never one request per object.
	if d, one := reqs["DeleteObjects"], reqs["DeleteObject"]; d < 2 || d > 40 || one != 0 {
		t.Errorf("%d DeleteObjects and %d DeleteObject requests for 1,500 moves, want a few batches and no single deletes", d, one)
	}
	if n := len(s3test.ListKeys(t, srv.Client(t), src, "")); n != 0 {
		t.Errorf("%d objects left at the source", n)
	}
	if diff := cmp.Diff(files, bucketContents(t, srv, dst, "")); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
}

// When the sources cannot be deleted, each object is a failure, its copy
// made and its source kept.
func TestMvWhoseDeletesFailKeepsTheSources(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	tree := map[string]string{"a": "1", "b": "22", "c": "333"}
	for k, v := range tree {
		s3test.PutObject(t, srv.Client(t), src, k, []byte(v))
	}
	front := hookServer(t, srv, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodPost && r.URL.Query().Has("delete") {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>no deletes here</Message></Error>`)
			return
		}
		next.ServeHTTP(w, r)
	})

	_, errOut, code := runCLI(t, srv, "--endpoint-url", front, "mv", "--recursive", "s3://"+src+"/", "s3://"+dst+"/")
	if code != ExitPartial {
		t.Errorf("exit %d, want %d", code, ExitPartial)
	}
	if n := strings.Count(errOut, "delete source after copy"); n != 3 {
		t.Errorf("%d objects failed for their delete, want 3:\n%s", n, errOut)
	}
	if diff := cmp.Diff(tree, bucketContents(t, srv, src, "")); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(tree, bucketContents(t, srv, dst, "")); diff != "" {
		t.Errorf("copies (-want +got):\n%s", diff)
	}
}
