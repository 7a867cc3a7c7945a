package s3store

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/crc64nvme"

	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/transport"
	"github.com/s3bulk/s3bulk/store/s3store/internal/wire"
)

// GetObject and PutObject without the SDK's operation stack (see
// rawClient for why and what is kept).
//
// A GetObject asks for what the SDK's would (range, If-Match, checksum
// mode, the store's payer and SSE-C headers, and Accept-Encoding: identity
// so that the transport never decompresses a body stored gzip-encoded)
// and its response is read into the SDK's output type, the fields this
// package reads, so that resumingReader, its checks and the metadata work
// on it unchanged.
//
// A PutObject is sent raw when its body is small and can be read again
// (retries resend it from the start): it carries the body's CRC64NVME in
// x-amz-checksum-crc64nvme (or the checksum the write names, checksum.go),
// which the server checks and stores as the object's full-object
// checksum, exactly what the SDK's path sends, and goes as
// UNSIGNED-PAYLOAD for the reason and with the fallback of payload.go: a
// server that refuses the first unsigned upload, raw or not, gets that
// upload again through the SDK, signed, and every later one too.

// rawPutMax is the largest body PutObject sends raw: the size below which
// the SDK sends no Expect: 100-continue either. Above it per-request
// overhead is small against the body, and the SDK's path is kept.
const rawPutMax = 2 << 20

// getObject sends one GetObject of key for the byte range rng ("" for the
// whole object), with If-Match when ifMatch is set and the object's
// checksums asked for when checksums is. Errors are wrapped as Get wraps
// them.
func (r *rawClient) getObject(ctx context.Context, s *Store, key, rng, ifMatch string, checksums bool) (*s3.GetObjectOutput, error) {
	var out *s3.GetObjectOutput
	attempts, err := r.attempt(ctx, "GetObject", s.bucket, key, func(ctx context.Context) (int, error) {
		req := r.request(ctx, http.MethodGet, "GetObject", s.bucket, key)
		h := req.Header
		h.Set("Accept-Encoding", "identity")
		if rng != "" {
			h.Set("Range", rng)
		}
		if ifMatch != "" {
			h.Set("If-Match", ifMatch)
		}
		if checksums {
			h.Set("X-Amz-Checksum-Mode", string(s3types.ChecksumModeEnabled))
		}
		setReadHeaders(h, s)
		if err := r.sign(ctx, req, s, wire.EmptyPayloadHash); err != nil {
			return 0, err
		}
		resp, err := r.do(req)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent {
			out = getObjectOutput(resp)
			return resp.StatusCode, nil
		}
		return 0, errorResponse(resp)
	})
	if err != nil {
		return nil, withAttempts(wrap(err, "get", s.URL(key)), attempts, ctx)
	}
	return out, nil
}

// errorResponse reads and closes the body of a response that is not a
// success and returns the S3 error it holds.
func errorResponse(resp *http.Response) error {
	defer resp.Body.Close()
	// The status says what happened; a body cut short only loses the
	// details.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return parseErrorBody(body, resp)
}

// withAttempts records on a wrapped error how many attempts were made,
// unless the caller's context ended them.
func withAttempts(err error, attempts int, ctx context.Context) error {
	if e, ok := err.(*Error); ok && ctx.Err() == nil {
		e.Attempts = attempts
	}
	return err
}

// getObjectOutput reads a GetObject response's headers as the SDK's
// deserializer does, for the fields this package uses.
func getObjectOutput(resp *http.Response) *s3.GetObjectOutput {
	h := resp.Header
	out := &s3.GetObjectOutput{
		Body:                 resp.Body,
		AcceptRanges:         header(h, "Accept-Ranges"),
		CacheControl:         header(h, "Cache-Control"),
		ChecksumCRC32:        header(h, "X-Amz-Checksum-Crc32"),
		ChecksumCRC32C:       header(h, "X-Amz-Checksum-Crc32c"),
		ChecksumCRC64NVME:    header(h, "X-Amz-Checksum-Crc64nvme"),
		ChecksumMD5:          header(h, "X-Amz-Checksum-Md5"),
		ChecksumSHA1:         header(h, "X-Amz-Checksum-Sha1"),
		ChecksumSHA256:       header(h, "X-Amz-Checksum-Sha256"),
		ChecksumSHA512:       header(h, "X-Amz-Checksum-Sha512"),
		ChecksumType:         s3types.ChecksumType(aws.ToString(header(h, "X-Amz-Checksum-Type"))),
		ContentDisposition:   header(h, "Content-Disposition"),
		ContentEncoding:      header(h, "Content-Encoding"),
		ContentLanguage:      header(h, "Content-Language"),
		ContentRange:         header(h, "Content-Range"),
		ContentType:          header(h, "Content-Type"),
		ETag:                 header(h, "Etag"),
		ServerSideEncryption: s3types.ServerSideEncryption(aws.ToString(header(h, "X-Amz-Server-Side-Encryption"))),
		SSECustomerAlgorithm: header(h, "X-Amz-Server-Side-Encryption-Customer-Algorithm"),
		SSECustomerKeyMD5:    header(h, "X-Amz-Server-Side-Encryption-Customer-Key-Md5"),
		SSEKMSKeyId:          header(h, "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"),
		StorageClass:         s3types.StorageClass(aws.ToString(header(h, "X-Amz-Storage-Class"))),
		VersionId:            header(h, "X-Amz-Version-Id"),
	}
	if resp.ContentLength >= 0 {
		out.ContentLength = aws.Int64(resp.ContentLength)
	}
	if v := header(h, "Last-Modified"); v != nil {
		if t, err := http.ParseTime(*v); err == nil {
			out.LastModified = &t
		}
	}
	if v := header(h, "X-Amz-Tagging-Count"); v != nil {
		if n, err := strconv.ParseInt(*v, 10, 32); err == nil {
			out.TagCount = aws.Int32(int32(n))
		}
	}
	out.ObjectLockMode = s3types.ObjectLockMode(aws.ToString(header(h, "X-Amz-Object-Lock-Mode")))
	out.ObjectLockLegalHoldStatus = s3types.ObjectLockLegalHoldStatus(aws.ToString(header(h, "X-Amz-Object-Lock-Legal-Hold")))
	if v := header(h, "X-Amz-Object-Lock-Retain-Until-Date"); v != nil {
		if t, err := time.Parse(time.RFC3339, *v); err == nil {
			out.ObjectLockRetainUntilDate = &t
		}
	}
	if v := header(h, "X-Amz-Mp-Parts-Count"); v != nil {
		if n, err := strconv.ParseInt(*v, 10, 32); err == nil {
			out.PartsCount = aws.Int32(int32(n))
		}
	}
	const meta = "X-Amz-Meta-"
	for k, vs := range h {
		if len(k) > len(meta) && strings.EqualFold(k[:len(meta)], meta) && len(vs) > 0 {
			if out.Metadata == nil {
				out.Metadata = map[string]string{}
			}
			out.Metadata[strings.ToLower(k[len(meta):])] = strings.TrimSpace(vs[0])
		}
	}
	return out
}

// header is the first value of a response header, trimmed; nil when the
// header is absent.
func header(h http.Header, key string) *string {
	vs := h[key]
	if len(vs) == 0 {
		return nil
	}
	v := strings.TrimSpace(vs[0])
	return &v
}

// rawPut reports whether Put sends a body of size bytes raw.
func (s *Store) rawPut(size int64) bool {
	c := s.c
	return c.raw != nil && size <= rawPutMax && !c.checksumWhenRequired && c.payload.Load() != payloadSigned
}

// putAt writes key from the size bytes of body at off with one PutObject.
// They are read once, with one ReadAt, into a buffer of the client's
// sendPool, hashed there for the CRC64NVME (or the write's algorithm, as
// for every checksum below) and sent from there; the buffer
// goes back to the pool as soon as the transport is done with the request
// body, not when the answer arrives. A retry reads the bytes again and
// sends them only if they have the same CRC64NVME: a body that changed
// fails. When the pool is at its bound, the bytes are read twice, once for
// the CRC64NVME and once by every attempt to send them (should they change
// in between, the server's check of the CRC fails the upload).
//
// A body that can tell (store.ChangeChecker: a local file) is asked,
// after the bytes are read, whether its source changed meanwhile.
//
// refused reports that the server refused an unsigned payload before it
// ever took one: the caller sends the upload again through the SDK, which
// now signs it.
func (r *rawClient) putAt(ctx context.Context, s *Store, key string, body io.ReaderAt, off, size int64, meta store.Metadata) (refused bool, err error) {
	// load reads the bytes into a buffer of the pool: nil, nil when the
	// pool is at its bound.
	load := func() (*transport.MemBody, error) {
		buf := r.sends.get(size)
		if buf == nil {
			return nil, nil
		}
		err := readFullAt(body, buf, off)
		if cc, ok := body.(store.ChangeChecker); ok && err == nil {
			err = cc.CheckUnchanged()
		}
		if err != nil {
			r.sends.put(buf)
			return nil, err
		}
		return transport.NewMemBody(buf, r.sends.put), nil
	}
	m, err := load()
	if err != nil {
		return false, wrap(err, "put", s.URL(key))
	}
	section := func() (io.ReadCloser, error) {
		return io.NopCloser(io.NewSectionReader(body, off, size)), nil
	}
	alg := putAlgorithm(meta)
	if m == nil {
		h := alg.newHash()
		if _, err := copyAt(h, body, off, size); err != nil {
			return false, wrap(err, "put", s.URL(key))
		}
		return r.putObject(ctx, s, key, size, store.Checksum{Algorithm: string(alg), Value: alg.format(h.Sum(nil))}, section, meta)
	}
	sum := bodySum(alg, m.Bytes())
	var first atomic.Pointer[transport.MemBody]
	first.Store(m)
	defer func() {
		if m := first.Swap(nil); m != nil {
			m.Close() // never sent
		}
	}()
	return r.putObject(ctx, s, key, size, sum, func() (io.ReadCloser, error) {
		if m := first.Swap(nil); m != nil {
			return m, nil
		}
		m, err := load()
		switch {
		case err != nil:
			return nil, err
		case m == nil:
			return section()
		case bodySum(alg, m.Bytes()) != sum:
			m.Close()
			return nil, fmt.Errorf("the body changed between two attempts to send it: %w", store.ErrPreconditionFailed)
		}
		return m, nil
	}, meta)
}

// putAlgorithm is the algorithm of the checksum a PutObject of a write of
// meta sends: meta.Checksum's, else uploadAlgorithm.
func putAlgorithm(meta store.Metadata) algorithm {
	if a := algorithm(meta.Checksum.Algorithm); a != "" {
		return a
	}
	return uploadAlgorithm
}

// bodySum is the checksum of alg of b.
func bodySum(alg algorithm, b []byte) store.Checksum {
	if alg == algCRC64NVME {
		// The common case, without a hash.Hash.
		return store.Checksum{Algorithm: string(alg), Value: alg.format(binary.BigEndian.AppendUint64(nil, crc64nvme.Checksum(b)))}
	}
	h := alg.newHash()
	h.Write(b)
	return store.Checksum{Algorithm: string(alg), Value: alg.format(h.Sum(nil))}
}

// readFullAt fills buf with the bytes of r at off.
func readFullAt(r io.ReaderAt, buf []byte, off int64) error {
	if n, err := r.ReadAt(buf, off); n < len(buf) {
		if err == nil || err == io.EOF {
			err = fmt.Errorf("%w: %d bytes missing", errBodyLength, len(buf)-n)
		}
		return err
	}
	return nil
}

// putBytes writes key from b, a body held in memory, with one PutObject:
// the checksum is computed where b lies (or is meta's, when it has a
// value: a stream's source's, which the server then checks b against)
// and every attempt sends b from there, in one write (transport.MemBody).
// refused is putAt's.
func (r *rawClient) putBytes(ctx context.Context, s *Store, key string, b []byte, meta store.Metadata) (refused bool, err error) {
	sum := meta.Checksum
	if !sum.Full() {
		sum = bodySum(putAlgorithm(meta), b)
	}
	return r.putObject(ctx, s, key, int64(len(b)), sum, func() (io.ReadCloser, error) {
		return transport.NewMemBody(b, nil), nil
	}, meta)
}

// putObject sends one PutObject of the size bytes that every call of open
// returns (a body that the transport closes), whose checksum is sum: the
// request's x-amz-checksum-<algorithm>, which the server checks. An error
// of open ends the attempts. refused is putAt's.
func (r *rawClient) putObject(ctx context.Context, s *Store, key string, size int64, sum store.Checksum, open func() (io.ReadCloser, error), meta store.Metadata) (refused bool, err error) {
	sumHeader := checksumHeader(algorithm(sum.Algorithm))
	getBody := func() (io.ReadCloser, error) {
		if size == 0 {
			return http.NoBody, nil
		}
		return open()
	}
	attempts, err := r.attempt(ctx, "PutObject", s.bucket, key, func(ctx context.Context) (int, error) {
		req := r.request(ctx, http.MethodPut, "PutObject", s.bucket, key)
		req.ContentLength = size
		h := req.Header
		setMetadataHeaders(h, meta)
		setWriteHeaders(h, s)
		h.Set(sumHeader, sum.Value)
		h.Set("X-Amz-Sdk-Checksum-Algorithm", sum.Algorithm)
		if err := r.sign(ctx, req, s, unsignedPayload); err != nil {
			return 0, err
		}
		// Opened last: from here on the transport closes it, whatever
		// happens.
		body, err := getBody()
		if err != nil {
			return 0, err
		}
		req.Body, req.GetBody = body, getBody
		resp, err := r.do(req)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode/100 != 2 {
			return 0, errorResponse(resp)
		}
		_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err == nil {
			store.NoteWritten(ctx, resp.Header.Get("X-Amz-Version-Id"))
		}
		return 0, err
	})
	switch {
	case err == nil:
		r.c.payload.CompareAndSwap(payloadUntried, payloadAccepted)
		return false, nil
	case refusesUnsigned(err) && ctx.Err() == nil && r.c.payload.CompareAndSwap(payloadUntried, payloadSigned):
		r.c.sayOnce("signed-payloads", "the server refused an unsigned payload: payloads are signed from now on",
			"endpoint", r.c.endpoint, "refusal", err.Error())
		return true, nil
	}
	return false, withAttempts(wrap(err, "put", s.URL(key)), attempts, ctx)
}

// sendPoolBytes bounds the bytes of the buffers that a client's putAt
// bodies are being sent from, at once. A body is held until the server
// has taken all of it in, which takes a round trip or more when the
// server reads it only once it answers: with many uploads in flight the
// bound is reached, and putAt then reads the bodies past it twice
// instead of holding them.
const sendPoolBytes = 64 << 20

// minSendBuffer is the smallest buffer of a sendPool. Above it buffers
// come in four sizes per power of two (at most a quarter more than asked:
// 112 KiB for 100 KiB), up to rawPutMax.
const minSendBuffer = 4 << 10

var sendClasses, _ = sendClass(rawPutMax)

// sendPool hands out buffers of size classes, reused, while the bytes of
// those out stay within max.
type sendPool struct {
	max   int64
	out   atomic.Int64
	once  sync.Once
	pools []sync.Pool
}

// sendClass is the class of a buffer for n bytes, and its capacity.
func sendClass(n int64) (int, int64) {
	if n <= minSendBuffer {
		return 0, minSendBuffer
	}
	k := bits.Len64(uint64(n - 1)) // 2^(k-1) < n <= 2^k
	step := int64(1) << (k - 3)
	j := (n + step - 1) / step // 5 to 8 eighths of 2^k
	return 1 + (k-bits.Len64(minSendBuffer))*4 + int(j-5), j * step
}

// get returns a buffer of length n, nil when n is more than rawPutMax or
// the pool has max bytes out.
func (p *sendPool) get(n int64) []byte {
	if n <= 0 || n > rawPutMax {
		return nil
	}
	p.once.Do(func() { p.pools = make([]sync.Pool, sendClasses+1) })
	c, capacity := sendClass(n)
	if p.out.Add(capacity) > p.max {
		p.out.Add(-capacity)
		return nil
	}
	if b, ok := p.pools[c].Get().(*[]byte); ok {
		return (*b)[:n]
	}
	return make([]byte, n, capacity)
}

// put returns a buffer from get.
func (p *sendPool) put(b []byte) {
	c, capacity := sendClass(int64(cap(b)))
	p.out.Add(-capacity)
	b = b[:0]
	p.pools[c].Put(&b)
}

// copyAt writes the n bytes of r at off to w.
func copyAt(w io.Writer, r io.ReaderAt, off, n int64) (int64, error) {
	buf := transport.CopyBuffers.Get().(*[32 << 10]byte)
	defer transport.CopyBuffers.Put(buf)
	return io.CopyBuffer(w, io.NewSectionReader(r, off, n), buf[:])
}

// setMetadataHeaders sets the headers of a write's metadata as the SDK's
// PutObject does.
func setMetadataHeaders(h http.Header, m store.Metadata) {
	set := func(k, v string) {
		if v != "" {
			h.Set(k, v)
		}
	}
	set("Content-Type", m.ContentType)
	set("Content-Encoding", m.ContentEncoding)
	set("Content-Language", m.ContentLanguage)
	set("Cache-Control", m.CacheControl)
	set("Content-Disposition", m.ContentDisposition)
	set("X-Amz-Storage-Class", m.StorageClass)
	for k, v := range m.User {
		h["X-Amz-Meta-"+http.CanonicalHeaderKey(strings.TrimSpace(k))] = []string{v}
	}
	if v := taggingHeader(m.Tags); v != nil {
		h.Set("X-Amz-Tagging", *v)
	}
}
