package s3store

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/store"
)

// Downloads in parts, and what they are checked against, best first:
//
//   - a full-object CRC (CRC32C, CRC32, CRC64NVME): each part is hashed as
//     it is written and the parts' CRCs are combined in offset order, so no
//     byte is read twice;
//   - another full-object checksum (SHA1, SHA256), or an ETag that is the
//     MD5 of the content (a single PutObject or CopyObject): these cannot be
//     combined from parts written out of order, so the file is read back
//     once before it is renamed into place;
//   - a multipart ETag, "md5-of-the-parts'-md5s-N": HeadObject with
//     partNumber=1 gives the upload's part size and N; the file is read
//     back part by part and the composite compared. Part sizes are taken
//     as uniform (as every S3 client uploads); when the composite differs
//     the real size of every part is asked for before calling it a
//     mismatch, so an upload with uneven parts is not mistaken for
//     corruption.
//
// Objects encrypted with SSE-KMS or SSE-C have ETags that are not MD5s;
// with no full-object checksum either, nothing can be checked and
// VerifyParts says so by returning nil.

// PartsVerifier checks an object downloaded in parts (ranged GETs) against
// what its server keeps of the whole: see the comment above.
type PartsVerifier struct {
	s    *Store
	key  string
	url  string
	size int64
	exp  expected
	// comb is set when the parts' CRCs are combined as they are written;
	// otherwise Verify reads the file back.
	comb *crcCombiner
	// etagParts is N of a multipart ETag (0 otherwise), partSize the size
	// of its first part.
	etagParts int
	partSize  int64

	mu     sync.Mutex
	pieces map[int64]*partHash // by offset
}

type partHash struct {
	size int64
	h    hash.Hash // nil when only the bytes are counted
	n    int64
}

func (p *partHash) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	if p.h == nil {
		return len(b), nil
	}
	return p.h.Write(b)
}

// VerifyParts returns a verifier for a download of key in parts, or nil
// when the object carries nothing to check against (see above) or checksums
// are off. ifMatch, when set, makes it fail with store.ErrPreconditionFailed
// if the object changed since it was listed. size is the object's size.
func (s *Store) VerifyParts(ctx context.Context, key, ifMatch string, size int64) (store.PartsVerifier, error) {
	if s.c.checksumWhenRequired {
		return nil, nil
	}
	in := s.headInput(key)
	in.ChecksumMode = s3types.ChecksumModeEnabled
	if ifMatch != "" {
		in.IfMatch = aws.String(store.QuoteETag(ifMatch))
	}
	out, err := s.c.s3.HeadObject(ctx, in, s.optFns...)
	if err != nil {
		return nil, wrap(err, "head", s.URL(key))
	}
	if got := aws.ToInt64(out.ContentLength); got != size {
		return nil, &Error{Op: "head", URL: s.URL(key), Sentinel: store.ErrPreconditionFailed,
			Err: fmt.Errorf("the object has %d bytes, want %d", got, size)}
	}
	v := &PartsVerifier{s: s, key: key, url: s.URL(key), size: size, pieces: map[int64]*partHash{}}
	exp, ok := fullObjectChecksum(out.ChecksumType, checksumFields{crc32: &out.ChecksumCRC32, crc32c: &out.ChecksumCRC32C,
		crc64nvme: &out.ChecksumCRC64NVME, sha1: &out.ChecksumSHA1, sha256: &out.ChecksumSHA256})
	if ok {
		v.exp, v.comb = exp, exp.alg.combiner()
		return v, nil
	}
	etag := aws.ToString(out.ETag)
	if exp, ok := etagMD5(etag, out.ServerSideEncryption, out.SSECustomerAlgorithm); ok {
		v.exp = exp
		return v, nil
	}
	exp, n, ok := multipartETag(etag, out.ServerSideEncryption, out.SSECustomerAlgorithm)
	if !ok {
		return nil, nil
	}
	first, ok, err := s.etagPartSize(ctx, key, etag, n, size)
	if err != nil || !ok {
		return nil, err
	}
	v.exp, v.etagParts, v.partSize = exp, n, first
	return v, nil
}

// etagPartSize asks for the size of the first part of key, whose ETag is
// a multipart ETag of n parts, as it was uploaded. ok is false when the
// server does not say (it refuses or ignores partNumber, or counts the
// parts otherwise): then the ETag cannot be rebuilt, which is no reason to
// fail a download.
func (s *Store) etagPartSize(ctx context.Context, key, etag string, n int, size int64) (int64, bool, error) {
	first, count, err := s.partSize(ctx, key, etag, 1)
	var apiErr smithy.APIError
	switch {
	case err == nil:
	case errors.As(err, &apiErr) && !errors.Is(err, store.ErrPreconditionFailed) && !errors.Is(err, store.ErrNotFound):
		s.c.sayOnce("no-head-part-number", "the server refuses HeadObject with partNumber: multipart objects without a checksum are downloaded unchecked",
			"endpoint", s.c.endpoint, "error", err)
		return 0, false, nil
	default:
		return 0, false, err
	}
	if count != n || first <= 0 || first > size {
		return 0, false, nil
	}
	return first, true, nil
}

// multipartETag reads an ETag of the form "hex(md5 of the parts' MD5s)-N",
// which S3 gives multipart uploads not encrypted with SSE-KMS or SSE-C.
func multipartETag(etag string, sse s3types.ServerSideEncryption, sseCustomer *string) (expected, int, bool) {
	e := store.ParseETag(etag)
	if e.Kind != store.MultipartETag || !etagIsMD5(sse, sseCustomer) {
		return expected{}, 0, false
	}
	sum, _, _ := strings.Cut(e.Value, "-")
	want, err := hex.DecodeString(sum)
	if err != nil {
		return expected{}, 0, false
	}
	return expected{alg: algETagMD5, want: want}, int(e.Parts), true
}

// partSize asks for the size of part number of key as it was uploaded
// (HeadObject with partNumber), and the object's number of parts, 0 when
// the server does not say.
func (s *Store) partSize(ctx context.Context, key, etag string, number int32) (int64, int, error) {
	in := s.headInput(key)
	in.PartNumber = aws.Int32(number)
	in.IfMatch = aws.String(store.QuoteETag(etag))
	out, err := s.c.s3.HeadObject(ctx, in, s.optFns...)
	if err != nil {
		return 0, 0, wrap(err, fmt.Sprintf("head part %d of", number), s.URL(key))
	}
	return aws.ToInt64(out.ContentLength), int(aws.ToInt32(out.PartsCount)), nil
}

// Part returns the writer that the bytes of the part at off, size bytes
// long, must go through as they are written. Parts may be written
// concurrently, each by one goroutine; asking again for the same offset
// (a part written anew) starts it over.
func (v *PartsVerifier) Part(off, size int64) io.Writer {
	p := &partHash{size: size}
	if v.comb != nil {
		p.h = v.exp.alg.newHash()
	}
	v.mu.Lock()
	v.pieces[off] = p
	v.mu.Unlock()
	return p
}

// Verify checks, once every part was written to written, that the parts
// cover the object exactly and that their content is the object's: a
// difference is an error wrapping store.ErrChecksumMismatch. It may read
// written back and, for a multipart ETag, ask the server for part sizes.
func (v *PartsVerifier) Verify(ctx context.Context, written io.ReaderAt) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	offs := slices.Sorted(maps.Keys(v.pieces))
	pieces := make([]crcPiece, 0, len(offs))
	var next int64
	for _, off := range offs {
		p := v.pieces[off]
		if off != next || p.n != p.size {
			return fmt.Errorf("verify %s: the parts written do not cover the object: %d bytes at %d, the next byte expected at %d",
				v.url, p.n, off, next)
		}
		if p.h != nil {
			pieces = append(pieces, crcPiece{sum: p.h.Sum(nil), size: p.n})
		}
		next += p.n
	}
	if next != v.size {
		return fmt.Errorf("verify %s: the parts written hold %d bytes, the object %d", v.url, next, v.size)
	}
	if v.comb == nil && written == nil {
		return fmt.Errorf("verify %s: %w", v.url, store.ErrUnverifiable)
	}
	var got []byte
	var err error
	switch {
	case v.comb != nil:
		if len(pieces) == 0 { // an empty object
			pieces = append(pieces, crcPiece{sum: v.exp.alg.newHash().Sum(nil)})
		}
		got, err = v.comb.combineDigests(pieces)
	case v.etagParts == 0:
		got, err = digest(v.exp.alg.newHash(), written, 0, v.size)
	default:
		got, err = v.composite(ctx, written, uniformParts(v.size, v.partSize))
		if err == nil && string(got) != string(v.exp.want) {
			// Before calling it corruption, make sure of the boundaries.
			var sizes []int64
			if sizes, err = v.partSizes(ctx); err == nil && !slices.Equal(sizes, uniformParts(v.size, v.partSize)) {
				got, err = v.composite(ctx, written, sizes)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("verify %s: %w", v.url, err)
	}
	if string(got) != string(v.exp.want) {
		if v.comb == nil && v.etagParts > 0 {
			return &Error{Op: "verify", URL: v.url, Sentinel: store.ErrChecksumMismatch,
				Err: fmt.Errorf("the multipart ETag of the %d bytes read is %x-%d, the object's is %x-%d",
					v.size, got, v.etagParts, v.exp.want, v.etagParts)}
		}
		return mismatch("verify", v.url, v.exp.alg, v.size, got, v.exp.want)
	}
	return nil
}

// uniformParts is the part sizes of an upload of size bytes in parts of
// partSize, the last one shorter.
func uniformParts(size, partSize int64) []int64 {
	var sizes []int64
	for off := int64(0); off < size; off += partSize {
		sizes = append(sizes, min(partSize, size-off))
	}
	return sizes
}

// partSizes asks the server for the size of every part of the object.
func (v *PartsVerifier) partSizes(ctx context.Context) ([]int64, error) {
	etag := hex.EncodeToString(v.exp.want) + "-" + strconv.Itoa(v.etagParts)
	return v.s.partSizes(ctx, v.key, etag, v.etagParts)
}

// partSizes asks the server for the size of every one of the n parts of
// key, whose ETag is etag.
func (s *Store) partSizes(ctx context.Context, key, etag string, n int) ([]int64, error) {
	sizes := make([]int64, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i := range sizes {
		g.Go(func() error {
			size, _, err := s.partSize(gctx, key, etag, int32(i+1))
			sizes[i] = size
			return err
		})
	}
	return sizes, g.Wait()
}

// composite is the multipart ETag's MD5 of the parts' MD5s, the parts
// being of sizes and read back from written, several at once.
func (v *PartsVerifier) composite(ctx context.Context, written io.ReaderAt, sizes []int64) ([]byte, error) {
	if len(sizes) != v.etagParts {
		return nil, fmt.Errorf("the object was uploaded in %d parts, but parts of %d bytes make %d", v.etagParts, v.partSize, len(sizes))
	}
	sums := make([]byte, md5.Size*len(sizes))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	var off int64
	for i, n := range sizes {
		start := off
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			sum, err := digest(md5.New(), written, start, n)
			copy(sums[i*md5.Size:], sum)
			return err
		})
		off += n
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if off != v.size {
		return nil, fmt.Errorf("the server's parts hold %d bytes, the object %d", off, v.size)
	}
	sum := md5.Sum(sums)
	return sum[:], nil
}

// digest hashes n bytes of r from off.
func digest(h hash.Hash, r io.ReaderAt, off, n int64) ([]byte, error) {
	if n == 0 {
		return h.Sum(nil), nil
	}
	buf := make([]byte, min(n, 256<<10))
	if _, err := io.CopyBuffer(h, io.NewSectionReader(r, off, n), buf); err != nil {
		return nil, fmt.Errorf("read back %d bytes at %d: %w", n, off, err)
	}
	return h.Sum(nil), nil
}
