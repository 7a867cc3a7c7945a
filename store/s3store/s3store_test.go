package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

func mustPut(t *testing.T, s *Store, key string, body []byte, meta store.Metadata) {
	t.Helper()
	if err := s.Put(t.Context(), key, bytes.NewReader(body), int64(len(body)), meta); err != nil {
		t.Fatalf("put %s: %v", s.URL(key), err)
	}
}

func mustGet(t *testing.T, s *Store, key string) []byte {
	t.Helper()
	rc, err := s.Get(t.Context(), key, 0, -1, "")
	if err != nil {
		t.Fatalf("get %s: %v", s.URL(key), err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %s: %v", s.URL(key), err)
	}
	return b
}

func mustHead(t *testing.T, s *Store, key string) (store.Object, store.Metadata) {
	t.Helper()
	o, m, err := s.Head(t.Context(), key)
	if err != nil {
		t.Fatalf("head %s: %v", s.URL(key), err)
	}
	return o, m
}

// pattern is n bytes that differ at every offset a test may cut at.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i/251)
	}
	return b
}

// oddKeys are keys that break naive URL and header encoding.
var oddKeys = []string{
	"with space.txt",
	"plus+sign",
	"percent%20not-a-space%2F",
	"equals=and&amp",
	"ünïcödé/файл",
	"日本語/ファイル",
	"question?hash#",
	"a//double/slash",
	"tilde~quote'\"",
	"  spaces  ",
}

func TestCopy(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, nil)
	src := c.Bucket(srv.NewBucket(t))
	dst := c.Bucket(srv.NewBucket(t))
	body := []byte("the source body")
	srcMeta := store.Metadata{ContentType: "text/plain", CacheControl: "max-age=60", User: map[string]string{"origin": "test"}}
	mustPut(t, src, "src", body, srcMeta)
	srcObj, srcHead := mustHead(t, src, "src")
	if !srcHead.Checksum.Full() {
		t.Fatalf("the source's checksum is %+v; want a full-object one", srcHead.Checksum)
	}

	t.Run("copy without metadata keeps the source's", func(t *testing.T) {
		srv.Require(t, s3test.Metadata)
		if err := dst.Copy(t.Context(), store.CopySource{Bucket: src.Bucket(), Key: "src", IfMatch: srcObj.ETag}, "kept", nil); err != nil {
			t.Fatal(err)
		}
		_, m := mustHead(t, dst, "kept")
		want := srcMeta
		want.Checksum = srcHead.Checksum // CopyObject keeps the source's
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("metadata (-want +got):\n%s", diff)
		}
		if got := mustGet(t, dst, "kept"); !bytes.Equal(got, body) {
			t.Errorf("copied body = %q; want %q", got, body)
		}
	})

	t.Run("copy with metadata replaces the source's", func(t *testing.T) {
		srv.Require(t, s3test.Metadata)
		want := store.Metadata{ContentType: "application/json", ContentDisposition: "attachment", User: map[string]string{"new": "yes"}}
		if err := dst.Copy(t.Context(), store.CopySource{Bucket: src.Bucket(), Key: "src"}, "replaced", &want); err != nil {
			t.Fatal(err)
		}
		_, m := mustHead(t, dst, "replaced")
		want.Checksum = srcHead.Checksum // whatever the metadata directive
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("metadata (-want +got):\n%s", diff)
		}
	})

	t.Run("a copy from a changed source fails with precondition failed", func(t *testing.T) {
		srv.Require(t, s3test.ConditionalCopy)
		err := dst.Copy(t.Context(), store.CopySource{Bucket: src.Bucket(), Key: "src", IfMatch: "0123456789abcdef0123456789abcdef"}, "stale", nil)
		if !errors.Is(err, store.ErrPreconditionFailed) {
			t.Fatalf("copy with a stale etag: %v; want store.ErrPreconditionFailed", err)
		}
		if _, _, err := dst.Head(t.Context(), "stale"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("head of the failed copy's destination: %v; want not found", err)
		}
	})

	t.Run("a copy from a missing source is not found", func(t *testing.T) {
		err := dst.Copy(t.Context(), store.CopySource{Bucket: src.Bucket(), Key: "absent"}, "x", nil)
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("copy of a missing key: %v; want store.ErrNotFound", err)
		}
		want := fmt.Sprintf("copy s3://%s/absent to s3://%s/x: not found", src.Bucket(), dst.Bucket())
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error = %q; want it to start with %q", err, want)
		}
	})

	t.Run("keys that need encoding copy", func(t *testing.T) {
		srv.Require(t, s3test.OddKeys)
		for i, k := range oddKeys {
			b := []byte(fmt.Sprintf("body %d", i))
			mustPut(t, src, k, b, store.Metadata{})
			if err := dst.Copy(t.Context(), store.CopySource{Bucket: src.Bucket(), Key: k}, k, nil); err != nil {
				t.Errorf("copy %q: %v", k, err)
				continue
			}
			if got := mustGet(t, dst, k); !bytes.Equal(got, b) {
				t.Errorf("copy of %q has body %q; want %q", k, got, b)
			}
		}
	})
}

const minPart = 5 << 20 // S3's smallest part but the last

func TestMultipartUpload(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.ListParts)
	c := newTestClient(t, srv, nil)
	s := c.Bucket(srv.NewBucket(t))
	ctx := t.Context()
	body := pattern(minPart + 1234)
	meta := store.Metadata{ContentType: "application/octet-stream", User: map[string]string{"parts": "2"}}

	id, err := s.CreateMultipart(ctx, "big", meta)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := s.UploadPart(ctx, "big", id, 1, bytes.NewReader(body[:minPart]), minPart)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s.UploadPart(ctx, "big", id, 2, bytes.NewReader(body[minPart:]), int64(len(body)-minPart))
	if err != nil {
		t.Fatal(err)
	}
	if p1.ETag == "" || strings.Contains(p1.ETag, `"`) {
		t.Errorf("part ETag = %q; want one without quotes", p1.ETag)
	}
	parts, err := s.ListParts(ctx, "big", id)
	if err != nil {
		t.Fatal(err)
	}
	// The server lists a part's checksum only for an upload started with
	// one (versitygw); the rest must be what UploadPart returned.
	if diff := cmp.Diff([]store.Part{p1, p2}, parts, cmpopts.IgnoreFields(store.Part{}, "Checksum")); diff != "" {
		t.Errorf("ListParts (-want +got):\n%s", diff)
	}
	var uploads []store.Upload
	if err := s.ListMultipartUploads(ctx, "", func(u store.Upload) error { uploads = append(uploads, u); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(uploads) != 1 || uploads[0].Key != "big" || uploads[0].UploadID != id || uploads[0].Initiated.IsZero() {
		t.Errorf("ListMultipartUploads = %+v; want the one upload of big", uploads)
	}
	if err := s.CompleteMultipart(ctx, "big", id, []store.Part{p1, p2}); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, "big"); !bytes.Equal(got, body) {
		t.Errorf("assembled object differs from the parts uploaded")
	}
	if _, m := mustHead(t, s, "big"); !cmp.Equal(meta, m, cmpopts.IgnoreFields(store.Metadata{}, "Checksum")) {
		t.Errorf("metadata = %+v; want %+v", m, meta)
	}

	t.Run("a part of an unknown upload is no such upload", func(t *testing.T) {
		_, err := s.UploadPart(ctx, "big", "no-such-upload-id", 1, strings.NewReader("x"), 1)
		if !errors.Is(err, store.ErrNoSuchUpload) {
			t.Errorf("upload part: %v; want store.ErrNoSuchUpload", err)
		}
	})
	t.Run("aborting an upload that is gone is not an error", func(t *testing.T) {
		id, err := s.CreateMultipart(ctx, "aborted", store.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.AbortMultipart(ctx, "aborted", id); err != nil {
				t.Errorf("abort: %v", err)
			}
		}
	})
}

func TestMultipartCopy(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.PartCopy)
	c := newTestClient(t, srv, nil)
	src := c.Bucket(srv.NewBucket(t))
	dst := c.Bucket(srv.NewBucket(t))
	ctx := t.Context()
	body := pattern(minPart + 4321)
	const key = "odd source + key=ü%.bin"
	mustPut(t, src, key, body, store.Metadata{})
	o, _ := mustHead(t, src, key)
	cs := store.CopySource{Bucket: src.Bucket(), Key: key, IfMatch: o.ETag}

	t.Run("parts copied by range assemble the source", func(t *testing.T) {
		id, err := dst.CreateMultipart(ctx, "copy", store.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		p1, err := dst.UploadPartCopy(ctx, "copy", id, 1, cs, 0, minPart-1)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := dst.UploadPartCopy(ctx, "copy", id, 2, cs, minPart, int64(len(body))-1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int64{minPart, int64(len(body)) - minPart}, []int64{p1.Size, p2.Size}); diff != "" {
			t.Errorf("part sizes (-want +got):\n%s", diff)
		}
		if err := dst.CompleteMultipart(ctx, "copy", id, []store.Part{p1, p2}); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, dst, "copy"); !bytes.Equal(got, body) {
			t.Errorf("multipart copy differs from its source")
		}
	})

	t.Run("a part copy after the source changed fails with precondition failed", func(t *testing.T) {
		srv.Require(t, s3test.ConditionalCopy)
		id, err := dst.CreateMultipart(ctx, "mixed", store.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dst.AbortMultipart(context.Background(), "mixed", id) })
		if _, err := dst.UploadPartCopy(ctx, "mixed", id, 1, cs, 0, minPart-1); err != nil {
			t.Fatal(err)
		}
		// A new version of the same size, so only the ETag tells them apart.
		mustPut(t, src, key, pattern(len(body) + 99)[99:], store.Metadata{})
		_, err = dst.UploadPartCopy(ctx, "mixed", id, 2, cs, minPart, int64(len(body))-1)
		if !errors.Is(err, store.ErrPreconditionFailed) {
			t.Fatalf("part copy from a changed source: %v; want store.ErrPreconditionFailed", err)
		}
	})
}

func TestErrorsMapToSentinels(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, nil)
	s := c.Bucket(srv.NewBucket(t))
	mustPut(t, s, "k", []byte("v"), store.Metadata{})
	missing := c.Bucket(s3test.BucketName(t.Name()+"-missing", 0))

	tests := []struct {
		name     string
		call     func() error
		sentinel error
		class    retry.Class
		prefix   string
		needs    s3test.Capability
	}{
		{
			name:     "head of a missing key is not found",
			call:     func() error { _, _, err := s.Head(t.Context(), "absent"); return err },
			sentinel: store.ErrNotFound, class: retry.Permanent,
			prefix: "head s3://" + s.Bucket() + "/absent: not found",
		},
		{
			name: "get of a missing key is not found",
			call: func() error {
				rc, err := s.Get(t.Context(), "absent", 0, -1, "")
				if err == nil {
					rc.Close()
				}
				return err
			},
			sentinel: store.ErrNotFound, class: retry.Permanent,
			prefix: "get s3://" + s.Bucket() + "/absent: not found (NoSuchKey)",
		},
		{
			name: "get with a stale etag is precondition failed",
			call: func() error {
				rc, err := s.Get(t.Context(), "k", 0, -1, "0123456789abcdef0123456789abcdef")
				if err == nil {
					rc.Close()
				}
				return err
			},
			sentinel: store.ErrPreconditionFailed, class: retry.Permanent,
			prefix: "get s3://" + s.Bucket() + "/k: precondition failed",
			needs:  s3test.ConditionalGet,
		},
		{
			name: "listing a missing bucket is bucket not found",
			call: func() error {
				return missing.List(t.Context(), "", "", func(store.Object) error { return nil })
			},
			sentinel: store.ErrBucketNotFound, class: retry.Fatal,
			prefix: "list s3://" + missing.Bucket() + "/: no such bucket (NoSuchBucket)",
		},
		{
			name:     "a put into a missing bucket is bucket not found",
			call:     func() error { return missing.Put(t.Context(), "k", strings.NewReader("v"), 1, store.Metadata{}) },
			sentinel: store.ErrBucketNotFound, class: retry.Fatal,
			prefix: "put s3://" + missing.Bucket() + "/k: no such bucket",
			needs:  s3test.NoAutoCreate,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs != "" {
				srv.Require(t, tt.needs)
			}
			err := tt.call()
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("error %v does not wrap %v", err, tt.sentinel)
			}
			if got := retry.Classify(err); got != tt.class {
				t.Errorf("retry.Classify(%v) = %v; want %v", err, got, tt.class)
			}
			if !strings.HasPrefix(err.Error(), tt.prefix) {
				t.Errorf("error = %q; want it to start with %q", err, tt.prefix)
			}
			var e *Error
			if !errors.As(err, &e) || e.Status == 0 {
				t.Errorf("error %v is not an *Error with the HTTP status", err)
			}
		})
	}
}

func TestBuckets(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, nil)
	ctx := t.Context()
	name := s3test.BucketName(t.Name(), 0)
	if err := c.MakeBucket(ctx, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.RemoveBucket(context.Background(), name) })

	if err := c.MakeBucket(ctx, name); !errors.Is(err, store.ErrExists) {
		t.Errorf("making an existing bucket: %v; want store.ErrExists", err)
	}
	buckets, err := c.ListBuckets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, b := range buckets {
		if b.Name == name {
			found = !b.Created.IsZero()
		}
	}
	if !found {
		t.Errorf("ListBuckets = %+v; want %s with a creation time", buckets, name)
	}
	if err := c.RemoveBucket(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveBucket(ctx, name); !errors.Is(err, store.ErrBucketNotFound) {
		t.Errorf("removing a removed bucket: %v; want store.ErrBucketNotFound", err)
	}
}

func TestDeleteObjects(t *testing.T) {
	srv := s3test.Start(t)
	var deletes int
	c := newTestClient(t, srv, func(cfg *Config) {
		cfg.OnRequest = func(op string) {
			if op == "DeleteObjects" {
				deletes++ // one request at a time: DeleteObjects is sequential
			}
		}
	})
	s := c.Bucket(srv.NewBucket(t))
	// Missing keys delete fine, so 2,500 keys need not be uploaded first.
	keys := make([]string, 2500)
	for i := range keys {
		keys[i] = fmt.Sprintf("k/%04d", i)
	}
	for _, k := range []string{keys[0], keys[999], keys[1000], keys[2499], "kept"} {
		mustPut(t, s, k, []byte(k), store.Metadata{})
	}
	failed, err := s.DeleteObjects(t.Context(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 0 {
		t.Errorf("DeleteObjects failed keys: %+v", failed)
	}
	if deletes != 3 {
		t.Errorf("DeleteObjects sent %d requests for 2,500 keys; want 3", deletes)
	}
	var left []string
	if err := s.List(t.Context(), "", "", func(o store.Object) error { left = append(left, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"kept"}, left); diff != "" {
		t.Errorf("keys left (-want +got):\n%s", diff)
	}
}

func TestListPagesHoldAThousandKeys(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Listing)
	var lists int
	c := newTestClient(t, srv, func(cfg *Config) {
		cfg.OnRequest = func(op string) {
			if op == "ListObjectsV2" {
				lists++
			}
		}
	})
	s := c.Bucket(srv.NewBucket(t))
	cl := srv.Client(t)
	const n = 2001
	for i := range n {
		s3test.PutObject(t, cl, s.Bucket(), fmt.Sprintf("%05d", i), nil)
	}
	var calls int
	err := s.List(t.Context(), "", "", func(o store.Object) error {
		if want := fmt.Sprintf("%05d", calls); o.Key != want {
			return fmt.Errorf("object %d is %q; want %q", calls, o.Key, want)
		}
		calls++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != n {
		t.Errorf("listed %d keys; want %d", calls, n)
	}
	if lists != 3 {
		t.Errorf("listing %d keys took %d requests; want 3 pages of up to 1,000", n, lists)
	}
}

func TestCanCopyFrom(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, nil)
	same := newTestClient(t, srv, nil)
	otherKey := newTestClient(t, srv, func(cfg *Config) { cfg.AccessKey = "someone-else" })
	otherEndpoint := newTestClient(t, srv, func(cfg *Config) { cfg.EndpointURL = "http://127.0.0.1:1" })
	dst := c.Bucket("dst")
	tests := []struct {
		name string
		src  store.Store
		ok   bool
	}{
		{"a bucket of the same client can be copied from", c.Bucket("src"), true},
		{"a bucket of an equal client can be copied from", same.Bucket("src"), true},
		{"a bucket reached with other credentials cannot", otherKey.Bucket("src"), false},
		{"a bucket on another endpoint cannot", otherEndpoint.Bucket("src"), false},
		{"a store that is not S3 cannot", notS3{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket, ok := dst.CanCopyFrom(tt.src)
			if ok != tt.ok || (ok && bucket != "src") {
				t.Errorf("CanCopyFrom = %q, %t; want %t", bucket, ok, tt.ok)
			}
		})
	}
}

type notS3 struct{ store.Store }

func TestChecksumsWhenRequiredRoundTrip(t *testing.T) {
	srv := s3test.Start(t)
	for _, when := range []bool{false, true} {
		t.Run(fmt.Sprintf("ChecksumWhenRequired %t", when), func(t *testing.T) {
			c := newTestClient(t, srv, func(cfg *Config) { cfg.ChecksumWhenRequired = when })
			s := c.Bucket(srv.NewBucket(t))
			body := pattern(100 << 10)
			mustPut(t, s, "k", body, store.Metadata{})
			if got := mustGet(t, s, "k"); !bytes.Equal(got, body) {
				t.Error("body changed on the way")
			}
			if failed, err := s.DeleteObjects(t.Context(), []string{"k"}); err != nil || len(failed) > 0 {
				t.Errorf("DeleteObjects = %v, %v", failed, err)
			}
		})
	}
}

func TestPutOfALargeStream(t *testing.T) {
	srv := s3test.Start(t)
	for _, when := range []bool{false, true} {
		t.Run(fmt.Sprintf("ChecksumWhenRequired %t", when), func(t *testing.T) {
			c := newTestClient(t, srv, func(cfg *Config) { cfg.ChecksumWhenRequired = when })
			s := c.Bucket(srv.NewBucket(t))
			body := pattern(maxBuffered + 1000)
			// io.MultiReader hides the Seek method: a stream, as from a Get.
			stream := func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b)) }
			if err := s.Put(t.Context(), "big", stream(body), int64(len(body)), store.Metadata{}); err != nil {
				t.Fatal(err)
			}
			if got := mustGet(t, s, "big"); !bytes.Equal(got, body) {
				t.Error("body changed on the way")
			}
			if err := s.Put(t.Context(), "short", stream(body[:len(body)-1]), int64(len(body)), store.Metadata{}); err == nil {
				t.Error("put of a stream one byte short succeeded")
			}
			if err := s.Put(t.Context(), "long", stream(append(body, 'x')), int64(len(body)), store.Metadata{}); err == nil {
				t.Error("put of a stream one byte long succeeded")
			}
			// Over plain HTTP the stream is spooled before anything is sent
			// (so that it carries a checksum or a signature), and a stream
			// of the wrong length fails there: nothing is stored.
			for _, key := range []string{"short", "long"} {
				if _, _, err := s.Head(t.Context(), key); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("head %s after its failed put: %v; want not found", key, err)
				}
			}
		})
	}
}
