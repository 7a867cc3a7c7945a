package s3store

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// uploadParts writes body to key as a multipart upload without a
// full-object checksum, in parts of sizes: its ETag is the MD5 of the
// parts' MD5s.
func uploadParts(t *testing.T, s *Store, key string, body []byte, sizes ...int64) {
	t.Helper()
	ctx := t.Context()
	id, err := s.CreateMultipart(ctx, key, store.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	var done []store.Part
	var off int64
	for i, n := range sizes {
		p, err := s.UploadPart(ctx, key, id, int32(i+1), bytes.NewReader(body[off:off+n]), n)
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, p)
		off += n
	}
	if off != int64(len(body)) {
		t.Fatalf("parts of %v hold %d bytes, the body %d", sizes, off, len(body))
	}
	if err := s.CompleteMultipart(ctx, key, id, done); err != nil {
		t.Fatal(err)
	}
}

// A whole-object read of an object with nothing but a multipart ETag is
// checked against it as the bytes go by, and a read that could not be
// checked says so (store.Unverified).
func TestGetChecksAMultipartETag(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.MultipartETag)
	setup := newTestClient(t, srv, nil)
	bucket := srv.NewBucket(t)
	s := setup.Bucket(bucket)
	body := pattern(3*minPart + 3)
	uploadParts(t, s, "even", body, minPart, minPart, minPart, 3)
	uploadParts(t, s, "uneven", body, minPart+3, minPart, minPart)
	mustPut(t, s, "put", body, store.Metadata{})
	tests := []struct {
		name             string
		key              string
		corruptAt        int64 // -1: none
		cutAt            int   // cut the first response after this many bytes; 0: no cut
		refusePartNumber bool
		keepChecksums    bool
		whenRequired     bool
		length           int64
		wantMismatch     bool
		wantUnverified   bool
	}{
		{name: "intact even parts read through, checked", key: "even", corruptAt: -1, length: -1},
		{name: "a flipped bit in the second part fails", key: "even", corruptAt: minPart + 77, length: -1, wantMismatch: true},
		{name: "a flipped bit in the short last part fails", key: "even", corruptAt: 3*minPart + 1, length: -1, wantMismatch: true},
		{name: "a body resumed after a cut is checked as a whole", key: "even", corruptAt: -1, cutAt: minPart + 5, length: -1},
		{name: "a flipped bit after a cut fails", key: "even", corruptAt: 2*minPart + 9, cutAt: minPart + 5, length: -1, wantMismatch: true},
		{name: "uneven parts read through, unverified rather than failed", key: "uneven", corruptAt: -1, length: -1, wantUnverified: true},
		{name: "a server refusing partNumber leaves the read unverified", key: "even", corruptAt: -1, refusePartNumber: true, length: -1, wantUnverified: true},
		{name: "a stored checksum is checked", key: "put", corruptAt: 5, keepChecksums: true, length: -1, wantMismatch: true},
		{name: "an MD5 ETag is checked", key: "put", corruptAt: 5, length: -1, wantMismatch: true},
		{name: "checksums when required leave the read unverified", key: "even", corruptAt: -1, whenRequired: true, length: -1, wantUnverified: true},
		{name: "a range is no whole object: neither checked nor counted", key: "even", corruptAt: 3, length: 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gets atomic.Int64
			c, _ := faultClient(t, srv, func(_ int64, w http.ResponseWriter, r *http.Request, next http.Handler) {
				if tt.refusePartNumber && r.URL.Query().Has("partNumber") {
					w.WriteHeader(http.StatusBadRequest)
					return
				}
				cw := &corruptWriter{ResponseWriter: w, at: -1, dropChecksums: !tt.keepChecksums}
				if isObjectGet(r) && tt.corruptAt >= 0 {
					start := int64(0)
					if rg := r.Header.Get("Range"); rg != "" {
						start = rangeStart(rg)
					}
					cw.at = tt.corruptAt - start
				}
				if isObjectGet(r) && gets.Add(1) == 1 && tt.cutAt > 0 {
					next.ServeHTTP(&cutWriter{ResponseWriter: cw, limit: tt.cutAt, cut: func() {}}, r)
					return
				}
				next.ServeHTTP(cw, r)
			}, func(cfg *Config) { cfg.ChecksumWhenRequired = tt.whenRequired })
			rc, err := c.Bucket(bucket).Get(t.Context(), tt.key, 0, tt.length, "")
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			n := tt.length
			if n < 0 {
				n = int64(len(body))
			}
			var got bytes.Buffer
			_, err = io.CopyN(&got, rc, n) // as localstore reads: exactly the size
			if readEnded(t, err, tt.wantMismatch) {
				return
			}
			if tt.corruptAt < 0 && !bytes.Equal(got.Bytes(), body[:n]) {
				t.Error("the body read differs from the object")
			}
			if u := store.Unverified(rc); u != tt.wantUnverified {
				t.Errorf("store.Unverified = %v, want %v", u, tt.wantUnverified)
			}
		})
	}
}
