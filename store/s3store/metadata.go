package s3store

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/store"
)

// metadataFields points at the fields of a write request (PutObject,
// CopyObject with a metadata directive of REPLACE, CreateMultipartUpload)
// that carry an object's metadata, but for its tags: a copy sends them by
// a directive of their own.
type metadataFields struct {
	contentType, contentEncoding, contentLanguage, cacheControl, contentDisposition **string

	storageClass *s3types.StorageClass
	user         *map[string]string
}

// set writes m into the request; an empty string is a header not sent.
func (f metadataFields) set(m store.Metadata) {
	*f.contentType = optional(m.ContentType)
	*f.contentEncoding = optional(m.ContentEncoding)
	*f.contentLanguage = optional(m.ContentLanguage)
	*f.cacheControl = optional(m.CacheControl)
	*f.contentDisposition = optional(m.ContentDisposition)
	*f.storageClass = s3types.StorageClass(m.StorageClass)
	*f.user = m.User
}

func optional(v string) *string {
	if v == "" {
		return nil
	}
	return aws.String(v)
}

// answeredMetadata is what a HeadObject or GetObject answer says of an
// object's metadata, in the SDK's fields.
type answeredMetadata struct {
	contentType, contentEncoding, contentLanguage, cacheControl, contentDisposition *string

	storageClass s3types.StorageClass
	user         map[string]string
	tagCount     *int32
	lockMode     s3types.ObjectLockMode
	retainUntil  *time.Time
	legalHold    s3types.ObjectLockLegalHoldStatus
	checksumType s3types.ChecksumType
	checksums    checksumFields
}

// metadata is the answer's store.Metadata, as Head reports it.
func (a answeredMetadata) metadata() store.Metadata {
	return store.Metadata{
		ContentType:        aws.ToString(a.contentType),
		ContentEncoding:    aws.ToString(a.contentEncoding),
		ContentLanguage:    aws.ToString(a.contentLanguage),
		CacheControl:       aws.ToString(a.cacheControl),
		ContentDisposition: aws.ToString(a.contentDisposition),
		StorageClass:       metadataClass(a.storageClass),
		User:               a.user,
		TagCount:           int(aws.ToInt32(a.tagCount)),
		Lock:               answeredLock(a.lockMode, a.retainUntil, a.legalHold),
		Checksum:           objectChecksum(a.checksumType, a.checksums),
	}
}
