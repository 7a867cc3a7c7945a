package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/transport"
	"github.com/s3bulk/s3bulk/store/s3store/internal/wire"
)

// Store is one bucket. It implements store.Store, store.Copier and
// store.Multipart, and is safe for concurrent use.
type Store struct {
	c      *Client
	bucket string
	// opts are the options every request carries (see options.go), with
	// what they mean for the SDK worked out once.
	opts    Options
	ssec    *customerKey // the key of this bucket's objects
	srcSSEC *customerKey // the key of copy sources
	payer   s3types.RequestPayer
	optFns  []func(*s3.Options) // per-request overrides (region); nil for none
	// version, when set, is the version of an object that reads ask for
	// (AtVersion).
	version string
}

var (
	_ store.Store     = (*Store)(nil)
	_ store.Copier    = (*Store)(nil)
	_ store.Multipart = (*Store)(nil)

	_ store.ChecksumMultipart = (*Store)(nil)
	_ store.Verifier          = (*Store)(nil)
)

// Bucket is the bucket's name.
func (s *Store) Bucket() string { return s.bucket }

// Client is the client the store was made from.
func (s *Store) Client() *Client { return s.c }

// URL formats key as s3://bucket/key.
func (s *Store) URL(key string) string { return "s3://" + s.bucket + "/" + key }

// pageSize is the page every listing asks for (wire.PageSize).
const pageSize = wire.PageSize

// List streams the objects under prefix, one ListObjectsV2 page at a time,
// in the byte order S3 guarantees. Common prefixes of a delimited listing
// are merged into that order.
func (s *Store) List(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error {
	q := store.ListQuery{Prefix: prefix, Delimiter: delimiter}
	for {
		page, err := s.ListPage(ctx, q)
		if err != nil {
			return err
		}
		for _, o := range page.Objects {
			// fn may run for a long time per object (it may block on a full
			// queue), so a cancelled run stops here rather than at the
			// next page.
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("list %s: %w", s.URL(prefix), err)
			}
			if err := fn(o); err != nil {
				return err
			}
		}
		if page.Next == "" || page.Next == q.Token {
			return nil // a repeated token would list the same page forever
		}
		q.Token = page.Next
	}
}

// Head returns the object's attributes and metadata; store.ErrNotFound when
// it is absent.
func (s *Store) Head(ctx context.Context, key string) (store.Object, store.Metadata, error) {
	in := s.headInput(key)
	if !s.c.checksumWhenRequired {
		// The object's checksum, which a write from it keeps.
		in.ChecksumMode = s3types.ChecksumModeEnabled
	}
	out, err := s.c.s3.HeadObject(ctx, in, s.optFns...)
	if err != nil {
		return store.Object{}, store.Metadata{}, s.headError(ctx, key, err)
	}
	o := store.Object{
		Key:          key,
		Size:         aws.ToInt64(out.ContentLength),
		ModTime:      aws.ToTime(out.LastModified),
		ETag:         store.TrimETag(aws.ToString(out.ETag)),
		StorageClass: string(out.StorageClass),
	}
	return o, headMetadata(out), nil
}

// Get opens the object from off for length bytes (to the end when length <
// 0). With ifMatch, a changed object fails with store.ErrPreconditionFailed.
// A body that breaks mid-stream is resumed from the first missing byte (see
// resumingReader).
func (s *Store) Get(ctx context.Context, key string, off, length int64, ifMatch string) (io.ReadCloser, error) {
	if length == 0 {
		// A zero-length range cannot be written as an HTTP Range; a HEAD
		// still reports a missing or changed object.
		in := s.headInput(key)
		if ifMatch != "" {
			in.IfMatch = aws.String(store.QuoteETag(ifMatch))
		}
		if _, err := s.c.s3.HeadObject(ctx, in, s.optFns...); err != nil {
			return nil, wrap(err, "get", s.URL(key))
		}
		return io.NopCloser(strings.NewReader("")), nil
	}
	r := &resumingReader{ctx: ctx, s: s, key: key, off: off, end: -1, etag: store.QuoteETag(ifMatch),
		verify: off == 0 && !s.c.checksumWhenRequired, whole: off == 0 && length < 0}
	if length > 0 {
		r.end = off + length
	}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

// metadataClass maps STANDARD to "": Metadata is what a write would send,
// and an empty class asks for the default, so an object written without a
// class reads back with the same Metadata whether or not the server names
// the default class in its answer.
func metadataClass(c s3types.StorageClass) string {
	if c == s3types.StorageClassStandard {
		return ""
	}
	return string(c)
}

// getObject sends one GetObject for [off, end) (end < 0: to the end). With
// checksums it asks for the object's stored checksums, which a server sends
// only when the response holds the whole object.
func (s *Store) getObject(ctx context.Context, key string, off, end int64, ifMatch string, checksums bool) (*s3.GetObjectOutput, error) {
	var rng string
	switch {
	case end >= 0:
		rng = fmt.Sprintf("bytes=%d-%d", off, end-1)
	case off > 0:
		rng = fmt.Sprintf("bytes=%d-", off)
	}
	if s.c.raw != nil && s.version == "" {
		return s.c.raw.getObject(ctx, s, key, rng, ifMatch, checksums)
	}
	in := s.getInput(key)
	if checksums {
		in.ChecksumMode = s3types.ChecksumModeEnabled
	}
	if rng != "" {
		in.Range = aws.String(rng)
	}
	if ifMatch != "" {
		in.IfMatch = aws.String(ifMatch)
	}
	out, err := s.c.s3.GetObject(ctx, in, s.optFns...)
	return out, wrap(err, "get", s.URL(key))
}

// maxBuffered is the largest body Put copies into memory to make it
// seekable. A retried request must resend its body from the start; a body
// that cannot seek could only be sent once.
const maxBuffered = 16 << 20

// Put writes a whole object with one PutObject. A body in memory
// (store.BytesReader) is hashed and sent from where it lies.
//
// A stream larger than maxBuffered that cannot seek goes as it comes over
// HTTPS, where the SDK sends it aws-chunked with a trailing CRC (one
// attempt: it cannot be rewound). Over plain HTTP the SDK can only send a
// checksum in a header, computed before the body, and signing needs the
// body's SHA-256 before it too: the stream is spooled to a temporary file
// first, so that it goes with its CRC (unsigned, docs/design/0006) or
// signed, never with neither, and can be retried.
func (s *Store) Put(ctx context.Context, key string, body io.Reader, size int64, meta store.Metadata) error {
	if body == nil {
		body = strings.NewReader("")
	}
	rs, err := seekable(body, size)
	if err != nil {
		return fmt.Errorf("put %s: %w", s.URL(key), err)
	}
	if rs == nil && strings.HasPrefix(s.c.endpoint, "http://") {
		f, err := spool(body, size)
		if err != nil {
			return fmt.Errorf("put %s: %w", s.URL(key), err)
		}
		defer func() {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}()
		rs = f
	}
	// The hand-built requests carry no Object Lock headers: a write with
	// settings goes through the SDK.
	raw := s.lockOf(meta).IsZero()
	if mem, ok := body.(*store.BytesReader); ok && raw && s.rawPut(size) {
		// seekable checked that exactly size bytes are left.
		if refused, err := s.c.raw.putBytes(ctx, s, key, mem.Bytes(), meta); !refused {
			return err
		}
	} else if ra, ok := rs.(io.ReaderAt); ok && raw && s.rawPut(size) {
		off, err := rs.Seek(0, io.SeekCurrent)
		if err != nil {
			return fmt.Errorf("put %s: %w", s.URL(key), err)
		}
		if refused, err := s.c.raw.putAt(ctx, s, key, ra, off, size, meta); !refused {
			return err
		}
	}
	in := &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		Body:          rs,
		ContentLength: aws.Int64(size),
	}
	if rs == nil {
		// Too large to buffer and not seekable, over HTTPS: one attempt
		// only (the SDK cannot rewind it), and a body of the wrong length
		// must fail rather than store a truncated object.
		in.Body = &exactReader{r: body, left: size}
	}
	metadataFields{contentType: &in.ContentType, contentEncoding: &in.ContentEncoding, contentLanguage: &in.ContentLanguage,
		cacheControl: &in.CacheControl, contentDisposition: &in.ContentDisposition, storageClass: &in.StorageClass, user: &in.Metadata}.set(meta)
	in.Tagging = taggingHeader(meta.Tags)
	if !s.c.checksumWhenRequired {
		sums := checksumFields{crc32: &in.ChecksumCRC32, crc32c: &in.ChecksumCRC32C, crc64nvme: &in.ChecksumCRC64NVME,
			sha1: &in.ChecksumSHA1, sha256: &in.ChecksumSHA256}
		switch alg := putAlgorithm(meta); {
		case meta.Checksum.Full():
			sums.set(alg, meta.Checksum.Value)
		case alg.computedHere() && rs != nil:
			v, err := bodyChecksum(alg, rs, size)
			if err != nil {
				return fmt.Errorf("put %s: %w", s.URL(key), err)
			}
			sums.set(alg, v)
		default:
			// Computed by the SDK: in a header, or as the body goes
			// over HTTPS, in a trailer (a stream that cannot seek).
			in.ChecksumAlgorithm = s3types.ChecksumAlgorithm(alg)
		}
	}
	in.ObjectLockMode, in.ObjectLockRetainUntilDate, in.ObjectLockLegalHoldStatus = lockFields(s.lockOf(meta))
	in.RequestPayer = s.payer
	in.ACL = s3types.ObjectCannedACL(s.opts.ACL)
	in.ServerSideEncryption, in.SSEKMSKeyId = s.encryption()
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	out, err := s.c.s3.PutObject(ctx, in, s.optFns...)
	if err != nil {
		return wrap(err, "put", s.URL(key))
	}
	store.NoteWritten(ctx, aws.ToString(out.VersionId))
	return nil
}

// seekable returns body as an io.ReadSeeker holding exactly size bytes from
// its current position, so a short body fails here and not after ten
// retries of a request the transport refuses to send. It returns nil (and
// no error) for a stream larger than maxBuffered.
func seekable(body io.Reader, size int64) (io.ReadSeeker, error) {
	if rs, ok := body.(io.ReadSeeker); ok {
		cur, err := rs.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, err
		}
		end, err := rs.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, err
		}
		if _, err := rs.Seek(cur, io.SeekStart); err != nil {
			return nil, err
		}
		if end-cur != size {
			return nil, fmt.Errorf("body has %d bytes, want %d", end-cur, size)
		}
		return rs, nil
	}
	if size > maxBuffered {
		return nil, nil // sent as a stream, once
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(body, buf); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if n, _ := body.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("body is longer than %d bytes", size)
	}
	return bytes.NewReader(buf), nil
}

// spool copies exactly size bytes of body into a temporary file and
// returns it at its start. The caller closes and removes it.
func spool(body io.Reader, size int64) (*os.File, error) {
	f, err := os.CreateTemp("", "s3bulk-put-*")
	if err != nil {
		return nil, fmt.Errorf("spool the body: %w", err)
	}
	_, err = io.Copy(f, &exactReader{r: body, left: size})
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, fmt.Errorf("spool the body: %w", err)
	}
	return f, nil
}

// exactReader fails unless its stream holds exactly left bytes. It checks
// for a surplus before handing over the last bytes: once a server has
// Content-Length bytes it stores the object, so a longer source must fail
// the request while the body is still short.
type exactReader struct {
	r    io.Reader
	left int64
}

var errBodyLength = errors.New("body length differs from the declared size")

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if e.left == 0 {
		var probe [1]byte
		m, perr := io.ReadFull(e.r, probe[:])
		switch {
		case m > 0:
			return 0, fmt.Errorf("%w: the stream is longer", errBodyLength)
		case perr != io.EOF:
			return 0, perr
		}
		return n, nil
	}
	if err == io.EOF {
		return n, fmt.Errorf("%w: %d bytes missing", errBodyLength, e.left)
	}
	return n, err
}

// Delete removes one object; a missing object is not an error. A store
// pinned to a version (AtVersion) deletes that version for good.
func (s *Store) Delete(ctx context.Context, key string) error {
	out, err := s.c.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), RequestPayer: s.payer, VersionId: optional(s.version)}, s.optFns...)
	if err := wrap(err, "delete", s.URL(key)); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err == nil && s.version == "" && aws.ToBool(out.DeleteMarker) {
		store.NoteWritten(ctx, aws.ToString(out.VersionId)) // the delete marker it left
	}
	return nil
}

// DeleteObjects removes keys with DeleteObjects requests of up to 1,000 keys
// each; see Client.DeleteObjects.
func (s *Store) DeleteObjects(ctx context.Context, keys []string) ([]DeleteError, error) {
	return s.c.deleteObjects(ctx, s.bucket, keys, s.payer, s.optFns)
}

// CanCopyFrom reports whether Copy can read from src server-side: src must
// be a bucket reached through the same endpoint with the same credentials.
func (s *Store) CanCopyFrom(src store.Store) (string, bool) {
	o, ok := src.(*Store)
	if !ok || o.c.identity != s.c.identity {
		return "", false
	}
	return o.bucket, true
}

// Copy copies src to key with one CopyObject (objects up to 5 GiB). With
// meta nil the source's metadata is kept; otherwise it is replaced.
func (s *Store) Copy(ctx context.Context, src store.CopySource, key string, meta *store.Metadata) error {
	if meta == nil && s.c.raw != nil && s.opts.ObjectLock.IsZero() {
		return s.c.raw.copy(ctx, s, src, key)
	}
	in := &s3.CopyObjectInput{
		Bucket:       aws.String(s.bucket),
		Key:          aws.String(key),
		CopySource:   aws.String(copySourceOf(src)),
		RequestPayer: s.payer,
		ACL:          s3types.ObjectCannedACL(s.opts.ACL),
	}
	in.ServerSideEncryption, in.SSEKMSKeyId = s.encryption()
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	in.CopySourceSSECustomerAlgorithm, in.CopySourceSSECustomerKey, in.CopySourceSSECustomerKeyMD5 = s.srcSSEC.fields()
	if src.IfMatch != "" {
		in.CopySourceIfMatch = aws.String(store.QuoteETag(src.IfMatch))
	}
	if meta == nil {
		in.MetadataDirective = s3types.MetadataDirectiveCopy
		in.ObjectLockMode, in.ObjectLockRetainUntilDate, in.ObjectLockLegalHoldStatus = lockFields(s.opts.ObjectLock)
	} else {
		in.ObjectLockMode, in.ObjectLockRetainUntilDate, in.ObjectLockLegalHoldStatus = lockFields(s.lockOf(*meta))
		in.MetadataDirective = s3types.MetadataDirectiveReplace
		metadataFields{contentType: &in.ContentType, contentEncoding: &in.ContentEncoding, contentLanguage: &in.ContentLanguage,
			cacheControl: &in.CacheControl, contentDisposition: &in.ContentDisposition, storageClass: &in.StorageClass, user: &in.Metadata}.set(*meta)
	}
	if src.Tags != nil {
		in.TaggingDirective = s3types.TaggingDirectiveReplace
		in.Tagging = taggingHeader(src.Tags)
	}
	in.ChecksumAlgorithm = s3types.ChecksumAlgorithm(src.ChecksumAlgorithm)
	out, err := s.c.s3.CopyObject(transport.WithCopiedBytes(ctx, src.Size), in, s.optFns...)
	if err != nil {
		e := wrap(err, "copy", s.URL(key)).(*Error)
		e.Src = "s3://" + src.Bucket + "/" + src.Key
		return e
	}
	store.NoteWritten(ctx, aws.ToString(out.VersionId))
	return nil
}

// headError wraps the error of a HEAD. A HEAD response has no body, so the
// server's error code is lost: a 404 does not say whether the key or the
// bucket is missing, a 403 or 400 not whether the signature, the region or
// a permission is wrong. One GET of the first byte asks again and gets the
// code, on the error path only.
func (s *Store) headError(ctx context.Context, key string, err error) error {
	e := wrap(err, "head", s.URL(key)).(*Error)
	switch e.Code {
	case "", "UnknownError", "NotFound", "Forbidden", "BadRequest":
	default:
		return e
	}
	if e.Status != 400 && e.Status != 403 && e.Status != 404 {
		return e
	}
	in := s.getInput(key)
	in.Range = aws.String("bytes=0-0")
	out, gerr := s.c.s3.GetObject(ctx, in, s.optFns...)
	if gerr == nil {
		out.Body.Close()
		return e // there now: the HEAD's answer is all there is
	}
	g := wrap(gerr, "head", s.URL(key)).(*Error)
	switch g.Code {
	case "", "UnknownError", "InvalidRange":
		return e
	}
	return g
}

// headInput is a HeadObject of key with the store's options.
func (s *Store) headInput(key string) *s3.HeadObjectInput {
	in := &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), RequestPayer: s.payer, VersionId: optional(s.version)}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	return in
}

// getInput is a GetObject of key with the store's options.
func (s *Store) getInput(key string) *s3.GetObjectInput {
	in := &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), RequestPayer: s.payer, VersionId: optional(s.version)}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	return in
}
