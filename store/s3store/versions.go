package s3store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
)

// Versioned reports whether the bucket keeps versions: its versioning is
// Enabled, or Suspended after having been enabled (older objects keep
// their versions, new ones get the "null" version).
func (s *Store) Versioned(ctx context.Context) (bool, error) {
	out, err := s.c.s3.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String(s.bucket)}, s.optFns...)
	if err != nil {
		return false, wrap(err, "get versioning of", "s3://"+s.bucket)
	}
	return out.Status == s3types.BucketVersioningStatusEnabled || out.Status == s3types.BucketVersioningStatusSuspended, nil
}

// ListCurrentVersions calls fn for the current version of every object
// under prefix, in key order, with its VersionID (ListObjectVersions):
// what a listing shows, pinned to the version listed. Keys whose current
// version is a delete marker are left out, as a listing leaves them out;
// older versions are skipped. An unversioned bucket lists each object
// with the version "null".
func (s *Store) ListCurrentVersions(ctx context.Context, prefix string, fn func(store.Object) error) error {
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(s.bucket), MaxKeys: aws.Int32(pageSize)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	for {
		out, err := s.c.s3.ListObjectVersions(ctx, in, s.optFns...)
		if err != nil {
			return wrap(err, "list versions", s.URL(prefix))
		}
		for _, v := range out.Versions {
			if !aws.ToBool(v.IsLatest) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("list versions %s: %w", s.URL(prefix), err)
			}
			id := aws.ToString(v.VersionId)
			if id == "" {
				id = "null"
			}
			o := store.Object{
				Key: aws.ToString(v.Key), Size: aws.ToInt64(v.Size), ModTime: aws.ToTime(v.LastModified),
				ETag: store.TrimETag(aws.ToString(v.ETag)), StorageClass: string(v.StorageClass), VersionID: id,
			}
			if err := fn(o); err != nil {
				return err
			}
		}
		if !aws.ToBool(out.IsTruncated) {
			return nil
		}
		next, nextID := aws.ToString(out.NextKeyMarker), aws.ToString(out.NextVersionIdMarker)
		if next == aws.ToString(in.KeyMarker) && nextID == aws.ToString(in.VersionIdMarker) {
			return nil // a repeated marker would list the same page forever
		}
		in.KeyMarker, in.VersionIdMarker = aws.String(next), nil
		if nextID != "" {
			in.VersionIdMarker = aws.String(nextID)
		}
	}
}
