package s3store

import (
	"context"
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
