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

// MaxCopySize is the largest object a job is given. The Batch Operations
// user guide says "Objects to be copied can be up to 5 GB in size" without
// saying whether it means 10^9 or 2^30 bytes; CopyObject itself takes up to
// 5 GiB. s3bulk reads it the strict way: objects of 5 GB (5,000,000,000
// bytes) or more go to multipart copy from this machine, which costs at
// most a few local copies of objects between 5 GB and 5 GiB and never a
// failed task.
const MaxCopySize int64 = 5_000_000_000 - 1

// ManifestOptions says which objects of a listing go into a manifest.
type ManifestOptions struct {
	// Bucket is the source bucket written on every line.
	Bucket string
	// Prefix is the listing prefix.
	Prefix string
	// Match selects objects (wildcards, filters); nil takes every object.
	Match func(store.Object) bool
	// MaxSize is the largest object a job may copy; larger objects go to
	// Route instead of the manifest. Zero means MaxCopySize.
	MaxSize int64
	// Route receives each matched object a job cannot copy, in listing
	// order, with the reason (one of the Reason constants): the caller
	// copies it another way (multipart copy) or reports it as excluded. Nil
	// only counts them. An error stops the listing.
	Route func(o store.Object, reason string) error
}

// Why an object stays out of a manifest.
const (
	// ReasonTooBig: the user guide's Copy limit, "Objects to be copied can
	// be up to 5 GB in size".
	ReasonTooBig = "5 GB or more, more than a job's Copy takes"
	// ReasonArchived: "If you try to copy objects from the S3 Glacier
	// Flexible Retrieval or S3 Glacier Deep Archive classes ... you must
	// first restore these objects". A listing does not say whether an
	// object was restored, so these go to the local engine, whose copy
	// works once the object is restored and otherwise fails with
	// InvalidObjectState for that object alone.
	ReasonArchived = "archived (GLACIER or DEEP_ARCHIVE), which a job's Copy fails on"
)

// archived reports a storage class whose objects need a restore first.
func archived(class string) bool { return class == "GLACIER" || class == "DEEP_ARCHIVE" }

// ManifestStats counts what a listing put into a manifest and what it
// routed elsewhere.
type ManifestStats struct {
	Objects       int64 // manifest lines
	Bytes         int64 // bytes the job will copy
	Oversize      int64 // objects over MaxSize, not in the manifest
	OversizeBytes int64
	Archived      int64 // objects in GLACIER or DEEP_ARCHIVE, not in the manifest
	ArchivedBytes int64
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
		reason := ""
		switch {
		case o.Size > maxSize:
			st.Oversize++
			st.OversizeBytes += o.Size
			reason = ReasonTooBig
		case archived(o.StorageClass):
			st.Archived++
			st.ArchivedBytes += o.Size
			reason = ReasonArchived
		}
		if reason != "" {
			if opts.Route != nil {
				return opts.Route(o, reason)
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

// ARN is the manifest object's ARN in partition ("" means "aws").
func (m Manifest) ARN(partition string) string { return BucketARN(partition, m.Bucket) + "/" + m.Key }

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
