package s3store

import (
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
)

// Options are settings of one bucket's requests, applied by the Store to
// every request it sends (see Store.WithOptions), so that callers such as
// the engine need not know about them. The zero value changes nothing.
type Options struct {
	// Region, when set, is the region this bucket's requests are signed
	// for and sent to, instead of the client's: a bucket in another
	// region. A server-side copy is a request to the destination bucket,
	// so it goes to the destination store's region.
	Region string
	// RequestPayer sends x-amz-request-payer: requester with every request
	// (Requester Pays buckets), listings and deletes included.
	RequestPayer bool
	// SSE is the server-side encryption of objects written ("AES256" or
	// "aws:kms"), and SSEKMSKeyID the KMS key for "aws:kms". They go on
	// PutObject, CreateMultipartUpload and CopyObject.
	SSE         string
	SSEKMSKeyID string
	// ACL is the canned ACL of objects written ("private",
	// "bucket-owner-full-control", ...).
	ACL string
	// SSECustomerKey is the 32-byte key (SSE-C, AES256) of this bucket's
	// objects: sent on every request that reads or writes their content
	// (HeadObject, GetObject, PutObject, the multipart requests,
	// CopyObject's destination).
	SSECustomerKey []byte
	// CopySourceSSECustomerKey is the 32-byte SSE-C key of the source
	// objects of server-side copies into this bucket (CopyObject and
	// UploadPartCopy).
	CopySourceSSECustomerKey []byte
	// ObjectLock is the Object Lock settings of objects written
	// (PutObject, CreateMultipartUpload, CopyObject), where the
	// Metadata written with them sets none of their own. The bucket
	// must have Object Lock (ObjectLockEnabled).
	ObjectLock store.ObjectLock
}

// CannedACLs are the canned ACLs an object can be written with.
var CannedACLs = []string{
	"private", "public-read", "public-read-write", "authenticated-read",
	"aws-exec-read", "bucket-owner-read", "bucket-owner-full-control",
}

// SSECustomerKeySize is the size of an SSE-C key: AES-256.
const SSECustomerKeySize = 32

// WithOptions returns a store for the same bucket whose requests carry o.
// It makes no request. The keys in o must be 32 bytes; they are never
// logged nor put in errors.
func (s *Store) WithOptions(o Options) (*Store, error) {
	switch o.SSE {
	case "", string(s3types.ServerSideEncryptionAes256), string(s3types.ServerSideEncryptionAwsKms):
	default:
		return nil, fmt.Errorf("server-side encryption %q: want AES256 or aws:kms", o.SSE)
	}
	if o.SSEKMSKeyID != "" && o.SSE != string(s3types.ServerSideEncryptionAwsKms) {
		return nil, fmt.Errorf("a KMS key id needs server-side encryption aws:kms")
	}
	if o.ACL != "" && !slices.Contains(CannedACLs, o.ACL) {
		return nil, fmt.Errorf("canned ACL %q: want one of %v", o.ACL, CannedACLs)
	}
	if err := checkLock(o.ObjectLock); err != nil {
		return nil, err
	}
	n := &Store{c: s.c, bucket: s.bucket, opts: o}
	var err error
	if n.ssec, err = newCustomerKey(o.SSECustomerKey); err != nil {
		return nil, fmt.Errorf("SSE-C key: %w", err)
	}
	if n.srcSSEC, err = newCustomerKey(o.CopySourceSSECustomerKey); err != nil {
		return nil, fmt.Errorf("SSE-C key of the copy source: %w", err)
	}
	if o.RequestPayer {
		n.payer = s3types.RequestPayerRequester
	}
	if o.Region != "" {
		region := o.Region
		n.optFns = []func(*s3.Options){func(so *s3.Options) { so.Region = region }}
	}
	return n, nil
}

// Options returns the options the store's requests carry.
func (s *Store) Options() Options { return s.opts }

// region is the region the store's requests are signed for.
func (s *Store) region() string {
	if s.opts.Region != "" {
		return s.opts.Region
	}
	return s.c.region
}

// customerKey is an SSE-C key in the form S3's headers carry it: the key
// and the MD5 of the key, both base64.
type customerKey struct {
	alg, key, md5 *string
}

func newCustomerKey(k []byte) (*customerKey, error) {
	if k == nil {
		return nil, nil
	}
	if len(k) != SSECustomerKeySize {
		return nil, fmt.Errorf("the key has %d bytes, want %d", len(k), SSECustomerKeySize)
	}
	sum := md5.Sum(k)
	return &customerKey{
		alg: aws.String(string(s3types.ServerSideEncryptionAes256)),
		key: aws.String(base64.StdEncoding.EncodeToString(k)),
		md5: aws.String(base64.StdEncoding.EncodeToString(sum[:])),
	}, nil
}

// fields returns the algorithm, key and key MD5 to set on an SDK input;
// all nil without a key.
func (k *customerKey) fields() (alg, key, md5 *string) {
	if k == nil {
		return nil, nil, nil
	}
	return k.alg, k.key, k.md5
}

// encryption returns the SSE fields of a write.
func (s *Store) encryption() (s3types.ServerSideEncryption, *string) {
	return s3types.ServerSideEncryption(s.opts.SSE), optional(s.opts.SSEKMSKeyID)
}
