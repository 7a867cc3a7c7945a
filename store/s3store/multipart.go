package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/transport"
)

// createGrace is how long a CreateMultipartUpload may still take to answer
// once its caller's context has ended (see createMultipart).
const createGrace = 10 * time.Second

// CreateMultipart starts a multipart upload of key with meta for
// server-side copies (UploadPartCopy), whose bytes never reach this
// client: with the algorithm of meta.Checksum when it has one, computed by
// the server for each part copied, else with none of its own (the
// server's default). Uploads of bytes that do pass through this client use
// CreateMultipartChecksum.
func (s *Store) CreateMultipart(ctx context.Context, key string, meta store.Metadata) (string, error) {
	return s.createMultipart(ctx, key, meta, s.uploadOf(meta.Checksum, false))
}

// CreateMultipartChecksum starts a multipart upload whose content the
// server verifies: each part's checksum when it arrives and, on
// completion, the checksum of the whole object (FULL_OBJECT), which the
// object then keeps for downloads to check against. The algorithm is
// meta.Checksum's, else CRC64NVME (checksum.go says how). With
// Config.ChecksumWhenRequired it is an upload without checksums.
func (s *Store) CreateMultipartChecksum(ctx context.Context, key string, meta store.Metadata) (string, error) {
	return s.createMultipart(ctx, key, meta, s.uploadOf(meta.Checksum, true))
}

// upload is what this client knows of a multipart upload it started:
// the algorithm of its checksum ("" for none of its own), its type, and
// the full-object checksum the object must end with, when known (a copy's
// source's).
type upload struct {
	alg  algorithm
	typ  s3types.ChecksumType
	want string
}

// uploadOf is the upload a write of want starts: want's algorithm, else,
// when its bytes pass through this client (local), uploadAlgorithm. A
// server-side copy of a CRC64NVME is left to the server (its default for
// an upload created without one, computed from the parts it stores), and
// a copy without an algorithm gets none.
func (s *Store) uploadOf(want store.Checksum, local bool) upload {
	if s.c.checksumWhenRequired {
		return upload{}
	}
	alg := algorithm(want.Algorithm)
	switch {
	case alg == "" && local:
		alg = uploadAlgorithm
	case alg == algCRC64NVME && !local:
		return upload{}
	}
	if alg == "" {
		return upload{}
	}
	u := upload{alg: alg, typ: s3types.ChecksumType(store.ChecksumMultipartType(string(alg)))}
	if want.Algorithm == string(alg) && u.typ == s3types.ChecksumTypeFullObject && !strings.Contains(want.Value, "-") {
		u.want = want.Value
	}
	if u.typ == s3types.ChecksumTypeComposite {
		s.c.sayOnce("composite-checksums", "objects written in parts with a "+string(alg)+" checksum get a COMPOSITE one (a checksum of the parts' checksums): S3 keeps no full-object SHA of a multipart upload",
			"endpoint", s.c.endpoint)
	}
	return u
}

func (s *Store) createMultipart(ctx context.Context, key string, meta store.Metadata, u upload) (string, error) {
	in := &s3.CreateMultipartUploadInput{
		Bucket:       aws.String(s.bucket),
		Key:          aws.String(key),
		Tagging:      taggingHeader(meta.Tags),
		RequestPayer: s.payer,
		ACL:          s3types.ObjectCannedACL(s.opts.ACL),
	}
	metadataFields{contentType: &in.ContentType, contentEncoding: &in.ContentEncoding, contentLanguage: &in.ContentLanguage,
		cacheControl: &in.CacheControl, contentDisposition: &in.ContentDisposition, storageClass: &in.StorageClass, user: &in.Metadata}.set(meta)
	in.ServerSideEncryption, in.SSEKMSKeyId = s.encryption()
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	in.ObjectLockMode, in.ObjectLockRetainUntilDate, in.ObjectLockLegalHoldStatus = lockFields(s.lockOf(meta))
	if u.alg != "" {
		in.ChecksumAlgorithm = s3types.ChecksumAlgorithm(u.alg)
		in.ChecksumType = u.typ
	}
	// The request outlives a cancellation of ctx, for up to createGrace:
	// a create the server carried out whose answer the cancellation threw
	// away would leave an upload nobody knows the ID of, so nobody can
	// abort it. With the ID, the caller aborts (or journals) it as it does
	// any upload it started before the cancellation.
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(createGrace)
		defer t.Stop()
		select {
		case <-rctx.Done():
		case <-t.C:
			cancel()
		}
	})
	defer stop()
	out, err := s.c.s3.CreateMultipartUpload(rctx, in, s.optFns...)
	if err != nil {
		return "", wrap(err, "create multipart upload", s.URL(key))
	}
	id := aws.ToString(out.UploadId)
	s.c.uploads.Store(id, u)
	return id, nil
}

// uploadAlg is the algorithm of the checksums the parts of uploadID carry:
// the one it was started with, or, for an upload another run started, the
// one ListParts names (partAlgorithm when it names none).
func (s *Store) uploadAlg(ctx context.Context, key, uploadID string) algorithm {
	if v, ok := s.c.uploads.Load(uploadID); ok {
		if u := v.(upload); u.alg != "" {
			return u.alg
		}
		return partAlgorithm
	}
	if listed, err := s.listParts(ctx, key, uploadID); err == nil {
		switch a := algorithm(listed.algorithm); {
		case a != "" && !strings.EqualFold(string(a), "null"):
			return a
		}
	}
	return partAlgorithm
}

// UploadPart uploads part number (1-based) of size bytes from body. The
// part carries the checksum of its upload's algorithm (partAlgorithm for
// an upload without one of its own), which the server checks.
func (s *Store) UploadPart(ctx context.Context, key, uploadID string, number int32, body io.ReadSeeker, size int64) (store.Part, error) {
	in := &s3.UploadPartInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		UploadId:      aws.String(uploadID),
		PartNumber:    aws.Int32(number),
		Body:          body,
		ContentLength: aws.Int64(size),
		RequestPayer:  s.payer,
	}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	var alg algorithm
	if !s.c.checksumWhenRequired {
		// Computed by the SDK: in a trailer as it sends the body over
		// HTTPS, else in a header before it, the payload then unsigned
		// (payload.go).
		alg = s.uploadAlg(ctx, key, uploadID)
		in.ChecksumAlgorithm = s3types.ChecksumAlgorithm(alg)
		if alg.computedHere() {
			// In its header, which the SDK then leaves as it is.
			v, err := bodyChecksum(alg, body, size)
			if err != nil {
				return store.Part{}, fmt.Errorf("upload part %d of %s: %w", number, s.URL(key), err)
			}
			in.ChecksumCRC64NVME = aws.String(v)
		}
	}
	out, err := s.c.s3.UploadPart(ctx, in, s.optFns...)
	if err != nil {
		return store.Part{}, wrap(err, fmt.Sprintf("upload part %d of", number), s.URL(key))
	}
	part := store.Part{Number: number, ETag: store.TrimETag(aws.ToString(out.ETag)), Size: size}
	sums := checksumFields{crc32: &out.ChecksumCRC32, crc32c: &out.ChecksumCRC32C, crc64nvme: &out.ChecksumCRC64NVME,
		sha1: &out.ChecksumSHA1, sha256: &out.ChecksumSHA256}
	if v := aws.ToString(sums.get(alg)); v != "" {
		part.Checksum = store.Checksum{Algorithm: string(alg), Value: v}
	}
	return part, nil
}

// UploadPartCopy copies bytes first..last (inclusive) of src into part
// number. With src.IfMatch, a source that changed fails with
// store.ErrPreconditionFailed, so parts of two versions never mix.
func (s *Store) UploadPartCopy(ctx context.Context, key, uploadID string, number int32, src store.CopySource, first, last int64) (store.Part, error) {
	in := &s3.UploadPartCopyInput{
		Bucket:          aws.String(s.bucket),
		Key:             aws.String(key),
		UploadId:        aws.String(uploadID),
		PartNumber:      aws.Int32(number),
		CopySource:      aws.String(copySourceOf(src)),
		CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", first, last)),
		RequestPayer:    s.payer,
	}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	in.CopySourceSSECustomerAlgorithm, in.CopySourceSSECustomerKey, in.CopySourceSSECustomerKeyMD5 = s.srcSSEC.fields()
	if src.IfMatch != "" {
		in.CopySourceIfMatch = aws.String(store.QuoteETag(src.IfMatch))
	}
	out, err := s.c.s3.UploadPartCopy(transport.WithCopiedBytes(ctx, last-first+1), in, s.optFns...)
	if err != nil {
		e := wrap(err, fmt.Sprintf("copy part %d of", number), s.URL(key)).(*Error)
		e.Src = "s3://" + src.Bucket + "/" + src.Key
		if e.Status == http.StatusLengthRequired {
			// A server without UploadPartCopy takes it for an UploadPart
			// with no body (gofakes3: 411 MissingContentLength).
			e.Sentinel = store.ErrNotImplemented
		}
		if errors.Is(e, store.ErrNotImplemented) {
			e.Op = fmt.Sprintf("copy part %d (UploadPartCopy) of", number)
		}
		return store.Part{}, e
	}
	part := store.Part{Number: number, Size: last - first + 1}
	if r := out.CopyPartResult; r != nil {
		part.ETag = store.TrimETag(aws.ToString(r.ETag))
		if v, ok := s.c.uploads.Load(uploadID); ok && v.(upload).alg != "" {
			u := v.(upload)
			sums := checksumFields{crc32: &r.ChecksumCRC32, crc32c: &r.ChecksumCRC32C, crc64nvme: &r.ChecksumCRC64NVME,
				sha1: &r.ChecksumSHA1, sha256: &r.ChecksumSHA256}
			sum := aws.ToString(sums.get(u.alg))
			if err := s.checkCopiedPart(key, number, u, sum, part.Size, src.Size); err != nil {
				return store.Part{}, err
			}
			if sum != "" {
				part.Checksum = store.Checksum{Algorithm: string(u.alg), Value: sum}
			}
		}
	}
	return part, nil
}

// checkCopiedPart refuses the checksum a server gave a part copied into
// an upload u of a checksum of its own, when it is the source's whole
// checksum rather than the part's: versitygw (v1.8.0) stores the source
// object's checksum for each part copied when the algorithms match, and
// would complete the object with a checksum combined from them, a wrong
// one. The error wraps store.ErrChecksumsUnsupported: the copy is done
// again without a checksum of its own (the server's default).
func (s *Store) checkCopiedPart(key string, number int32, u upload, sum string, size, srcSize int64) error {
	whole := u.want != "" && sum == u.want && size != srcSize
	if !whole && !strings.Contains(sum, "-") {
		return nil
	}
	return &Error{Op: fmt.Sprintf("copy part %d of", number), URL: s.URL(key), Sentinel: store.ErrChecksumsUnsupported,
		Err: fmt.Errorf("the server gave the part of %d bytes the %s of the whole %d-byte source (%s)", size, u.alg, srcSize, sum)}
}

// CompleteMultipart assembles parts, which must be in ascending part order.
// For an upload started with a checksum (by CreateMultipartChecksum, or by
// anyone, when the upload is being resumed) it lists the parts the server
// holds, checks their sizes against parts, and sends each part's checksum
// and the full-object checksum combined from them, which the server
// verifies against what it assembles.
func (s *Store) CompleteMultipart(ctx context.Context, key, uploadID string, parts []store.Part) error {
	in := &s3.CompleteMultipartUploadInput{
		Bucket:          aws.String(s.bucket),
		Key:             aws.String(key),
		UploadId:        aws.String(uploadID),
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: make([]s3types.CompletedPart, len(parts))},
		RequestPayer:    s.payer,
	}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	for i, p := range parts {
		in.MultipartUpload.Parts[i] = s3types.CompletedPart{PartNumber: aws.Int32(p.Number), ETag: aws.String(store.QuoteETag(p.ETag))}
	}
	v, known := s.c.uploads.Load(uploadID)
	var u upload
	if known {
		u = v.(upload)
	}
	if !s.c.checksumWhenRequired && (!known || u.alg != "") {
		if err := s.addChecksums(ctx, key, uploadID, parts, in, u, known); err != nil {
			return err
		}
	}
	out, err := s.c.s3.CompleteMultipartUpload(ctx, in, s.optFns...)
	if err != nil {
		return wrap(err, "complete multipart upload", s.URL(key))
	}
	store.NoteWritten(ctx, aws.ToString(out.VersionId))
	s.c.uploads.Delete(uploadID)
	return nil
}

// addChecksums fills in the checksums of a Complete request for an upload
// that has an algorithm: known is set when this client started the upload
// (as u says), otherwise ListParts says what it is. The full-object
// checksum combined from the parts' must be u.want when it is set (a
// copy's source's): a difference fails the upload before it completes.
//
// ListParts is asked for the sizes and checksums the server holds, which
// are checked against parts. What it leaves out is taken from parts (the
// checksums the server acknowledged for each UploadPart); a server without
// ListParts at all is done without when parts say everything needed. What
// neither says is an error, never a check quietly dropped.
func (s *Store) addChecksums(ctx context.Context, key, uploadID string, parts []store.Part, in *s3.CompleteMultipartUploadInput, u upload, known bool) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("complete multipart upload %s: %s", s.URL(key), fmt.Sprintf(format, args...))
	}
	var alg algorithm
	var typ s3types.ChecksumType
	if known {
		alg, typ = u.alg, u.typ
	}
	listed, err := s.listParts(ctx, key, uploadID)
	haveList := err == nil
	switch {
	case err == nil:
	case errors.Is(err, store.ErrNotImplemented) && known:
		// The parts' ETags (and checksums, if the server gave them) are
		// this client's own: the listing would only confirm them.
		s.c.sayOnce("no-list-parts", "the server has no ListParts: multipart uploads are completed with what its UploadPart answers said",
			"endpoint", s.c.endpoint)
	case errors.Is(err, store.ErrNotImplemented):
		return fmt.Errorf("%w (the server has no ListParts, which completing an upload with checksums needs here): %w", err, store.ErrChecksumsUnsupported)
	default:
		return err
	}
	if !known {
		alg, typ = algorithm(listed.algorithm), listed.typ
		if strings.EqualFold(string(alg), "null") {
			alg = ""
		}
	}
	byNumber := make(map[int32]listedPart, len(listed.parts))
	for _, p := range listed.parts {
		byNumber[p.Number] = p
	}
	if alg != "" && !anyPartChecksum(parts, listed, alg) {
		// The server keeps no part checksums at all (gofakes3): there is
		// nothing to combine. The upload completes as a plain one; its
		// multipart ETag is what downloads check it against.
		s.c.sayOnce("no-part-checksums", "the server acknowledged no part checksums: multipart uploads complete without a full-object checksum",
			"endpoint", s.c.endpoint)
		alg = ""
	}
	pieces := make([]crcPiece, len(parts))
	var total int64
	for i, p := range parts {
		size, sum := p.Size, ""
		if p.Checksum.Algorithm == string(alg) {
			sum = p.Checksum.Value
		}
		if haveList {
			lp, ok := byNumber[p.Number]
			switch {
			case !ok:
				return fail("part %d is not among the parts the server holds", p.Number)
			case p.Size > 0 && lp.Size != p.Size:
				return fail("the server holds %d bytes of part %d, want %d", lp.Size, p.Number, p.Size)
			}
			size = lp.Size
			if v := lp.checksums[alg]; alg != "" && v != "" {
				if sum != "" && sum != v {
					return fail("the server holds part %d with %s %s, but acknowledged %s when it was uploaded", p.Number, alg, v, sum)
				}
				sum = v
			}
		}
		if alg == "" {
			continue
		}
		if sum == "" {
			return fmt.Errorf("complete multipart upload %s: the server gave no %s of part %d: %w", s.URL(key), alg, p.Number, store.ErrChecksumsUnsupported)
		}
		cp := &in.MultipartUpload.Parts[i]
		checksumFields{crc32: &cp.ChecksumCRC32, crc32c: &cp.ChecksumCRC32C, crc64nvme: &cp.ChecksumCRC64NVME,
			sha1: &cp.ChecksumSHA1, sha256: &cp.ChecksumSHA256, sha512: &cp.ChecksumSHA512, md5: &cp.ChecksumMD5}.set(alg, sum)
		b, err := alg.parse(sum)
		if err != nil {
			return fail("%s of part %d: %v", alg, p.Number, err)
		}
		pieces[i] = crcPiece{sum: b, size: size}
		total += size
	}
	comb := alg.combiner()
	if alg == "" || typ != s3types.ChecksumTypeFullObject || comb == nil {
		return nil // none, or composite: the part checksums are all there is
	}
	whole, err := comb.combineDigests(pieces)
	if err != nil {
		return fail("combine the parts' %s: %v", alg, err)
	}
	if u.want != "" && alg.format(whole) != u.want {
		return &Error{Op: "complete multipart upload", URL: s.URL(key), Sentinel: store.ErrChecksumMismatch,
			Err: fmt.Errorf("the %s of the %d parts is %s, the source's is %s", strings.ToLower(string(alg)), len(parts), alg.format(whole), u.want)}
	}
	setFullObjectChecksum(in, alg, alg.format(whole), total)
	return nil
}

// setFullObjectChecksum gives a completion the full-object checksum of
// its size bytes, which S3 checks against the parts'.
func setFullObjectChecksum(in *s3.CompleteMultipartUploadInput, alg algorithm, sum string, size int64) {
	in.ChecksumType = s3types.ChecksumTypeFullObject
	in.MpuObjectSize = aws.Int64(size)
	checksumFields{crc32: &in.ChecksumCRC32, crc32c: &in.ChecksumCRC32C, crc64nvme: &in.ChecksumCRC64NVME}.set(alg, sum)
}

// anyPartChecksum reports whether the server said alg of any part, in its
// UploadPart answers or its listing.
func anyPartChecksum(parts []store.Part, listed listedParts, alg algorithm) bool {
	for _, p := range parts {
		if p.Checksum.Algorithm == string(alg) && p.Checksum.Value != "" {
			return true
		}
	}
	for _, p := range listed.parts {
		if p.checksums[alg] != "" {
			return true
		}
	}
	return false
}

// AbortMultipart aborts an upload and frees its parts. An upload that no
// longer exists is already in the state abort asks for, so it is not an
// error.
func (s *Store) AbortMultipart(ctx context.Context, key, uploadID string) error {
	_, err := s.c.s3.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
		Bucket:       aws.String(s.bucket),
		Key:          aws.String(key),
		UploadId:     aws.String(uploadID),
		RequestPayer: s.payer,
	}, s.optFns...)
	if err := wrap(err, "abort multipart upload", s.URL(key)); err != nil && !isCode(err, "NoSuchUpload") {
		return err
	}
	s.c.uploads.Delete(uploadID)
	return nil
}

// ListMultipartUploads streams the in-progress uploads under prefix.
func (s *Store) ListMultipartUploads(ctx context.Context, prefix string, fn func(store.Upload) error) error {
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(s.bucket), MaxUploads: aws.Int32(pageSize), RequestPayer: s.payer}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	p := s3.NewListMultipartUploadsPaginator(s.c.s3, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx, s.optFns...)
		if err != nil {
			err = wrap(err, "list multipart uploads", s.URL(prefix))
			if isCode(err, "NoSuchUpload") {
				// No upload is named here: gofakes3 answers so in a bucket
				// where none was ever started.
				return nil
			}
			return err
		}
		for _, u := range page.Uploads {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("list multipart uploads %s: %w", s.URL(prefix), err)
			}
			up := store.Upload{Key: aws.ToString(u.Key), UploadID: aws.ToString(u.UploadId), Initiated: aws.ToTime(u.Initiated)}
			if err := fn(up); err != nil {
				return err
			}
		}
	}
	return nil
}

// ListParts returns the parts uploaded so far, in part order, with the
// checksum of the upload's algorithm (partAlgorithm for an upload without
// one) the server holds of each when it says.
func (s *Store) ListParts(ctx context.Context, key, uploadID string) ([]store.Part, error) {
	listed, err := s.listParts(ctx, key, uploadID)
	if err != nil {
		return nil, err
	}
	alg := algorithm(listed.algorithm)
	if alg == "" || strings.EqualFold(string(alg), "null") {
		alg = partAlgorithm
	}
	parts := make([]store.Part, len(listed.parts))
	for i, p := range listed.parts {
		parts[i] = p.Part
		if v := p.checksums[alg]; v != "" {
			parts[i].Checksum = store.Checksum{Algorithm: string(alg), Value: v}
		}
	}
	return parts, nil
}

// listedParts is what ListParts says about an upload.
type listedParts struct {
	algorithm s3types.ChecksumAlgorithm // "" or "null" for none
	typ       s3types.ChecksumType
	parts     []listedPart
}

type listedPart struct {
	store.Part
	checksums map[algorithm]string
}

func (s *Store) listParts(ctx context.Context, key, uploadID string) (listedParts, error) {
	var out listedParts
	in := &s3.ListPartsInput{
		Bucket:       aws.String(s.bucket),
		Key:          aws.String(key),
		UploadId:     aws.String(uploadID),
		MaxParts:     aws.Int32(pageSize),
		RequestPayer: s.payer,
	}
	in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = s.ssec.fields()
	p := s3.NewListPartsPaginator(s.c.s3, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx, s.optFns...)
		if err != nil {
			return listedParts{}, wrap(err, "list parts of", s.URL(key))
		}
		out.algorithm, out.typ = page.ChecksumAlgorithm, page.ChecksumType
		for _, part := range page.Parts {
			lp := listedPart{
				Part: store.Part{
					Number: aws.ToInt32(part.PartNumber),
					ETag:   store.TrimETag(aws.ToString(part.ETag)),
					Size:   aws.ToInt64(part.Size),
				},
				checksums: map[algorithm]string{},
			}
			sums := checksumFields{crc32: &part.ChecksumCRC32, crc32c: &part.ChecksumCRC32C, crc64nvme: &part.ChecksumCRC64NVME,
				sha1: &part.ChecksumSHA1, sha256: &part.ChecksumSHA256, sha512: &part.ChecksumSHA512, md5: &part.ChecksumMD5}
			for _, a := range []algorithm{algCRC32, algCRC32C, algCRC64NVME, algSHA1, algSHA256, algSHA512, algMD5} {
				if v := sums.get(a); v != nil {
					lp.checksums[a] = *v
				}
			}
			out.parts = append(out.parts, lp)
		}
	}
	return out, nil
}
