package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// bucketSeq numbers buckets within this process; runID tells processes
// sharing an external endpoint apart.
var (
	bucketSeq atomic.Int64
	runID     = newRunID()
)

func newRunID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// cleanupTimeout bounds emptying and removing a bucket after a test; the
// test's own context is already cancelled by then.
const cleanupTimeout = 2 * time.Minute

// NewBucket creates a bucket named after the test and removes it, with
// every object and unfinished multipart upload in it, when the test ends.
func (s *Server) NewBucket(t testing.TB) string {
	t.Helper()
	name := BucketName(t.Name(), bucketSeq.Add(1))
	client := s.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("s3test: create bucket %s: %v", name, err)
	}
	t.Cleanup(func() {
		if s.stopped() {
			return // a private server's data goes with its temp dir
		}
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := removeBucket(ctx, client, name); err != nil {
			t.Errorf("s3test: %v", err)
		}
	})
	return name
}

// BucketName makes a valid, unique bucket name from a test name: lowercase
// letters, digits and hyphens, at most 63 characters.
func BucketName(testName string, seq int64) string {
	var b strings.Builder
	dash := true // no leading dash
	for _, r := range strings.ToLower(testName) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	suffix := fmt.Sprintf("-%s-%d", runID, seq)
	base := strings.TrimRight(b.String(), "-")
	if max := 63 - len(suffix); len(base) > max {
		base = strings.TrimRight(base[:max], "-")
	}
	if base == "" {
		base = "t"
	}
	return base + suffix
}

// removeBucket aborts the bucket's unfinished uploads, deletes its objects
// and removes it. A server without ListMultipartUploads (gofakes3, s3rver)
// cannot say which uploads are left: the bucket is emptied of its objects
// all the same, and the listing's error is reported only if the bucket then
// cannot be removed.
func removeBucket(ctx context.Context, client *s3.Client, bucket string) error {
	var listErr error
	uploads := s3.NewListMultipartUploadsPaginator(client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	for uploads.HasMorePages() {
		page, err := uploads.NextPage(ctx)
		if err != nil {
			listErr = fmt.Errorf("list uploads: %w", err)
			break
		}
		for _, u := range page.Uploads {
			_, err := client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
				Bucket: aws.String(bucket), Key: u.Key, UploadId: u.UploadId,
			})
			if err != nil {
				return fmt.Errorf("empty bucket %s: abort upload of %s: %w", bucket, aws.ToString(u.Key), err)
			}
		}
	}
	// Listing restarts from the top after each batch of deletes, which is
	// safe whatever the server does with a continuation token after deletes.
	for {
		page, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		if err != nil {
			return fmt.Errorf("empty bucket %s: list: %w", bucket, err)
		}
		if len(page.Contents) == 0 {
			break
		}
		ids := make([]types.ObjectIdentifier, len(page.Contents))
		for i, o := range page.Contents {
			ids[i] = types.ObjectIdentifier{Key: o.Key}
		}
		out, err := client.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: aws.String(bucket),
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
		})
		if err != nil {
			return fmt.Errorf("empty bucket %s: delete: %w", bucket, err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("empty bucket %s: delete %s: %s", bucket, aws.ToString(e.Key), aws.ToString(e.Message))
		}
	}
	_, err := client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
	if err != nil && strings.Contains(err.Error(), "BucketNotEmpty") {
		// A versioned bucket (WithVersioning) keeps older versions and
		// delete markers after its objects are deleted.
		if verr := deleteVersions(ctx, client, bucket); verr != nil {
			return verr
		}
		_, err = client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
	}
	if err != nil {
		if listErr != nil {
			return fmt.Errorf("remove bucket %s: %w (and %v)", bucket, err, listErr)
		}
		return fmt.Errorf("remove bucket %s: %w", bucket, err)
	}
	return nil
}

// deleteVersions deletes every version and delete marker of bucket.
func deleteVersions(ctx context.Context, client *s3.Client, bucket string) error {
	for {
		page, err := client.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
		if err != nil {
			return fmt.Errorf("empty bucket %s: list versions: %w", bucket, err)
		}
		var ids []types.ObjectIdentifier
		for _, v := range page.Versions {
			ids = append(ids, types.ObjectIdentifier{Key: v.Key, VersionId: v.VersionId})
		}
		for _, m := range page.DeleteMarkers {
			ids = append(ids, types.ObjectIdentifier{Key: m.Key, VersionId: m.VersionId})
		}
		if len(ids) == 0 {
			return nil
		}
		for _, id := range ids {
			if err := deleteVersion(ctx, client, bucket, id.Key, id.VersionId); err != nil {
				return fmt.Errorf("empty bucket %s: delete %s version %s: %w", bucket, aws.ToString(id.Key), aws.ToString(id.VersionId), err)
			}
		}
	}
}

// PutObject writes body under key or fails the test.
func PutObject(t testing.TB, client *s3.Client, bucket, key string, body []byte) {
	t.Helper()
	_, err := client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket:        aws.String(bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
	})
	if err != nil {
		t.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
}

// GetObject reads the object under key or fails the test.
func GetObject(t testing.TB, client *s3.Client, bucket, key string) []byte {
	t.Helper()
	out, err := client.GetObject(context.Background(), &s3.GetObjectInput{
		Bucket: aws.String(bucket),
		Key:    aws.String(key),
	})
	if err != nil {
		t.Fatalf("get s3://%s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("get s3://%s/%s: %v", bucket, key, err)
	}
	return b
}

// ListKeys returns every key under prefix, in the server's order.
func ListKeys(t testing.TB, client *s3.Client, bucket, prefix string) []string {
	t.Helper()
	keys := []string{}
	p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{
		Bucket: aws.String(bucket),
		Prefix: aws.String(prefix),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("list s3://%s/%s: %v", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// ListUploads returns the keys of the unfinished multipart uploads in
// bucket, sorted, one entry per upload.
func ListUploads(t testing.TB, client *s3.Client, bucket string) []string {
	t.Helper()
	keys := []string{}
	p := s3.NewListMultipartUploadsPaginator(client, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			if noUploadsYet(err) {
				break
			}
			if notImplemented(err) {
				t.Skipf("server lacks ListMultipartUploads: abandoned uploads cannot be checked for (%s)", short(err))
			}
			t.Fatalf("list uploads in s3://%s: %v", bucket, err)
		}
		for _, u := range page.Uploads {
			keys = append(keys, aws.ToString(u.Key))
		}
	}
	sort.Strings(keys)
	return keys
}

// notImplemented reports whether err is a server's answer that it does not
// have an operation: 501 or 405.
func notImplemented(err error) bool {
	var re interface{ HTTPStatusCode() int }
	if !errors.As(err, &re) {
		return false
	}
	switch re.HTTPStatusCode() {
	case 501, 405:
		return true
	}
	return false
}

// noUploadsYet reports gofakes3's answer to a listing of the uploads in a
// bucket where none was ever started, 404 NoSuchUpload: there are none.
// (It keeps a bucket's uploads from its first CreateMultipartUpload on and
// lists them from then, which its probe for ListMultipartUploads shows.)
func noUploadsYet(err error) bool {
	var apiErr smithy.APIError
	var re interface{ HTTPStatusCode() int }
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "NoSuchUpload" && errors.As(err, &re) && re.HTTPStatusCode() == 404
}
