package s3store

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
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
// (retries resend it from the start): it carries the body's CRC32 in
// x-amz-checksum-crc32, which the server checks and stores as the object's
// full-object checksum, exactly what the SDK sends, and goes as
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
	attempts, err := r.attempt(ctx, "GetObject", s.bucket, key, func(ctx context.Context) error {
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
		if err := r.sign(ctx, req, s, emptyPayloadHash); err != nil {
			return err
		}
		resp, err := r.do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent {
			out = getObjectOutput(resp)
			return nil
		}
		return errorResponse(resp)
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

// putObject writes key from the size bytes of body at off with one
// PutObject. refused reports that the server refused an unsigned payload
// before it ever took one: the caller sends the upload again through the
// SDK, which now signs it.
func (r *rawClient) putObject(ctx context.Context, s *Store, key string, body io.ReaderAt, off, size int64, meta store.Metadata) (refused bool, err error) {
	crc := crc32.NewIEEE()
	if _, err := copyAt(crc, body, off, size); err != nil {
		return false, wrap(err, "put", s.URL(key))
	}
	sum := base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc.Sum32()))
	open := func() (io.ReadCloser, error) {
		if size == 0 {
			return http.NoBody, nil
		}
		return io.NopCloser(io.NewSectionReader(body, off, size)), nil
	}
	attempts, err := r.attempt(ctx, "PutObject", s.bucket, key, func(ctx context.Context) error {
		req := r.request(ctx, http.MethodPut, "PutObject", s.bucket, key)
		req.ContentLength = size
		req.Body, _ = open()
		req.GetBody = open
		h := req.Header
		setMetadataHeaders(h, meta)
		setWriteHeaders(h, s)
		h.Set("X-Amz-Checksum-Crc32", sum)
		h.Set("X-Amz-Sdk-Checksum-Algorithm", string(algCRC32))
		if err := r.sign(ctx, req, s, unsignedPayload); err != nil {
			return err
		}
		resp, err := r.do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode/100 != 2 {
			return errorResponse(resp)
		}
		_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		return err
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

// copyAt writes the n bytes of r at off to w.
func copyAt(w io.Writer, r io.ReaderAt, off, n int64) (int64, error) {
	buf := copyBuffers.Get().(*[32 << 10]byte)
	defer copyBuffers.Put(buf)
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
}
