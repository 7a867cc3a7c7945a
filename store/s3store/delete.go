package s3store

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// DeleteError is one key a DeleteObjects request could not delete.
type DeleteError struct {
	Key string
	Err error // an *Error; its Code is S3's per-key error code
}

// maxDeleteKeys is S3's limit of keys per DeleteObjects request.
const maxDeleteKeys = 1000

// DeleteObjects deletes keys from bucket, 1,000 per request, one request
// after another (callers wanting parallel requests call it from several
// goroutines with up to 1,000 keys each). Keys S3 could not delete come back
// as DeleteErrors; missing keys are not errors. The error is for a request
// that failed as a whole: the keys of that request and later ones were not
// attempted.
func (c *Client) DeleteObjects(ctx context.Context, bucket string, keys []string) ([]DeleteError, error) {
	return c.deleteObjects(ctx, bucket, keys, "", nil)
}

// deleteObjects is DeleteObjects with a store's request payer and
// per-request options.
func (c *Client) deleteObjects(ctx context.Context, bucket string, keys []string, payer s3types.RequestPayer, optFns []func(*s3.Options)) ([]DeleteError, error) {
	ids := make([]s3types.ObjectIdentifier, len(keys))
	for i, k := range keys {
		ids[i] = s3types.ObjectIdentifier{Key: aws.String(k)}
	}
	return c.deleteIDs(ctx, bucket, ids, payer, optFns)
}

// deleteIDs is deleteObjects of keys or of versions of keys (an
// identifier with a VersionId). A version that could not be deleted is
// named "key?versionId=ID" in its DeleteError.
func (c *Client) deleteIDs(ctx context.Context, bucket string, ids []s3types.ObjectIdentifier, payer s3types.RequestPayer, optFns []func(*s3.Options)) ([]DeleteError, error) {
	var failed []DeleteError
	for len(ids) > 0 {
		batch := ids[:min(len(ids), maxDeleteKeys)]
		ids = ids[len(batch):]
		out, err := c.s3.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: aws.String(bucket),
			// Quiet: the response lists only failures, not 1,000 successes.
			Delete:       &s3types.Delete{Objects: batch, Quiet: aws.Bool(true)},
			RequestPayer: payer,
		}, optFns...)
		if err != nil {
			return failed, wrap(err, "delete objects in", "s3://"+bucket)
		}
		for _, e := range out.Errors {
			code := aws.ToString(e.Code)
			if code == "NoSuchKey" || code == "NoSuchVersion" {
				continue
			}
			key := aws.ToString(e.Key)
			if v := aws.ToString(e.VersionId); v != "" {
				key += "?versionId=" + v
			}
			apiErr := &smithy.GenericAPIError{Code: code, Message: aws.ToString(e.Message)}
			failed = append(failed, DeleteError{Key: key, Err: wrap(apiErr, "delete", "s3://"+bucket+"/"+key)})
		}
	}
	return failed, nil
}

// isCode reports whether err carries the S3 error code.
func isCode(err error, code string) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == code
}
