package cli

// The engine's part of integrity: a multipart upload carries the CRC64NVME of
// the whole file (store.ChecksumMultipart), and a download in parts is
// checked against the object's full-object checksum before it is renamed
// (store.Verifier).

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

func TestAMultipartUploadCarriesTheCRC64NVMEOfTheFile(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.Checksums)
	body := stamped(15*mib + 1)
	file := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, srv, append(append([]string{"cp"}, partFlags...), file, "s3://"+bucket+"/big.bin")...)
	out, err := srv.Client(t).HeadObject(t.Context(), &s3.HeadObjectInput{
		Bucket: aws.String(bucket), Key: aws.String("big.bin"), ChecksumMode: s3types.ChecksumModeEnabled,
	})
	if err != nil {
		t.Fatal(err)
	}
	// By hash/crc64's table, independently of the store's CRC64NVME.
	sum := binary.BigEndian.AppendUint64(nil, crc64.Checksum(body, crc64.MakeTable(0x9a6c9329ac4bc9b5)))
	want := []string{base64.StdEncoding.EncodeToString(sum), "FULL_OBJECT"}
	if diff := cmp.Diff(want, []string{aws.ToString(out.ChecksumCRC64NVME), string(out.ChecksumType)}); diff != "" {
		t.Errorf("the object's CRC64NVME and checksum type (-want +got):\n%s", diff)
	}
}

func TestACorruptedDownloadInPartsFailsAndLeavesNoFile(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	body := stamped(15*mib + 1)
	s3test.PutObject(t, srv.Client(t), bucket, "big.bin", body)
	// A bit of the second part flips on its way.
	endpoint := corruptingServer(t, srv, 7*mib)
	dir := t.TempDir()
	args := append([]string{"--endpoint-url", endpoint, "cp"}, partFlags...)
	_, errOut, code := runCLI(t, srv, append(args, "s3://"+bucket+"/big.bin", dir+"/")...)
	if code != ExitPartial {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitPartial, tail(errOut, 10))
	}
	if !strings.Contains(errOut, "checksum mismatch") {
		t.Errorf("stderr does not name the mismatch:\n%s", tail(errOut, 10))
	}
	if files := testfs.Read(t, dir); len(files) != 0 {
		got := []byte(files["big.bin"])
		t.Errorf("files left in the destination: %v (the corrupted one: %t)", keys(files), len(got) == len(body) && !bytes.Equal(got, body))
	}
}

// partCounter is a proxy (hookServer) in front of the real server that holds
// every UploadPart until expect of them are in flight together after it
// came (or the last of total has come), and records how many were in
// flight at once: parts beyond the limit would arrive while a full house
// is held. It counts; it does not sleep.
type partCounter struct {
	cur, peak, total atomic.Int64
	expect, all      int64

	mu   sync.Mutex
	cond *sync.Cond
	gen  int // full houses so far
}

func startPartCounter(t *testing.T, srv *s3test.Server, expect, total int64) (string, *partCounter) {
	t.Helper()
	pc := &partCounter{expect: expect, all: total}
	pc.cond = sync.NewCond(&pc.mu)
	endpoint := hookServer(t, srv, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodPut && r.URL.Query().Has("partNumber") && r.Header.Get("X-Amz-Copy-Source") == "" {
			pc.hold()
			defer pc.cur.Add(-1)
		}
		next.ServeHTTP(w, r)
	})
	return endpoint, pc
}

func (pc *partCounter) hold() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	n := pc.cur.Add(1)
	pc.peak.Store(max(pc.peak.Load(), n))
	got := pc.total.Add(1)
	mine := pc.gen
	if n >= pc.expect || got == pc.all {
		pc.gen++
		pc.cond.Broadcast()
	}
	// A limit below expect never makes a full house: the peak then tells.
	stuck := time.AfterFunc(30*time.Second, func() { pc.mu.Lock(); pc.gen++; pc.cond.Broadcast(); pc.mu.Unlock() })
	defer stuck.Stop()
	for pc.gen == mine {
		pc.cond.Wait()
	}
}

func TestPartUploadsInFlightStayWithinTheirLimit(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	dir := t.TempDir()
	body := stamped(10*mib + 1) // parts of 5 MiB, 5 MiB and 1 byte
	testfs.Write(t, dir, map[string]string{"f0.bin": string(body), "f1.bin": string(body)})
	tests := []struct {
		name        string
		flags       []string
		least, most int64
	}{
		// All 6 parts could be in flight (--concurrency 256); fixed at 2,
		// two at a time.
		{"fixed", []string{"--part-concurrency", "2"}, 2, 2},
		// Measured: from 4, and 6 parts are too few to end the first
		// window of 8, so 4 it stays.
		{"measured", nil, 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep, pc := startPartCounter(t, srv, tt.most, 6)
			args := append([]string{"--endpoint-url", ep, "cp", "--recursive"}, partFlags...)
			args = append(append(args, tt.flags...), dir+"/", "s3://"+bucket+"/"+tt.name+"/")
			mustRun(t, srv, args...)
			if got := pc.total.Load(); got != 6 {
				t.Fatalf("%d parts uploaded, want 6", got)
			}
			if got := pc.peak.Load(); got < tt.least || got > tt.most {
				t.Errorf("peak %d part uploads in flight, want %d..%d", got, tt.least, tt.most)
			}
			for i := range 2 {
				out, err := srv.Client(t).GetObject(t.Context(), &s3.GetObjectInput{
					Bucket: aws.String(bucket), Key: aws.String(fmt.Sprintf("%s/f%d.bin", tt.name, i)),
				})
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(out.Body)
				out.Body.Close()
				if err != nil || !bytes.Equal(got, body) {
					t.Fatalf("f%d.bin differs after upload", i)
				}
			}
		})
	}
}
