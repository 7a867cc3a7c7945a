package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// fastBackoff keeps retry tests quick; the policy, not the wait, is tested.
var fastBackoff = Backoff{Base: time.Millisecond, ThrottleBase: time.Millisecond, Max: 5 * time.Millisecond}

// counter counts OnRequest calls per operation.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[op]++
}

func (c *counter) get() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

// faultClient is a client of srv whose requests go through a faultServer.
func faultClient(t *testing.T, srv *s3test.Server, fault faultFunc, mod func(*Config)) (*Client, *faultServer) {
	t.Helper()
	fs := newFaultServer(t, srv, fault)
	c := newTestClient(t, srv, func(cfg *Config) {
		cfg.EndpointURL = fs.URL
		cfg.Backoff = fastBackoff
		if mod != nil {
			mod(cfg)
		}
	})
	return c, fs
}

func TestOnRequestCountsEveryAttempt(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	var reqs counter
	c, _ := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
		if n == 1 {
			slowDown(w) // one retried attempt, counted too
			return
		}
		next.ServeHTTP(w, r)
	}, func(cfg *Config) { cfg.OnRequest = reqs.add })
	s := c.Bucket(bucket)
	mustPut(t, s, "k", []byte("v"), store.Metadata{})
	mustHead(t, s, "k")
	mustGet(t, s, "k")
	if err := s.List(t.Context(), "", "", func(store.Object) error { return nil }); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"PutObject": 2, "HeadObject": 1, "GetObject": 1, "ListObjectsV2": 1}
	if diff := cmp.Diff(want, reqs.get()); diff != "" {
		t.Errorf("OnRequest calls (-want +got):\n%s", diff)
	}
}

func TestThrottling(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)

	t.Run("slow down responses are retried and reported", func(t *testing.T) {
		var throttles atomic.Int64
		c, _ := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if n <= 3 {
				slowDown(w)
				return
			}
			next.ServeHTTP(w, r)
		}, func(cfg *Config) { cfg.OnThrottle = func() { throttles.Add(1) } })
		s := c.Bucket(bucket)
		mustPut(t, s, "k", []byte("v"), store.Metadata{})
		if got := throttles.Load(); got != 3 {
			t.Errorf("OnThrottle called %d times; want 3", got)
		}
	})

	t.Run("throttling past the attempt limit fails as throttled", func(t *testing.T) {
		var throttles atomic.Int64
		c, fs := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			slowDown(w)
		}, func(cfg *Config) {
			cfg.MaxAttempts = 4
			cfg.OnThrottle = func() { throttles.Add(1) }
		})
		err := c.Bucket(bucket).Put(t.Context(), "k", strings.NewReader("v"), 1, store.Metadata{})
		if got := retry.Classify(err); got != retry.Throttled {
			t.Errorf("retry.Classify(%v) = %v; want throttled", err, got)
		}
		var e *Error
		if !errors.As(err, &e) || e.Attempts != 4 || e.Code != "SlowDown" || e.Status != 503 {
			t.Errorf("error = %#v; want an *Error with 4 attempts, SlowDown, 503", err)
		}
		if got := fs.count.Load(); got != 4 {
			t.Errorf("server saw %d requests; want 4", got)
		}
		if got := throttles.Load(); got != 4 {
			t.Errorf("OnThrottle called %d times; want 4", got)
		}
	})

	t.Run("hundreds of concurrent throttled requests all retry", func(t *testing.T) {
		// The SDK's default retry quota (500 tokens, 5 per throttled retry)
		// would refuse retries after 100 of them; the quota is off.
		const n = 200
		var seen sync.Map
		c, _ := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if _, again := seen.LoadOrStore(r.URL.Path, true); !again {
				slowDown(w)
				return
			}
			next.ServeHTTP(w, r)
		}, nil)
		s := c.Bucket(bucket)
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				errs[i] = s.Put(t.Context(), fmt.Sprintf("many/%03d", i), strings.NewReader("v"), 1, store.Metadata{})
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Errorf("throttled puts failed: %v", err)
		}
	})
}

func TestErrorInA200ResponseIsAFailure(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	error200 := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>`)
	}
	c0 := newTestClient(t, srv, nil)
	mustPut(t, c0.Bucket(bucket), "src", []byte("source"), store.Metadata{})

	t.Run("a copy answered 200 with an error is retried", func(t *testing.T) {
		var reqs counter
		c, _ := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if opOf(r) == "CopyObject" && n == 1 {
				error200(w)
				return
			}
			next.ServeHTTP(w, r)
		}, func(cfg *Config) { cfg.OnRequest = reqs.add })
		s := c.Bucket(bucket)
		if err := s.Copy(t.Context(), store.CopySource{Bucket: bucket, Key: "src"}, "dst", nil); err != nil {
			t.Fatal(err)
		}
		if got := reqs.get()["CopyObject"]; got != 2 {
			t.Errorf("CopyObject attempts = %d; want 2", got)
		}
	})

	for _, op := range []string{"CopyObject", "UploadPartCopy", "CompleteMultipartUpload"} {
		t.Run(op+" always answered 200 with an error fails", func(t *testing.T) {
			if op != "CopyObject" {
				srv.Require(t, s3test.PartCopy)
			}
			c, _ := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
				if opOf(r) == op {
					error200(w)
					return
				}
				next.ServeHTTP(w, r)
			}, func(cfg *Config) { cfg.MaxAttempts = 2 })
			s := c.Bucket(bucket)
			src := store.CopySource{Bucket: bucket, Key: "src"}
			var err error
			switch op {
			case "CopyObject":
				err = s.Copy(t.Context(), src, "dst", nil)
			default:
				id, cerr := s.CreateMultipart(t.Context(), "mp", store.Metadata{})
				if cerr != nil {
					t.Fatal(cerr)
				}
				t.Cleanup(func() { s.AbortMultipart(t.Context(), "mp", id) })
				var p store.Part
				p, err = s.UploadPartCopy(t.Context(), "mp", id, 1, src, 0, 5)
				if op == "CompleteMultipartUpload" {
					if err != nil {
						t.Fatal(err)
					}
					err = s.CompleteMultipart(t.Context(), "mp", id, []store.Part{p})
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != "InternalError" || e.Attempts != 2 {
				t.Errorf("error = %v; want InternalError after 2 attempts", err)
			}
			if got := retry.Classify(err); got != retry.Retryable {
				t.Errorf("retry.Classify = %v; want retryable", got)
			}
		})
	}
}

func TestStalls(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	body := pattern(256 << 10)
	mustPut(t, newTestClient(t, srv, nil).Bucket(bucket), "obj", body, store.Metadata{})
	stallFast := func(cfg *Config) { cfg.StallTimeout = 200 * time.Millisecond }

	// The client has seen the server answer (a HEAD) before each stall
	// below: until then it waits longer (coldStallWait, see
	// TestStallVerdict).
	t.Run("a request without response headers is retried", func(t *testing.T) {
		var reqs counter
		c, _ := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if n == 2 {
				hang(w, r)
				return
			}
			next.ServeHTTP(w, r)
		}, func(cfg *Config) { stallFast(cfg); cfg.OnRequest = reqs.add })
		mustHead(t, c.Bucket(bucket), "obj")
		mustPut(t, c.Bucket(bucket), "k", []byte("v"), store.Metadata{})
		if got := reqs.get()["PutObject"]; got != 2 {
			t.Errorf("PutObject attempts = %d; want 2", got)
		}
	})

	tests := []struct {
		name string
		cut  func(r *http.Request) func()
	}{
		{"a body that stops arriving is resumed where it stopped", func(r *http.Request) func() {
			return func() { <-r.Context().Done() }
		}},
		{"a body cut by a dropped connection is resumed where it stopped", func(*http.Request) func() {
			return func() {} // the failed write makes the proxy drop the connection
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
				if n == 1 {
					next.ServeHTTP(&cutWriter{ResponseWriter: w, limit: 1000, cut: tt.cut(r)}, r)
					return
				}
				next.ServeHTTP(w, r)
			}, stallFast)
			s := c.Bucket(bucket)
			o, _ := mustHead(t, newTestClient(t, srv, nil).Bucket(bucket), "obj")
			rc, err := s.Get(t.Context(), "obj", 10, int64(len(body))-20, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if !bytes.Equal(got, body[10:len(body)-10]) {
				t.Errorf("resumed body differs (got %d bytes, want %d)", len(got), len(body)-20)
			}
			reqs := fs.requests()
			if len(reqs) != 2 {
				t.Fatalf("server saw %d requests; want the first and one resume", len(reqs))
			}
			wantResume := []string{"bytes=1010-262133", `"` + o.ETag + `"`}
			gotResume := []string{reqs[1].Header.Get("Range"), reqs[1].Header.Get("If-Match")}
			if diff := cmp.Diff(wantResume, gotResume); diff != "" {
				t.Errorf("resume request Range and If-Match (-want +got):\n%s", diff)
			}
		})
	}

	// A server-side copy's answer may take as long as the copy; a copy of
	// known small size is retried like any small request, whatever the
	// (here: hour-long) wait allowed to copies of unknown size.
	for _, tt := range []struct {
		name, op string
		run      func(ctx context.Context, s *Store) error
	}{
		{"a stalled copy of a small object is retried (hand-signed CopyObject)", "CopyObject", func(ctx context.Context, s *Store) error {
			return s.Copy(ctx, store.CopySource{Bucket: bucket, Key: "obj", Size: int64(len(body))}, "copy", nil)
		}},
		{"a stalled copy of a small object is retried (SDK CopyObject)", "CopyObject", func(ctx context.Context, s *Store) error {
			return s.Copy(ctx, store.CopySource{Bucket: bucket, Key: "obj", Size: int64(len(body))}, "copy", &store.Metadata{ContentType: "a/b"})
		}},
		{"a stalled part copy of a small range is retried", "UploadPartCopy", func(ctx context.Context, s *Store) error {
			id, err := s.CreateMultipart(ctx, "mp", store.Metadata{})
			if err != nil {
				return err
			}
			defer s.AbortMultipart(context.WithoutCancel(ctx), "mp", id)
			_, err = s.UploadPartCopy(ctx, "mp", id, 1, store.CopySource{Bucket: bucket, Key: "obj"}, 0, int64(len(body))-1)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.op == "UploadPartCopy" {
				srv.Require(t, s3test.PartCopy)
			}
			var reqs counter
			var hung atomic.Bool
			c, _ := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
				if opOf(r) == tt.op && hung.CompareAndSwap(false, true) {
					hang(w, r)
					return
				}
				next.ServeHTTP(w, r)
			}, func(cfg *Config) {
				stallFast(cfg)
				cfg.CopyStallTimeout = time.Hour
				cfg.OnRequest = reqs.add
			})
			// Without the size the wait would be the hour: the minute
			// bounds how long this test can take to say so.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			mustHead(t, c.Bucket(bucket), "obj")
			if err := tt.run(ctx, c.Bucket(bucket)); err != nil {
				t.Fatal(err)
			}
			if got := reqs.get()[tt.op]; got != 2 {
				t.Errorf("%s attempts = %d; want 2 (the stalled one, retried)", tt.op, got)
			}
		})
	}

	t.Run("a resume after the object changed fails with precondition failed", func(t *testing.T) {
		srv.Require(t, s3test.ConditionalGet)
		direct := newTestClient(t, srv, nil).Bucket(bucket)
		mustPut(t, direct, "changing", body, store.Metadata{})
		c, _ := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if n == 1 {
				next.ServeHTTP(&cutWriter{ResponseWriter: w, limit: 1000, cut: func() {
					// Overwrite while the first response is in flight. This
					// runs in the server's goroutine: report, do not Fatal.
					v2 := pattern(len(body) + 1)[1:]
					if err := direct.Put(context.Background(), "changing", bytes.NewReader(v2), int64(len(v2)), store.Metadata{}); err != nil {
						t.Errorf("overwrite: %v", err)
					}
				}}, r)
				return
			}
			next.ServeHTTP(w, r)
		}, stallFast)
		rc, err := c.Bucket(bucket).Get(t.Context(), "changing", 0, -1, "")
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		_, err = io.ReadAll(rc)
		if !errors.Is(err, store.ErrPreconditionFailed) {
			t.Errorf("reading across a change: %v; want store.ErrPreconditionFailed", err)
		}
	})
}
