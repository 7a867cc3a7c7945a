//go:build unix

package localstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/unprivileged"
	"github.com/s3bulk/s3bulk/store"
)

// TestUnreadableEntries needs permissions to be enforced, which they are not
// for root; as root it runs itself again as an unprivileged user.
func TestUnreadableEntries(t *testing.T) {
	if unprivileged.Rerun(t) {
		return
	}
	testUnreadableEntries(t)
}

func testUnreadableEntries(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"locked/f": "x", "secret": "s", "ok": "o"})
	for _, p := range []string{"locked", "secret"} {
		p := filepath.Join(root, p)
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o755) }) // so the temp dir can be removed
	}
	s, k := newStore(t, root, Options{})

	// The file's name and size are readable; its bytes are not.
	if diff := cmp.Diff([]string{"ok", "secret"}, keys(t, s, "", "")); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"locked: unreadable directory: permission denied"}, k.got); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	k.got = nil
	if diff := cmp.Diff([]string{"ok", "secret"}, keys(t, s, "", "/")); diff != "" {
		t.Errorf("delimited list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"locked: unreadable directory: permission denied"}, k.got); diff != "" {
		t.Errorf("delimited list skips (-want +got):\n%s", diff)
	}

	_, err := s.Get(t.Context(), "secret", 0, -1, "")
	wantDenied(t, "get secret", err, filepath.Join(root, "secret"))
	_, _, err = s.Head(t.Context(), "locked/f")
	wantDenied(t, "head locked/f", err, filepath.Join(root, "locked", "f"))
	_, err = s.Get(t.Context(), "locked/f", 0, -1, "")
	wantDenied(t, "get locked/f", err, filepath.Join(root, "locked", "f"))
}

func wantDenied(t *testing.T, op string, err error, path string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s succeeded; want permission denied", op)
		return
	}
	if !errors.Is(err, store.ErrAccessDenied) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("%s: %v; want store.ErrAccessDenied and fs.ErrPermission", op, err)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "permission denied") {
		t.Errorf("%s: %q; want the path %s and the cause", op, msg, path)
	}
}

func TestSpecialFilesAreReportedNotRead(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"f": "x"})
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, k := newStore(t, root, Options{FollowSymlinks: true})
	if diff := cmp.Diff([]string{"f"}, keys(t, s, "", "")); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pipe: not a regular file (named pipe)"}, k.got); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	// Opening a pipe for reading would block until a writer came.
	if _, err := s.Get(t.Context(), "pipe", 0, -1, ""); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("get pipe: %v; want a not-a-regular-file error", err)
	}
	if _, _, err := s.Head(t.Context(), "pipe"); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("head pipe: %v; want a not-a-regular-file error", err)
	}
}

func TestPutHonoursTheUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	t.Cleanup(func() { syscall.Umask(old) })
	root := t.TempDir()
	s, _ := newStore(t, root, Options{})
	if err := s.Put(t.Context(), "d/f", strings.NewReader("x"), 1, store.Metadata{}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]fs.FileMode{"d/f": 0o640, "d": 0o750 | fs.ModeDir} {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s mode = %v; want %v (0644/0755 less the umask 027)", p, fi.Mode(), want)
		}
	}
}
