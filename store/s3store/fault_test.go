package s3store

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// faultServer stands between a client and the real server and lets a test
// answer some requests itself: a 503, a 200 carrying an error, a response
// that stops half-way. Everything else reaches the real server. It tests
// what the client does about faults, so only the faults are made up.
type faultServer struct {
	URL   string
	count atomic.Int64
	mu    sync.Mutex
	seen  []*http.Request // clones of every request, for assertions
}

// faultFunc handles request n (1-based). It calls next to let the request
// through.
type faultFunc func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler)

func newFaultServer(t *testing.T, srv *s3test.Server, fault faultFunc) *faultServer {
	t.Helper()
	fs := &faultServer{}
	p, err := faultproxy.New(srv.Endpoint, faultproxy.Config{Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		fs.mu.Lock()
		fs.seen = append(fs.seen, r.Clone(r.Context()))
		fs.mu.Unlock()
		fault(fs.count.Add(1), w, r, next)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	fs.URL = p.URL()
	return fs
}

// requests returns clones of the requests seen so far.
func (fs *faultServer) requests() []*http.Request {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]*http.Request(nil), fs.seen...)
}

// opOf names the S3 operation of a request as the SDK sends it: it tags
// most requests with an x-id query parameter.
func opOf(r *http.Request) string {
	q := r.URL.Query()
	switch {
	case q.Get("x-id") != "":
		return q.Get("x-id")
	case r.Method == http.MethodHead:
		return "HeadObject"
	case q.Has("list-type"):
		return "ListObjectsV2"
	case q.Has("delete"):
		return "DeleteObjects"
	case r.Method == http.MethodPost && q.Has("uploads"):
		return "CreateMultipartUpload"
	case r.Method == http.MethodPost && q.Has("uploadId"):
		return "CompleteMultipartUpload"
	}
	return r.Method
}

func slowDown(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusServiceUnavailable)
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
}

// hang answers nothing until the client gives up on the request. It reads
// the request body first: the server only notices a closed connection once
// the body is consumed.
func hang(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

var errCut = errors.New("faultServer: response cut")

// cutWriter passes the response through up to limit body bytes, then calls
// cut (which may block) and fails the write, making the proxy abort the
// connection.
type cutWriter struct {
	http.ResponseWriter
	limit int
	cut   func()
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if len(p) > c.limit {
		p = p[:c.limit]
	}
	n, err := c.ResponseWriter.Write(p)
	c.limit -= n
	if err != nil {
		return n, err
	}
	if c.limit == 0 {
		c.ResponseWriter.(http.Flusher).Flush()
		c.cut()
		return n, errCut
	}
	return n, nil
}

func (c *cutWriter) Flush() { c.ResponseWriter.(http.Flusher).Flush() }

// TestACreateAnsweredAfterACancellationKeepsItsUpload cancels the caller of
// CreateMultipart after the server has started the upload and before its
// answer arrives: the caller still gets the upload's ID, to abort it, so an
// interrupted run leaves no upload nobody can name.
func TestACreateAnsweredAfterACancellationKeepsItsUpload(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fs := newFaultServer(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
		if opOf(r) != "CreateMultipartUpload" {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r) // the server has the upload now
		cancel()
		time.Sleep(100 * time.Millisecond) // time to see the cancellation
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
	c := newTestClient(t, srv, func(cfg *Config) { cfg.EndpointURL = fs.URL })
	s := c.Bucket(bucket)
	id, err := s.CreateMultipart(ctx, "k", store.Metadata{})
	if ctx.Err() == nil {
		t.Fatal("the caller was not cancelled during the create: the test tested nothing")
	}
	ups := s3test.ListUploads(t, srv.Client(t), bucket)
	if err != nil || id == "" || len(ups) != 1 {
		t.Fatalf("CreateMultipart = %q, %v; uploads on the server of %v; want the ID of the one upload", id, err, ups)
	}
	if err := s.AbortMultipart(context.Background(), "k", id); err != nil {
		t.Fatal(err)
	}
	if ups := s3test.ListUploads(t, srv.Client(t), bucket); len(ups) != 0 {
		t.Errorf("uploads left after the abort: %v", ups)
	}
}
