package s3store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

func TestListCurrentVersionsPinsWhatAListingShows(t *testing.T) {
	ctx := context.Background()
	srv := s3test.StartPrivate(t, s3test.WithVersioning())
	sdk := srv.Client(t)
	bucket := srv.NewBucket(t)
	st := newTestClient(t, srv, nil).Bucket(bucket)
	if v, err := st.Versioned(ctx); err != nil || v {
		t.Fatalf("Versioned of a new bucket = %t, %v; want false", v, err)
	}
	if _, err := sdk.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	if v, err := st.Versioned(ctx); err != nil || !v {
		t.Fatalf("Versioned after enabling = %t, %v; want true", v, err)
	}
	put := func(key, body string) string {
		out, err := sdk.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToString(out.VersionId)
	}
	put("a", "old")
	a := put("a", "newer")
	b := put("b/c", "1")
	put("gone", "x")
	if _, err := sdk.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	if a == "" || b == "" {
		t.Fatalf("the server gave no version IDs (%q, %q)", a, b)
	}
	var got []store.Object
	if err := st.ListCurrentVersions(ctx, "", func(o store.Object) error {
		got = append(got, o)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Key != "a" || got[0].VersionID != a || got[0].Size != 5 || got[1].Key != "b/c" || got[1].VersionID != b {
		t.Errorf("ListCurrentVersions = %+v; want a (version %s, 5 bytes) and b/c (version %s), no older version, no deleted key", got, a, b)
	}
}

// TestWritesNoteTheVersionTheyWrote writes to a versioned bucket on every
// path a copy of every version takes, raw requests and the SDK's, and
// checks that each noted in its context's Receipt the version the bucket
// lists as the key's latest.
func TestWritesNoteTheVersionTheyWrote(t *testing.T) {
	ctx := t.Context()
	srv := s3test.StartVersioned(t)
	bucket := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: s3types.BucketVersioningStatusEnabled})
	for _, raw := range []bool{true, false} {
		c := newTestClient(t, srv, func(cfg *Config) { cfg.DisableRawRequests = !raw })
		if raw != (c.raw != nil) {
			t.Fatalf("raw requests: %t, want %t", c.raw != nil, raw)
		}
		st := c.Bucket(bucket)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(st.Put(ctx, "src", strings.NewReader("source"), 6, store.Metadata{}))
		for _, tc := range []struct {
			name   string
			marker bool
			write  func(ctx context.Context, key string) error
		}{
			{"a put", false, func(ctx context.Context, key string) error {
				return st.Put(ctx, key, store.NewBytesReader([]byte("body")), 4, store.Metadata{})
			}},
			{"a copy", false, func(ctx context.Context, key string) error {
				return st.Copy(ctx, store.CopySource{Bucket: bucket, Key: "src"}, key, nil)
			}},
			{"a copy that replaces the metadata", false, func(ctx context.Context, key string) error {
				return st.Copy(ctx, store.CopySource{Bucket: bucket, Key: "src"}, key, &store.Metadata{ContentType: "text/plain"})
			}},
			{"a multipart upload", false, func(ctx context.Context, key string) error {
				id, err := st.CreateMultipart(ctx, key, store.Metadata{})
				if err != nil {
					return err
				}
				p, err := st.UploadPart(ctx, key, id, 1, strings.NewReader("part"), 4)
				if err != nil {
					return err
				}
				return st.CompleteMultipart(ctx, key, id, []store.Part{p})
			}},
			{"a delete that leaves a marker", true, func(ctx context.Context, key string) error {
				return st.Delete(ctx, key)
			}},
		} {
			key := fmt.Sprintf("%s (raw %t)", tc.name, raw)
			must(st.Put(ctx, key, strings.NewReader("first"), 5, store.Metadata{}))
			var r store.Receipt
			must(tc.write(store.WithReceipt(ctx, &r), key))
			var latest store.Version
			must(st.ListVersions(ctx, key, func(v store.Version) error {
				if v.Key == key && v.IsLatest {
					latest = v
				}
				return nil
			}))
			if r.VersionID() == "" || r.VersionID() != latest.VersionID || latest.DeleteMarker != tc.marker {
				t.Errorf("%s: noted version %q; the key's latest is %q (delete marker %t), want it noted", key, r.VersionID(), latest.VersionID, latest.DeleteMarker)
			}
		}
		// A delete of one version leaves no marker: nothing to note.
		var r store.Receipt
		must(st.AtVersion(latestOf(t, st, "src")).Delete(store.WithReceipt(ctx, &r), "src"))
		if r.VersionID() != "" {
			t.Errorf("raw %t: a delete of a version noted %q, want nothing", raw, r.VersionID())
		}
	}
}

func latestOf(t *testing.T, st *Store, key string) string {
	t.Helper()
	var id string
	if err := st.ListVersions(t.Context(), key, func(v store.Version) error {
		if v.Key == key && v.IsLatest {
			id = v.VersionID
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return id
}
