package batchops

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/s3bulk/s3bulk/store"
)

// ManifestFormat is the manifest format s3bulk writes: one `Bucket,Key`
// line per object, keys URL-encoded, no header row.
const ManifestFormat = "S3BatchOperations_CSV_20180820"

// MaxCopySize is the largest object Batch Operations' Copy can copy: it
// calls CopyObject, whose limit is 5 GiB. Larger objects need multipart copy.
const MaxCopySize int64 = 5 << 30

// ManifestOptions says which objects of a listing go into a manifest.
type ManifestOptions struct {
	// Bucket is the source bucket written on every line.
	Bucket string
	// Prefix is the listing prefix.
	Prefix string
	// Match selects objects (wildcards, filters); nil takes every object.
	Match func(store.Object) bool
	// MaxSize is the largest object a job may copy; larger objects go to
	// Oversize instead of the manifest. Zero means MaxCopySize.
	MaxSize int64
	// Oversize receives each matched object larger than MaxSize, in listing
	// order: the caller copies it another way (multipart copy) or reports it
	// as excluded. Nil only counts them. An error stops the listing.
	Oversize func(store.Object) error
}

// ManifestStats counts what a listing put into a manifest and what it
// routed elsewhere.
type ManifestStats struct {
	Objects       int64 // manifest lines
	Bytes         int64 // bytes the job will copy
	Oversize      int64 // objects over MaxSize, not in the manifest
	OversizeBytes int64
}

// WriteManifest streams src's listing into w as manifest lines. Nothing is
// held per object, so memory does not grow with the listing.
func WriteManifest(ctx context.Context, src store.Lister, opts ManifestOptions, w io.Writer) (ManifestStats, error) {
	var st ManifestStats
	if opts.Bucket == "" {
		return st, errors.New("write manifest: no source bucket")
	}
	maxSize := opts.MaxSize
	if maxSize <= 0 {
		maxSize = MaxCopySize
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	line := make([]byte, 0, 1024)
	err := src.List(ctx, opts.Prefix, "", func(o store.Object) error {
		if o.IsPrefix || (opts.Match != nil && !opts.Match(o)) {
			return nil
		}
		if o.Size > maxSize {
			st.Oversize++
			st.OversizeBytes += o.Size
			if opts.Oversize != nil {
				return opts.Oversize(o)
			}
			return nil
		}
		line = append(line[:0], opts.Bucket...)
		line = append(line, ',')
		line = append(line, EncodeKey(o.Key)...)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
		st.Objects++
		st.Bytes += o.Size
		return nil
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return st, fmt.Errorf("write manifest of s3://%s/%s: %w", opts.Bucket, opts.Prefix, err)
	}
	return st, nil
}

// Manifest is an uploaded manifest: what CreateJob needs to find it.
type Manifest struct {
	Bucket string
	Key    string
	// ETag of the manifest object, without quotes. CreateJob requires it,
	// and a job fails if the object changed since.
	ETag  string
	Stats ManifestStats
}

// ARN is the manifest object's ARN.
func (m Manifest) ARN() string { return "arn:aws:s3:::" + m.Bucket + "/" + m.Key }

// PutManifest writes the manifest of src's listing to key of dst (a store of
// bucket) while listing, then reads back its ETag. Manifests bigger than
// partSize go up as a multipart upload one part at a time, so memory stays
// at one part whether the listing has a thousand keys or a hundred million.
// partSize 0 means DefaultPartSize.
func PutManifest(ctx context.Context, src store.Lister, opts ManifestOptions, dst store.Store, bucket, key string, partSize int64) (Manifest, error) {
	m := Manifest{Bucket: bucket, Key: key}
	up := newUpload(ctx, dst, key, partSize)
	st, err := WriteManifest(ctx, src, opts, up)
	m.Stats = st
	if err != nil {
		if aerr := up.abort(); aerr != nil {
			err = errors.Join(err, aerr)
		}
		return m, err
	}
	if st.Objects == 0 {
		// A job over an empty manifest fails in Preparing; say so now.
		// Nothing was uploaded: an empty listing never fills a part.
		return m, fmt.Errorf("write manifest of s3://%s/%s: %w", opts.Bucket, opts.Prefix, ErrNothingToCopy)
	}
	if err := up.close(); err != nil {
		return m, err
	}
	obj, _, err := dst.Head(ctx, key)
	if err != nil {
		return m, fmt.Errorf("head manifest %s: %w", dst.URL(key), err)
	}
	if obj.ETag == "" {
		return m, fmt.Errorf("head manifest %s: no ETag", dst.URL(key))
	}
	m.ETag = obj.ETag
	return m, nil
}

// ErrNothingToCopy reports a listing that matched no object a job could copy.
var ErrNothingToCopy = errors.New("no objects to copy")
