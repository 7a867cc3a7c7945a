//go:build unix

package unprivileged

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// marker is set in the environment of the rerun test binary.
const marker = "S3BULK_TEST_UNPRIVILEGED"

// nobody is the uid and gid the test runs again as.
const nobody = 65534

// Rerun reports whether the caller, running as root, has had its test run
// again instead: then t.Name() ran in a copy of the test binary as uid/gid
// 65534 (with env added to the environment, TMPDIR and HOME in a directory
// that user can write), t fails if that run failed, and the caller returns.
// As any other user it returns false and the caller goes on with the test.
func Rerun(t *testing.T, env ...string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	if os.Getenv(marker) != "" {
		t.Fatal("still root after dropping privileges")
	}
	dir, err := os.MkdirTemp("", "s3bulk-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// Sticky and world-writable: the other user makes its temp dirs here.
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(exe))
	if err := copyExecutable(exe, bin); err != nil {
		t.Fatal(err)
	}
	name := t.Name()
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), marker+"=1", "TMPDIR="+dir, "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("unprivileged run of %s: %v\n%s", name, err, out)
	}
	t.Logf("unprivileged run:\n%s", out)
	return true
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
