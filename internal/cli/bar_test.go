package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// isComplete selects CompleteMultipartUpload: a POST naming an upload.
func isComplete(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Query().Has("uploadId")
}

// TestTheBarCountsTheBytesOfFinishedParts moves one object in three parts
// and holds its CompleteMultipartUpload for a while: all its bytes have
// moved, and no object has finished. The bar, drawn into a buffer (no
// terminal), must say so, for an upload and for a server-side copy alike.
func TestTheBarCountsTheBytesOfFinishedParts(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	const size = 15*mib + 1
	body := stamped(size)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	s3test.PutObject(t, srv.Client(t), bucket, "src/big.bin", body)
	proxy := startFaultProxy(t, srv, faultproxy.Config{Latency: 3 * time.Second, Match: isComplete})
	c := engineClient(t, srv, proxy.URL(), s3store.Config{})

	for _, tt := range []struct {
		name string
		job  engine.Job
	}{
		{"an upload", engine.Job{Src: localEndpoint(t, dir), Dst: bucketEndpoint(t, c, "s3://"+bucket+"/up/"), Recursive: true}},
		{"a server-side copy", engine.Job{Src: bucketEndpoint(t, c, "s3://"+bucket+"/src/"), Dst: bucketEndpoint(t, c, "s3://"+bucket+"/copy/"), Recursive: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.name, "server-side copy") {
				srv.Require(t, s3test.PartCopy)
			}
			p := &engine.Progress{}
			var out lockedBuffer
			bar := progress.StartBar(&out, p)
			done := make(chan error, 1)
			go func() {
				sum, err := engine.New(engine.Config{Concurrency: 8}).Run(t.Context(), tt.job, engine.Options{PartSize: 5 * mib, MultipartThreshold: 5 * mib, Progress: p})
				if err == nil && sum.Objects != 1 {
					t.Errorf("summary %+v, want one object done", sum)
				}
				done <- err
			}()
			// Wait, while the completion is held, for every part to count.
			var mid engine.Snapshot
			deadline := time.Now().Add(30 * time.Second)
			for mid = p.Snapshot(); mid.Bytes < size && time.Now().Before(deadline); mid = p.Snapshot() {
				time.Sleep(10 * time.Millisecond)
			}
			left, right := progress.BarText(mid)
			drawn := func() bool { return strings.Contains(out.String(), "15.0 MiB/15.0 MiB") }
			for !drawn() && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			err := <-done
			bar.Stop(p.Snapshot())
			if err != nil {
				t.Fatal(err)
			}
			if mid.Done != 0 || mid.Bytes != size {
				t.Fatalf("while the completion was held: %d done, %d bytes; want 0 done, %d bytes", mid.Done, mid.Bytes, size)
			}
			if !strings.HasPrefix(left, "0/1 objects") || !strings.HasPrefix(right, "15.0 MiB/15.0 MiB ") {
				t.Errorf("bar text before the object finished: %q %q; want 0/1 objects and 15.0 MiB/15.0 MiB", left, right)
			}
			if strings.Contains(right, "obj/s") {
				t.Errorf("bar text %q shows objects/s for one big object", right)
			}
			if !drawn() {
				t.Errorf("the bar drawn never showed 15.0 MiB/15.0 MiB:\n%q", out.String())
			}
			if end := p.Snapshot(); end.Bytes != size {
				t.Errorf("at the end the bar counts %d bytes, want %d (each byte once)", end.Bytes, size)
			}
		})
	}
}
