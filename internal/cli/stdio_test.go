package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/internal/memstat"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestCpFromStdinAndToStdout(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	c := srv.Client(t)
	for _, tt := range []struct {
		name string
		size int64
	}{
		{"an empty stream", 0},
		{"a stream within one part is one PutObject", 100 << 10},
		{"a stream that ends on a part boundary", 10 * mib},
		{"a longer stream is a multipart upload", 12*mib + 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := stamped(tt.size)
			key := fmt.Sprintf("in/%d.bin", tt.size)
			out, errOut, code := runCLIStdin(t, srv, io.MultiReader(bytes.NewReader(body)), "--json", "cp", "--part-size", "5MiB", "-", "s3://"+bucket+"/"+key)
			if code != ExitOK {
				t.Fatalf("exit %d:\n%s", code, errOut)
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(out), &rec); err != nil {
				t.Fatalf("stdout is not one JSON record: %q", out)
			}
			wantParts := (tt.size + 5*mib - 1) / (5 * mib)
			if wantParts == 1 {
				wantParts = 0
			}
			if rec["status"] != "done" || rec["size"] != float64(tt.size) || rec["src"] != "-" || (rec["parts"] == nil) != (wantParts == 0) {
				t.Errorf("record %v, want done, %d bytes from -, %d parts", rec, tt.size, wantParts)
			}
			got, etag := objectState(t, srv, bucket, key)
			if !bytes.Equal(got, body) {
				t.Fatalf("object has %d bytes, want the %d of stdin", len(got), len(body))
			}
			if wantParts > 0 && etag != wantETag(body, 5*mib) && srv.Has(t, s3test.MultipartETag) {
				t.Errorf("ETag %s, want %s (%d parts)", etag, wantETag(body, 5*mib), wantParts)
			}
			if up := s3test.ListUploads(t, c, bucket); len(up) != 0 {
				t.Errorf("uploads left: %v", up)
			}
			// And back out through stdout.
			out, errOut, code = runCLI(t, srv, "cp", "s3://"+bucket+"/"+key, "-")
			if code != ExitOK || out != string(body) {
				t.Errorf("cp to -: exit %d, %d bytes on stdout, want %d; stderr:\n%s", code, len(out), len(body), errOut)
			}
		})
	}
	t.Run("a failing stream leaves no object and no upload", func(t *testing.T) {
		r := io.MultiReader(bytes.NewReader(stamped(7*mib)), iotestErrReader{})
		_, errOut, code := runCLIStdin(t, srv, r, "cp", "--part-size", "5MiB", "-", "s3://"+bucket+"/broken.bin")
		if code != ExitPartial || !strings.Contains(errOut, "broken pipe") {
			t.Errorf("exit %d, want %d and the read error; stderr:\n%s", code, ExitPartial, errOut)
		}
		if keys := s3test.ListKeys(t, c, bucket, "broken"); len(keys) != 0 {
			t.Errorf("objects written: %v", keys)
		}
		if up := s3test.ListUploads(t, c, bucket); len(up) != 0 {
			t.Errorf("uploads left: %v", up)
		}
	})
	t.Run("bad uses are usage errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"cp", "-", "-"},
			{"cp", "-", "s3://" + bucket + "/dir/"},
			{"cp", "--recursive", "-", "s3://" + bucket + "/k"},
			{"mv", "-", "s3://" + bucket + "/k"},
			{"cp", "-", "./local"},
			{"cp", "s3://" + bucket + "/*.bin", "-"},
		} {
			_, errOut, code := runCLIStdin(t, srv, strings.NewReader("x"), args...)
			if code != ExitUsage || len(errorLines(errOut)) != 1 {
				t.Errorf("%v: exit %d, want %d with one line; stderr:\n%s", args, code, ExitUsage, errOut)
			}
		}
	})
}

// iotestErrReader fails as a closed pipe does.
type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, syscall.EPIPE }

// TestCpFromStdinStaysWithinItsBuffer pipes 200 MiB into an s3bulk
// process: its peak resident memory stays within --max-buffer (and a
// little slack) above what the same process needs for a one-byte stream. The process is the real
// command, built without the race detector, whose shadow memory would
// otherwise be measured.
func TestCpFromStdinStaysWithinItsBuffer(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	const size = 200 * mib
	const budget = 64 * mib
	bin := filepath.Join(t.TempDir(), "s3bulk")
	build := exec.Command("go", "build", "-o", bin, "github.com/s3bulk/s3bulk/cmd/s3bulk")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// upload pipes n bytes into `s3bulk cp - KEY` and returns the
	// process's peak RSS and the SHA-256 of what it sent.
	upload := func(n int64, key string) (uint64, []byte) {
		t.Helper()
		cmd := exec.Command(bin, "--no-progress", "cp", "--max-buffer", "64MiB", "--part-size", "8MiB", "-", "s3://"+bucket+"/"+key)
		cmd.Env = append(os.Environ(), srv.Env()...)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sent := sha256.New()
		go func() {
			defer in.Close()
			chunk := stamped(min(n, mib))
			for left := n; left > 0; left -= int64(len(chunk)) {
				sent.Write(chunk)
				if _, err := in.Write(chunk); err != nil {
					return
				}
			}
		}()
		// The kernel's high-water mark of the child's own memory, read
		// while it runs: rusage's maxrss would count this test process,
		// whose memory the child shares until it execs.
		var peak uint64
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if hwm, ok := memstat.PeakRSSOf(cmd.Process.Pid); ok {
				peak = max(peak, hwm)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("cp - : %v\n%s", err, errOut.String())
				}
				return peak, sent.Sum(nil)
			case <-tick.C:
			}
		}
	}
	base, _ := upload(1, "one.bin")
	peak, sum := upload(size, "stdin.bin")
	t.Logf("peak RSS %d MiB for %d MiB of stdin, %d MiB for one byte, --max-buffer %d MiB", peak>>20, size>>20, base>>20, budget>>20)
	// The slack is what parts in flight cost besides their bytes
	// (connections, goroutines, garbage not yet collected at s3bulk's GC
	// percent); without the budget the same run peaks at twice the stream.
	const slack = 16 * mib
	if peak >= base+budget+slack {
		t.Errorf("peak RSS %d MiB, want under the buffer limit of %d MiB (+%d MiB) above the %d MiB of a one-byte upload",
			peak>>20, budget>>20, slack>>20, base>>20)
	}
	out, err := srv.Client(t).GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("stdin.bin")})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	if !bytes.Equal(sha256Of(t, out.Body, size), sum) {
		t.Errorf("the object differs from what was piped in")
	}
}
