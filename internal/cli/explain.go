package cli

import (
	"errors"
	"regexp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// explain says what a user can do about err, in a few words for the end of
// its line, or "" when the error says all there is.
func explain(err error) string {
	var se *s3store.Error
	code, bucket, op := "", "BUCKET", ""
	if errors.As(err, &se) {
		code, op = se.Code, se.Op
		if loc, perr := s3url.Parse(se.URL); perr == nil && loc.Bucket != "" {
			bucket = loc.Bucket
		}
	}
	var te *engine.TaskError
	restarted := errors.As(err, &te) && te.Attempts > 1
	switch {
	case restarted && errors.Is(err, store.ErrPreconditionFailed):
		return "the source kept changing while it was read: copy it again once nothing writes to it"
	case restarted && errors.Is(err, store.ErrChecksumMismatch):
		return "its bytes arrived damaged on every attempt: check the network and any proxy on the way"
	case errors.Is(err, store.ErrBucketNotFound) && op != "remove bucket":
		return "create it with `s3bulk mb s3://" + bucket + "`"
	case errors.Is(err, store.ErrUnreachable):
		return "is the endpoint running? (check --endpoint-url; `s3bulk serve` runs a local one)"
	case code == "BucketNotEmpty":
		return "empty it first with `s3bulk rm --recursive s3://" + bucket + "/`"
	case code == "AuthorizationHeaderMalformed", code == "PermanentRedirect", code == "MovedPermanently", code == "IllegalLocationConstraintException":
		if r := wantRegion.FindStringSubmatch(err.Error()); r != nil {
			return "use --region " + r[1]
		}
		return "the bucket is in another region: set --region (or AWS_REGION) to it"
	case errors.Is(err, store.ErrInvalidCredentials) && code != "":
		// The server refused the credentials (loading none says how to
		// set them itself).
		return "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or --profile, for this endpoint"
	}
	return ""
}

// wantRegion finds the region a server says it expects in its message
// (`the region "eu-west-1" is wrong; expecting "us-east-1"`). It only ever
// adds a hint; nothing is decided on it.
var wantRegion = regexp.MustCompile(`expecting ['"]([a-z0-9-]+)['"]`)
