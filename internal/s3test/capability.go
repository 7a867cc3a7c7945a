package s3test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/s3bulk/s3bulk/internal/gateway"
)

// Capability is something S3 does that some S3-compatible servers do not.
// A test that needs one calls Server.Require, which probes an external
// endpoint for it once per test binary and skips the test, with the
// reason, when the server lacks it. The embedded gateway (versitygw) is
// taken to have them all and is never probed, so nothing is skipped in CI.
type Capability string

const (
	// Auth: requests signed with a wrong secret, an unknown access key or
	// for another region are refused.
	Auth Capability = "signature checks"
	// SigningScope: requests signed for another region, or with a session
	// token the server did not issue, are refused.
	SigningScope Capability = "region and session token checks"
	// ConditionalGet: GET and HEAD honour If-Match.
	ConditionalGet Capability = "If-Match on GET/HEAD"
	// ConditionalCopy: CopyObject honours x-amz-copy-source-if-match.
	ConditionalCopy Capability = "x-amz-copy-source-if-match"
	// Metadata: user metadata and the content headers (Cache-Control,
	// Content-Language...) come back from HEAD, after a put and a copy.
	Metadata Capability = "content headers and user metadata"
	// CopyOntoItself: CopyObject of an object onto itself without a change
	// is refused, as S3 does.
	CopyOntoItself Capability = "refusing a copy onto itself"
	// PartCopy: UploadPartCopy.
	PartCopy Capability = "UploadPartCopy"
	// MultipartUploadListing: ListMultipartUploads.
	MultipartUploadListing Capability = "ListMultipartUploads"
	// AbortUpload: AbortMultipartUpload, after which the upload takes no
	// more parts.
	AbortUpload Capability = "AbortMultipartUpload"
	// ListParts: ListParts.
	ListParts Capability = "ListParts"
	// Checksums: the server keeps an object's x-amz-checksum-* (CRC32C
	// here), returns it with checksum mode, and answers an UploadPart with
	// the part's.
	Checksums Capability = "checksums (x-amz-checksum-crc32c)"
	// DefaultChecksums: an object put without a checksum is given a
	// full-object CRC (S3's CRC64NVME), which a HEAD with checksum mode
	// answers: so a read
	// of it in parts can be checked as the parts go by, even when they are
	// not kept to be read back (a stream to another endpoint).
	DefaultChecksums Capability = "a checksum of every object, even one put without"
	// RequestChecksums: a PutObject whose body does not match the
	// x-amz-checksum-* it was sent with is refused.
	RequestChecksums Capability = "refusing a body that does not match its checksum"
	// FreshChecksums: an object overwritten without a checksum does not
	// keep the checksum of the object it replaced.
	FreshChecksums Capability = "checksums of the object, not of the one it replaced"
	// MultipartETag: a multipart upload's ETag is the MD5 of its parts'
	// MD5s, "-N".
	MultipartETag Capability = "multipart ETags as S3 makes them"
	// SSES3, SSEKMS, SSEC: server-side encryption with S3's keys, KMS keys
	// and customer keys.
	SSES3  Capability = "SSE-S3"
	SSEKMS Capability = "SSE-KMS"
	SSEC   Capability = "SSE-C"
	// Ranges: a GET of bytes=0-0 answers one byte.
	Ranges Capability = "ranged GETs"
	// Listing: ListObjectsV2 lists in byte order and pages with
	// continuation tokens.
	Listing Capability = "listings in byte order, in pages"
	// OddKeys: keys with '+', '=' and '?' round trip through PUT, LIST
	// and CopyObject (whose source is percent-encoded).
	OddKeys Capability = "keys with '+', '=' and '?'"
	// BackslashKeys: a key with a backslash can be written.
	BackslashKeys Capability = `keys with '\'`
	// NoAutoCreate: a put into a missing bucket fails (it does not make
	// the bucket).
	NoAutoCreate Capability = "refusing a put into a missing bucket"
	// PrefixesVanish: deleting the last key under a prefix leaves no
	// empty "directory" in a delimited listing.
	PrefixesVanish Capability = "prefixes that vanish with their last key"
	// SSECPartCopy: UploadPartCopy from an SSE-C source.
	SSECPartCopy Capability = "UploadPartCopy of SSE-C objects"
	// HealthPath: the embedded gateway's health path
	// (gateway.HealthPath) answers 200 to a request without credentials.
	HealthPath Capability = "an unauthenticated health path"
)

// probes says how to find out whether a server has a capability: nil when
// it does, else what it answered.
var probes = map[Capability]func(ctx context.Context, p *prober) error{
	Auth:                   probeAuth,
	SigningScope:           probeSigningScope,
	ConditionalGet:         probeConditionalGet,
	ConditionalCopy:        probeConditionalCopy,
	Metadata:               probeMetadata,
	CopyOntoItself:         probeCopyOntoItself,
	PartCopy:               probePartCopy,
	MultipartUploadListing: probeListUploads,
	ListParts:              probeListParts,
	AbortUpload:            probeAbortUpload,
	Checksums:              probeChecksums,
	DefaultChecksums:       probeDefaultChecksums,
	RequestChecksums:       probeRequestChecksums,
	MultipartETag:          probeMultipartETag,
	FreshChecksums:         probeFreshChecksums,
	SSES3:                  probeSSES3,
	SSEKMS:                 probeSSEKMS,
	SSEC:                   probeSSEC,
	Ranges:                 probeRanges,
	Listing:                probeListing,
	OddKeys:                probeOddKeys,
	BackslashKeys:          probeBackslashKeys,
	NoAutoCreate:           probeNoAutoCreate,
	PrefixesVanish:         probePrefixesVanish,
	SSECPartCopy:           probeSSECPartCopy,
	HealthPath:             probeHealthPath,
}

// probed caches each capability's answer for the binary's one server.
type probed struct {
	once sync.Once
	err  error
}

var capabilities sync.Map // Capability -> *probed

// Require skips t unless the server has every one of caps.
func (s *Server) Require(t testing.TB, caps ...Capability) {
	t.Helper()
	if s.child != nil {
		return // the embedded gateway has them all
	}
	for _, c := range caps {
		if err := s.probe(t, c); err != nil {
			t.Skipf("server lacks %s (%s)", c, short(err))
		}
	}
}

// Has reports whether the server has c (always, for the embedded gateway).
func (s *Server) Has(t testing.TB, c Capability) bool {
	t.Helper()
	return s.child != nil || s.probe(t, c) == nil
}

func (s *Server) probe(t testing.TB, c Capability) error {
	t.Helper()
	fn, ok := probes[c]
	if !ok {
		t.Fatalf("s3test: no probe for capability %q", c)
	}
	v, _ := capabilities.LoadOrStore(c, &probed{})
	p := v.(*probed)
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		pr := &prober{s: s, c: s.Client(t)}
		bucket := BucketName("probe "+string(c), bucketSeq.Add(1))
		if _, err := pr.c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			p.err = fmt.Errorf("create a bucket to probe in: %w", err)
			return
		}
		pr.bucket = bucket
		p.err = fn(ctx, pr)
		if err := removeBucket(ctx, pr.c, bucket); err != nil {
			fmt.Printf("s3test: probe %s: %v\n", c, err)
		}
	})
	return p.err
}

type prober struct {
	s      *Server
	c      *s3.Client
	bucket string
}

func (p *prober) put(ctx context.Context, key string, body []byte, mod ...func(*s3.PutObjectInput)) (*s3.PutObjectOutput, error) {
	in := &s3.PutObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(key), Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))}
	for _, m := range mod {
		m(in)
	}
	return p.c.PutObject(ctx, in)
}

// refused is nil when err is the failure that was wanted, else says what
// happened instead.
func refused(err error, what string) error {
	if err == nil {
		return fmt.Errorf("%s succeeded", what)
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

func probeAuth(ctx context.Context, p *prober) error {
	bad := s3.New(s3.Options{
		BaseEndpoint:     aws.String(p.s.Endpoint),
		Region:           p.s.Region,
		Credentials:      credentials.NewStaticCredentialsProvider(p.s.AccessKey, p.s.SecretKey+"x", ""),
		UsePathStyle:     true,
		RetryMaxAttempts: 1,
	})
	_, err := bad.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(p.bucket)})
	return refused(err, "a listing signed with a wrong secret")
}

func probeSigningScope(ctx context.Context, p *prober) error {
	for _, bad := range []struct {
		what          string
		region, token string
	}{
		{"a listing signed for another region", "eu-west-1", ""},
		{"a listing with a session token nobody issued", p.s.Region, "token-nobody-issued"},
	} {
		c := s3.New(s3.Options{
			BaseEndpoint:     aws.String(p.s.Endpoint),
			Region:           bad.region,
			Credentials:      credentials.NewStaticCredentialsProvider(p.s.AccessKey, p.s.SecretKey, bad.token),
			UsePathStyle:     true,
			RetryMaxAttempts: 1,
		})
		_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(p.bucket)})
		if err := refused(err, bad.what); err != nil {
			return err
		}
	}
	return nil
}

func probeConditionalGet(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("x")); err != nil {
		return err
	}
	_, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k"), IfMatch: aws.String(`"0123456789abcdef0123456789abcdef"`)})
	if err := refused(err, "a HEAD with a stale If-Match"); err != nil {
		return err
	}
	out, err := p.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k"), IfMatch: aws.String(`"0123456789abcdef0123456789abcdef"`)})
	if err == nil {
		out.Body.Close()
	}
	return refused(err, "a GET with a stale If-Match")
}

func probeConditionalCopy(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("x")); err != nil {
		return err
	}
	_, err := p.c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("c"), CopySource: aws.String(p.bucket + "/k"),
		CopySourceIfMatch: aws.String(`"0123456789abcdef0123456789abcdef"`)})
	return refused(err, "a copy with a stale x-amz-copy-source-if-match")
}

func probeMetadata(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("x"), func(in *s3.PutObjectInput) {
		in.Metadata = map[string]string{"origin": "probe"}
		in.ContentType = aws.String("text/plain")
		in.CacheControl = aws.String("max-age=60")
		in.ContentLanguage = aws.String("en")
	}); err != nil {
		return err
	}
	if _, err := p.c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("c"), CopySource: aws.String(p.bucket + "/k")}); err != nil {
		return err
	}
	for _, key := range []string{"k", "c"} {
		out, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(key)})
		if err != nil {
			return err
		}
		got := fmt.Sprintf("%v %q %q %q", out.Metadata, aws.ToString(out.ContentType), aws.ToString(out.CacheControl), aws.ToString(out.ContentLanguage))
		if want := `map[origin:probe] "text/plain" "max-age=60" "en"`; got != want {
			return fmt.Errorf("an object (%s) comes back with metadata, content type, cache control, language %s", key, got)
		}
	}
	return nil
}

func probeCopyOntoItself(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("x")); err != nil {
		return err
	}
	_, err := p.c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k"), CopySource: aws.String(p.bucket + "/k")})
	return refused(err, "a copy onto itself")
}

// withUpload runs fn with a fresh multipart upload of key, aborted after.
func (p *prober) withUpload(ctx context.Context, key string, fn func(id *string) error) error {
	up, err := p.c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String(key)})
	if err != nil {
		return err
	}
	defer p.c.AbortMultipartUpload(context.WithoutCancel(ctx), &s3.AbortMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String(key), UploadId: up.UploadId})
	return fn(up.UploadId)
}

func probePartCopy(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("xyz")); err != nil {
		return err
	}
	return p.withUpload(ctx, "c", func(id *string) error {
		_, err := p.c.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: aws.String(p.bucket), Key: aws.String("c"), UploadId: id,
			PartNumber: aws.Int32(1), CopySource: aws.String(p.bucket + "/k"), CopySourceRange: aws.String("bytes=0-1")})
		return err
	})
}

func probeListUploads(ctx context.Context, p *prober) error {
	return p.withUpload(ctx, "u", func(*string) error {
		out, err := p.c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(p.bucket)})
		if err != nil {
			return err
		}
		if len(out.Uploads) != 1 {
			return fmt.Errorf("it lists %d uploads, want the 1 in progress", len(out.Uploads))
		}
		return nil
	})
}

func probeListParts(ctx context.Context, p *prober) error {
	return p.withUpload(ctx, "u", func(id *string) error {
		_, err := p.c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(p.bucket), Key: aws.String("u"), UploadId: id})
		return err
	})
}

func probeAbortUpload(ctx context.Context, p *prober) error {
	up, err := p.c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String("u")})
	if err != nil {
		return err
	}
	if _, err := p.c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String("u"), UploadId: up.UploadId}); err != nil {
		return err
	}
	_, err = p.c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(p.bucket), Key: aws.String("u"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("x"), ContentLength: aws.Int64(1)})
	return refused(err, "a part uploaded into an aborted upload")
}

func probeChecksums(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("x"), func(in *s3.PutObjectInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmCrc32c }); err != nil {
		return err
	}
	out, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k"), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		return err
	}
	if out.ChecksumCRC32C == nil {
		return errors.New("an object put with a CRC32C has none")
	}
	up, err := p.c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String("m"),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32c, ChecksumType: types.ChecksumTypeFullObject})
	if err != nil {
		return err
	}
	defer p.c.AbortMultipartUpload(context.WithoutCancel(ctx), &s3.AbortMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String("m"), UploadId: up.UploadId})
	part, err := p.c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(p.bucket), Key: aws.String("m"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("x"), ContentLength: aws.Int64(1), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32c})
	if err != nil {
		return err
	}
	if part.ChecksumCRC32C == nil {
		return errors.New("an UploadPart with a CRC32C does not answer with it")
	}
	return nil
}

func probeDefaultChecksums(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("x")); err != nil {
		return err
	}
	out, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k"), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		return err
	}
	// A CRC, which parts' CRCs combine into.
	for _, sum := range []*string{out.ChecksumCRC64NVME, out.ChecksumCRC32, out.ChecksumCRC32C} {
		if sum != nil && out.ChecksumType != types.ChecksumTypeComposite {
			return nil
		}
	}
	return fmt.Errorf("an object put without a checksum is headed with ETag %s and no CRC", aws.ToString(out.ETag))
}

func probeRequestChecksums(ctx context.Context, p *prober) error {
	// CRC32("y"): the payload's SHA-256 in the signature is right, only
	// the checksum is wrong.
	_, err := p.put(ctx, "k", []byte("x"), func(in *s3.PutObjectInput) { in.ChecksumCRC32 = aws.String("+9smFQ==") })
	if err := refused(err, "a put of \"x\" sent with the CRC32 of \"y\""); err != nil {
		return err
	}
	if _, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k")}); err == nil {
		return errors.New("a put refused for its checksum stored the object")
	}
	return nil
}

func probeMultipartETag(ctx context.Context, p *prober) error {
	parts := [][]byte{bytes.Repeat([]byte("p"), 5<<20), []byte("q")}
	var etag string
	err := p.withUpload(ctx, "m", func(id *string) error {
		var done []types.CompletedPart
		for i, b := range parts {
			out, err := p.c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(p.bucket), Key: aws.String("m"), UploadId: id,
				PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b)))})
			if err != nil {
				return err
			}
			done = append(done, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.ETag})
		}
		out, err := p.c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String("m"), UploadId: id,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
		if err != nil {
			return err
		}
		etag = strings.Trim(aws.ToString(out.ETag), `"`)
		return nil
	})
	if err != nil {
		return err
	}
	var sums []byte
	for _, b := range parts {
		s := md5.Sum(b)
		sums = append(sums, s[:]...)
	}
	want := fmt.Sprintf("%x-2", md5.Sum(sums))
	if etag != want {
		return fmt.Errorf("a two-part upload has ETag %q, not %q", etag, want)
	}
	head, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("m")})
	if err != nil {
		return err
	}
	if got := strings.Trim(aws.ToString(head.ETag), `"`); got != want {
		return fmt.Errorf("a two-part upload is headed with ETag %q, not %q", got, want)
	}
	return nil
}

func probeFreshChecksums(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("x"), func(in *s3.PutObjectInput) { in.ChecksumAlgorithm = types.ChecksumAlgorithmCrc32c }); err != nil {
		return err
	}
	if _, err := p.put(ctx, "k", []byte("y")); err != nil {
		return err
	}
	out, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k"), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		return err
	}
	// CRC32C("y"), as S3 would compute it for the new object if at all.
	if got := aws.ToString(out.ChecksumCRC32C); got != "" && got != "W1fckA==" {
		return fmt.Errorf("an object overwritten without a checksum keeps CRC32C %s", got)
	}
	return nil
}

func probeSSES3(ctx context.Context, p *prober) error {
	_, err := p.put(ctx, "k", []byte("x"), func(in *s3.PutObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 })
	return err
}

func probeSSEKMS(ctx context.Context, p *prober) error {
	_, err := p.put(ctx, "k", []byte("x"), func(in *s3.PutObjectInput) {
		in.ServerSideEncryption = types.ServerSideEncryptionAwsKms
		in.SSEKMSKeyId = aws.String("alias/s3bulk-test")
	})
	return err
}

// ssec sets a fixed SSE-C key on a request's three fields.
func ssec(alg, key, md **string) {
	k := bytes.Repeat([]byte("k"), 32)
	sum := md5.Sum(k)
	*alg, *key, *md = aws.String("AES256"), aws.String(base64.StdEncoding.EncodeToString(k)), aws.String(base64.StdEncoding.EncodeToString(sum[:]))
}

func probeSSEC(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("x"), func(in *s3.PutObjectInput) {
		ssec(&in.SSECustomerAlgorithm, &in.SSECustomerKey, &in.SSECustomerKeyMD5)
	}); err != nil {
		return err
	}
	in := &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k")}
	ssec(&in.SSECustomerAlgorithm, &in.SSECustomerKey, &in.SSECustomerKeyMD5)
	_, err := p.c.HeadObject(ctx, in)
	return err
}

func probeSSECPartCopy(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("xyz"), func(in *s3.PutObjectInput) {
		ssec(&in.SSECustomerAlgorithm, &in.SSECustomerKey, &in.SSECustomerKeyMD5)
	}); err != nil {
		return err
	}
	in := &s3.CreateMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String("c")}
	ssec(&in.SSECustomerAlgorithm, &in.SSECustomerKey, &in.SSECustomerKeyMD5)
	up, err := p.c.CreateMultipartUpload(ctx, in)
	if err != nil {
		return err
	}
	defer p.c.AbortMultipartUpload(context.WithoutCancel(ctx), &s3.AbortMultipartUploadInput{Bucket: aws.String(p.bucket), Key: aws.String("c"), UploadId: up.UploadId})
	pc := &s3.UploadPartCopyInput{Bucket: aws.String(p.bucket), Key: aws.String("c"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), CopySource: aws.String(p.bucket + "/k"), CopySourceRange: aws.String("bytes=0-1")}
	ssec(&pc.SSECustomerAlgorithm, &pc.SSECustomerKey, &pc.SSECustomerKeyMD5)
	ssec(&pc.CopySourceSSECustomerAlgorithm, &pc.CopySourceSSECustomerKey, &pc.CopySourceSSECustomerKeyMD5)
	_, err = p.c.UploadPartCopy(ctx, pc)
	return err
}

func probeBackslashKeys(ctx context.Context, p *prober) error {
	_, err := p.put(ctx, `..\k`, []byte("x"))
	return err
}

func probeNoAutoCreate(ctx context.Context, p *prober) error {
	missing := p.bucket + "-missing"
	_, err := p.c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(missing), Key: aws.String("k"), Body: strings.NewReader("x")})
	if err == nil {
		_ = removeBucket(ctx, p.c, missing)
	}
	return refused(err, "a put into a missing bucket")
}

func probePrefixesVanish(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "d/k", []byte("x")); err != nil {
		return err
	}
	if _, err := p.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("d/k")}); err != nil {
		return err
	}
	out, err := p.c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(p.bucket), Delimiter: aws.String("/")})
	if err != nil {
		return err
	}
	if len(out.CommonPrefixes) != 0 {
		return fmt.Errorf("after its last key is deleted, %q is still listed", aws.ToString(out.CommonPrefixes[0].Prefix))
	}
	return nil
}

func probeRanges(ctx context.Context, p *prober) error {
	if _, err := p.put(ctx, "k", []byte("xyz")); err != nil {
		return err
	}
	out, err := p.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("k"), Range: aws.String("bytes=0-0")})
	if err != nil {
		return err
	}
	defer out.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(out.Body); err != nil {
		return err
	}
	if b.String() != "x" {
		return fmt.Errorf("a GET of bytes=0-0 answers %q", b.String())
	}
	return nil
}

func probeListing(ctx context.Context, p *prober) error {
	for _, k := range []string{"a/b", "a-b", "a.b"} {
		if _, err := p.put(ctx, k, []byte("x")); err != nil {
			return err
		}
	}
	var keys []string
	pages := s3.NewListObjectsV2Paginator(p.c, &s3.ListObjectsV2Input{Bucket: aws.String(p.bucket), MaxKeys: aws.Int32(2)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("a listing in pages of 2: %w", err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	if got := strings.Join(keys, " "); got != "a-b a.b a/b" {
		return fmt.Errorf("a listing in pages of 2 gives %q", got)
	}
	return nil
}

func probeOddKeys(ctx context.Context, p *prober) error {
	const key = "a+b=c?"
	if _, err := p.put(ctx, key, []byte("x")); err != nil {
		return err
	}
	out, err := p.c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(p.bucket)})
	if err != nil {
		return err
	}
	if len(out.Contents) != 1 || aws.ToString(out.Contents[0].Key) != key {
		return fmt.Errorf("%q is listed as %v", key, out.Contents)
	}
	_, err = p.c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(p.bucket), Key: aws.String("c"), CopySource: aws.String(p.bucket + "/a%2Bb%3Dc%3F")})
	if err != nil {
		return fmt.Errorf("a copy from %q: %w", key, err)
	}
	return nil
}

// short says what a server answered in a few words: its error code and
// status rather than the SDK's whole story.
func short(err error) string {
	var apiErr smithy.APIError
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &apiErr) && errors.As(err, &re) {
		return fmt.Sprintf("%s, status %d", apiErr.ErrorCode(), re.HTTPStatusCode())
	}
	return err.Error()
}

func probeHealthPath(ctx context.Context, p *prober) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.s.Endpoint+gateway.HealthPath, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s without credentials answers %s", gateway.HealthPath, resp.Status)
	}
	return nil
}
