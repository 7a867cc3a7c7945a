package s3store

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

func TestWithOptionsRefusesWhatS3Would(t *testing.T) {
	srv := s3test.Start(t)
	base := newTestClient(t, srv, nil).Bucket("b")
	key := bytes.Repeat([]byte{7}, 32)
	tests := []struct {
		name string
		o    Options
		err  string // "" for none
	}{
		{"nothing", Options{}, ""},
		{"every option", Options{Region: "eu-west-3", RequestPayer: true, SSE: "aws:kms", SSEKMSKeyID: "k", ACL: "private",
			CopySourceSSECustomerKey: key}, ""},
		{"SSE-C both sides", Options{SSECustomerKey: key, CopySourceSSECustomerKey: key}, ""},
		{"an unknown encryption", Options{SSE: "aes256"}, `server-side encryption "aes256"`},
		{"a KMS key without KMS", Options{SSE: "AES256", SSEKMSKeyID: "k"}, "needs server-side encryption aws:kms"},
		{"an unknown ACL", Options{ACL: "public"}, `canned ACL "public"`},
		{"a short key", Options{SSECustomerKey: key[:16]}, "SSE-C key: the key has 16 bytes, want 32"},
		{"a long copy-source key", Options{CopySourceSSECustomerKey: append(key, key...)}, "copy source: the key has 64 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := base.WithOptions(tt.o)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("WithOptions: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("WithOptions: %v, want an error saying %q", err, tt.err)
			case err != nil:
				return
			}
			if s.Bucket() != base.Bucket() || s.Client() != base.Client() {
				t.Errorf("the store is for %s of another client", s.Bucket())
			}
			if want := tt.o.Region; want != "" && s.region() != want {
				t.Errorf("region %q, want %q", s.region(), want)
			}
			if base.ssec != nil || base.payer != "" || base.optFns != nil {
				t.Errorf("WithOptions changed the store it was called on")
			}
		})
	}
}

// The server does not encrypt, but takes SSE-C and ACL headers: a store
// that sends them reads and writes as any other, one part or many.
func TestStoreWithOptionsRoundTrips(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	s, err := newTestClient(t, srv, nil).Bucket(bucket).WithOptions(Options{
		ACL: "bucket-owner-full-control", RequestPayer: true, SSECustomerKey: bytes.Repeat([]byte("k"), 32),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.Put(ctx, "one", strings.NewReader("one"), 3, store.Metadata{}); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("p"), 5<<20)
	id, err := s.CreateMultipartChecksum(ctx, "parts", store.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	var done []store.Part
	for i := int32(1); i <= 2; i++ {
		p, err := s.UploadPart(ctx, "parts", id, i, bytes.NewReader(big), int64(len(big)))
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, p)
	}
	if err := s.CompleteMultipart(ctx, "parts", id, done); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"one": 3, "parts": 2 * len(big)} {
		o, _, err := s.Head(ctx, key)
		if err != nil || o.Size != int64(want) {
			t.Fatalf("head %s: %+v, %v; want %d bytes", key, o, err, want)
		}
		r, err := s.Get(ctx, key, 0, -1, "")
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		r.Close()
		if err != nil || n != int64(want) {
			t.Fatalf("get %s: %d bytes, %v; want %d", key, n, err, want)
		}
	}
}
