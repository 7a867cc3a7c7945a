package batchops

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// BucketRegion finds the region of bucket: the x-amz-bucket-region header of
// HeadBucket, which S3 sends even with a redirect or a 403, else
// GetBucketLocation. A copy job must be created in its destination bucket's
// region (Batch Operations user guide, "Copy objects": "You must create your
// Batch Operations Copy jobs in the destination Region"), so this is asked
// rather than assumed.
func BucketRegion(ctx context.Context, c *s3.Client, bucket string) (string, error) {
	out, herr := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
	if herr == nil && aws.ToString(out.BucketRegion) != "" {
		return aws.ToString(out.BucketRegion), nil
	}
	// A bucket of another region answers 301, and a bucket the caller may
	// not read 403, both with the header.
	var re *smithyhttp.ResponseError
	if errors.As(herr, &re) && re.Response != nil {
		if r := re.Response.Header.Get("X-Amz-Bucket-Region"); r != "" {
			return r, nil
		}
	}
	loc, lerr := c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String(bucket)})
	if lerr != nil {
		return "", fmt.Errorf("find the region of s3://%s: %w", bucket, errors.Join(herr, lerr))
	}
	switch r := string(loc.LocationConstraint); r {
	case "":
		// GetBucketLocation's name for us-east-1.
		return "us-east-1", nil
	case "EU":
		return "eu-west-1", nil
	default:
		return r, nil
	}
}
