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
	// Versioned writes each object's VersionID as a third column.
	Versioned bool
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
// held per object, so memory does not grow with the listing. (A batch copy
// writes its manifest from the engine's plan instead: Runner.Copy.)
func WriteManifest(ctx context.Context, src store.Lister, opts ManifestOptions, w io.Writer) (ManifestStats, error) {
	if opts.Bucket == "" {
		return ManifestStats{}, errors.New("write manifest: no source bucket")
	}
	maxSize := opts.MaxSize
	if maxSize <= 0 {
		maxSize = MaxCopySize
	}
	mw := newManifestWriter(w, opts.Bucket)
	mw.versioned = opts.Versioned
	err := src.List(ctx, opts.Prefix, "", func(o store.Object) error {
		if o.IsPrefix || (opts.Match != nil && !opts.Match(o)) {
			return nil
		}
		reason := ""
		switch {
		case o.Size > maxSize:
			mw.stats.Oversize++
			mw.stats.OversizeBytes += o.Size
			reason = ReasonTooBig
		case archived(o.StorageClass):
			mw.stats.Archived++
			mw.stats.ArchivedBytes += o.Size
			reason = ReasonArchived
		}
		if reason != "" {
			if opts.Route != nil {
				return opts.Route(o, reason)
			}
			return nil
		}
		return mw.add(o)
	})
	if err == nil {
		err = mw.flush()
	}
	if err != nil {
		return mw.stats, fmt.Errorf("write manifest of s3://%s/%s: %w", opts.Bucket, opts.Prefix, err)
	}
	return mw.stats, nil
}

// manifestWriter writes manifest lines, buffered, and counts them.
type manifestWriter struct {
	bw     *bufio.Writer
	bucket string
	line   []byte
	stats  ManifestStats
	// versioned writes a third column, the version ID, on every line: the
	// user guide wants version IDs for all objects of a manifest or none.
	versioned bool
}

func newManifestWriter(w io.Writer, bucket string) *manifestWriter {
	return &manifestWriter{bw: bufio.NewWriterSize(w, 64<<10), bucket: bucket, line: make([]byte, 0, 1024)}
}

// add writes o's line: Bucket,Key, or Bucket,Key,VersionId. Keys and
// version IDs are URL-encoded (S3's version IDs may hold '+' and '/').
func (m *manifestWriter) add(o store.Object) error {
	if m.versioned && o.VersionID == "" {
		return fmt.Errorf("%s has no version ID for a versioned manifest", o.Key)
	}
	line := append(m.line[:0], m.bucket...)
	line = append(line, ',')
	line = append(line, EncodeKey(o.Key)...)
	if m.versioned {
		line = append(line, ',')
		line = append(line, EncodeKey(o.VersionID)...)
	}
	line = append(line, '\n')
	m.line = line
	if _, err := m.bw.Write(line); err != nil {
		return err
	}
	m.stats.Objects++
	m.stats.Bytes += o.Size
	return nil
}

func (m *manifestWriter) flush() error { return m.bw.Flush() }

// Manifest is an uploaded manifest: what CreateJob needs to find it.
type Manifest struct {
	Bucket string
	Key    string
	// ETag of the manifest object, without quotes. CreateJob requires it,
	// and a job fails if the object changed since.
	ETag string
	// Versioned manifests have a third column, the VersionId of each
	// object: the job copies that version, not the current one.
	Versioned bool
	// Inventory marks the manifest.json of an S3 Inventory report (CSV)
	// given to the job as it is (S3InventoryReport_CSV_20161130).
	Inventory bool
	Stats     ManifestStats
}

// ARN is the manifest object's ARN in partition ("" means "aws").
func (m Manifest) ARN(partition string) string { return BucketARN(partition, m.Bucket) + "/" + m.Key }

// PutManifest writes the manifest of src's listing to key of dst (a store of
// bucket) while listing, then reads back its ETag. Manifests bigger than
// partSize go up as a multipart upload one part at a time, so memory stays
// at one part whether the listing has a thousand keys or a hundred million.
// partSize 0 means DefaultPartSize.
func PutManifest(ctx context.Context, src store.Lister, opts ManifestOptions, dst store.Store, bucket, key string, partSize int64) (Manifest, error) {
	m, err := putManifestParts(ctx, bucket, key, dst, partSize, func(w io.Writer) (ManifestStats, error) {
		st, err := WriteManifest(ctx, src, opts, w)
		if err == nil && st.Objects == 0 {
			err = fmt.Errorf("write manifest of s3://%s/%s: %w", opts.Bucket, opts.Prefix, ErrNothingToCopy)
		}
		return st, err
	})
	m.Versioned = opts.Versioned
	return m, err
}

// putManifest uploads what write writes to key of dst (a store of bucket)
// while it writes, then reads back its ETag; see PutManifest.
func putManifest(ctx context.Context, bucket, key string, dst store.Store, write func(io.Writer) (ManifestStats, error)) (Manifest, error) {
	return putManifestParts(ctx, bucket, key, dst, 0, write)
}

func putManifestParts(ctx context.Context, bucket, key string, dst store.Store, partSize int64, write func(io.Writer) (ManifestStats, error)) (Manifest, error) {
	m := Manifest{Bucket: bucket, Key: key}
	up := newUpload(ctx, dst, key, partSize)
	st, err := write(up)
	m.Stats = st
	if err != nil {
		// A job over an empty manifest fails in Preparing; it is refused
		// here. Nothing was uploaded: an empty listing never fills a part.
		if aerr := up.abort(); aerr != nil {
			err = errors.Join(err, aerr)
		}
		return m, err
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
