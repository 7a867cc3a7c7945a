package s3store

import (
	"context"
	"crypto/md5"
	"fmt"
	"hash"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/store"
)

// bodyCheck hashes the bytes of a whole-object read as they go by and
// checks them once the last one arrived (resumingReader).
type bodyCheck interface {
	Write(p []byte) (int, error)
	// check returns an error wrapping store.ErrChecksumMismatch when the
	// bytes written differ from the object's.
	check(op, url string) error
	// unverified reports, after check, that there turned out to be
	// nothing to check the bytes against.
	unverified() bool
}

// wholeCheck is what the bytes of a GetObject response holding the whole
// object are checked against, best first: a stored full-object checksum,
// an ETag that is an MD5, or a multipart ETag rebuilt part by part as the
// bytes go by (one HeadObject partNumber=1 gives the part size). It is nil
// when the object carries none of them (SSE-KMS, SSE-C, a server that
// does not say).
func (s *Store) wholeCheck(ctx context.Context, key string, out *s3.GetObjectOutput) (bodyCheck, error) {
	if exp, ok := expectedOf(out); ok {
		return newVerifier(exp), nil
	}
	etag := aws.ToString(out.ETag)
	exp, n, ok := multipartETag(etag, out.ServerSideEncryption, out.SSECustomerAlgorithm)
	if !ok {
		return nil, nil
	}
	size := objectSize(out)
	partSize, ok, err := s.etagPartSize(ctx, key, etag, n, size)
	if err != nil || !ok {
		return nil, err
	}
	return &etagCheck{ctx: ctx, s: s, key: key, etag: etag, want: exp.want, n: n, partSize: partSize, part: md5.New()}, nil
}

// etagCheck rebuilds a multipart ETag, the MD5 of the parts' MD5s, from
// the bytes of a whole-object read in order: an MD5 per partSize bytes.
// Parts are taken as uniform, as every S3 client uploads them; a read
// whose composite differs asks for the real size of every part before
// calling it a mismatch, and when they are not uniform (the bytes are gone
// by then) the read counts as unverified rather than failed.
type etagCheck struct {
	ctx      context.Context
	s        *Store
	key      string
	etag     string
	want     []byte
	n        int
	partSize int64

	part   hash.Hash
	inPart int64 // bytes of the current part hashed so far
	size   int64
	sums   []byte // the MD5s of the finished parts
	gaveUp bool
}

func (e *etagCheck) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := int(min(e.partSize-e.inPart, int64(len(p))))
		e.part.Write(p[:k])
		e.inPart += int64(k)
		e.size += int64(k)
		p = p[k:]
		if e.inPart == e.partSize {
			e.sums = e.part.Sum(e.sums)
			e.part.Reset()
			e.inPart = 0
		}
	}
	return n, nil
}

func (e *etagCheck) check(op, url string) error {
	if e.inPart > 0 {
		e.sums = e.part.Sum(e.sums)
		e.part.Reset()
		e.inPart = 0
	}
	got := md5.Sum(e.sums)
	parts := len(e.sums) / md5.Size
	if parts == e.n && string(got[:]) == string(e.want) {
		return nil
	}
	// Before calling it corruption, make sure of the boundaries.
	sizes, err := e.s.partSizes(e.ctx, e.key, e.etag, e.n)
	if err != nil {
		return fmt.Errorf("%s %s: check the multipart ETag: %w", op, url, err)
	}
	if !slices.Equal(sizes, uniformParts(e.size, e.partSize)) {
		e.gaveUp = true
		e.s.c.sayOnce("uneven-parts", "an object uploaded in parts of uneven size cannot be checked against its multipart ETag as it is read",
			"url", url)
		return nil
	}
	return &Error{Op: op, URL: url, Sentinel: store.ErrChecksumMismatch,
		Err: fmt.Errorf("the multipart ETag of the %d bytes read is %x-%d, the object's is %x-%d",
			e.size, got, parts, e.want, e.n)}
}

func (e *etagCheck) unverified() bool { return e.gaveUp }
