package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

func TestUploadSymlinks(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"real/a.txt": "a"})
	// A link to a file, and a loop back to the top.
	if err := os.Symlink(filepath.Join(local, "real", "a.txt"), filepath.Join(local, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(local, filepath.Join(local, "real", "loop")); err != nil {
		t.Fatal(err)
	}

	t.Run("links are skipped with a warning by default", func(t *testing.T) {
		bucket := srv.NewBucket(t)
		_, errOut, code := runCLI(t, srv, "cp", "--recursive", local, "s3://"+bucket+"/")
		if code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, errOut)
		}
		if diff := cmp.Diff(map[string]string{"real/a.txt": "a"}, bucketContents(t, srv, bucket, "")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
		if !strings.Contains(errOut, "link.txt") {
			t.Errorf("no warning names the skipped link:\n%s", errOut)
		}
	})
	t.Run("with --follow-symlinks links are followed and a loop is detected", func(t *testing.T) {
		bucket := srv.NewBucket(t)
		_, errOut, code := runCLI(t, srv, "cp", "--recursive", "--follow-symlinks", local, "s3://"+bucket+"/")
		if code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, errOut)
		}
		if diff := cmp.Diff(map[string]string{"real/a.txt": "a", "link.txt": "a"}, bucketContents(t, srv, bucket, "")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
		if !strings.Contains(errOut, "loop") {
			t.Errorf("no warning about the loop:\n%s", errOut)
		}
	})
	t.Run("sync follows links with --follow-symlinks, and a second sync copies nothing", func(t *testing.T) {
		bucket := srv.NewBucket(t)
		for round := range 2 {
			out, errOut, code := runCLI(t, srv, "sync", "--follow-symlinks", local, "s3://"+bucket+"/")
			if code != ExitOK {
				t.Fatalf("exit %d:\n%s", code, errOut)
			}
			if round == 1 && out != "" {
				t.Errorf("the second sync transferred:\n%s", out)
			}
		}
		if diff := cmp.Diff(map[string]string{"real/a.txt": "a", "link.txt": "a"}, bucketContents(t, srv, bucket, "")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
	})
	t.Run("sync skips links by default", func(t *testing.T) {
		bucket := srv.NewBucket(t)
		_, errOut, code := runCLI(t, srv, "sync", local, "s3://"+bucket+"/")
		if code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, errOut)
		}
		if diff := cmp.Diff(map[string]string{"real/a.txt": "a"}, bucketContents(t, srv, bucket, "")); diff != "" {
			t.Errorf("bucket (-want +got):\n%s", diff)
		}
	})
}
