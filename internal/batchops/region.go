package batchops

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/s3bulk/s3bulk/store/s3store"
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

// ForBucket returns a client for the jobs that copy into bucket: in the
// bucket's region, which it asks S3 for (BucketRegion), since a copy job
// must be created in its destination's region. note is told when that is
// not c's own region.
func (c *Client) ForBucket(ctx context.Context, s3c *s3.Client, bucket string, note func(string)) (*Client, error) {
	region, err := BucketRegion(ctx, s3c, bucket)
	if err != nil {
		return nil, err
	}
	if c.Region() != "" && c.Region() != region {
		note(fmt.Sprintf("note: s3://%s is in %s, not %s: the job is created there", bucket, region, c.Region()))
	}
	return c.ForRegion(region), nil
}

// LoadAWSConfig loads the AWS configuration of S3 Control and STS:
// s3store's loader with cfg filled in from getenv (s3store.Config.WithEnv).
// As the SDK reads it, the environment's global endpoint
// (AWS_ENDPOINT_URL) is every service's, S3 Control's too, unless the
// environment says to ignore configured endpoints.
func LoadAWSConfig(ctx context.Context, cfg s3store.Config, getenv func(string) string) (aws.Config, error) {
	c, err := s3store.LoadAWSConfig(ctx, cfg.WithEnv(getenv))
	if err != nil {
		return c, err
	}
	if ep := getenv("AWS_ENDPOINT_URL"); ep != "" && s3store.EnvEndpointURL(getenv) != "" {
		c.BaseEndpoint = &ep
	}
	return c, nil
}
