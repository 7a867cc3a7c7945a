package engine

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// TestACopyWithoutUploadPartCopyFallsBack runs against the real server,
// behind a proxy that answers UploadPartCopy as servers without it do.
func TestACopyWithoutUploadPartCopyFallsBack(t *testing.T) {
	srv := s3test.Start(t)
	small := bytes.Repeat([]byte("s"), 12<<20) // one CopyObject
	big := bytes.Repeat([]byte("b"), 21<<20)   // over the (lowered) CopyObject limit: streamed
	tests := []struct {
		name   string
		status int
		code   string
	}{
		{"501 NotImplemented (s3rver)", http.StatusNotImplemented, "NotImplemented"},
		{"411 MissingContentLength (gofakes3)", http.StatusLengthRequired, "MissingContentLength"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket := srv.NewBucket(t)
			client := srv.Client(t)
			s3test.PutObject(t, client, bucket, "src/small", small)
			s3test.PutObject(t, client, bucket, "src/big", big)
			var mu sync.Mutex
			ops := map[string]int{}
			hs, err := faultproxy.New(srv.Endpoint, faultproxy.Config{Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				q := r.URL.Query()
				op := r.Method
				switch {
				case r.Method == http.MethodPut && q.Has("uploadId") && r.Header.Get("X-Amz-Copy-Source") != "":
					op = "UploadPartCopy"
				case r.Method == http.MethodPut && q.Has("uploadId"):
					op = "UploadPart"
				case r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != "":
					op = "CopyObject"
				}
				mu.Lock()
				ops[op]++
				mu.Unlock()
				if op == "UploadPartCopy" {
					w.Header().Set("Content-Type", "application/xml")
					w.WriteHeader(tt.status)
					io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>`+tt.code+`</Code><Message>no</Message></Error>`)
					return
				}
				next.ServeHTTP(w, r)
			}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { hs.Close() })
			// Nothing of the developer's AWS config files.
			c, err := s3store.NewClient(t.Context(), s3store.Config{EndpointURL: hs.URL(), Region: srv.Region,
				AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, MaxAttempts: 2,
				ConfigFiles: []string{os.DevNull}, CredentialsFiles: []string{os.DevNull}})
			if err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			var logMu sync.Mutex
			logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
			src, _ := s3url.Parse("s3://" + bucket + "/src/")
			dst, _ := s3url.Parse("s3://" + bucket + "/dst/")
			job := Job{Src: Endpoint{Store: c.Bucket(bucket), Loc: src}, Dst: Endpoint{Store: c.Bucket(bucket), Loc: dst}, Recursive: true}
			eng := New(Config{Concurrency: 8, Logger: logger})
			opts := Options{Workers: 1, PartSize: 5 << 20, MultipartThreshold: 5 << 20}
			ex := eng.newExecutor(job, opts)
			ex.copyObjectMax = 16 << 20
			sum, err := ex.run(t.Context(), eng.Plan(t.Context(), job, opts).Tasks)
			if err != nil || sum.Objects != 2 || sum.Failed != 0 {
				t.Fatalf("run: %+v, %v; want 2 objects copied\n%s", sum, err, logs.String())
			}
			for key, want := range map[string][]byte{"dst/small": small, "dst/big": big} {
				if got := s3test.GetObject(t, client, bucket, key); !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes, want the source's %d", key, len(got), len(want))
				}
			}
			if ups := s3test.ListUploads(t, client, bucket); len(ups) != 0 {
				t.Errorf("multipart uploads left: %v", ups)
			}
			mu.Lock()
			defer mu.Unlock()
			// "big" sorts first: its part copies are refused (a few, in
			// flight at once), then every copy takes a fallback.
			if ops["UploadPartCopy"] == 0 || ops["UploadPartCopy"] > 5 {
				t.Errorf("%d UploadPartCopy requests, want the first object's few", ops["UploadPartCopy"])
			}
			if ops["CopyObject"] != 1 || ops["UploadPart"] != 5 {
				t.Errorf("requests %v; want 1 CopyObject (small) and 5 UploadPart (big, streamed)", ops)
			}
			for _, line := range []string{"objects up to 5 GiB are copied with one CopyObject", "bigger objects are copied through this machine"} {
				if n := strings.Count(logs.String(), line); n != 1 {
					t.Errorf("the log says %q %d times, want once:\n%s", line, n, logs.String())
				}
			}
		})
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
