package s3store

import (
	"errors"
	"fmt"
	"net"
	"strings"

	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/s3bulk/s3bulk/store"
)

// Error is a failed S3 operation. It wraps both the store sentinel that
// matches the failure (when one does) and the SDK's error, so that
// errors.Is(err, store.ErrNotFound) and internal/retry.Classify (which reads
// the typed SDK error) both work on the same value.
type Error struct {
	Op  string // lower-case verb: "head", "get", "copy", "upload part", ...
	URL string // the object or bucket acted on: "s3://bucket/key"
	Src string // the copy source, for copies
	// Code and Status are the S3 error code and HTTP status, when the
	// server answered.
	Code   string
	Status int
	// Attempts is how many HTTP attempts were made, when the retryer gave up.
	Attempts int
	Sentinel error // a store sentinel, or nil
	Err      error // the SDK's error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteByte(' ')
	if e.Src != "" {
		b.WriteString(e.Src)
		b.WriteString(" to ")
	}
	b.WriteString(e.URL)
	b.WriteString(": ")
	var apiErr smithy.APIError
	switch {
	case e.Sentinel != nil:
		b.WriteString(e.Sentinel.Error())
		if e.Code != "" {
			fmt.Fprintf(&b, " (%s)", e.Code)
		} else if e.Err != nil {
			b.WriteString(": ")
			b.WriteString(describe(e.Err))
		}
	case errors.As(e.Err, &apiErr):
		b.WriteString(apiErr.ErrorCode())
		if m := apiErr.ErrorMessage(); m != "" && m != apiErr.ErrorCode() {
			b.WriteString(": ")
			b.WriteString(m)
		}
	default:
		b.WriteString(describe(e.Err))
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ", status %d", e.Status)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, ", after %d attempts", e.Attempts)
	}
	return b.String()
}

// Unwrap exposes both the sentinel and the SDK error to errors.Is and
// errors.As.
func (e *Error) Unwrap() []error {
	if e.Sentinel == nil {
		return []error{e.Err}
	}
	return []error{e.Sentinel, e.Err}
}

// describe drops the SDK's "operation error S3: GetObject, exceeded maximum
// number of attempts, 10," preamble, which Error already says better.
func describe(err error) string {
	// Only the outermost layers: an OperationError deeper down (from the
	// credentials' own clients, say) is part of the story.
	if opErr, ok := err.(*smithy.OperationError); ok {
		err = opErr.Err
	}
	if maxErr, ok := err.(*awsretry.MaxAttemptsError); ok {
		err = maxErr.Err
	}
	// A request that never got an answer: the network's own words say it
	// all ("dial tcp 10.0.0.1:443: connect: connection refused"); the
	// SDK's wrapping around them ("https response error StatusCode: 0,
	// RequestID: , HostID: , request send failed, Get ...") says nothing.
	var sendErr *smithyhttp.RequestSendError
	var netErr *net.OpError
	if errors.As(err, &sendErr) && errors.As(err, &netErr) {
		return netErr.Error()
	}
	return err.Error()
}

// codeSentinels maps S3 error codes to store sentinels.
var codeSentinels = map[string]error{
	"NoSuchKey":             store.ErrNotFound,
	"NotFound":              store.ErrNotFound,
	"NoSuchBucket":          store.ErrBucketNotFound,
	"AccessDenied":          store.ErrAccessDenied,
	"Forbidden":             store.ErrAccessDenied,
	"AllAccessDisabled":     store.ErrAccessDenied,
	"PreconditionFailed":    store.ErrPreconditionFailed,
	"NoSuchUpload":          store.ErrNoSuchUpload,
	"InvalidAccessKeyId":    store.ErrInvalidCredentials,
	"SignatureDoesNotMatch": store.ErrInvalidCredentials,
	"InvalidClientTokenId":  store.ErrInvalidCredentials,
	"ExpiredToken":          store.ErrInvalidCredentials,
	"InvalidToken":          store.ErrInvalidCredentials,
	"TokenRefreshRequired":  store.ErrInvalidCredentials,
	// versitygw's answer (404) to an access key it does not know.
	"XAdminUserNotFound": store.ErrInvalidCredentials,
	// The server's checksum of a body differs from the one sent.
	"BadDigest":                   store.ErrChecksumMismatch,
	"XAmzContentChecksumMismatch": store.ErrChecksumMismatch,
	"XAmzContentSHA256Mismatch":   store.ErrChecksumMismatch, // a signed payload's
	"BucketAlreadyOwnedByYou":     store.ErrExists,
	"BucketAlreadyExists":         store.ErrExists,
	"NotImplemented":              store.ErrNotImplemented,
	"MethodNotAllowed":            store.ErrNotImplemented,
}

// statusSentinels is the fallback for responses without a code.
var statusSentinels = map[int]error{
	403: store.ErrAccessDenied,
	404: store.ErrNotFound,
	405: store.ErrNotImplemented,
	412: store.ErrPreconditionFailed,
	501: store.ErrNotImplemented,
}

// wrap turns an SDK error into an *Error; nil stays nil. op and url name
// what was attempted for the message.
func wrap(err error, op, url string) error {
	if err == nil {
		return nil
	}
	e := &Error{Op: op, URL: url, Err: err}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		e.Code = apiErr.ErrorCode()
		e.Sentinel = codeSentinels[e.Code]
	}
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) {
		e.Status = status.HTTPStatusCode()
		if e.Sentinel == nil && (e.Code == "" || e.Code == "UnknownError") {
			e.Sentinel = statusSentinels[e.Status]
		}
	}
	var maxErr *awsretry.MaxAttemptsError
	if errors.As(err, &maxErr) {
		e.Attempts = maxErr.Attempt
	}
	return e
}
