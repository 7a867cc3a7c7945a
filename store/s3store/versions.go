package s3store

import (
	"context"
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
)

var (
	_ store.VersionLister  = (*Store)(nil)
	_ store.VersionPinner  = (*Store)(nil)
	_ store.VersionDeleter = (*Store)(nil)
)

// Versioned reports whether the bucket keeps versions: its versioning is
// Enabled, or Suspended after having been enabled (older objects keep
// their versions, new ones get the "null" version).
func (s *Store) Versioned(ctx context.Context) (bool, error) {
	st, err := s.Versioning(ctx)
	return st != "", err
}

// Versioning returns the bucket's versioning status (GetBucketVersioning):
// "Enabled", "Suspended", or "" when it was never enabled.
func (s *Store) Versioning(ctx context.Context) (string, error) {
	out, err := s.c.s3.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String(s.bucket)}, s.optFns...)
	if err != nil {
		return "", wrap(err, "get versioning of", "s3://"+s.bucket)
	}
	switch out.Status {
	case s3types.BucketVersioningStatusEnabled, s3types.BucketVersioningStatusSuspended:
		return string(out.Status), nil
	}
	return "", nil
}

// AtVersion returns the store with its reads of objects (HeadObject,
// GetObject, the checks of what was read) made of version id.
func (s *Store) AtVersion(id string) store.Store {
	n := *s
	n.version = id
	return &n
}

// ListCurrentVersions calls fn for the current version of every object
// under prefix, in key order, with its VersionID (ListObjectVersions):
// what a listing shows, pinned to the version listed. Keys whose current
// version is a delete marker are left out, as a listing leaves them out;
// older versions are skipped. An unversioned bucket lists each object
// with the version "null".
func (s *Store) ListCurrentVersions(ctx context.Context, prefix string, fn func(store.Object) error) error {
	return s.ListVersions(ctx, prefix, func(v store.Version) error {
		if !v.IsLatest || v.DeleteMarker {
			return nil
		}
		return fn(v.Object)
	})
}

// ListVersions calls fn for every version and delete marker under prefix,
// one ListObjectVersions page at a time, in the order S3 keeps them: keys
// in byte order, each key's entries newest first. A page carries its
// versions and its delete markers apart; they are merged back into that
// order (by key, the current entry first, then by time, newest first).
// Each entry is passed once: a server that starts a page with the entry
// its markers name (versitygw 1.8 does), which S3 lists only before them,
// does not pass it twice.
func (s *Store) ListVersions(ctx context.Context, prefix string, fn func(store.Version) error) error {
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(s.bucket), MaxKeys: aws.Int32(pageSize)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	var lastKey, lastID string
	for {
		out, err := s.c.s3.ListObjectVersions(ctx, in, s.optFns...)
		if err != nil {
			return wrap(err, "list versions", s.URL(prefix))
		}
		vs, ms := out.Versions, out.DeleteMarkers
		for len(vs) > 0 || len(ms) > 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("list versions %s: %w", s.URL(prefix), err)
			}
			var v store.Version
			if len(ms) == 0 || len(vs) > 0 && versionFirst(vs[0], ms[0]) {
				v = versionOf(vs[0])
				vs = vs[1:]
			} else {
				v = markerOf(ms[0])
				ms = ms[1:]
			}
			if v.Key == lastKey && v.VersionID == lastID {
				continue
			}
			lastKey, lastID = v.Key, v.VersionID
			if err := fn(v); err != nil {
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

// versionFirst reports whether version v comes before delete marker m in
// the order of a key's history, newest first.
func versionFirst(v s3types.ObjectVersion, m s3types.DeleteMarkerEntry) bool {
	vk, mk := aws.ToString(v.Key), aws.ToString(m.Key)
	switch {
	case vk != mk:
		return vk < mk
	case aws.ToBool(v.IsLatest) != aws.ToBool(m.IsLatest):
		return aws.ToBool(v.IsLatest)
	}
	return !aws.ToTime(m.LastModified).After(aws.ToTime(v.LastModified))
}

func versionOf(v s3types.ObjectVersion) store.Version {
	return store.Version{
		Object: store.Object{
			Key: aws.ToString(v.Key), Size: aws.ToInt64(v.Size), ModTime: aws.ToTime(v.LastModified),
			ETag: store.TrimETag(aws.ToString(v.ETag)), StorageClass: string(v.StorageClass), VersionID: versionID(v.VersionId),
		},
		IsLatest: aws.ToBool(v.IsLatest),
	}
}

func markerOf(m s3types.DeleteMarkerEntry) store.Version {
	return store.Version{
		Object:   store.Object{Key: aws.ToString(m.Key), ModTime: aws.ToTime(m.LastModified), VersionID: versionID(m.VersionId)},
		IsLatest: aws.ToBool(m.IsLatest), DeleteMarker: true,
	}
}

// versionID is a listed version's ID: "null" for the version written while
// versioning was off, which some servers list without one.
func versionID(id *string) string {
	if aws.ToString(id) == "" {
		return "null"
	}
	return *id
}

// DeleteVersions deletes versions and delete markers (Key and VersionID of
// each) for good, 1,000 per DeleteObjects request.
func (s *Store) DeleteVersions(ctx context.Context, versions []store.Object) ([]store.DeleteError, error) {
	ids := make([]s3types.ObjectIdentifier, len(versions))
	for i, v := range versions {
		ids[i] = s3types.ObjectIdentifier{Key: aws.String(v.Key), VersionId: aws.String(v.VersionID)}
	}
	failed, err := s.c.deleteIDs(ctx, s.bucket, ids, s.payer, s.optFns)
	out := make([]store.DeleteError, len(failed))
	for i, f := range failed {
		out[i] = store.DeleteError{Key: f.Key, Err: f.Err}
	}
	return out, err
}

// copySourceOf formats the x-amz-copy-source header of src: copySource,
// and "?versionId=ID" when it names a version.
func copySourceOf(src store.CopySource) string {
	h := copySource(src.Bucket, src.Key)
	if src.VersionID != "" {
		h += "?versionId=" + url.QueryEscape(src.VersionID)
	}
	return h
}
