package s3store

import (
	"context"
	"crypto/md5"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/transport"
)

// Checksums, and why these ones.
//
// Which algorithm an object written gets is store/checksum.go's rule; what
// follows is how, and the default's reasons.
//
// Uploads. A multipart upload whose bytes pass through this client
// (CreateMultipartChecksum) asks by default for a FULL_OBJECT CRC64NVME,
// the AWS CLI v2's and S3's own default (else for the algorithm of the
// write's store.Metadata.Checksum): every UploadPart sends the part's
// CRC64NVME, which the server checks against the bytes it received, and
// CompleteMultipartUpload sends the CRC64NVME of the whole object,
// combined from the parts' (see crcCombiner), which the server checks
// against what it assembled. The object then carries the CRC64NVME of its
// whole content, so a later download in parts can check itself against
// it.
//
// This client computes every CRC64NVME it sends (sendChecksum) rather
// than leave it to the SDK, whose CRC64NVME is hash/crc64's table (about
// 0.7 GB/s against some 30 GB/s for store.NewChecksumHash's, and 13 to 25
// for the SDK's CRC32 and CRC32C; docs/design/0013): the part or body is
// read once more from where it lies, as the SDK itself does over plain
// HTTP to put a checksum in a header, and the value goes in its header.
// Other algorithms the SDK computes, over HTTPS in a trailer as it sends.
//
// Server-side copies use CreateMultipart: with no checksum of their own
// unless the write asks for an algorithm (the source's, or the user's),
// which the server computes for each part copied; the full-object checksum
// combined from the parts' must then be the source's, when the algorithms
// match. versitygw v1.8.0 stores the whole source's checksum as the
// checksum of each copied part when their algorithms match, which would
// give the copy a wrong full-object checksum: checkCopiedPart sees it and
// the copy is done again without (the server's default, CRC64NVME). A
// copy in parts of a CRC64NVME is left to the server's default, which is
// that algorithm.
//
// PutObject sends a CRC64NVME of the body by default too, which the
// server checks and keeps as the full-object checksum of a single-part
// object, unless the write names another algorithm or a value (a stream's
// source's checksum, sent as it is: the server then checks the bytes
// against the source's own checksum, and this client hashes nothing).
//
// Downloads. A Get of a whole object asks for the stored checksum and hashes
// the bytes as they are delivered (across resumed requests, which the SDK's
// own validation does not cover); a difference fails the read that delivers
// the last byte, so a local destination is never renamed into place. An
// object without a stored full-object checksum is checked against its ETag
// when the ETag is the MD5 of the content (a single-part object not
// encrypted with KMS or a customer key). A download in parts is checked by
// PartsVerifier (verifyparts.go). Config.ChecksumWhenRequired turns all of
// this off.

// algorithm names a checksum as S3 does ("CRC32C", ...), with "ETAG-MD5"
// for an ETag that is the MD5 of the content.
type algorithm string

const (
	algCRC32     algorithm = "CRC32"
	algCRC32C    algorithm = "CRC32C"
	algCRC64NVME algorithm = "CRC64NVME"
	algSHA1      algorithm = "SHA1"
	algSHA256    algorithm = "SHA256"
	algSHA512    algorithm = "SHA512"
	algMD5       algorithm = "MD5"
	algETagMD5   algorithm = "ETAG-MD5"
)

// uploadAlgorithm is the checksum of writes of client bytes that name
// none: PutObject's and the FULL_OBJECT one of multipart uploads.
const uploadAlgorithm = algCRC64NVME

// partAlgorithm is what the parts of an upload without an algorithm of its
// own carry (one started by CreateMultipart, or by another client without
// one): any upload takes it.
const partAlgorithm = algCRC32C

// The CRC polynomials, bit-reversed as hash/crc32 and hash/crc64 take them.
const (
	polyCRC32     = crc32.IEEE
	polyCRC32C    = crc32.Castagnoli
	polyCRC64NVME = 0x9a6c9329ac4bc9b5
)

// Combiners are built once; they are read-only afterwards.
var (
	combineCRC32     = newCRCCombiner(32, polyCRC32)
	combineCRC32C    = newCRCCombiner(32, polyCRC32C)
	combineCRC64NVME = newCRCCombiner(64, polyCRC64NVME)
)

func (a algorithm) newHash() hash.Hash {
	if h := store.NewChecksumHash(string(a)); h != nil {
		return h
	}
	switch a {
	case algSHA512:
		return sha512.New()
	case algMD5, algETagMD5:
		return md5.New()
	}
	panic("s3store: no hash for checksum " + string(a))
}

// computedHere reports whether this client computes a's checksum of a
// request body itself, rather than leave it to the SDK: CRC64NVME, which
// the SDK computes with hash/crc64's table.
func (a algorithm) computedHere() bool { return a == algCRC64NVME }

// bodyChecksum is the checksum of alg, formatted for its header, of the
// size bytes body holds from where it stands; body is left there. A body
// of another length is an error (the request would fail on it anyway).
func bodyChecksum(alg algorithm, body io.ReadSeeker, size int64) (string, error) {
	start, err := body.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", err
	}
	h := alg.newHash()
	buf := transport.CopyBuffers.Get().(*[32 << 10]byte)
	n, err := io.CopyBuffer(h, body, buf[:])
	transport.CopyBuffers.Put(buf)
	if err != nil {
		return "", err
	}
	if n != size {
		return "", fmt.Errorf("%w: the body has %d bytes, not %d", errBodyLength, n, size)
	}
	if _, err := body.Seek(start, io.SeekStart); err != nil {
		return "", err
	}
	return alg.format(h.Sum(nil)), nil
}

// combiner returns the CRC combiner of a, or nil when a is not a CRC.
func (a algorithm) combiner() *crcCombiner {
	switch a {
	case algCRC32:
		return combineCRC32
	case algCRC32C:
		return combineCRC32C
	case algCRC64NVME:
		return combineCRC64NVME
	}
	return nil
}

// format writes a digest as S3 does in x-amz-checksum-* headers: base64;
// an ETag is hex.
func (a algorithm) format(sum []byte) string {
	if a == algETagMD5 {
		return hex.EncodeToString(sum)
	}
	return base64.StdEncoding.EncodeToString(sum)
}

// parse is the inverse of format.
func (a algorithm) parse(v string) ([]byte, error) {
	if a == algETagMD5 {
		return hex.DecodeString(v)
	}
	return base64.StdEncoding.DecodeString(v)
}

// crcCombiner computes the CRC of a concatenation from the CRCs of its
// pieces: crc(A||B) from crc(A), crc(B) and len(B), without the bytes. It
// works for CRCs that are reflected and start and end inverted, as CRC-32,
// CRC-32C and CRC-64/NVME all are. The method is zlib's crc32_combine:
// crc(A||B) = crc(A)·x^(8·len(B)) mod P  xor  crc(B), with x^(2^k) mod P
// precomputed.
type crcCombiner struct {
	width uint
	poly  uint64
	// x2n[k] is x^(2^k) mod P; 67 entries cover lengths below 2^63 bytes
	// (2^66 bits).
	x2n [67]uint64
}

func newCRCCombiner(width uint, poly uint64) *crcCombiner {
	c := &crcCombiner{width: width, poly: poly}
	p := uint64(1) << (width - 2) // x^1
	c.x2n[0] = p
	for k := 1; k < len(c.x2n); k++ {
		p = c.multmodp(p, p)
		c.x2n[k] = p
	}
	return c
}

// multmodp multiplies a and b modulo P, in the reflected bit order.
func (c *crcCombiner) multmodp(a, b uint64) uint64 {
	m := uint64(1) << (c.width - 1)
	var p uint64
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				break
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ c.poly
		} else {
			b >>= 1
		}
	}
	return p
}

// x8nmodp is x^(8n) mod P: the shift of n bytes.
func (c *crcCombiner) x8nmodp(n uint64) uint64 {
	p := uint64(1) << (c.width - 1) // x^0
	for k := 3; n != 0; k++ {
		if n&1 != 0 {
			p = c.multmodp(c.x2n[k], p)
		}
		n >>= 1
	}
	return p
}

// combine returns crc(A||B).
func (c *crcCombiner) combine(crcA, crcB uint64, lenB int64) uint64 {
	if lenB <= 0 {
		return crcA
	}
	return c.multmodp(c.x8nmodp(uint64(lenB)), crcA) ^ crcB
}

// sumValue reads a CRC digest (big-endian bytes) as a number.
func (c *crcCombiner) sumValue(sum []byte) (uint64, error) {
	switch {
	case c.width == 32 && len(sum) == 4:
		return uint64(binary.BigEndian.Uint32(sum)), nil
	case c.width == 64 && len(sum) == 8:
		return binary.BigEndian.Uint64(sum), nil
	}
	return 0, fmt.Errorf("a %d-bit CRC has %d bytes", c.width, len(sum))
}

func (c *crcCombiner) digest(v uint64) []byte {
	if c.width == 32 {
		return binary.BigEndian.AppendUint32(nil, uint32(v))
	}
	return binary.BigEndian.AppendUint64(nil, v)
}

// crcPiece is the CRC of one piece of an object, in order.
type crcPiece struct {
	sum  []byte
	size int64
}

// combineDigests returns the digest of the concatenation of pieces.
func (c *crcCombiner) combineDigests(pieces []crcPiece) ([]byte, error) {
	var crc uint64
	for i, p := range pieces {
		v, err := c.sumValue(p.sum)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			crc = v
			continue
		}
		crc = c.combine(crc, v, p.size)
	}
	return c.digest(crc), nil
}

// expected is a checksum the bytes of an object must have.
type expected struct {
	alg  algorithm
	want []byte
}

// fullObjectChecksum picks, from a response's checksum headers, the
// cheapest one that covers the whole object. Composite checksums (a
// checksum of the parts' checksums, written "value-N") cannot be checked
// against the bytes and are ignored.
func fullObjectChecksum(typ s3types.ChecksumType, f checksumFields) (expected, bool) {
	if typ == s3types.ChecksumTypeComposite {
		return expected{}, false
	}
	for _, a := range []algorithm{algCRC32C, algCRC32, algCRC64NVME, algMD5, algSHA1, algSHA256, algSHA512} {
		v := aws.ToString(f.get(a))
		if v == "" || strings.Contains(v, "-") {
			continue
		}
		want, err := a.parse(v)
		if err != nil || len(want) != a.newHash().Size() {
			continue
		}
		return expected{alg: a, want: want}, true
	}
	return expected{}, false
}

// etagMD5 returns the MD5 that a plain ETag stands for. S3 documents the
// ETag as the MD5 of the content for objects written by PutObject or
// CopyObject without SSE-KMS or SSE-C; a multipart ETag ("...-N") or one of
// another length is not an MD5.
func etagMD5(etag string, sse s3types.ServerSideEncryption, sseCustomer *string) (expected, bool) {
	e := store.ParseETag(etag)
	if e.Kind != store.MD5ETag || !etagIsMD5(sse, sseCustomer) {
		return expected{}, false
	}
	want, err := hex.DecodeString(e.Value)
	if err != nil {
		return expected{}, false
	}
	return expected{alg: algETagMD5, want: want}, true
}

// etagIsMD5 reports whether an ETag of an object written with sse and
// sseCustomer can be an MD5 at all: not with SSE-C or SSE-KMS.
func etagIsMD5(sse s3types.ServerSideEncryption, sseCustomer *string) bool {
	return sseCustomer == nil && sse != s3types.ServerSideEncryptionAwsKms && sse != s3types.ServerSideEncryptionAwsKmsDsse
}

// verifier hashes the bytes of one object as they go by and compares the
// digest with the expected one at the end.
type verifier struct {
	exp  expected
	h    hash.Hash
	size int64
}

func newVerifier(exp expected) *verifier {
	return &verifier{exp: exp, h: exp.alg.newHash()}
}

func (v *verifier) Write(p []byte) (int, error) {
	v.size += int64(len(p))
	return v.h.Write(p)
}

// check returns an error wrapping store.ErrChecksumMismatch when the bytes
// written differ from the expected ones.
func (v *verifier) check(op, url string) error {
	got := v.h.Sum(nil)
	if string(got) == string(v.exp.want) {
		return nil
	}
	return mismatch(op, url, v.exp.alg, v.size, got, v.exp.want)
}

func (v *verifier) unverified() bool { return false }

func mismatch(op, url string, alg algorithm, size int64, got, want []byte) error {
	what := strings.ToLower(string(alg))
	if alg == algETagMD5 {
		what = "md5 (the ETag)"
	}
	return &Error{
		Op:       op,
		URL:      url,
		Sentinel: store.ErrChecksumMismatch,
		Err: fmt.Errorf("%s of the %d bytes read is %s, the object's is %s",
			what, size, alg.format(got), alg.format(want)),
	}
}

// objectChecksum is the checksum an answer reports of an object
// (store.Metadata.Checksum): the first of store.ChecksumAlgorithms it
// names, with its value when that covers the whole object.
func objectChecksum(typ s3types.ChecksumType, f checksumFields) store.Checksum {
	for _, alg := range store.ChecksumAlgorithms {
		v := aws.ToString(f.get(algorithm(alg)))
		if v == "" {
			continue
		}
		if typ == s3types.ChecksumTypeComposite || strings.Contains(v, "-") {
			v = "" // composite ("value-N")
		}
		return store.Checksum{Algorithm: alg, Value: v}
	}
	return store.Checksum{}
}

// checksumHeader is the header that carries a checksum of alg in a
// request: x-amz-checksum-crc32, ...
func checksumHeader(alg algorithm) string {
	return http.CanonicalHeaderKey("x-amz-checksum-" + strings.ToLower(string(alg)))
}

// checksumFields points at the checksum fields of one request or answer
// of the SDK (a PutObjectInput, a CompletedPart, a HeadObjectOutput, ...),
// one an algorithm; nil where the caller leaves an algorithm out.
type checksumFields struct {
	crc32, crc32c, crc64nvme, sha1, sha256, sha512, md5 **string
}

// field is alg's field, nil when f has none for it.
func (f checksumFields) field(alg algorithm) **string {
	switch alg {
	case algCRC32:
		return f.crc32
	case algCRC32C:
		return f.crc32c
	case algCRC64NVME:
		return f.crc64nvme
	case algSHA1:
		return f.sha1
	case algSHA256:
		return f.sha256
	case algSHA512:
		return f.sha512
	case algMD5:
		return f.md5
	}
	return nil
}

// get is the value of alg's field: nil when it is unset or f has none.
func (f checksumFields) get(alg algorithm) *string {
	if p := f.field(alg); p != nil {
		return *p
	}
	return nil
}

// set sets alg's field to v; an algorithm f has no field for is left out.
func (f checksumFields) set(alg algorithm, v string) {
	if p := f.field(alg); p != nil {
		*p = aws.String(v)
	}
}

// Checksums returns the object's full-object checksums (HeadObject with
// checksum mode): what sync --checksum compares when ETags cannot be.
func (s *Store) Checksums(ctx context.Context, key string) ([]store.Checksum, error) {
	in := s.headInput(key)
	in.ChecksumMode = s3types.ChecksumModeEnabled
	out, err := s.c.s3.HeadObject(ctx, in, s.optFns...)
	if err != nil {
		return nil, wrap(err, "head", s.URL(key))
	}
	if out.ChecksumType == s3types.ChecksumTypeComposite {
		return nil, nil
	}
	f := checksumFields{crc32: &out.ChecksumCRC32, crc32c: &out.ChecksumCRC32C, crc64nvme: &out.ChecksumCRC64NVME,
		sha1: &out.ChecksumSHA1, sha256: &out.ChecksumSHA256}
	var sums []store.Checksum
	for _, alg := range store.ChecksumAlgorithms {
		v := aws.ToString(f.get(algorithm(alg)))
		if v == "" || strings.Contains(v, "-") {
			continue // absent, or composite ("value-N")
		}
		sums = append(sums, store.Checksum{Algorithm: alg, Value: v})
	}
	return sums, nil
}
