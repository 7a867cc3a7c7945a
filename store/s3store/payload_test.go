package s3store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// payloadOf says how a request's body was vouched for: its
// x-amz-content-sha256 ("UNSIGNED-PAYLOAD" or "sha256" for a hex digest)
// and the checksum headers it carried.
func payloadOf(r *http.Request) string {
	hash := r.Header.Get("X-Amz-Content-Sha256")
	if len(hash) == 64 && strings.Trim(hash, "0123456789abcdef") == "" {
		hash = "sha256"
	}
	var sums []string
	for k := range r.Header {
		if strings.HasPrefix(k, "X-Amz-Checksum-") && k != "X-Amz-Checksum-Type" && k != "X-Amz-Checksum-Algorithm" {
			sums = append(sums, strings.ToLower(strings.TrimPrefix(k, "X-Amz-Checksum-")))
		}
	}
	return strings.Join(append([]string{opOf(r), hash}, sums...), " ")
}

// accessDenied refuses r as S3 does, after reading its body: a server that
// answers before it has read the body makes the client's send fail.
func accessDenied(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte(`<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`))
}

func TestPayloadsWithAChecksumGoUnsignedOverHTTP(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Checksums)
	bucket := srv.NewBucket(t)
	ctx := t.Context()
	body := pattern(minPart)
	pass := func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) { next.ServeHTTP(w, r) }
	uploads := func(fs *faultServer) []string {
		var got []string
		for _, r := range fs.requests() {
			if op := opOf(r); op == "PutObject" || op == "UploadPart" {
				got = append(got, payloadOf(r))
			}
		}
		return got
	}
	upload := func(t *testing.T, s *Store) {
		t.Helper()
		mustPut(t, s, "put", body, store.Metadata{})
		id, err := s.CreateMultipartChecksum(ctx, "mpu", store.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.UploadPart(ctx, "mpu", id, 1, bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CompleteMultipart(ctx, "mpu", id, []store.Part{p}); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"put", "mpu"} {
			if !bytes.Equal(mustGet(t, s, k), body) {
				t.Errorf("%s: the object differs from what was uploaded", k)
			}
		}
	}

	t.Run("with a CRC the payload is unsigned", func(t *testing.T) {
		c, fs := faultClient(t, srv, pass, nil)
		upload(t, c.Bucket(bucket))
		want := []string{"PutObject UNSIGNED-PAYLOAD crc64nvme", "UploadPart UNSIGNED-PAYLOAD crc64nvme"}
		if diff := cmp.Diff(want, uploads(fs)); diff != "" {
			t.Errorf("uploads (-want +got):\n%s", diff)
		}
	})
	t.Run("without a checksum the payload is signed", func(t *testing.T) {
		c, fs := faultClient(t, srv, pass, func(cfg *Config) { cfg.ChecksumWhenRequired = true })
		upload(t, c.Bucket(bucket))
		want := []string{"PutObject sha256", "UploadPart sha256"}
		if diff := cmp.Diff(want, uploads(fs)); diff != "" {
			t.Errorf("uploads (-want +got):\n%s", diff)
		}
		sum := sha256.Sum256(body)
		if got := fs.requests()[0].Header.Get("X-Amz-Content-Sha256"); got != hex.EncodeToString(sum[:]) {
			t.Errorf("signed payload hash %s is not the body's SHA-256", got)
		}
	})
	t.Run("a server that refuses unsigned payloads gets signed ones", func(t *testing.T) {
		refused := 0
		var mu sync.Mutex
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
		upload(t, c.Bucket(bucket))
		// The first refusal is resent signed, and the client signs from then on.
		want := []string{"PutObject UNSIGNED-PAYLOAD crc64nvme", "PutObject sha256 crc64nvme", "UploadPart sha256 crc64nvme"}
		if diff := cmp.Diff(want, uploads(fs)); diff != "" {
			t.Errorf("uploads (-want +got):\n%s", diff)
		}
		if refused != 1 {
			t.Errorf("%d unsigned requests refused, want 1", refused)
		}
	})
	t.Run("once the server took an unsigned payload a refusal is an error", func(t *testing.T) {
		c, fs := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if opOf(r) == "PutObject" && strings.HasSuffix(r.URL.Path, "/denied") {
				accessDenied(w, r)
				return
			}
			next.ServeHTTP(w, r)
		}, nil)
		s := c.Bucket(bucket)
		mustPut(t, s, "first", body, store.Metadata{})
		err := s.Put(ctx, "denied", bytes.NewReader(body), int64(len(body)), store.Metadata{})
		if err == nil {
			t.Fatal("a refused put succeeded")
		}
		want := []string{"PutObject UNSIGNED-PAYLOAD crc64nvme", "PutObject UNSIGNED-PAYLOAD crc64nvme"}
		if diff := cmp.Diff(want, uploads(fs)); diff != "" {
			t.Errorf("uploads (-want +got):\n%s", diff)
		}
	})
}

// TestUnsignedPayloadsStillCatchCorruption flips one bit in the middle of
// every upload's body on the way to the server: the CRC the request
// carries (or, without one, the signed SHA-256) must make the server refuse
// it, with nothing stored.
func TestUnsignedPayloadsStillCatchCorruption(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Checksums)
	for _, tt := range []struct {
		name     string
		mod      func(*Config)
		put, mpu string
	}{
		{"unsigned with a CRC", nil, "PutObject UNSIGNED-PAYLOAD crc64nvme", "UploadPart UNSIGNED-PAYLOAD crc64nvme"},
		{"signed without a checksum", func(cfg *Config) { cfg.ChecksumWhenRequired = true }, "PutObject sha256", "UploadPart sha256"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bucket := srv.NewBucket(t)
			ctx := t.Context()
			var mu sync.Mutex
			var seen []string
			proxy, err := faultproxy.New(srv.Endpoint, faultproxy.Config{
				CorruptUploadRate: 1,
				Match: func(r *http.Request) bool {
					op := opOf(r)
					if op != "PutObject" && op != "UploadPart" {
						return false
					}
					mu.Lock()
					seen = append(seen, payloadOf(r))
					mu.Unlock()
					return true
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { proxy.Close() })
			c := newTestClient(t, srv, func(cfg *Config) {
				cfg.EndpointURL = proxy.URL()
				cfg.Backoff = fastBackoff
				cfg.MaxAttempts = 2
				if tt.mod != nil {
					tt.mod(cfg)
				}
			})
			s := c.Bucket(bucket)
			body := pattern(minPart + 1)

			err = s.Put(ctx, "put", bytes.NewReader(body), int64(len(body)), store.Metadata{})
			if !errors.Is(err, store.ErrChecksumMismatch) {
				t.Errorf("put of a corrupted body: %v; want a checksum mismatch", err)
			}
			if _, _, err := s.Head(ctx, "put"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("head after the refused put: %v; want not found", err)
			}

			id, err := s.CreateMultipartChecksum(ctx, "mpu", store.Metadata{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.AbortMultipart(ctx, "mpu", id) })
			_, err = s.UploadPart(ctx, "mpu", id, 1, bytes.NewReader(body), int64(len(body)))
			if !errors.Is(err, store.ErrChecksumMismatch) {
				t.Errorf("upload of a corrupted part: %v; want a checksum mismatch", err)
			}

			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff([]string{tt.put, tt.put, tt.mpu, tt.mpu}, seen); diff != "" {
				t.Errorf("corrupted uploads, each tried twice (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLargeStreamsCarryAChecksumOverHTTP puts a stream too large to buffer
// in memory and unable to seek (as a Get's body) over plain HTTP: it must
// go with a CRC the server checks (and so unsigned) or, without checksums,
// signed with its SHA-256; never unsigned with neither. Spooled, it can
// also be retried.
func TestLargeStreamsCarryAChecksumOverHTTP(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Checksums)
	body := pattern(maxBuffered + 1000)
	sum := sha256.Sum256(body)
	for _, tt := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"with a CRC", nil, "PutObject UNSIGNED-PAYLOAD crc64nvme"},
		{"without a checksum", func(cfg *Config) { cfg.ChecksumWhenRequired = true }, "PutObject sha256"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var once sync.Once
			c, fs := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
				refuse := false
				if strings.HasSuffix(r.URL.Path, "/retried") {
					once.Do(func() { refuse = true })
				}
				if refuse {
					_, _ = io.Copy(io.Discard, r.Body)
					slowDown(w)
					return
				}
				next.ServeHTTP(w, r)
			}, tt.mod)
			s := c.Bucket(srv.NewBucket(t))
			for _, key := range []string{"big", "retried"} {
				// io.MultiReader hides the Seek method: a stream.
				if err := s.Put(t.Context(), key, io.MultiReader(bytes.NewReader(body)), int64(len(body)), store.Metadata{}); err != nil {
					t.Errorf("put %s: %v", key, err)
				}
			}
			var got []string
			for _, r := range fs.requests() {
				if opOf(r) != "PutObject" {
					continue
				}
				got = append(got, payloadOf(r))
				if h := r.Header.Get("X-Amz-Content-Sha256"); h != unsignedPayload && h != hex.EncodeToString(sum[:]) {
					t.Errorf("signed payload hash %s is not the body's SHA-256", h)
				}
			}
			if diff := cmp.Diff([]string{tt.want, tt.want, tt.want}, got); diff != "" {
				t.Errorf("puts, the second answered SlowDown once (-want +got):\n%s", diff)
			}
			for _, key := range []string{"big", "retried"} {
				if !bytes.Equal(mustGet(t, s, key), body) {
					t.Errorf("%s differs from what was put", key)
				}
			}
		})
	}
}
