package s3store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// MaxPresignExpiry is the longest a SigV4 presigned URL can be valid.
const MaxPresignExpiry = 7 * 24 * time.Hour

// Presign returns a URL that lets anyone holding it GET key (or, with put,
// PUT a body to key) until expires from now, with no credentials of their
// own. It is signed locally: no request is sent, so a URL for a missing
// object or bucket is made all the same. The URL is a bearer credential;
// it is never logged.
func (s *Store) Presign(ctx context.Context, key string, put bool, expires time.Duration) (string, error) {
	if expires <= 0 || expires > MaxPresignExpiry {
		return "", fmt.Errorf("presign %s: expiry %v is not within 1s to 7 days", s.URL(key), expires)
	}
	pc := s3.NewPresignClient(s.c.s3, func(o *s3.PresignOptions) {
		o.Expires = expires
		o.ClientOptions = append(o.ClientOptions, s.optFns...)
		o.ClientOptions = append(o.ClientOptions, func(o *s3.Options) {
			// The client's middleware counts and retries requests sent;
			// presigning sends none (and has no retry step to follow).
			o.APIOptions = nil
		})
	})
	var url string
	if put {
		req, err := pc.PresignPutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(s.bucket), Key: aws.String(key), RequestPayer: s.payer,
		})
		if err != nil {
			return "", wrap(err, "presign put", s.URL(key))
		}
		url = req.URL
	} else {
		req, err := pc.PresignGetObject(ctx, &s3.GetObjectInput{
			Bucket: aws.String(s.bucket), Key: aws.String(key), RequestPayer: s.payer,
		})
		if err != nil {
			return "", wrap(err, "presign get", s.URL(key))
		}
		url = req.URL
	}
	return url, nil
}
