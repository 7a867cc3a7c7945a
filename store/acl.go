package store

import "context"

// OwnershipEnforced is the Object Ownership setting of a bucket whose
// objects carry no ACL grants (ACLs disabled, S3's default for buckets
// made since April 2023).
const OwnershipEnforced = "BucketOwnerEnforced"

// OwnershipReader is implemented by stores whose bucket says whether its
// objects can carry ACL grants: S3's Object Ownership setting
// (GetBucketOwnershipControls), one request.
type OwnershipReader interface {
	// ObjectOwnership returns the bucket's setting: OwnershipEnforced
	// (ACLs disabled), "BucketOwnerPreferred" or "ObjectWriter" (ACLs
	// enabled), or "" when the bucket has none (a bucket made before
	// Object Ownership: ACLs enabled). A server without the setting gives
	// an error wrapping ErrNotImplemented.
	ObjectOwnership(ctx context.Context) (string, error)
}
