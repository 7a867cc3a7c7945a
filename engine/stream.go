package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/store"
)

// stream copies one object from a store to another through this process:
// the path of every copy that cannot be server-side (two endpoints, two
// accounts), and the fallback of one the server cannot do (a server
// without UploadPartCopy). It works on any task whose source can be read
// and whose destination can be written, whatever its Op, and chooses by
// size:
//
//   - up to the multipart threshold, one GetObject into memory (under the
//     run's byte budget, --max-buffer) and one PutObject from it, which
//     can be retried;
//   - above it, ranged GETs feeding UploadPart in parallel, in parts sized
//     for uploads (parts.Auto(size, parts.Upload)) unless --part-size
//     fixes them; each part is held in memory under the same budget.
//
// Integrity: the bytes read are checked against the source's full-object
// checksum (or, for one read, its MD5 ETag) where it has one, and the
// destination gets a checksum of the bytes sent that its server verifies
// (PutObject's CRC32, a multipart upload's FULL_OBJECT CRC32C). A mismatch
// fails the object before anything is visible at the destination; a
// multipart upload is aborted.
//
// It returns the number of parts, and whether the bytes read went
// unchecked (the source keeps nothing to check them against).
func (e *executor) stream(ctx context.Context, t Task) (int, bool, error) {
	t.Op = OpStream
	if !parts.Split(parts.Upload, t.Size, e.opts.MultipartThreshold) {
		unverified, err := e.streamOne(ctx, t)
		return 0, unverified, err
	}
	layout, err := e.layout(t.Size, parts.Upload)
	if err != nil {
		return 0, false, err
	}
	mp, ok := e.job.Dst.Store.(store.Multipart)
	if !ok {
		unverified, err := e.streamOne(ctx, t)
		return 0, unverified, err
	}
	t.PartSize = layout.PartSize
	unverified, err := e.multipartUpload(ctx, t, layout, mp)
	return int(layout.Count), unverified, err
}

// streamOne copies a whole object with one read and one write. The body is
// read whole before the write starts: a read that fails (a checksum
// mismatch, a source that changed) writes nothing, and the write can be
// retried from memory.
func (e *executor) streamOne(ctx context.Context, t Task) (unverified bool, err error) {
	src, dst := e.source(t), e.job.Dst.Store
	buf, err := e.partBuffers.get(ctx, t.Size)
	if err != nil {
		return false, err
	}
	defer e.partBuffers.put(buf)
	var meta store.Metadata
	err = e.do(ctx, func(ctx context.Context) error {
		var body io.ReadCloser
		var err error
		if mr, ok := src.(store.MetadataReader); ok {
			body, meta, err = mr.GetWithMetadata(ctx, t.SrcKey, t.ETag)
		} else {
			body, err = src.Get(ctx, t.SrcKey, 0, -1, t.ETag)
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		defer body.Close()
		err = readExactly(body, buf)
		unverified = store.Unverified(body)
		return err
	})
	if err != nil {
		return false, err
	}
	if _, ok := src.(store.MetadataReader); !ok && (e.opts.Props != CopyPropsNone || e.opts.CopyLock.any()) {
		if meta, err = e.headMeta(ctx, t); err != nil {
			return false, err
		}
	}
	count := meta.TagCount
	if e.opts.Props == CopyPropsNone {
		// The checksum is not a property: it is the bytes'. Object Lock
		// settings are copied only when asked (withMetadata).
		meta = store.Metadata{Checksum: meta.Checksum, Lock: meta.Lock}
	}
	meta = e.withMetadata(meta, t.DstKey)
	if meta.Tags, err = e.writeTags(ctx, t, count, false); err != nil {
		return false, err
	}
	err = e.do(ctx, func(ctx context.Context) error {
		return dst.Put(ctx, t.DstKey, store.NewBytesReader(buf), t.Size, meta)
	})
	err = taggedWrite(err, meta.Tags)
	if err == nil {
		err = e.lateTags(ctx, t.DstKey, meta.Tags)
	}
	return unverified && err == nil, err
}

// readExactly fills buf from r and checks that r ends there. The read that
// reaches the end is where a store reports a checksum mismatch.
func readExactly(r io.Reader, buf []byte) error {
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.ErrUnexpectedEOF {
			return fmt.Errorf("read: the object is shorter than %d bytes (it changed?)", len(buf))
		}
		return fmt.Errorf("read: %w", err)
	}
	var probe [1]byte
	switch n, err := r.Read(probe[:]); {
	case n > 0:
		return fmt.Errorf("read: the object is longer than %d bytes (it changed?)", len(buf))
	case err != nil && err != io.EOF:
		return fmt.Errorf("read: %w", err)
	}
	return nil
}
