package s3store

import (
	"context"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/store"
)

// GetWithMetadata opens the whole object, as Get does (resumed when the
// connection breaks, checked against its stored checksum or MD5 ETag), and
// returns the metadata of the GetObject response: a copy to another
// endpoint needs no HeadObject. With Config.ChecksumWhenRequired the bytes
// are not checked.
func (s *Store) GetWithMetadata(ctx context.Context, key, ifMatch string) (io.ReadCloser, store.Metadata, error) {
	r := &resumingReader{ctx: ctx, s: s, key: key, end: -1, etag: store.QuoteETag(ifMatch),
		verify: !s.c.checksumWhenRequired, whole: true}
	if err := r.open(); err != nil {
		return nil, store.Metadata{}, err
	}
	return r, r.meta, nil
}

// getMetadata is the metadata a GetObject response carries, as Head
// reports it.
func getMetadata(out *s3.GetObjectOutput) store.Metadata {
	return answeredMetadata{contentType: out.ContentType, contentEncoding: out.ContentEncoding, contentLanguage: out.ContentLanguage,
		cacheControl: out.CacheControl, contentDisposition: out.ContentDisposition, storageClass: out.StorageClass, user: out.Metadata,
		tagCount: out.TagCount, lockMode: out.ObjectLockMode, retainUntil: out.ObjectLockRetainUntilDate, legalHold: out.ObjectLockLegalHoldStatus,
		checksumType: out.ChecksumType, checksums: checksumFields{crc32: &out.ChecksumCRC32, crc32c: &out.ChecksumCRC32C,
			crc64nvme: &out.ChecksumCRC64NVME, sha1: &out.ChecksumSHA1, sha256: &out.ChecksumSHA256}}.metadata()
}

// headMetadata is the metadata a HeadObject response carries.
func headMetadata(out *s3.HeadObjectOutput) store.Metadata {
	return answeredMetadata{contentType: out.ContentType, contentEncoding: out.ContentEncoding, contentLanguage: out.ContentLanguage,
		cacheControl: out.CacheControl, contentDisposition: out.ContentDisposition, storageClass: out.StorageClass, user: out.Metadata,
		tagCount: out.TagCount, lockMode: out.ObjectLockMode, retainUntil: out.ObjectLockRetainUntilDate, legalHold: out.ObjectLockLegalHoldStatus,
		checksumType: out.ChecksumType, checksums: checksumFields{crc32: &out.ChecksumCRC32, crc32c: &out.ChecksumCRC32C,
			crc64nvme: &out.ChecksumCRC64NVME, sha1: &out.ChecksumSHA1, sha256: &out.ChecksumSHA256}}.metadata()
}
