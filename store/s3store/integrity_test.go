package s3store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// corruptWriter flips one bit of the response body at offset at, and can
// drop the stored-checksum headers, so that only the ETag is left to check.
type corruptWriter struct {
	http.ResponseWriter
	at, seen      int64
	dropChecksums bool
}

func (c *corruptWriter) WriteHeader(code int) {
	if c.dropChecksums {
		for k := range c.Header() {
			if strings.HasPrefix(strings.ToLower(k), "x-amz-checksum-") {
				c.Header().Del(k)
			}
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *corruptWriter) Write(p []byte) (int, error) {
	if c.at >= c.seen && c.at < c.seen+int64(len(p)) {
		q := bytes.Clone(p)
		q[c.at-c.seen] ^= 0x20
		p = q
	}
	c.seen += int64(len(p))
	return c.ResponseWriter.Write(p)
}

func (c *corruptWriter) Flush() { c.ResponseWriter.(http.Flusher).Flush() }

// isObjectGet selects the GETs of object bodies.
func isObjectGet(r *http.Request) bool {
	return r.Method == http.MethodGet && opOf(r) == "GetObject"
}

// readEnded checks a read's error: a checksum mismatch when mismatch is
// wanted, and then it reports true (the case has nothing more to check);
// none otherwise.
func readEnded(t *testing.T, err error, mismatch bool) bool {
	t.Helper()
	if mismatch {
		if !errors.Is(err, store.ErrChecksumMismatch) {
			t.Fatalf("read: %v; want store.ErrChecksumMismatch", err)
		}
		return true
	}
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return false
}

// readAll reads like localstore does: exactly the size it expects, with
// io.CopyN, which drops the error of a read that completes its count.
func readAll(t *testing.T, s *Store, key string, off, length int64) ([]byte, error) {
	rc, err := s.Get(t.Context(), key, off, length, "")
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if length < 0 {
		o, _ := mustHead(t, s, key)
		length = o.Size - off
	}
	var b bytes.Buffer
	_, err = io.CopyN(&b, rc, length)
	return b.Bytes(), err
}

func TestMultipartUploadWithAFullObjectChecksum(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Checksums, s3test.ListParts)
	c := newTestClient(t, srv, nil)
	s := c.Bucket(srv.NewBucket(t))
	ctx := t.Context()
	body := pattern(2*minPart + 1)

	upload := func(t *testing.T, key string, sizes ...int) (string, []store.Part) {
		t.Helper()
		id, err := s.CreateMultipartChecksum(ctx, key, store.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.AbortMultipart(ctx, key, id) })
		var parts []store.Part
		off := 0
		for i, n := range sizes {
			p, err := s.UploadPart(ctx, key, id, int32(i+1), bytes.NewReader(body[off:off+n]), int64(n))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
			off += n
		}
		return id, parts
	}

	t.Run("the object keeps the CRC64NVME of its whole content", func(t *testing.T) {
		id, parts := upload(t, "whole", minPart, minPart, 1)
		if err := s.CompleteMultipart(ctx, "whole", id, parts); err != nil {
			t.Fatal(err)
		}
		out, err := c.SDK().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.Bucket()), Key: aws.String("whole"), ChecksumMode: s3types.ChecksumModeEnabled})
		if err != nil {
			t.Fatal(err)
		}
		want := algCRC64NVME.format(crcOf(algCRC64NVME, body))
		got := []string{aws.ToString(out.ChecksumCRC64NVME), string(out.ChecksumType)}
		if diff := cmp.Diff([]string{want, "FULL_OBJECT"}, got); diff != "" {
			t.Errorf("stored checksum and type (-want +got):\n%s", diff)
		}
		if b := mustGet(t, s, "whole"); !bytes.Equal(b, body) {
			t.Error("the assembled object differs from the parts uploaded")
		}
	})
	t.Run("a resumed upload (unknown to this client) completes with its checksums", func(t *testing.T) {
		id, parts := upload(t, "resumed", minPart, minPart+1)
		other := newTestClient(t, srv, nil).Bucket(s.Bucket())
		if err := other.CompleteMultipart(ctx, "resumed", id, parts); err != nil {
			t.Fatal(err)
		}
		if b := mustGet(t, s, "resumed"); !bytes.Equal(b, body) {
			t.Error("the assembled object differs from the parts uploaded")
		}
	})
	t.Run("a part of another size than planned fails the completion", func(t *testing.T) {
		id, parts := upload(t, "short", minPart, minPart)
		parts[1].Size++
		err := s.CompleteMultipart(ctx, "short", id, parts)
		if err == nil || !strings.Contains(err.Error(), "part 2") {
			t.Errorf("complete with a part of the wrong size: %v; want an error naming part 2", err)
		}
	})
	t.Run("without checksums the upload is a plain one", func(t *testing.T) {
		plain := newTestClient(t, srv, func(cfg *Config) { cfg.ChecksumWhenRequired = true }).Bucket(s.Bucket())
		id, err := plain.CreateMultipartChecksum(ctx, "plain", store.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := plain.UploadPart(ctx, "plain", id, 1, bytes.NewReader(body[:10]), 10)
		if err != nil {
			t.Fatal(err)
		}
		if err := plain.CompleteMultipart(ctx, "plain", id, []store.Part{p}); err != nil {
			t.Fatal(err)
		}
		out, err := c.SDK().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.Bucket()), Key: aws.String("plain"), ChecksumMode: s3types.ChecksumModeEnabled})
		if err != nil {
			t.Fatal(err)
		}
		if out.ChecksumCRC32C != nil {
			t.Errorf("an upload without checksums has a CRC32C: %s", aws.ToString(out.ChecksumCRC32C))
		}
	})
}

// isListParts selects ListParts requests.
func isListParts(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Query().Has("uploadId")
}

// noAlgorithmInListParts answers ListParts as SeaweedFS does: without the
// upload's checksum algorithm and type, and without part checksums.
func noAlgorithmInListParts(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !isListParts(r) {
		next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	body := regexp.MustCompile(`<Checksum[A-Za-z0-9]*>[^<]*</Checksum[A-Za-z0-9]*>`).ReplaceAll(rec.Body.Bytes(), nil)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	w.Write(body)
}

// noListParts answers ListParts as s3rver does: 405 MethodNotAllowed.
func noListParts(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !isListParts(r) {
		next.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusMethodNotAllowed)
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>MethodNotAllowed</Code><Message>The specified method is not allowed against this resource.</Message></Error>`)
}

// noUploadsYet answers ListMultipartUploads as gofakes3 does in a bucket
// where no upload was ever started: 404 NoSuchUpload.
func noUploadsYet(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
	if r.Method != http.MethodGet || !r.URL.Query().Has("uploads") {
		next.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusNotFound)
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>NoSuchUpload</Message></Error>`)
}

func TestAListingOfUploadsAnsweredNoSuchUploadHoldsNone(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	c, fs := faultClient(t, srv, noUploadsYet, nil)
	var got []store.Upload
	err := c.Bucket(bucket).ListMultipartUploads(t.Context(), "", func(u store.Upload) error { got = append(got, u); return nil })
	if err != nil || len(got) != 0 {
		t.Errorf("ListMultipartUploads = %v, %v; want no uploads and no error", got, err)
	}
	if n := fs.count.Load(); n != 1 {
		t.Errorf("%d requests, want the one listing", n)
	}
}

func TestMultipartCompletionChecksWhatTheServerSays(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Checksums, s3test.ListParts)
	bucket := srv.NewBucket(t)
	ctx := t.Context()
	body := pattern(2*minPart + 1)
	upload := func(t *testing.T, s *Store, key string) (string, []store.Part) {
		t.Helper()
		id, err := s.CreateMultipartChecksum(ctx, key, store.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.AbortMultipart(context.Background(), key, id) })
		var parts []store.Part
		for i, off := range []int{0, minPart, 2 * minPart} {
			end := min(off+minPart, len(body))
			p, err := s.UploadPart(ctx, key, id, int32(i+1), bytes.NewReader(body[off:end]), int64(end-off))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		return id, parts
	}
	wantCRC64NVME := func(t *testing.T, key string) {
		t.Helper()
		out, err := srv.Client(t).HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: s3types.ChecksumModeEnabled})
		if err != nil {
			t.Fatal(err)
		}
		want := algCRC64NVME.format(crcOf(algCRC64NVME, body))
		if got := aws.ToString(out.ChecksumCRC64NVME); got != want || out.ChecksumType != s3types.ChecksumTypeFullObject {
			t.Errorf("the object has CRC64NVME %q (%s), want %q (FULL_OBJECT)", got, out.ChecksumType, want)
		}
	}
	tests := []struct {
		name  string
		fault faultFunc
	}{
		{"a ListParts that names no algorithm", noAlgorithmInListParts},
		{"a server without ListParts", noListParts},
	}
	for _, tt := range tests {
		c, _ := faultClient(t, srv, tt.fault, nil)
		s := c.Bucket(bucket)
		t.Run(tt.name+" still gets the full-object CRC64NVME", func(t *testing.T) {
			id, parts := upload(t, s, "whole")
			if err := s.CompleteMultipart(ctx, "whole", id, parts); err != nil {
				t.Fatal(err)
			}
			wantCRC64NVME(t, "whole")
		})
	}
	t.Run("a ListParts that names no algorithm still gets the part-size check", func(t *testing.T) {
		c, _ := faultClient(t, srv, noAlgorithmInListParts, nil)
		s := c.Bucket(bucket)
		id, parts := upload(t, s, "short")
		parts[1].Size++
		err := s.CompleteMultipart(ctx, "short", id, parts)
		if err == nil || !strings.Contains(err.Error(), "part 2") {
			t.Errorf("complete with a part of the wrong size: %v; want an error naming part 2", err)
		}
	})
	t.Run("a resumed upload without ListParts fails naming the operation, as a server without the checksums", func(t *testing.T) {
		c, _ := faultClient(t, srv, noListParts, nil)
		s := c.Bucket(bucket)
		id, parts := upload(t, s, "resumed")
		other, _ := faultClient(t, srv, noListParts, nil) // knows nothing of the upload
		err := other.Bucket(bucket).CompleteMultipart(ctx, "resumed", id, parts)
		if err == nil || !strings.Contains(err.Error(), "ListParts") || !errors.Is(err, store.ErrChecksumsUnsupported) {
			t.Errorf("complete: %v; want an error naming ListParts, ErrChecksumsUnsupported", err)
		}
	})
}

func TestMultipartCopyOfAChecksummedSourceKeepsItsContent(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.PartCopy)
	c := newTestClient(t, srv, nil)
	s := c.Bucket(srv.NewBucket(t))
	ctx := t.Context()
	body := pattern(2*minPart + 7)
	id, err := s.CreateMultipartChecksum(ctx, "src", store.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := s.UploadPart(ctx, "src", id, 1, bytes.NewReader(body[:minPart]), minPart)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s.UploadPart(ctx, "src", id, 2, bytes.NewReader(body[minPart:]), int64(len(body)-minPart))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteMultipart(ctx, "src", id, []store.Part{p1, p2}); err != nil {
		t.Fatal(err)
	}
	o, _ := mustHead(t, s, "src")
	cs := store.CopySource{Bucket: s.Bucket(), Key: "src", IfMatch: o.ETag}
	// A copy's upload has no checksum of its own (see checksum.go): with
	// one, versitygw would give each copied part the whole source's CRC32C
	// and the copy a wrong full-object checksum, which Get would then
	// reject.
	cid, err := s.CreateMultipart(ctx, "copy", store.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	c1, err := s.UploadPartCopy(ctx, "copy", cid, 1, cs, 0, minPart-1)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := s.UploadPartCopy(ctx, "copy", cid, 2, cs, minPart, int64(len(body))-1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteMultipart(ctx, "copy", cid, []store.Part{c1, c2}); err != nil {
		t.Fatal(err)
	}
	if b := mustGet(t, s, "copy"); !bytes.Equal(b, body) {
		t.Error("the copy differs from its source")
	}
}

func TestGetVerifiesWhatItDelivers(t *testing.T) {
	srv := s3test.Start(t)
	body := pattern(3<<20 + 5)
	type faultCfg struct {
		corruptAt     int64 // -1: none
		dropChecksums bool
		cutAt         int // cut the first response after this many bytes; 0: no cut
	}
	tests := []struct {
		name         string
		fault        faultCfg
		whenRequired bool
		off, length  int64
		wantMismatch bool
	}{
		{"an intact body reads through", faultCfg{corruptAt: -1}, false, 0, -1, false},
		{"a flipped bit fails against the stored checksum", faultCfg{corruptAt: 1234}, false, 0, -1, true},
		{"a flipped last bit fails too", faultCfg{corruptAt: int64(len(body) - 1)}, false, 0, -1, true},
		{"without stored checksums the ETag catches it", faultCfg{corruptAt: 99, dropChecksums: true}, false, 0, -1, true},
		{"an intact body with only an ETag reads through", faultCfg{corruptAt: -1, dropChecksums: true}, false, 0, -1, false},
		{"a body resumed after a cut is verified as a whole", faultCfg{corruptAt: -1, cutAt: 1 << 20}, false, 0, -1, false},
		{"a flipped bit after a cut fails", faultCfg{corruptAt: 2 << 20, cutAt: 1 << 20}, false, 0, -1, true},
		{"a range is not checked against the whole object", faultCfg{corruptAt: 10}, false, 0, 1 << 20, false},
		{"checksums when required check nothing", faultCfg{corruptAt: 1234}, true, 0, -1, false},
	}
	setup := newTestClient(t, srv, nil)
	bucket := srv.NewBucket(t)
	mustPut(t, setup.Bucket(bucket), "k", body, store.Metadata{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gets atomic.Int64
			c, _ := faultClient(t, srv, func(n int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
				if !isObjectGet(r) {
					next.ServeHTTP(w, r)
					return
				}
				// The corruption is placed by object offset: a resumed
				// request starts at its Range.
				start := int64(0)
				if rg := r.Header.Get("Range"); rg != "" {
					start = rangeStart(rg)
				}
				cw := &corruptWriter{ResponseWriter: w, at: tt.fault.corruptAt - start, dropChecksums: tt.fault.dropChecksums}
				if tt.fault.corruptAt < 0 {
					cw.at = -1
				}
				if gets.Add(1) == 1 && tt.fault.cutAt > 0 {
					next.ServeHTTP(&cutWriter{ResponseWriter: cw, limit: tt.fault.cutAt, cut: func() {}}, r)
					return
				}
				next.ServeHTTP(cw, r)
			}, func(cfg *Config) { cfg.ChecksumWhenRequired = tt.whenRequired })
			got, err := readAll(t, c.Bucket(bucket), "k", tt.off, tt.length)
			if readEnded(t, err, tt.wantMismatch) {
				return
			}
			if tt.fault.corruptAt >= 0 {
				return // corrupted on purpose and not checked: nothing to compare
			}
			want := body[tt.off:]
			if tt.length >= 0 {
				want = want[:tt.length]
			}
			if !bytes.Equal(got, want) {
				t.Error("the body read differs from the object")
			}
		})
	}
}

// rangeStart reads the first byte of "bytes=N-..." .
func rangeStart(h string) int64 {
	var n int64
	for _, c := range strings.TrimPrefix(h, "bytes=") {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

func TestPartsVerifier(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, nil)
	bucket := srv.NewBucket(t)
	s := c.Bucket(bucket)
	body := pattern(3*minPart + 3)
	size := int64(len(body))
	mustPut(t, s, "put", body, store.Metadata{}) // PutObject: a CRC64NVME of the whole, an MD5 ETag
	// Multipart uploads without a full-object checksum: their ETag is the
	// MD5 of the parts' MD5s. One in even parts, as clients upload, one in
	// uneven parts, whose boundaries must be asked for.
	uploadParts(t, s, "even", body, minPart, minPart, minPart, 3)
	uploadParts(t, s, "uneven", body, minPart+3, minPart, minPart)
	// Through a proxy that drops every x-amz-checksum-* header, the same
	// objects have only their ETags left to check against.
	noSums, _ := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
		next.ServeHTTP(&corruptWriter{ResponseWriter: w, at: -1, dropChecksums: true}, r)
	}, nil)
	bare := noSums.Bucket(bucket)
	// The download's parts are not the upload's: 4 MiB, the last short.
	const cut = 4 << 20
	write := func(v store.PartsVerifier, corrupt bool, skip int) io.ReaderAt {
		written := bytes.Clone(body)
		i := 0
		for off := int64(0); off < size; off, i = off+cut, i+1 {
			n := min(cut, size-off)
			if i == skip {
				clear(written[off : off+n])
				continue
			}
			if corrupt && i == 2 {
				written[off+7] ^= 1
			}
			// Written in two pieces, as io.Copy would.
			w := v.Part(off, n)
			w.Write(written[off : off+n/2])
			w.Write(written[off+n/2 : off+n])
		}
		return bytes.NewReader(written)
	}
	objects := []struct {
		name string
		s    *Store
		key  string
	}{
		{"a stored CRC64NVME", s, "put"},
		{"an MD5 ETag", bare, "put"},
		{"a multipart ETag of even parts", bare, "even"},
		{"a multipart ETag of uneven parts", bare, "uneven"},
	}
	tests := []struct {
		name    string
		corrupt bool
		skip    int
		check   func(error) bool
	}{
		{"intact parts verify", false, -1, func(err error) bool { return err == nil }},
		{"a flipped bit in one part is a mismatch", true, -1, func(err error) bool { return errors.Is(err, store.ErrChecksumMismatch) }},
		{"a missing part is an error", false, 1, func(err error) bool { return err != nil && strings.Contains(err.Error(), "cover") }},
	}
	for _, obj := range objects {
		o, _ := mustHead(t, s, obj.key)
		for _, tt := range tests {
			t.Run("against "+obj.name+", "+tt.name, func(t *testing.T) {
				v, err := obj.s.VerifyParts(t.Context(), obj.key, o.ETag, size)
				if err != nil || v == nil {
					t.Fatalf("VerifyParts = %v, %v; want a verifier", v, err)
				}
				written := write(v, tt.corrupt, tt.skip)
				if err := v.Verify(t.Context(), written); !tt.check(err) {
					t.Errorf("Verify: %v", err)
				}
			})
		}
	}
	t.Run("a server that refuses partNumber leaves a multipart object unchecked, not failed", func(t *testing.T) {
		srv.Require(t, s3test.MultipartETag)
		refuses, _ := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
			if r.Method == http.MethodHead && r.URL.Query().Has("partNumber") {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			next.ServeHTTP(&corruptWriter{ResponseWriter: w, at: -1, dropChecksums: true}, r)
		}, nil)
		o, _ := mustHead(t, s, "even")
		if v, err := refuses.Bucket(bucket).VerifyParts(t.Context(), "even", o.ETag, size); v != nil || err != nil {
			t.Errorf("VerifyParts = %v, %v; want nil, nil", v, err)
		}
	})
	t.Run("a changed object is a precondition failure", func(t *testing.T) {
		srv.Require(t, s3test.ConditionalGet)
		_, err := s.VerifyParts(t.Context(), "put", "0123456789abcdef0123456789abcdef", size)
		if !errors.Is(err, store.ErrPreconditionFailed) {
			t.Errorf("VerifyParts with a stale ETag: %v; want store.ErrPreconditionFailed", err)
		}
	})
	t.Run("with checksums when required there is nothing to verify", func(t *testing.T) {
		plain := newTestClient(t, srv, func(cfg *Config) { cfg.ChecksumWhenRequired = true }).Bucket(s.Bucket())
		o, _ := mustHead(t, s, "put")
		if v, err := plain.VerifyParts(t.Context(), "put", o.ETag, size); v != nil || err != nil {
			t.Errorf("VerifyParts = %v, %v; want nil, nil", v, err)
		}
	})
}

// TestAStreamInPartsEndsWithItsSourcesChecksum: a multipart upload of
// client bytes whose write names a source's full-object CRC is created
// with that algorithm, its parts carry it, and the checksum combined from
// them must be the source's before the upload completes: bytes that are
// not the source's fail it (store.ErrChecksumMismatch) and nothing is
// written. CRC64NVME is checked as the other CRCs are, no longer left to
// the server.
func TestAStreamInPartsEndsWithItsSourcesChecksum(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Checksums, s3test.ListParts)
	c := newTestClient(t, srv, nil)
	s := c.Bucket(srv.NewBucket(t))
	ctx := t.Context()
	body := pattern(minPart + 100)
	other := bytes.Clone(body)
	other[7] ^= 1
	for _, alg := range []algorithm{algCRC32C, algCRC32, algCRC64NVME} {
		for _, tt := range []struct {
			name     string
			source   []byte
			mismatch bool
		}{
			{"the source's bytes complete with its checksum", body, false},
			{"other bytes fail before completing", other, true},
		} {
			t.Run(string(alg)+": "+tt.name, func(t *testing.T) {
				key := string(alg) + "/" + strconv.FormatBool(tt.mismatch)
				want := alg.format(crcOf(alg, tt.source))
				id, err := s.CreateMultipartChecksum(ctx, key, store.Metadata{Checksum: store.Checksum{Algorithm: string(alg), Value: want}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.AbortMultipart(context.Background(), key, id) })
				var parts []store.Part
				for i, off := range []int{0, minPart} {
					end := min(off+minPart, len(body))
					p, err := s.UploadPart(ctx, key, id, int32(i+1), bytes.NewReader(body[off:end]), int64(end-off))
					if err != nil {
						t.Fatal(err)
					}
					if p.Checksum.Algorithm != string(alg) {
						t.Errorf("part %d carries %+v; want a %s", i+1, p.Checksum, alg)
					}
					parts = append(parts, p)
				}
				err = s.CompleteMultipart(ctx, key, id, parts)
				if tt.mismatch {
					if !errors.Is(err, store.ErrChecksumMismatch) {
						t.Errorf("complete: %v; want store.ErrChecksumMismatch", err)
					}
					if _, _, err := s.Head(ctx, key); !errors.Is(err, store.ErrNotFound) {
						t.Errorf("head after the refused completion: %v; want not found", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				sums, err := s.Checksums(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]store.Checksum{{Algorithm: string(alg), Value: want}}, sums); diff != "" {
					t.Errorf("stored checksums (-want +got):\n%s", diff)
				}
			})
		}
	}
}
