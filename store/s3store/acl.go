package s3store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3bulk/s3bulk/store"
)

// ObjectOwnership returns the bucket's Object Ownership setting
// (GetBucketOwnershipControls), "" when it has none.
func (s *Store) ObjectOwnership(ctx context.Context) (string, error) {
	out, err := s.c.s3.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: aws.String(s.bucket)}, s.optFns...)
	if err != nil {
		if isCode(err, "OwnershipControlsNotFoundError") {
			return "", nil
		}
		return "", wrap(err, "get ownership controls of", "s3://"+s.bucket)
	}
	if c := out.OwnershipControls; c != nil && len(c.Rules) > 0 {
		return string(c.Rules[0].ObjectOwnership), nil
	}
	return "", nil
}

var _ store.OwnershipReader = (*Store)(nil)
