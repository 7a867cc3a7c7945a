package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestMv(t *testing.T) {
	srv := s3test.Start(t)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	local := t.TempDir()
	tree := map[string]string{"a.txt": "a", "dir/b.txt": "bb"}
	writeFiles(t, local, tree)

	t.Run("a local directory moved to S3 is gone locally", func(t *testing.T) {
		mustRun(t, srv, "mv", "--recursive", local+"/", "s3://"+src+"/in/")
		if diff := cmp.Diff(tree, unprefixed("in/", bucketContents(t, srv, src, "in/"))); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
		if got := readFiles(t, local); len(got) != 0 {
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
		_, _, code := runCLI(t, srv, "mv", "s3://"+dst+"/out/a.txt", "s3://no-such-bucket-s3bulk/a.txt")
		if code == ExitOK {
			t.Error("a move into a missing bucket succeeded")
		}
		if diff := cmp.Diff([]string{"out/a.txt"}, s3test.ListKeys(t, srv.Client(t), dst, "")); diff != "" {
			t.Errorf("left (-want +got):\n%s", diff)
		}
	})
}
