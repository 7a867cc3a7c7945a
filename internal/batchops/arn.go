package batchops

import (
	"regexp"
	"strings"
)

// partitions maps region names to their ARN partition, as the SDK's
// endpoint rules do (aws-sdk-go-v2 internal/endpoints/awsrulesfn,
// partitions.json). Order matters: us-gov- and us-iso- regions would
// otherwise match the commercial pattern's "us-".
var partitions = []struct {
	id string
	re *regexp.Regexp
}{
	{"aws-us-gov", regexp.MustCompile(`^us-gov-\w+-\d+$`)},
	{"aws-iso", regexp.MustCompile(`^us-iso-\w+-\d+$`)},
	{"aws-iso-b", regexp.MustCompile(`^us-isob-\w+-\d+$`)},
	{"aws-iso-e", regexp.MustCompile(`^eu-isoe-\w+-\d+$`)},
	{"aws-iso-f", regexp.MustCompile(`^us-isof-\w+-\d+$`)},
	{"aws-eusc", regexp.MustCompile(`^eusc-(de)-\w+-\d+$`)},
	{"aws-cn", regexp.MustCompile(`^cn-\w+-\d+$`)},
	{"aws", regexp.MustCompile(`^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$`)},
}

// Partition is the ARN partition of region: "aws", "aws-cn", "aws-us-gov"...
// An unknown or empty region is in "aws", as the SDK assumes.
func Partition(region string) string {
	for _, p := range partitions {
		if p.re.MatchString(region) {
			return p.id
		}
	}
	return "aws"
}

// BucketARN is the ARN of bucket in partition ("" means "aws").
func BucketARN(partition, bucket string) string {
	if partition == "" {
		partition = "aws"
	}
	return "arn:" + partition + ":s3:::" + bucket
}

// bucketFromARN returns the bucket an S3 bucket ARN names, in any partition.
func bucketFromARN(arn string) string {
	rest, ok := strings.CutPrefix(arn, "arn:")
	if !ok {
		return arn
	}
	_, rest, ok = strings.Cut(rest, ":s3:::")
	if !ok {
		return arn
	}
	return rest
}
