package faultproxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestMain(m *testing.M) { s3test.Main(m) }

// setup starts a proxy in front of the shared server and returns it with a
// client that talks through it and does not retry, so every fault shows.
func setup(t *testing.T, cfg Config) (*Proxy, *s3.Client, string) {
	t.Helper()
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	p, err := New(srv.Endpoint, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	c := s3.New(srv.Client(t).Options(), func(o *s3.Options) {
		o.BaseEndpoint = aws.String(p.URL())
		o.RetryMaxAttempts = 1
	})
	return p, c, bucket
}

func put(ctx context.Context, c *s3.Client, bucket, key string, body []byte) error {
	_, err := c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key),
		Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
	})
	return err
}

// get reads a whole object; a fault may hit the request or the body.
func get(ctx context.Context, c *s3.Client, bucket, key string) ([]byte, error) {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, err
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}

// transportError reports whether err is a failure below HTTP: the SDK
// wraps those in a response error with status 0.
func transportError(err error) bool {
	if err == nil {
		return false
	}
	var respErr *smithyhttp.ResponseError
	return !errors.As(err, &respErr) || respErr.HTTPStatusCode() == 0
}

func TestSignaturesValidateThroughTheProxy(t *testing.T) {
	p, c, bucket := setup(t, Config{})
	ctx := t.Context()
	body := bytes.Repeat([]byte("0123456789"), 100_000)
	// Keys that need escaping in the path, and a listing with query
	// parameters, check that the proxy forwards the request unchanged.
	for _, key := range []string{"plain", "with space/and+plus=equals", "ünïcödé%"} {
		if err := put(ctx, c, bucket, key, body); err != nil {
			t.Fatalf("put %q through the proxy: %v", key, err)
		}
		got, err := get(ctx, c, bucket, key)
		if err != nil {
			t.Fatalf("get %q through the proxy: %v", key, err)
		}
		if !bytes.Equal(got, body) {
			t.Errorf("get %q: %d bytes, want %d", key, len(got), len(body))
		}
	}
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("with space/")})
	if err != nil {
		t.Fatalf("list through the proxy: %v", err)
	}
	if len(out.Contents) != 1 {
		t.Errorf("list found %d objects, want 1", len(out.Contents))
	}
	if s := p.Stats(); s.Faults[None] != s.Requests || s.Requests != 7 {
		t.Errorf("stats = %+v, want 7 requests forwarded without faults", s)
	}
}

func TestEachFaultReachesTheClient(t *testing.T) {
	body := bytes.Repeat([]byte("abcdefgh"), 64<<10) // 512 KiB, several writes
	isCode := func(code string, status int) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			t.Helper()
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) || apiErr.ErrorCode() != code {
				t.Errorf("err = %v, want S3 error %s", err, code)
			}
			var respErr *smithyhttp.ResponseError
			if !errors.As(err, &respErr) || respErr.HTTPStatusCode() != status {
				t.Errorf("err = %v, want HTTP status %d", err, status)
			}
		}
	}
	isTransport := func(t *testing.T, err error) {
		t.Helper()
		if !transportError(err) {
			t.Errorf("err = %v, want a transport error without an HTTP status", err)
		}
	}
	isErr := func(target error) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			t.Helper()
			if !errors.Is(err, target) {
				t.Errorf("err = %v, want %v", err, target)
			}
		}
	}
	tests := []struct {
		name    string
		cfg     Config
		fault   Fault
		wantGet func(*testing.T, error)
		wantPut func(*testing.T, error) // nil when a PUT is covered elsewhere
	}{
		{"slow down is a 503 SlowDown error", Config{SlowDownRate: 1}, SlowDown,
			isCode("SlowDown", 503), isCode("SlowDown", 503)},
		{"internal error is a 500 InternalError", Config{InternalErrorRate: 1}, InternalError,
			isCode("InternalError", 500), isCode("InternalError", 500)},
		{"too many requests is a 429", Config{TooManyRequestsRate: 1}, TooManyRequests,
			isCode("TooManyRequests", 429), isCode("TooManyRequests", 429)},
		{"reset before the response is a connection reset", Config{ResetBeforeRate: 1}, ResetBefore,
			isErr(syscall.ECONNRESET), isTransport},
		{"reset mid-body breaks the body with a connection reset", Config{ResetMidBodyRate: 1}, ResetMidBody,
			isErr(syscall.ECONNRESET), nil},
		{"truncation ends the body early", Config{TruncateRate: 1}, Truncate,
			isErr(io.ErrUnexpectedEOF), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, c, bucket := setup(t, Config{})
			ctx := t.Context()
			if err := put(ctx, c, bucket, "k", body); err != nil {
				t.Fatal(err)
			}
			if err := p.SetConfig(tt.cfg); err != nil {
				t.Fatal(err)
			}
			got, err := get(ctx, c, bucket, "k")
			tt.wantGet(t, err)
			if err == nil && !bytes.Equal(got, body) {
				t.Errorf("get returned %d bytes without an error, want %d or an error", len(got), len(body))
			}
			if tt.wantPut != nil {
				tt.wantPut(t, put(ctx, c, bucket, "k2", body))
			}
			// Go's transport replays a request that failed on a reused
			// connection before any response, so a reset may count twice.
			if n := p.Stats().Faults[tt.fault]; n < 1 {
				t.Errorf("stats count %d %v faults, want at least 1", n, tt.fault)
			}
		})
	}
}

func TestCorruptFlipsOneBitInTheMiddle(t *testing.T) {
	body := bytes.Repeat([]byte("abcdefgh"), 64<<10)
	p, c, bucket := setup(t, Config{})
	ctx := t.Context()
	if err := put(ctx, c, bucket, "k", body); err != nil {
		t.Fatal(err)
	}
	if err := p.SetConfig(Config{CorruptRate: 1}); err != nil {
		t.Fatal(err)
	}
	got, err := get(ctx, c, bucket, "k")
	if err != nil {
		t.Fatalf("get: %v; a corrupted body still arrives whole", err)
	}
	want := bytes.Clone(body)
	want[len(want)/2] ^= 0x01
	if !bytes.Equal(got, want) {
		t.Error("the body is not the object with the bit in its middle byte flipped")
	}
	if n := p.Stats().Faults[Corrupt]; n != 1 {
		t.Errorf("stats count %d corrupt faults, want 1", n)
	}
	// A PUT's bytes go to the server untouched; its empty answer passes.
	if err := put(ctx, c, bucket, "k2", body); err != nil {
		t.Errorf("put through a corrupting proxy: %v", err)
	}
}

func TestCorruptUploadFlipsOneBitOfTheRequestBody(t *testing.T) {
	body := bytes.Repeat([]byte("abcdefgh"), 64<<10)
	p, c, bucket := setup(t, Config{CorruptUploadRate: 1})
	ctx := t.Context()
	// Neither a checksum nor a signed payload: the server stores what
	// arrives, which shows what the proxy sent.
	_, err := c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String("k"),
		Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
	}, func(o *s3.Options) {
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
	})
	if err != nil {
		t.Fatalf("unchecked put: %v", err)
	}
	if err := p.SetConfig(Config{}); err != nil {
		t.Fatal(err)
	}
	got, err := get(ctx, c, bucket, "k")
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(body)
	want[len(want)/2] ^= 0x01
	if !bytes.Equal(got, want) {
		t.Error("the stored object is not the body with the bit in its middle byte flipped")
	}
	if n := p.Stats().Faults[CorruptUpload]; n != 1 {
		t.Errorf("stats count %d corrupt-upload faults, want 1", n)
	}
}

func TestCorruptUploadWithAChecksumIsRefused(t *testing.T) {
	s3test.Start(t).Require(t, s3test.RequestChecksums)
	body := bytes.Repeat([]byte("abcdefgh"), 64<<10)
	p, c, bucket := setup(t, Config{CorruptUploadRate: 1})
	ctx := t.Context()
	// With the SDK's default CRC32 the server refuses the damaged body.
	if err := put(ctx, c, bucket, "k2", body); err == nil {
		t.Error("a put with a checksum and a flipped bit succeeded")
	}
	if err := p.SetConfig(Config{}); err != nil {
		t.Fatal(err)
	}
	if _, err := get(ctx, c, bucket, "k2"); err == nil {
		t.Error("the refused put left an object behind")
	}
	if n := p.Stats().Faults[CorruptUpload]; n != 1 {
		t.Errorf("stats count %d corrupt-upload faults, want 1", n)
	}
}

func TestDropChecksumsHidesWhatTheServerKeeps(t *testing.T) {
	s3test.Start(t).Require(t, s3test.Checksums)
	p, c, bucket := setup(t, Config{})
	ctx := t.Context()
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String("k"), Body: strings.NewReader("hello"),
		ChecksumAlgorithm: "CRC32C",
	}); err != nil {
		t.Fatal(err)
	}
	head := func() *s3.HeadObjectOutput {
		t.Helper()
		out, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), ChecksumMode: "ENABLED"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if head().ChecksumCRC32C == nil {
		t.Fatal("the server keeps no CRC32C of the object: nothing to drop")
	}
	// Match selects nothing: dropping applies to every response anyway.
	if err := p.SetConfig(Config{DropChecksums: true, Match: func(*http.Request) bool { return false }}); err != nil {
		t.Fatal(err)
	}
	if out := head(); out.ChecksumCRC32C != nil || out.ChecksumType != "" {
		t.Errorf("through DropChecksums the object has CRC32C %q, type %q; want neither", aws.ToString(out.ChecksumCRC32C), out.ChecksumType)
	}
}

func TestResetOrTruncateOfAnEmptyBodyCutsTheHeader(t *testing.T) {
	for _, cfg := range []Config{{ResetMidBodyRate: 1}, {TruncateRate: 1}} {
		name := "reset mid-body"
		if cfg.TruncateRate > 0 {
			name = "truncate"
		}
		t.Run(name+" fails a PUT, whose response has no body", func(t *testing.T) {
			_, c, bucket := setup(t, cfg)
			if err := put(t.Context(), c, bucket, "k", []byte("x")); !transportError(err) {
				t.Errorf("put: err = %v, want a transport error without an HTTP status", err)
			}
		})
	}
}

func TestStallHoldsTheRequestUntilTheClientGivesUp(t *testing.T) {
	p, c, bucket := setup(t, Config{StallRate: 1})
	ended := make(chan struct{}, 1)
	p.onStallEnd = func() { ended <- struct{}{} }
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	err := put(ctx, c, bucket, "k", bytes.Repeat([]byte("x"), 1<<20))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("put: err = %v, want the client's deadline", err)
	}
	<-ended // the stalled handler returned once the client hung up
	if n := p.Stats().Faults[Stall]; n != 1 {
		t.Errorf("stats count %d stalls, want 1", n)
	}
}

func TestCloseEndsStalledRequests(t *testing.T) {
	p, c, bucket := setup(t, Config{StallRate: 1})
	stalled := make(chan struct{})
	p.onStallEnd = func() { close(stalled) }
	started := make(chan error, 1)
	go func() {
		_, err := get(context.Background(), c, bucket, "k")
		started <- err
	}()
	for p.Stats().Faults[Stall] == 0 {
		select {
		case err := <-started:
			t.Fatalf("get ended before it was stalled: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	<-stalled
	if err := <-started; err == nil {
		t.Error("get through a closed proxy succeeded, want an error")
	}
}

// The server may hand over a request it read just before Close; Close
// then waits for the handlers, so one that arrives after it has begun must
// be turned away, not counted in (a WaitGroup must not grow while waited
// on) and not forwarded.
func TestARequestHandedOverAfterCloseIsRefused(t *testing.T) {
	var forwarded atomic.Int32
	p, err := NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { forwarded.Add(1) }), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	p.serveHTTP(rec, httptest.NewRequest(http.MethodGet, "/b/k", nil))
	if rec.Code != http.StatusServiceUnavailable || forwarded.Load() != 0 {
		t.Errorf("after Close: status %d, %d forwarded; want 503 and none", rec.Code, forwarded.Load())
	}
}

func TestLatencyDelaysEligibleRequests(t *testing.T) {
	const latency = 50 * time.Millisecond
	p, c, bucket := setup(t, Config{Latency: latency, Jitter: 10 * time.Millisecond,
		Match: func(r *http.Request) bool { return r.Method == http.MethodPut }})
	ctx := t.Context()
	start := time.Now()
	if err := put(ctx, c, bucket, "k", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < latency {
		t.Errorf("put took %v, want at least %v", d, latency)
	}
	if _, err := get(ctx, c, bucket, "k"); err != nil {
		t.Fatal(err)
	}
	want := Stats{Requests: 2, Delayed: 1}
	want.Faults[None] = 1
	if diff := cmp.Diff(want, p.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestMatchLimitsFaultsToSomeRequests(t *testing.T) {
	_, c, bucket := setup(t, Config{SlowDownRate: 1,
		Match: func(r *http.Request) bool { return r.Method == http.MethodGet }})
	ctx := t.Context()
	if err := put(ctx, c, bucket, "k", []byte("x")); err != nil {
		t.Errorf("put, which is not eligible: %v", err)
	}
	if _, err := get(ctx, c, bucket, "k"); err == nil {
		t.Error("get, which is eligible, succeeded; want SlowDown")
	}
}

// TestHookSeesEveryRequestBeforeTheFaults checks the three uses of a hook:
// counting requests and passing them on, answering some by itself, and
// running before the faults, which still apply to what it passes on.
func TestHookSeesEveryRequestBeforeTheFaults(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	p, c, bucket := setup(t, Config{InternalErrorRate: 1,
		Match: func(r *http.Request) bool { return r.Method == http.MethodGet },
		Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
			mu.Lock()
			seen[r.Method]++
			mu.Unlock()
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusTeapot)
				return
			}
			next.ServeHTTP(w, r)
		}})
	ctx := t.Context()
	if err := put(ctx, c, bucket, "k", []byte("x")); err != nil {
		t.Errorf("put, passed on and not eligible for faults: %v", err)
	}
	var re *smithyhttp.ResponseError
	if _, err := get(ctx, c, bucket, "k"); !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusInternalServerError {
		t.Errorf("get, passed on to the faults: %v, want a 500", err)
	}
	_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusTeapot {
		t.Errorf("head, answered by the hook: %v, want its 418", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(map[string]int{"PUT": 1, "GET": 1, "HEAD": 1}, seen); diff != "" {
		t.Errorf("requests the hook saw (-want +got):\n%s", diff)
	}
	if st := p.Stats(); st.Requests != 3 || st.Faults[InternalError] != 1 {
		t.Errorf("stats %+v, want 3 requests and the GET's one fault", st)
	}
}

func TestSetConfigTakesEffectForNewRequests(t *testing.T) {
	p, c, bucket := setup(t, Config{SlowDownRate: 1})
	ctx := t.Context()
	if err := put(ctx, c, bucket, "k", []byte("x")); err == nil {
		t.Fatal("put succeeded under SlowDownRate 1")
	}
	if err := p.SetConfig(Config{}); err != nil {
		t.Fatal(err)
	}
	if err := put(ctx, c, bucket, "k", []byte("x")); err != nil {
		t.Errorf("put after clearing the faults: %v", err)
	}
}

func TestSeedRepeatsTheFaultSequence(t *testing.T) {
	pattern := func() string {
		_, c, bucket := setup(t, Config{SlowDownRate: 0.3, InternalErrorRate: 0.3, Seed: 42})
		var b strings.Builder
		for range 30 {
			_, err := c.HeadBucket(t.Context(), &s3.HeadBucketInput{Bucket: aws.String(bucket)})
			var respErr *smithyhttp.ResponseError
			switch {
			case err == nil:
				b.WriteByte('.')
			case errors.As(err, &respErr):
				b.WriteString(http.StatusText(respErr.HTTPStatusCode())[:1])
			default:
				t.Fatalf("head bucket: %v", err)
			}
		}
		return b.String()
	}
	first, second := pattern(), pattern()
	if first != second {
		t.Errorf("same seed gave different faults:\n%s\n%s", first, second)
	}
	if !strings.Contains(first, ".") || !strings.Contains(first, "S") || !strings.Contains(first, "I") {
		t.Errorf("30 requests at 30%%/30%% should show successes, 503s and 500s: %s", first)
	}
}

func TestInvalidConfigsAreRefused(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"a rate above 1", Config{StallRate: 1.5}},
		{"a negative rate", Config{SlowDownRate: -0.1}},
		{"rates adding up to more than 1", Config{SlowDownRate: 0.6, TruncateRate: 0.6}},
		{"a negative latency", Config{Latency: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := New("http://127.0.0.1:1", tt.cfg); err == nil {
				p.Close()
				t.Error("New accepted the config")
			}
		})
	}
	t.Run("a target that is not an http URL", func(t *testing.T) {
		if p, err := New("127.0.0.1:1", Config{}); err == nil {
			p.Close()
			t.Error("New accepted the target")
		}
	})
}
