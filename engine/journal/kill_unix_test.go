//go:build unix

package journal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestKilled kills a process writing a journal with SIGKILL, mid-run, and
// checks what a rerun finds: everything flushed before the kill, no hole,
// and a journal the rerun can append to.
func TestKilled(t *testing.T) {
	const flushed = "flushed 5000"
	path := filepath.Join(t.TempDir(), "j")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != flushed {
	}
	if sc.Text() != flushed {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child ended before %q", flushed)
	}
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed by SIGKILL", err)
	}

	st, err := Load(path)
	must(t, err)
	n := st.Stats().Done
	if n < 5000 {
		t.Fatalf("%d objects done after the kill, want at least the 5000 flushed", n)
	}
	for i := range n {
		if !st.Done(childObject(i), "dst") {
			t.Fatalf("object %d of %d missing: a hole in the journal", i, n)
		}
	}
	u, ok := st.Upload(big.DstKey)
	if !ok || len(u.Parts) < 5000/3 {
		t.Errorf("upload after the kill: %d parts, found %v; want the checkpointed upload with at least %d parts", len(u.Parts), ok, 5000/3)
	}
	t.Logf("%d objects done, %d records, notes %q", n, st.Stats().Records, st.Notes())

	w, err := Open(path, fp)
	must(t, err)
	must(t, w.Done(childObject(n), "dst"))
	must(t, w.Close())
	st, err = Load(path)
	must(t, err)
	if len(st.Notes()) != 0 || st.Stats().Done != n+1 {
		t.Errorf("after the rerun: %d done, notes %q; want %d done and no notes", st.Stats().Done, st.Notes(), n+1)
	}
}

// TestKilledBetweenIntentAndDone kills a process journaling version writes
// with SIGKILL and checks that every write it had begun is in the journal,
// done or interrupted: none can have landed unrecorded, and at most the
// last is in doubt.
func TestKilledBetweenIntentAndDone(t *testing.T) {
	const begun = 2000
	path := filepath.Join(t.TempDir(), "j")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childVersionsEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	want := fmt.Sprint("writing ", begun)
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != want {
	}
	if sc.Text() != want {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child ended before %q", want)
	}
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	st, err := Load(path)
	must(t, err)
	for i := range begun + 1 {
		v := childVersion(i)
		if _, interrupted := st.Interrupted(v.Key); !st.Done(v, v.Key) && !interrupted {
			t.Fatalf("write %d was begun and the journal has neither its intent nor its done record", i)
		}
	}
	if n := st.Stats().Interrupted; n > 1 {
		t.Errorf("%d writes in doubt after the kill, want at most the last one", n)
	}
	t.Logf("%d done, %d interrupted, notes %q", st.Stats().Done, st.Stats().Interrupted, st.Notes())
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	w, err := Open(path, fp)
	must(t, err)
	defer w.Close()
	if _, err := Open(path, fp); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
}
