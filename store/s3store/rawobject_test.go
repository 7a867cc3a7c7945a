package s3store

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// TestRawGetAgreesWithTheSDK reads the same objects, whole and in ranges,
// with checksums and without, through the raw GetObject and the SDK's:
// every field this package reads must come out the same.
func TestRawGetAgreesWithTheSDK(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.OddKeys) // oddKeys round trip, as in TestCopy
	bucket := srv.NewBucket(t)
	ctx := t.Context()
	c := newTestClient(t, srv, nil)
	if c.raw == nil {
		t.Fatal("a client of a custom endpoint has no raw requests")
	}
	s := c.Bucket(bucket)
	meta := store.Metadata{
		ContentType: "text/plain; charset=utf-8", ContentEncoding: "identity", ContentLanguage: "fr",
		CacheControl: "max-age=60", ContentDisposition: `attachment; filename="a b.txt"`,
		User: map[string]string{"owner": "ops", "mixed-case": "Value With Spaces"},
	}
	body := pattern(70_000)
	keys := append([]string{"plain", "meta"}, oddKeys...)
	for _, k := range keys {
		m := store.Metadata{}
		if k == "meta" {
			m = meta
		}
		mustPut(t, s, k, body, m)
	}
	mp := "multipart"
	id, err := s.CreateMultipartChecksum(ctx, mp, meta)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.UploadPart(ctx, mp, id, 1, bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteMultipart(ctx, mp, id, []store.Part{p}); err != nil {
		t.Fatal(err)
	}
	keys = append(keys, mp)

	ignore := cmp.Options{cmpopts.IgnoreFields(s3.GetObjectOutput{}, "Body", "ResultMetadata"), cmpopts.IgnoreUnexported(s3.GetObjectOutput{})}
	for _, k := range keys {
		for _, tt := range []struct {
			name      string
			rng       string
			checksums bool
		}{
			{"whole with checksums", "", true},
			{"whole", "", false},
			{"a range", "bytes=10-999", false},
			{"a range to the end", "bytes=69000-", true},
		} {
			t.Run(k+"/"+tt.name, func(t *testing.T) {
				in := s.getInput(k)
				if tt.checksums {
					in.ChecksumMode = s3types.ChecksumModeEnabled
				}
				if tt.rng != "" {
					in.Range = aws.String(tt.rng)
				}
				want, err := c.s3.GetObject(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				wantBody, _ := io.ReadAll(want.Body)
				want.Body.Close()
				got, err := c.raw.getObject(ctx, s, k, tt.rng, "", tt.checksums)
				if err != nil {
					t.Fatal(err)
				}
				gotBody, _ := io.ReadAll(got.Body)
				got.Body.Close()
				if diff := cmp.Diff(want, got, ignore, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("GetObject output (-sdk +raw):\n%s", diff)
				}
				if !bytes.Equal(gotBody, wantBody) {
					t.Errorf("raw body has %d bytes, the SDK's %d, and they differ", len(gotBody), len(wantBody))
				}
			})
		}
	}

	t.Run("errors map to the same sentinels", func(t *testing.T) {
		for _, tt := range []struct {
			key, ifMatch string
			want         error
		}{
			{"absent", "", store.ErrNotFound},
			{"plain", `"0123456789abcdef0123456789abcdef"`, store.ErrPreconditionFailed},
		} {
			t.Run(tt.want.Error(), func(t *testing.T) {
				if tt.ifMatch != "" {
					srv.Require(t, s3test.ConditionalGet)
				}
				_, err := c.raw.getObject(ctx, s, tt.key, "", tt.ifMatch, false)
				if !errors.Is(err, tt.want) {
					t.Errorf("get %s: %v; want %v", tt.key, err, tt.want)
				}
			})
		}
	})
}

// TestRawGetReadsAGzipObjectAsStored: an object stored with
// Content-Encoding: gzip is bytes like any other. A transport that asked
// for gzip itself would decompress it on the way, and the copy would
// differ from the source (and fail its checksum).
func TestRawGetReadsAGzipObjectAsStored(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	s := newTestClient(t, srv, nil).Bucket(bucket)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write(bytes.Repeat([]byte("compressible "), 1000))
	_ = zw.Close()
	mustPut(t, s, "z.gz", z.Bytes(), store.Metadata{ContentType: "text/plain", ContentEncoding: "gzip"})
	rc, meta, err := s.GetWithMetadata(t.Context(), "z.gz", "")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, z.Bytes()) {
		t.Errorf("read %d bytes, stored %d gzip-encoded ones: the body was changed on the way", len(got), z.Len())
	}
	if meta.ContentEncoding != "gzip" {
		t.Errorf("content encoding %q, want gzip", meta.ContentEncoding)
	}
}

// TestRawPut: small uploads go without the SDK, with a CRC64NVME the server
// checks and keeps, unsigned, and fall back to signed ones through the SDK
// when the server refuses unsigned payloads; a retry sends the same bytes
// again. Bodies that can be read at offsets (a file) and bodies in memory
// (store.BytesReader) take two paths there.
func TestRawPut(t *testing.T) {
	for _, tt := range []struct {
		name    string
		newBody func([]byte) io.Reader
	}{
		{"from a reader at offsets", func(b []byte) io.Reader { return bytes.NewReader(b) }},
		{"from memory", func(b []byte) io.Reader { return store.NewBytesReader(b) }},
	} {
		t.Run(tt.name, func(t *testing.T) { testRawPut(t, tt.newBody) })
	}
}

func testRawPut(t *testing.T, newBody func([]byte) io.Reader) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Checksums)
	bucket := srv.NewBucket(t)
	ctx := t.Context()
	body := pattern(100 << 10)
	// By hash/crc64's table, independently of the store's CRC64NVME.
	crc := crc64.Checksum(body, crc64.MakeTable(polyCRC64NVME))
	wantCRC := base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint64(nil, crc))
	pass := func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) { next.ServeHTTP(w, r) }
	mustPut := func(t *testing.T, s *Store, key string, body []byte, meta store.Metadata) {
		t.Helper()
		if err := s.Put(t.Context(), key, newBody(body), int64(len(body)), meta); err != nil {
			t.Fatalf("put %s: %v", s.URL(key), err)
		}
	}
	puts := func(fs *faultServer) (got []string) {
		for _, r := range fs.requests() {
			if opOf(r) == "PutObject" {
				got = append(got, payloadOf(r)+" "+via(r))
			}
		}
		return got
	}

	t.Run("a small put is raw, unsigned, with a CRC64NVME the object keeps", func(t *testing.T) {
		c, fs := faultClient(t, srv, pass, nil)
		s := c.Bucket(bucket)
		meta := store.Metadata{ContentType: "application/x-test", CacheControl: "no-cache", User: map[string]string{"a-key": "v"}}
		mustPut(t, s, "small", body, meta)
		big := pattern(rawPutMax + 1)
		mustPut(t, s, "big", big, store.Metadata{})
		if diff := cmp.Diff([]string{"PutObject UNSIGNED-PAYLOAD crc64nvme raw", "PutObject UNSIGNED-PAYLOAD crc64nvme sdk"}, puts(fs)); diff != "" {
			t.Errorf("puts (-want +got):\n%s", diff)
		}
		if got := mustGet(t, s, "small"); !bytes.Equal(got, body) {
			t.Error("the object differs from what was put")
		}
		if _, got := mustHead(t, s, "small"); !cmp.Equal(got, meta, cmpopts.IgnoreFields(store.Metadata{}, "Checksum")) {
			t.Errorf("metadata %+v, want %+v", got, meta)
		}
		sums, err := s.Checksums(ctx, "small")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]store.Checksum{{Algorithm: "CRC64NVME", Value: wantCRC}}, sums); diff != "" {
			t.Errorf("stored checksums (-want +got):\n%s", diff)
		}
	})
	t.Run("a corrupted small put fails and stores nothing", func(t *testing.T) {
		var mu sync.Mutex
		var seen []string
		proxy, err := faultproxy.New(srv.Endpoint, faultproxy.Config{
			CorruptUploadRate: 1,
			Match: func(r *http.Request) bool {
				if opOf(r) != "PutObject" {
					return false
				}
				mu.Lock()
				seen = append(seen, payloadOf(r)+" "+via(r))
				mu.Unlock()
				return true
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proxy.Close() })
		s := newTestClient(t, srv, func(cfg *Config) {
			cfg.EndpointURL = proxy.URL()
			cfg.Backoff = fastBackoff
			cfg.MaxAttempts = 2
		}).Bucket(bucket)
		err = s.Put(ctx, "corrupted", newBody(body), int64(len(body)), store.Metadata{})
		if !errors.Is(err, store.ErrChecksumMismatch) {
			t.Errorf("put of a corrupted body: %v; want a checksum mismatch", err)
		}
		if _, _, err := s.Head(ctx, "corrupted"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("head after the refused put: %v; want not found", err)
		}
		mu.Lock()
		defer mu.Unlock()
		want := []string{"PutObject UNSIGNED-PAYLOAD crc64nvme raw", "PutObject UNSIGNED-PAYLOAD crc64nvme raw"}
		if diff := cmp.Diff(want, seen); diff != "" {
			t.Errorf("corrupted puts, each tried twice (-want +got):\n%s", diff)
		}
	})
	t.Run("a server that refuses unsigned payloads gets signed ones", func(t *testing.T) {
		var mu sync.Mutex
		refused := 0
		c, fs := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if r.Header.Get("X-Amz-Content-Sha256") == unsignedPayload {
				mu.Lock()
				refused++
				mu.Unlock()
				accessDenied(w, r)
				return
			}
			next.ServeHTTP(w, r)
		}, nil)
		s := c.Bucket(bucket)
		mustPut(t, s, "first", body, store.Metadata{})
		mustPut(t, s, "second", body, store.Metadata{})
		// The first refusal is resent signed through the SDK, which signs
		// from then on.
		want := []string{"PutObject UNSIGNED-PAYLOAD crc64nvme raw", "PutObject sha256 crc64nvme sdk", "PutObject sha256 crc64nvme sdk"}
		if diff := cmp.Diff(want, puts(fs)); diff != "" {
			t.Errorf("puts (-want +got):\n%s", diff)
		}
		if refused != 1 {
			t.Errorf("%d unsigned requests refused, want 1", refused)
		}
		if got := mustGet(t, s, "second"); !bytes.Equal(got, body) {
			t.Error("the object differs from what was put")
		}
	})
	t.Run("once the server took an unsigned payload a refusal is an error", func(t *testing.T) {
		c, fs := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if opOf(r) == "PutObject" && r.URL.Path == "/"+bucket+"/denied" {
				accessDenied(w, r)
				return
			}
			next.ServeHTTP(w, r)
		}, nil)
		s := c.Bucket(bucket)
		mustPut(t, s, "first", body, store.Metadata{})
		if err := s.Put(ctx, "denied", newBody(body), int64(len(body)), store.Metadata{}); !errors.Is(err, store.ErrAccessDenied) {
			t.Fatalf("a refused put: %v; want access denied", err)
		}
		want := []string{"PutObject UNSIGNED-PAYLOAD crc64nvme raw", "PutObject UNSIGNED-PAYLOAD crc64nvme raw"}
		if diff := cmp.Diff(want, puts(fs)); diff != "" {
			t.Errorf("puts (-want +got):\n%s", diff)
		}
	})
	t.Run("without checksums a put goes through the SDK, signed", func(t *testing.T) {
		c, fs := faultClient(t, srv, pass, func(cfg *Config) { cfg.ChecksumWhenRequired = true })
		mustPut(t, c.Bucket(bucket), "signed", body, store.Metadata{})
		if diff := cmp.Diff([]string{"PutObject sha256 sdk"}, puts(fs)); diff != "" {
			t.Errorf("puts (-want +got):\n%s", diff)
		}
	})
	t.Run("a retried put sends the same bytes again", func(t *testing.T) {
		var mu sync.Mutex
		var sent [][]byte
		c, fs := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if opOf(r) != "PutObject" {
				next.ServeHTTP(w, r)
				return
			}
			b, err := io.ReadAll(r.Body)
			if err != nil {
				t.Errorf("read the body: %v", err)
			}
			mu.Lock()
			sent = append(sent, b)
			first := len(sent) == 1
			mu.Unlock()
			if first {
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `<Error><Code>InternalError</Code><Message>try again</Message></Error>`)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			next.ServeHTTP(w, r)
		}, nil)
		s := c.Bucket(bucket)
		mustPut(t, s, "retried", body, store.Metadata{})
		if diff := cmp.Diff([]string{"PutObject UNSIGNED-PAYLOAD crc64nvme raw", "PutObject UNSIGNED-PAYLOAD crc64nvme raw"}, puts(fs)); diff != "" {
			t.Errorf("puts (-want +got):\n%s", diff)
		}
		mu.Lock()
		defer mu.Unlock()
		for i, b := range sent {
			if !bytes.Equal(b, body) {
				t.Errorf("attempt %d sent %d bytes that differ from the body's %d", i+1, len(b), len(body))
			}
		}
		if got := mustGet(t, s, "retried"); !bytes.Equal(got, body) {
			t.Error("the object differs from what was put")
		}
	})
}

// TestRawPutFromAReaderAt: a body read at offsets (a file) is read once
// into a pooled buffer, hashed and sent from it, the buffer returned once
// the request is sent; a retry reads it again and refuses bytes that
// changed; with the pool at its bound it is read twice, as before there
// was a pool; a body that says its source changed is not sent.
func TestRawPutFromAReaderAt(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Checksums)
	bucket := srv.NewBucket(t)
	ctx := t.Context()
	returned := func(t *testing.T, c *Client) {
		t.Helper()
		for start := time.Now(); c.raw.sends.out.Load() != 0; time.Sleep(time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%d bytes of send buffers still out", c.raw.sends.out.Load())
			}
		}
	}
	failFirst := func(mutate func()) faultFunc {
		var mu sync.Mutex
		n := 0
		return func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			mu.Lock()
			n++
			first := n == 1 && opOf(r) == "PutObject"
			mu.Unlock()
			if !first {
				next.ServeHTTP(w, r)
				return
			}
			io.Copy(io.Discard, r.Body)
			if mutate != nil {
				mutate()
			}
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `<Error><Code>InternalError</Code><Message>try again</Message></Error>`)
		}
	}
	t.Run("a retry of bytes that changed fails and stores nothing", func(t *testing.T) {
		body := pattern(100 << 10)
		c, _ := faultClient(t, srv, failFirst(func() { body[len(body)/2] ^= 1 }), nil)
		s := c.Bucket(bucket)
		err := s.Put(ctx, "changed", bytes.NewReader(body), int64(len(body)), store.Metadata{})
		if !errors.Is(err, store.ErrPreconditionFailed) || !strings.Contains(err.Error(), "changed") {
			t.Errorf("put of a body that changed before its retry: %v; want one saying it changed", err)
		}
		if _, _, err := s.Head(ctx, "changed"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("head after the failed put: %v; want not found", err)
		}
		returned(t, c)
	})
	t.Run("with the pool at its bound the body is read twice", func(t *testing.T) {
		body := pattern(100 << 10)
		c, fs := faultClient(t, srv, failFirst(nil), nil)
		c.raw.sends.max = 0
		s := c.Bucket(bucket)
		mustPut(t, s, "unpooled", body, store.Metadata{})
		if got := mustGet(t, s, "unpooled"); !bytes.Equal(got, body) {
			t.Error("the object differs from what was put")
		}
		var got []string
		for _, r := range fs.requests() {
			if opOf(r) == "PutObject" {
				got = append(got, payloadOf(r)+" "+via(r))
			}
		}
		if diff := cmp.Diff([]string{"PutObject UNSIGNED-PAYLOAD crc64nvme raw", "PutObject UNSIGNED-PAYLOAD crc64nvme raw"}, got); diff != "" {
			t.Errorf("puts (-want +got):\n%s", diff)
		}
	})
	t.Run("a body whose source changed is not sent", func(t *testing.T) {
		body := pattern(100 << 10)
		c, fs := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) { next.ServeHTTP(w, r) }, nil)
		s := c.Bucket(bucket)
		changed := fmt.Errorf("the file changed: %w", store.ErrPreconditionFailed)
		err := s.Put(ctx, "source-changed", &changingBody{Reader: bytes.NewReader(body), err: changed}, int64(len(body)), store.Metadata{})
		if !errors.Is(err, changed) {
			t.Errorf("put: %v; want %v", err, changed)
		}
		for _, r := range fs.requests() {
			if opOf(r) == "PutObject" {
				t.Errorf("a PutObject was sent: %s", r.URL)
			}
		}
		returned(t, c)
	})
	t.Run("buffers go back to the pool", func(t *testing.T) {
		c := newTestClient(t, srv, nil)
		s := c.Bucket(bucket)
		for i, n := range []int{1, 4 << 10, 100 << 10, rawPutMax} {
			mustPut(t, s, fmt.Sprint("sized-", i), pattern(n), store.Metadata{})
		}
		returned(t, c)
	})
}

// changingBody is a body whose source says it changed.
type changingBody struct {
	*bytes.Reader
	err error
}

func (b *changingBody) CheckUnchanged() error { return b.err }

func TestSendPoolClasses(t *testing.T) {
	seen := map[int]int64{}
	for n := int64(1); n <= rawPutMax; n += 1 + n/7 {
		c, capacity := sendClass(n)
		if capacity < n || (n > minSendBuffer && capacity > n+n/4+1) || c < 0 || c > sendClasses {
			t.Errorf("sendClass(%d) = class %d of %d bytes; want at least n and at most a quarter more, one of %d classes", n, c, capacity, sendClasses+1)
		}
		if other, ok := seen[c]; ok && other != capacity {
			t.Errorf("class %d holds buffers of %d and %d bytes", c, other, capacity)
		}
		seen[c] = capacity
	}
	for _, tt := range []struct{ n, want int64 }{
		{1, minSendBuffer}, {minSendBuffer, minSendBuffer}, {minSendBuffer + 1, 5 << 10},
		{100 << 10, 112 << 10}, {128 << 10, 128 << 10}, {rawPutMax, rawPutMax},
	} {
		if _, got := sendClass(tt.n); got != tt.want {
			t.Errorf("sendClass(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
	if c, _ := sendClass(rawPutMax); c != sendClasses {
		t.Errorf("rawPutMax is in class %d, want the last, %d", c, sendClasses)
	}
	p := &sendPool{max: 300 << 10}
	a, b := p.get(100<<10), p.get(100<<10)
	if a == nil || b == nil || len(a) != 100<<10 || cap(a) != 112<<10 {
		t.Fatalf("two buffers of 100 KiB within a bound of 300 KiB: %d, %d bytes", len(a), len(b))
	}
	if c := p.get(100 << 10); c != nil {
		t.Errorf("a third one past the bound: %d bytes, want none", len(c))
	}
	p.put(a)
	if c := p.get(100 << 10); c == nil {
		t.Error("no buffer once one went back")
	}
	if c := p.get(rawPutMax + 1); c != nil {
		t.Errorf("a buffer larger than rawPutMax: %d bytes", len(c))
	}
}

// via says which path sent a request: "raw" (User-Agent s3bulk) or "sdk".
func via(r *http.Request) string {
	if r.Header.Get("User-Agent") == "s3bulk" {
		return "raw"
	}
	return "sdk"
}
