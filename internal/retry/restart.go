package retry

import (
	"context"
	"errors"

	"github.com/aws/smithy-go"

	"github.com/s3bulk/s3bulk/store"
)

// restartCodes are the S3 error codes that mean the object, not the
// request, failed, in a way a fresh attempt at the whole object can fix.
var restartCodes = map[string]bool{
	// The source changed under a conditional read or copy (If-Match).
	"PreconditionFailed": true,
	// The multipart upload vanished mid-transfer: aborted by a lifecycle
	// rule (AbortIncompleteMultipartUpload) or by another client.
	"NoSuchUpload": true,
	// A part named at completion is not the one the upload holds: another
	// client wrote the same part number of the same upload.
	"InvalidPart": true,
	// The body arrived damaged every time it was sent: read again from
	// the source, it may not be.
	"BadDigest":                   true,
	"XAmzContentChecksumMismatch": true,
}

// Restart reports whether err, the failure of one object after its
// requests' own retries, is one that starting the object's whole transfer
// over can fix: its source changed while it was read (a conditional read or
// copy failed, a local file was rewritten), its multipart upload vanished,
// or its bytes did not match their checksum or ETag on the way.
//
// Nothing else is restarted. A failure the same request gets again (access
// denied, no such key, a bad request, a key that names no file) or one
// every object shares (Fatal: credentials, the bucket, a full disk) would
// fail the same way; a transient one (Retryable, Throttled) has already
// had its retries, and restarting the object would only multiply them; a
// cancelled or timed-out task is over.
func Restart(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if Classify(err) == Fatal {
		return false
	}
	if errors.Is(err, store.ErrPreconditionFailed) || errors.Is(err, store.ErrNoSuchUpload) ||
		errors.Is(err, store.ErrChecksumMismatch) {
		return true
	}
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && restartCodes[apiErr.ErrorCode()]
}
