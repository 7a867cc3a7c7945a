package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"path"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/store"
)

// abortTimeout bounds the clean-up of a failed multipart upload, which runs
// even when the run's context is already cancelled.
const abortTimeout = 30 * time.Second

// execute carries out one task and returns its one result.
func (e *executor) execute(ctx context.Context, t Task) Result {
	start := time.Now()
	r := Result{Task: t}
	if t.Op == OpSkip {
		r.Status = StatusSkipped
		return r
	}
	e.noteACLs(ctx, t)
	if e.opts.TaskTimeout > 0 && t.PartSize == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opts.TaskTimeout)
		defer cancel()
	}
	if e.opts.NoClobber {
		exists, err := e.exists(ctx, t.DstKey)
		if err != nil {
			return e.failed(r, err, start)
		}
		if exists {
			r.Status, r.Task.Reason = StatusSkipped, ReasonExists
			return r
		}
	}
	var err error
	// An object that failed as a whole (its source changed, its upload
	// vanished, its bytes arrived damaged) is started over, a bounded
	// number of times (restart.go).
	for r.Attempts = 1; ; r.Attempts++ {
		r.Parts, r.Unverified, err = e.transfer(ctx, t)
		if err == nil {
			break
		}
		next, ok := e.restart(ctx, t, r.Attempts, err)
		if !ok {
			break
		}
		t, r.Task = next, next
	}
	if r.Attempts > 1 {
		if err == nil {
			e.restartsWon.Add(1)
		} else if ctx.Err() == nil {
			e.restartsLost.Add(1)
		}
	}
	// A version is moved by deleting that version, which the batches of
	// keys of moveDeletes cannot name.
	if err == nil && t.DeleteSource && (e.moves == nil || t.VersionID != "") {
		err = e.do(ctx, func(ctx context.Context) error { return e.source(t).Delete(ctx, t.SrcKey) })
		if err != nil {
			err = fmt.Errorf("delete source after copy: %w", err)
		}
	}
	if err != nil && e.job.From != nil && errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
		// An entry of an inventory or key list that the source no longer
		// has was deleted after the list was made: nothing to copy, and
		// nothing a rerun could do (docs/inventory.md).
		r.Status, r.Task.Reason = StatusSkipped, ReasonGoneSince
		r.Duration = time.Since(start)
		return r
	}
	if err != nil {
		return e.failed(r, e.checksummedWrite(err), start)
	}
	r.Status = StatusDone
	r.Duration = time.Since(start)
	return r
}

func (e *executor) failed(r Result, err error, start time.Time) Result {
	r.Status = StatusFailed
	r.Err = &TaskError{Op: string(r.Task.Op), Src: r.Task.Src, Dst: r.Task.Dst, Attempts: r.Attempts, Err: err}
	r.Duration = time.Since(start)
	return r
}

func (e *executor) exists(ctx context.Context, key string) (bool, error) {
	err := e.do(ctx, func(ctx context.Context) error {
		_, _, err := e.job.Dst.Store.Head(ctx, key)
		return err
	})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	}
	return false, err
}

// TaskError is the failure of one task; it names the object and the cause.
type TaskError struct {
	Op, Src, Dst string
	// Attempts is how many times the whole object was tried (restarts
	// included, Options.Restarts); Err is the last attempt's error.
	Attempts int
	Err      error
}

func (e *TaskError) Error() string {
	var msg string
	if e.Dst == "" {
		msg = prefixOnce(e.Op+" "+e.Src, e.Err)
	} else {
		msg = prefixOnce(e.Op+" "+e.Src+" to "+e.Dst, e.Err)
	}
	switch {
	case e.Attempts == 2:
		msg += " (restarted once, then gave up)"
	case e.Attempts > 2:
		msg += fmt.Sprintf(" (restarted %d times, then gave up)", e.Attempts-1)
	}
	return msg
}
func (e *TaskError) Unwrap() error { return e.Err }

// single moves an object with one request (two for a stream). It reports
// whether the bytes read went unchecked (store.Unverified).
func (e *executor) single(ctx context.Context, t Task) (unverified bool, err error) {
	src, dst := e.source(t), e.job.Dst.Store
	if t.Op == OpCopy {
		c := dst.(store.Copier)
		bucket, _ := c.CanCopyFrom(e.job.Src.Store)
		var replace *store.Metadata // nil: the source's, with no extra request
		switch {
		case e.opts.Props == CopyPropsNone:
			var m store.Metadata
			if e.opts.CopyLock.any() {
				h, err := e.headMeta(ctx, t)
				if err != nil {
					return false, err
				}
				m.Lock = h.Lock
			}
			m = e.withMetadata(m, t.DstKey)
			replace = &m
		case e.opts.Metadata != nil || e.opts.CopyLock.any():
			m, err := e.headMeta(ctx, t)
			if err != nil {
				return false, err
			}
			m = e.withMetadata(m, t.DstKey)
			replace = &m
		}
		tags := e.copyTags()
		cs := store.CopySource{Bucket: bucket, Key: t.SrcKey, IfMatch: t.ETag, Size: t.Size, VersionID: t.VersionID, Tags: tags,
			ChecksumAlgorithm: e.opts.ChecksumAlgorithm}
		err := e.do(ctx, func(ctx context.Context) error { return c.Copy(ctx, cs, t.DstKey, replace) })
		err = taggedWrite(err, tags)
		if err == nil {
			err = e.lateTags(ctx, t.DstKey, tags)
		}
		return false, err
	}
	meta := store.Metadata{}
	if t.Op == OpUpload {
		meta.ContentType = mime.TypeByExtension(path.Ext(t.SrcKey))
	}
	if t.Op == OpStream && !e.job.Src.Loc.Local {
		m, err := e.headMeta(ctx, t)
		if err != nil {
			return false, err
		}
		meta = m
	}
	meta = e.withMetadata(meta, t.DstKey)
	if meta.Tags, err = e.writeTags(ctx, t, meta.TagCount, false); err != nil {
		return false, err
	}
	// Reading and writing are one request pair under one slot: the body
	// streams from one to the other.
	err = e.do(ctx, func(ctx context.Context) error {
		body, err := src.Get(ctx, t.SrcKey, 0, -1, t.ETag)
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		defer body.Close()
		// Both stores check that exactly Size bytes arrived (a seekable body
		// is passed through untouched so a retry can rewind it).
		err = dst.Put(ctx, t.DstKey, body, t.Size, meta)
		unverified = store.Unverified(body)
		return err
	})
	err = taggedWrite(err, meta.Tags)
	if err == nil {
		err = e.lateTags(ctx, t.DstKey, meta.Tags)
	}
	return unverified && err == nil, err
}

func (e *executor) headMeta(ctx context.Context, t Task) (store.Metadata, error) {
	var meta store.Metadata
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		_, meta, err = e.source(t).Head(ctx, t.SrcKey)
		return err
	})
	return meta, err
}

// withMetadata applies the run's MetadataOptions to m, the metadata an
// object would otherwise be written with under key.
func (e *executor) withMetadata(m store.Metadata, key string) store.Metadata {
	m.Lock = e.lockToWrite(m.Lock)
	m.Checksum = e.checksumToWrite(m.Checksum)
	o := e.opts.Metadata
	if o == nil {
		return m
	}
	if o.Replace {
		m = store.Metadata{ContentType: mime.TypeByExtension(path.Ext(key)), Lock: m.Lock, Checksum: m.Checksum}
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&m.ContentType, o.Set.ContentType)
	set(&m.ContentEncoding, o.Set.ContentEncoding)
	set(&m.ContentLanguage, o.Set.ContentLanguage)
	set(&m.CacheControl, o.Set.CacheControl)
	set(&m.ContentDisposition, o.Set.ContentDisposition)
	set(&m.StorageClass, o.Set.StorageClass)
	if len(o.Set.User) > 0 {
		user := make(map[string]string, len(m.User)+len(o.Set.User))
		maps.Copy(user, m.User)
		maps.Copy(user, o.Set.User)
		m.User = user
	}
	return m
}

// multipart moves an object in parts, each part one request on the run's
// budget. It returns the number of parts, and whether the object arrived
// with nothing to check it against.
func (e *executor) multipart(ctx context.Context, t Task) (int, bool, error) {
	layout, err := parts.NewLayout(t.Size, t.PartSize)
	if err != nil {
		return 0, false, err
	}
	dst := e.job.Dst.Store
	if rw, ok := dst.(store.RandomWriter); ok {
		unverified, err := e.rangedDownload(ctx, t, layout, rw)
		return int(layout.Count), unverified, err
	}
	mp, ok := dst.(store.Multipart)
	if !ok {
		unverified, err := e.single(ctx, t)
		return 0, unverified, err
	}
	if t.Op == OpCopy && e.noPartCopy.Load() {
		return e.copyWithoutPartCopy(ctx, t, mp)
	}
	unverified, err := e.multipartUpload(ctx, t, layout, mp)
	if t.Op == OpCopy && errors.Is(err, store.ErrChecksumsUnsupported) && ctx.Err() == nil && !e.noCopyChecksum.Swap(true) {
		// The upload was aborted; the copy starts over, its checksum left
		// to the server.
		e.sayOnce("no-copy-checksum", slog.LevelWarn,
			"the destination cannot keep a checksum of its own for parts copied server-side: objects copied in parts get the server's default checksum (CRC64NVME)",
			"dst", e.job.Dst.Loc.String(), "err", err)
		unverified, err = e.multipartUpload(ctx, t, layout, mp)
	}
	var te *TagsError
	if t.Op == OpCopy && errors.Is(err, store.ErrNotImplemented) && !errors.As(err, &te) && ctx.Err() == nil {
		// The upload was aborted; the copy starts over another way.
		e.noPartCopy.Store(true)
		return e.copyWithoutPartCopy(ctx, t, mp)
	}
	return int(layout.Count), unverified, err
}

// copyWithoutPartCopy copies t on a server without UploadPartCopy: with one
// CopyObject up to its 5 GiB limit, beyond it through this process (ranged
// GETs of the source, UploadPart to the destination), as a stream between
// two endpoints is. It returns the number of parts, and whether a copy
// through this process went unchecked.
func (e *executor) copyWithoutPartCopy(ctx context.Context, t Task, mp store.Multipart) (int, bool, error) {
	if t.Size <= e.copyObjectMax {
		e.sayOnce("no-part-copy", slog.LevelDebug,
			"the destination has no UploadPartCopy: objects up to 5 GiB are copied with one CopyObject each", "dst", e.job.Dst.Loc.String())
		unverified, err := e.single(ctx, t)
		return 0, unverified, err
	}
	e.sayOnce("no-part-copy-stream", slog.LevelWarn,
		"the destination has no UploadPartCopy and CopyObject takes at most 5 GiB: bigger objects are copied through this machine",
		"dst", e.job.Dst.Loc.String())
	layout, err := e.layout(t.Size, parts.Upload)
	if err != nil {
		return 0, false, err
	}
	st := t
	st.Op, st.PartSize = OpStream, layout.PartSize
	unverified, err := e.multipartUpload(ctx, st, layout, mp)
	return int(layout.Count), unverified, err
}

// rangedDownload writes parallel ranged reads into a preallocated temp file
// that is renamed only when every part arrived and, when the source has
// anything to check them against, the parts were found intact. It reports
// whether the source had nothing.
func (e *executor) rangedDownload(ctx context.Context, t Task, layout parts.Layout, rw store.RandomWriter) (unverified bool, err error) {
	// The parts are hashed as they are written, or read back before the
	// rename, and checked against what the source keeps of the whole
	// object (a full-object checksum, an MD5 or multipart ETag).
	var check store.PartsVerifier
	if v, ok := e.source(t).(store.Verifier); ok {
		err := e.do(ctx, func(ctx context.Context) error {
			var err error
			check, err = v.VerifyParts(ctx, t.SrcKey, t.ETag, t.Size)
			return err
		})
		if err != nil {
			return false, err
		}
	}
	unverified = check == nil
	tmp, err := rw.CreateTemp(ctx, t.DstKey, t.Size)
	if err != nil {
		return false, err
	}
	defer tmp.Abort() // no-op after Commit
	pb := &partBytes{p: e.progress}
	defer pb.end()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.concurrency)
	for p := range layout.All() {
		g.Go(func() error {
			return e.do(gctx, func(ctx context.Context) error {
				body, err := e.source(t).Get(ctx, t.SrcKey, p.Offset, p.Size, t.ETag)
				if err != nil {
					return fmt.Errorf("read part %d: %w", p.Number, err)
				}
				defer body.Close()
				var w io.Writer = io.NewOffsetWriter(tmp, p.Offset)
				if check != nil {
					w = io.MultiWriter(w, check.Part(p.Offset, p.Size))
				}
				// Parts are tens of MiB: io.Copy's 32 KiB buffer would
				// cost one read and one pwrite syscall per 32 KiB.
				buf := downloadBuffers.Get().(*[]byte)
				n, err := io.CopyBuffer(w, body, *buf)
				downloadBuffers.Put(buf)
				if err != nil {
					return fmt.Errorf("write part %d: %w", p.Number, err)
				}
				if n != p.Size {
					return fmt.Errorf("part %d: got %d bytes, want %d", p.Number, n, p.Size)
				}
				pb.add(n)
				return nil
			})
		})
	}
	if err = g.Wait(); err != nil {
		return false, err
	}
	if check != nil {
		// Under one slot: checking may ask the source for part sizes.
		if err := e.do(ctx, func(ctx context.Context) error { return check.Verify(ctx, tmp) }); err != nil {
			return false, err // the deferred Abort removes the temp file
		}
	}
	return unverified, tmp.Commit()
}

// downloadBuffer is the copy buffer of one ranged read: large enough that
// syscalls are few, small against a part (at least 5 MiB).
const downloadBuffer = 256 << 10

// downloadBuffers are reused across parts: a fresh buffer per part costs
// its page faults every time.
var downloadBuffers = sync.Pool{New: func() any {
	b := make([]byte, downloadBuffer)
	return &b
}}

// multipartUpload covers upload, stream and server-side copy in parts. On
// any failure the upload is aborted so no billed parts are left behind.
// It reports whether a stream's parts went unchecked: the source keeps
// nothing to check them against, or only what needs them read back.
func (e *executor) multipartUpload(ctx context.Context, t Task, layout parts.Layout, mp store.Multipart) (unverified bool, err error) {
	meta, err := e.uploadMetadata(ctx, t)
	if err != nil {
		return false, err
	}
	// Neither UploadPartCopy nor UploadPart carries tags: read them from
	// the source so that a big copy has them as a small one does.
	if meta.Tags, err = e.writeTags(ctx, t, 0, true); err != nil {
		return false, err
	}
	uploadID, already, err := e.startUpload(ctx, t, layout, mp, meta)
	if err != nil {
		return false, taggedWrite(err, meta.Tags)
	}
	defer func() { err = e.endUpload(ctx, t, mp, uploadID, err) }()

	// Parts read from another store are checked, together, against the
	// source's full-object checksum before the upload completes. Parts
	// uploaded by an earlier run were not read by this one: a resumed
	// upload relies on the checksums the destination verified per part.
	var check store.PartsVerifier
	if v, ok := e.source(t).(store.Verifier); ok && t.Op == OpStream && len(already) == 0 {
		err = e.do(ctx, func(ctx context.Context) error {
			var err error
			check, err = v.VerifyParts(ctx, t.SrcKey, t.ETag, t.Size)
			return err
		})
		if err != nil {
			return false, err
		}
	}
	// The parts' bytes count as moved until the object is done or failed,
	// completion included.
	pb := &partBytes{p: e.progress}
	defer pb.end()
	done, err := e.sendParts(ctx, t, layout, mp, uploadID, already, check, pb)
	if err != nil {
		return false, err
	}
	// A stream from a source that keeps nothing to check its parts
	// against is unverified, and so is a resumed one (an earlier run read
	// some parts) and one whose parts can only be checked by reading them
	// back (an MD5 or multipart ETag): nothing of a stream is kept. The
	// destination's per-part checksums only show that it stored what this
	// process read.
	unverified = t.Op == OpStream && !e.job.Src.Loc.Local && check == nil
	if check != nil {
		switch err = check.Verify(ctx, nil); {
		case errors.Is(err, store.ErrUnverifiable):
			unverified, err = true, nil
		case err != nil:
			return false, err // the deferred abort leaves nothing behind
		}
	}
	err = e.do(ctx, func(ctx context.Context) error {
		return mp.CompleteMultipart(ctx, t.DstKey, uploadID, done)
	})
	if err == nil {
		err = e.lateTags(ctx, t.DstKey, meta.Tags)
	}
	return unverified && err == nil, err
}

// uploadMetadata is the metadata t's multipart upload is created with: a
// local file's content type, or the source object's own (UploadPartCopy
// carries none, so a big copy must read it to look exactly like a small
// one), with the run's metadata options applied.
func (e *executor) uploadMetadata(ctx context.Context, t Task) (store.Metadata, error) {
	var meta store.Metadata
	if e.job.Src.Loc.Local {
		meta.ContentType = mime.TypeByExtension(path.Ext(t.SrcKey))
	} else if e.opts.Props != CopyPropsNone || e.opts.CopyLock.any() {
		// none: nothing of the source's and no HEAD, unless its Object
		// Lock settings are to be copied.
		var err error
		if meta, err = e.headMeta(ctx, t); err != nil {
			return meta, err
		}
		if e.opts.Props == CopyPropsNone {
			meta = store.Metadata{Lock: meta.Lock, Checksum: meta.Checksum}
		}
	}
	meta = e.withMetadata(meta, t.DstKey)
	if t.Op == OpCopy && e.noCopyChecksum.Load() {
		meta.Checksum = store.Checksum{}
	}
	return meta, nil
}

// startUpload resumes t's upload from the journal, or creates one (and
// journals it). already holds the parts a resumed upload has.
func (e *executor) startUpload(ctx context.Context, t Task, layout parts.Layout, mp store.Multipart, meta store.Metadata) (uploadID string, already map[int32]store.Part, err error) {
	uploadID, already, resuming := e.resumeUpload(ctx, t, layout, mp)
	if resuming {
		return uploadID, already, nil
	}
	create := mp.CreateMultipart
	if c, ok := mp.(store.ChecksumMultipart); ok && t.Op != OpCopy {
		// The bytes pass through this process: the server can check
		// them against a checksum of the whole object.
		create = c.CreateMultipartChecksum
	}
	err = e.do(ctx, func(ctx context.Context) error {
		var err error
		uploadID, err = create(ctx, t.DstKey, meta)
		return err
	})
	if err != nil {
		return "", nil, err
	}
	if j := e.opts.Journal; j != nil {
		if err := j.UploadStarted(journalUpload(t, uploadID, layout)); err != nil {
			return "", nil, err
		}
	}
	return uploadID, already, nil
}

// endUpload settles an upload whose transfer ended with err: journals a
// completion, or aborts it (journaled too), and returns the transfer's
// error, or an uploadLeftError when the abort failed. An interrupted
// upload with a journal is kept, for a rerun to resume.
func (e *executor) endUpload(ctx context.Context, t Task, mp store.Multipart, uploadID string, err error) error {
	j := e.opts.Journal
	if err == nil {
		if j != nil {
			_ = j.UploadCompleted(t.DstKey, uploadID)
		}
		return nil
	}
	if j != nil && ctx.Err() != nil {
		// Interrupted with a journal: keep the upload and its
		// checkpoint; rerunning the command resumes it.
		return err
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	// An upload that vanished (the cause of NoSuchUpload) needs no
	// abort: it is gone as if aborted.
	if aerr := mp.AbortMultipart(actx, t.DstKey, uploadID); aerr != nil && !errors.Is(aerr, store.ErrNoSuchUpload) {
		return &uploadLeftError{err: err, uploadID: uploadID, abort: aerr}
	} else if j != nil {
		_ = j.UploadAborted(t.DstKey, uploadID)
	}
	return err
}

// sendParts uploads (or copies) the parts of layout that already lacks,
// in parallel, counting their bytes in pb, and returns every part in order.
func (e *executor) sendParts(ctx context.Context, t Task, layout parts.Layout, mp store.Multipart, uploadID string, already map[int32]store.Part, check store.PartsVerifier, pb *partBytes) ([]store.Part, error) {
	j := e.opts.Journal
	done := make([]store.Part, layout.Count)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.concurrency)
	var copySrc store.CopySource
	if t.Op == OpCopy {
		bucket, _ := mp.(store.Copier).CanCopyFrom(e.job.Src.Store)
		copySrc = store.CopySource{Bucket: bucket, Key: t.SrcKey, IfMatch: t.ETag, Size: t.Size, VersionID: t.VersionID}
	}
	for p := range layout.All() {
		if part, ok := already[p.Number]; ok {
			done[p.Number-1] = part
			pb.add(p.Size)
			continue
		}
		g.Go(func() error {
			if t.Op != OpCopy {
				// Bytes through this process: how many such parts run at
				// once is found by measuring (limiter.Streams).
				if err := e.streams.Acquire(gctx); err != nil {
					return err
				}
			}
			err := e.do(gctx, func(ctx context.Context) error {
				var part store.Part
				var err error
				if t.Op == OpCopy {
					part, err = mp.UploadPartCopy(ctx, t.DstKey, uploadID, p.Number, copySrc, p.Offset, p.Last())
				} else {
					part, err = e.uploadPart(ctx, t, uploadID, mp, p, check)
				}
				if err != nil {
					return fmt.Errorf("part %d: %w", p.Number, err)
				}
				part.Number, part.Size = p.Number, p.Size
				done[p.Number-1] = part
				if j != nil {
					if err := j.PartDone(uploadID, part); err != nil {
						return err
					}
				}
				pb.add(p.Size)
				return nil
			})
			if t.Op != OpCopy {
				moved := p.Size
				if err != nil {
					moved = 0
				}
				e.streams.Release(moved)
			}
			return err
		})
	}
	return done, g.Wait()
}

// uploadLeftError is the failure of an attempt whose multipart upload could
// not be aborted. It names the upload, so the user can abort it (`mpu
// abort`); such an object is not restarted, which would bury the message
// under a success.
type uploadLeftError struct {
	err      error
	uploadID string
	abort    error
}

func (e *uploadLeftError) Error() string {
	return fmt.Sprintf("%v (and abort upload %s: %v)", e.err, e.uploadID, e.abort)
}

func (e *uploadLeftError) Unwrap() error { return e.err }

// uploadPart sends one part read from the source. A seekable source body is
// sent as it is; otherwise the part is read into memory first, because
// signing needs to rewind the body.
//
// check, when set, sees the bytes of every part read from memory.
func (e *executor) uploadPart(ctx context.Context, t Task, uploadID string, mp store.Multipart, p parts.Part, check store.PartsVerifier) (store.Part, error) {
	body, err := e.source(t).Get(ctx, t.SrcKey, p.Offset, p.Size, t.ETag)
	if err != nil {
		return store.Part{}, fmt.Errorf("read: %w", err)
	}
	defer body.Close()
	rs, ok := body.(io.ReadSeeker)
	if !ok {
		// Held in memory under the run's byte budget, so a stream of many
		// big objects between two endpoints cannot buffer without bound.
		buf, err := e.partBuffers.get(ctx, p.Size)
		if err != nil {
			return store.Part{}, err
		}
		defer e.partBuffers.put(buf)
		var r io.Reader = body
		if check != nil {
			// A retried part starts its hash over.
			r = io.TeeReader(body, check.Part(p.Offset, p.Size))
		}
		if _, err := io.ReadFull(r, buf); err != nil {
			return store.Part{}, fmt.Errorf("read: %w", err)
		}
		rs = bytes.NewReader(buf)
	}
	return mp.UploadPart(ctx, t.DstKey, uploadID, p.Number, rs, p.Size)
}
