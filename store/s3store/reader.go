package s3store

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/store"
)

// resumingReader is the body of a Get. When the connection breaks
// mid-stream (reset, truncation, stall), it asks again for the bytes it has
// not delivered yet, with If-Match on the ETag of the first response so the
// rest cannot come from a newer version of the object. The SDK's retryer
// cannot do this: it has already returned by the time the body is read.
//
// It keeps the Get's context because the body it reopens belongs to that
// call, just as an HTTP response body stays tied to its request's context.
type resumingReader struct {
	ctx  context.Context
	s    *Store
	key  string
	off  int64  // the next byte to deliver
	end  int64  // one past the last byte to deliver; < 0 until known
	etag string // quoted; from the caller's ifMatch, else the first response

	// verify asks the first response for the object's checksums. When that
	// response holds the whole object, check hashes every byte delivered,
	// resumed requests included, and the read that delivers the last byte
	// fails if the digest differs (see checksum.go, etagcheck.go).
	verify   bool
	check    bodyCheck
	checked  bool
	checkErr error
	// whole marks a read of the whole object, which Unverified reports on.
	whole bool

	body     io.ReadCloser
	failures int // consecutive breaks without a byte delivered in between
	closed   bool

	// meta is the metadata of the first response (GetWithMetadata).
	opened bool
	meta   store.Metadata
}

func (r *resumingReader) open() error {
	first := r.verify
	r.verify = false
	out, err := r.s.getObject(r.ctx, r.key, r.off, r.end, r.etag, first)
	if err != nil {
		return err
	}
	if r.etag == "" {
		r.etag = aws.ToString(out.ETag)
	}
	if !r.opened {
		r.opened, r.meta = true, getMetadata(out)
	}
	// The response says how many bytes this range really has (a range
	// reaching past the end is cut at the end).
	if out.ContentLength != nil {
		r.end = r.off + *out.ContentLength
	}
	if first && r.off == 0 && r.end >= 0 && r.end == objectSize(out) {
		if r.check, err = r.s.wholeCheck(r.ctx, r.key, out); err != nil {
			out.Body.Close()
			return err
		}
	}
	r.body = out.Body
	return nil
}

// objectSize is the size of the whole object a GetObject response is part
// of, or -1 when the response does not say.
func objectSize(out *s3.GetObjectOutput) int64 {
	cr := aws.ToString(out.ContentRange) // "bytes 0-99/1234"
	if cr == "" {
		if out.ContentLength == nil {
			return -1
		}
		return *out.ContentLength
	}
	_, total, ok := strings.Cut(cr, "/")
	n, err := strconv.ParseInt(total, 10, 64)
	if !ok || err != nil {
		return -1
	}
	return n
}

// expectedOf is what the bytes of a whole-object response must hash to:
// a stored full-object checksum, else an ETag that is an MD5.
func expectedOf(out *s3.GetObjectOutput) (expected, bool) {
	exp, ok := fullObjectChecksum(out.ChecksumType, checksumFields{crc32: &out.ChecksumCRC32, crc32c: &out.ChecksumCRC32C,
		crc64nvme: &out.ChecksumCRC64NVME, sha1: &out.ChecksumSHA1, sha256: &out.ChecksumSHA256, sha512: &out.ChecksumSHA512, md5: &out.ChecksumMD5})
	if ok {
		return exp, true
	}
	return etagMD5(aws.ToString(out.ETag), out.ServerSideEncryption, out.SSECustomerAlgorithm)
}

// finish checks the digest once every byte was read, and keeps failing
// afterwards.
func (r *resumingReader) finish() error {
	if r.check == nil {
		return nil
	}
	if !r.checked {
		r.checked = true
		r.checkErr = r.check.check("get", r.s.URL(r.key))
	}
	return r.checkErr
}

func (r *resumingReader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, errReadAfterClose
	}
	for {
		if r.body == nil {
			if err := r.resume(); err != nil {
				return 0, err
			}
		}
		if r.end >= 0 {
			if r.off >= r.end {
				if err := r.finish(); err != nil {
					return 0, err
				}
				return 0, io.EOF
			}
			if int64(len(p)) > r.end-r.off {
				p = p[:r.end-r.off]
			}
		}
		n, err := r.body.Read(p)
		r.off += int64(n)
		if n > 0 {
			r.failures = 0
			if r.check != nil {
				r.check.Write(p[:n])
			}
		}
		if r.end >= 0 && r.off >= r.end {
			// The last bytes are here. On a mismatch they are withheld:
			// a caller that stops after the size it expects never reads
			// again for io.EOF, and io.CopyN drops the error of a read
			// that completed its count.
			if cerr := r.finish(); cerr != nil {
				return 0, cerr
			}
		}
		if err == nil {
			return n, nil
		}
		if err == io.EOF {
			if r.end < 0 || r.off >= r.end {
				return n, io.EOF
			}
			err = io.ErrUnexpectedEOF
		}
		if !retry.Classify(err).Retry() || r.ctx.Err() != nil || r.failures+1 >= r.s.c.maxAttempts {
			return n, wrap(err, "read", r.s.URL(r.key))
		}
		r.failures++
		r.body.Close()
		r.body = nil
		if n > 0 {
			return n, nil
		}
	}
}

// resume waits out the backoff, then reopens the object at r.off.
func (r *resumingReader) resume() error {
	t := time.NewTimer(r.s.c.backoff.Delay(r.failures, retry.Retryable))
	defer t.Stop()
	select {
	case <-r.ctx.Done():
		return wrap(r.ctx.Err(), "get", r.s.URL(r.key))
	case <-t.C:
	}
	return r.open()
}

var errReadAfterClose = errors.New("read after close")

// Unverified reports, for a read of the whole object that reached its
// end, whether its bytes were checked against nothing: the object carries
// no full-object checksum, MD5 ETag or multipart ETag that could be
// rebuilt (SSE-KMS, SSE-C, a server that does not say), or checksums are
// off (Config.ChecksumWhenRequired). See store.CheckedBody.
func (r *resumingReader) Unverified() bool {
	return r.whole && (r.check == nil || r.check.unverified())
}

func (r *resumingReader) Close() error {
	r.closed = true
	if r.body == nil {
		return nil
	}
	err := r.body.Close()
	r.body = nil
	return err
}
