package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// startChild runs s3bulk in a child process (this test binary in CLI mode).
func startChild(t *testing.T, srv *s3test.Server, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	raw, _ := json.Marshal(append([]string{"--no-progress"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), srv.Env()...), childArgsEnv+"="+string(raw))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A test that fails before it waits for the child must not leave it
	// running.
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &out
}

// countRecords counts journal lines of one record type.
func countRecords(t *testing.T, path, typ string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"t":"`+typ+`"`) {
			n++
		}
	}
	return n
}

// journaledParts are the numbers of the parts in a journal's "part"
// records.
func journaledParts(t *testing.T, path string) map[int]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		var r struct {
			T    string `json:"t"`
			Part int    `json:"part"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.T == "part" {
			out[r.Part] = true
		}
	}
	return out
}

// waitFor polls cond until it holds; the child's progress is the clock.
func waitFor(t *testing.T, what string, cond func() bool, child *exec.Cmd) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killAt waits until the child's journal holds at least n records of
// type typ, kills the child as a crash would (SIGKILL) and returns how
// many such records the journal holds after it died.
func killAt(t *testing.T, child *exec.Cmd, journalPath, typ string, n int) int {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d %q records in the journal", n, typ), func() bool { return countRecords(t, journalPath, typ) >= n }, child)
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	return countRecords(t, journalPath, typ)
}

func summaryOf(t *testing.T, stderr string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, `{"type":"summary"`) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no JSON summary in:\n%s", stderr)
	return nil
}

func TestKilledCopyResumesFromTheJournal(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	const n = 600
	local := t.TempDir()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("c%d/f%04d", i%4, i)] = fmt.Sprint("body-", i)
	}
	testfs.Write(t, local, files)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local, "s3://"+src+"/")

	// A per-request delay makes the run long enough to kill it mid-way.
	proxy := startFaultProxy(t, srv, faultproxy.Config{Latency: 20 * time.Millisecond})
	journalPath := filepath.Join(t.TempDir(), "run.journal")
	args := []string{"--endpoint-url", proxy.URL(), "--concurrency", "4", "--json", "cp", "--recursive", "--journal", journalPath, "s3://" + src + "/", "s3://" + dst + "/"}

	child, out := startChild(t, srv, args...)
	doneAtKill := killAt(t, child, journalPath, "done", n/3)
	if doneAtKill >= n {
		t.Fatalf("the run finished before it was killed (%d done); output:\n%s", doneAtKill, out)
	}

	proxy.SetConfig(faultproxy.Config{})
	stdout, stderr, code := runCLI(t, srv, args...)
	if code != ExitOK {
		t.Fatalf("rerun exit %d:\n%s", code, stderr)
	}
	sum := summaryOf(t, stderr)
	skipped, copied := int(sum["skipped"].(float64)), int(sum["objects"].(float64))
	if skipped != doneAtKill {
		t.Errorf("rerun skipped %d objects, want the %d the journal recorded", skipped, doneAtKill)
	}
	if copied != n-doneAtKill {
		t.Errorf("rerun copied %d objects, want %d (all the others)", copied, n-doneAtKill)
	}
	if got := strings.Count(stdout, `"status":"skipped"`); got != skipped {
		t.Errorf("%d skip lines, want %d", got, skipped)
	}
	got := bucketContents(t, srv, dst, "")
	if len(got) != n {
		t.Fatalf("destination has %d objects, want %d", len(got), n)
	}
	for k, v := range files {
		if got[k] != v {
			t.Fatalf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestKilledMultipartUploadResumesItsParts(t *testing.T) {
	t.Parallel()
	srv, dst := newBucket(t)
	local := t.TempDir()
	const partSize = 5 << 20
	big := bytes.Repeat([]byte("0123456789abcdef"), (10*partSize+12345)/16) // 11 parts
	if err := os.WriteFile(filepath.Join(local, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	proxy := startFaultProxy(t, srv, faultproxy.Config{Latency: 300 * time.Millisecond})
	journalPath := filepath.Join(t.TempDir(), "big.journal")
	args := []string{"--endpoint-url", proxy.URL(), "--concurrency", "2", "--json", "cp", "--journal", journalPath,
		"--part-size", "5MiB", "--multipart-threshold", "5MiB", filepath.Join(local, "big.bin"), "s3://" + dst + "/big.bin"}

	child, out := startChild(t, srv, args...)
	partsAtKill := killAt(t, child, journalPath, "part", 3)
	if countRecords(t, journalPath, "done") != 0 {
		t.Fatalf("the upload finished before it was killed; output:\n%s", out)
	}
	if ups := s3test.ListUploads(t, srv.Client(t), dst); len(ups) != 1 {
		t.Fatalf("uploads in progress after the kill = %v, want the one checkpointed", ups)
	}

	journaled := journaledParts(t, journalPath)
	if len(journaled) != partsAtKill {
		t.Fatalf("journal holds parts %v; want the %d checkpointed at the kill", journaled, partsAtKill)
	}
	// The parts the rerun sends, by number: a part retried (a stall or a
	// reset on a loaded machine) is sent twice but is one part.
	var mu sync.Mutex
	sent := map[int]bool{}
	proxy.SetConfig(faultproxy.Config{Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if n, err := strconv.Atoi(r.URL.Query().Get("partNumber")); err == nil && r.Method == http.MethodPut {
			mu.Lock()
			sent[n] = true
			mu.Unlock()
		}
		next.ServeHTTP(w, r)
	}})
	_, stderr, code := runCLI(t, srv, args...)
	if code != ExitOK {
		t.Fatalf("rerun exit %d:\n%s", code, stderr)
	}
	reqs, _ := summaryOf(t, stderr)["requests"].(map[string]any)
	mu.Lock()
	defer mu.Unlock()
	for n := range sent {
		if journaled[n] {
			t.Errorf("rerun sent part %d again; the journal checkpointed it (parts sent: %v)", n, sent)
		}
	}
	if len(sent) > 11-partsAtKill {
		t.Errorf("rerun sent %d parts (%v), want at most %d (11 minus the %d checkpointed)", len(sent), sent, 11-partsAtKill, partsAtKill)
	}
	if uploaded, _ := reqs["UploadPart"].(float64); int(uploaded) < len(sent) {
		t.Errorf("rerun counted %v UploadPart requests, fewer than the %d parts the server saw", uploaded, len(sent))
	}
	if reqs["CreateMultipartUpload"] != nil {
		t.Errorf("rerun started a new upload instead of resuming: %v", reqs)
	}
	if got := s3test.GetObject(t, srv.Client(t), dst, "big.bin"); !bytes.Equal(got, big) {
		t.Errorf("resumed object differs: %d bytes, want %d", len(got), len(big))
	}
	if ups := s3test.ListUploads(t, srv.Client(t), dst); len(ups) != 0 {
		t.Errorf("uploads left behind: %v", ups)
	}
}

func TestInterruptStopsCleanlyAndAbortsUploads(t *testing.T) {
	srv, dst := newBucket(t)
	local := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("small/%03d", i)] = "x"
	}
	testfs.Write(t, local, files)
	big := bytes.Repeat([]byte("z"), 8*5<<20)
	if err := os.WriteFile(filepath.Join(local, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	proxy := startFaultProxy(t, srv, faultproxy.Config{Latency: 200 * time.Millisecond})
	child, out := startChild(t, srv, "--endpoint-url", proxy.URL(), "--concurrency", "4", "cp", "--recursive",
		"--part-size", "5MiB", "--multipart-threshold", "5MiB", local, "s3://"+dst+"/")
	waitFor(t, "a multipart upload to start", func() bool {
		return len(s3test.ListUploads(t, srv.Client(t), dst)) > 0
	}, child)
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := child.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != ExitInterrupted {
		t.Fatalf("child ended with %v, want exit %d; output:\n%s", err, ExitInterrupted, out)
	}
	if !regexp.MustCompile(`copied \d+ objects?, `).MatchString(out.String()) {
		t.Errorf("no summary after the interrupt:\n%s", out)
	}
	if !strings.Contains(out.String(), "s3bulk: interrupted\n") || strings.Contains(out.String(), "context canceled") {
		t.Errorf("an interrupt does not say interrupted (and only that):\n%s", out)
	}
	if ups := s3test.ListUploads(t, srv.Client(t), dst); len(ups) != 0 {
		t.Errorf("multipart uploads left after the interrupt: %v", ups)
	}
	if got := s3test.ListKeys(t, srv.Client(t), dst, "big.bin"); len(got) != 0 {
		t.Errorf("the interrupted big object exists: %v", got)
	}
}
