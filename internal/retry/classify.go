package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/aws/smithy-go"

	"github.com/s3bulk/s3bulk/store"
)

// Class is what a caller should do about a failed request.
type Class int

const (
	// None is the class of a nil error.
	None Class = iota
	// Retryable: a transient failure; the same request can succeed later.
	Retryable
	// Throttled: the server asked us to slow down; retry later and lower the
	// run's concurrency.
	Throttled
	// Permanent: this request will keep failing, but other objects may not.
	Permanent
	// Fatal: every request of the run would fail the same way.
	Fatal
)

func (c Class) String() string {
	switch c {
	case None:
		return "none"
	case Retryable:
		return "retryable"
	case Throttled:
		return "throttled"
	case Permanent:
		return "permanent"
	case Fatal:
		return "fatal"
	}
	return "unknown"
}

// Retry reports whether the request is worth sending again.
func (c Class) Retry() bool { return c == Retryable || c == Throttled }

// codes maps S3 (and generic AWS) error codes to a class. The code decides
// when the server sent one; the HTTP status is only the fallback, because the
// same status means different things (403 is a bad signature or a denied key;
// 404 is a missing key or a missing bucket).
var codes = map[string]Class{
	// The server asks us to slow down.
	"SlowDown":                               Throttled,
	"ServiceUnavailable":                     Throttled,
	"Throttling":                             Throttled,
	"ThrottlingException":                    Throttled,
	"ThrottledException":                     Throttled,
	"RequestThrottled":                       Throttled,
	"RequestThrottledException":              Throttled,
	"TooManyRequests":                        Throttled,
	"TooManyRequestsException":               Throttled,
	"RequestLimitExceeded":                   Throttled,
	"BandwidthLimitExceeded":                 Throttled,
	"LimitExceededException":                 Throttled,
	"ProvisionedThroughputExceededException": Throttled,
	"PriorRequestNotComplete":                Throttled,
	"EC2ThrottledException":                  Throttled,

	// Transient server or transport trouble.
	"InternalError":             Retryable,
	"InternalServerError":       Retryable,
	"BadGateway":                Retryable,
	"GatewayTimeout":            Retryable,
	"RequestTimeout":            Retryable,
	"RequestTimeoutException":   Retryable,
	"OperationAborted":          Retryable, // a conflicting operation on the same key is in progress
	"BadDigest":                 Retryable, // the body was damaged on the way; send it again
	"XAmzContentSHA256Mismatch": Retryable,
	"IncompleteBody":            Retryable,
	"TemporaryRedirect":         Retryable,
	"IDPCommunicationError":     Retryable,

	// The run cannot succeed: credentials, bucket, region, clock.
	"InvalidAccessKeyId":                    Fatal,
	"SignatureDoesNotMatch":                 Fatal,
	"InvalidClientTokenId":                  Fatal,
	"UnrecognizedClientException":           Fatal,
	"ExpiredToken":                          Fatal,
	"ExpiredTokenException":                 Fatal,
	"InvalidToken":                          Fatal,
	"TokenRefreshRequired":                  Fatal,
	"MissingSecurityHeader":                 Fatal,
	"AuthorizationHeaderMalformed":          Fatal, // signed for the wrong region
	"AuthorizationQueryParametersError":     Fatal,
	"PermanentRedirect":                     Fatal, // bucket lives in another region
	"MovedPermanently":                      Fatal, // same, as a HEAD reports it (no body)
	"IllegalLocationConstraintException":    Fatal,
	"RequestTimeTooSkewed":                  Fatal, // the SDK already retried with a corrected clock
	"NoSuchBucket":                          Fatal,
	"InvalidBucketName":                     Fatal,
	"AccountProblem":                        Fatal,
	"AllAccessDisabled":                     Fatal,
	"NotSignedUp":                           Fatal,
	"InvalidAccessPointArn":                 Fatal,
	"UnauthorizedAccess":                    Fatal,
	"InvalidSecurity":                       Fatal,
	"CredentialsNotSupported":               Fatal,
	"AuthorizationHeaderMalformedException": Fatal,
	"XAdminUserNotFound":                    Fatal, // versitygw: unknown access key (a 404)

	// This object or request is wrong; others may be fine.
	"AccessDenied":            Permanent, // a policy may deny one key and allow the rest
	"Forbidden":               Permanent, // 403 on HEAD, which has no body to name the cause
	"NoSuchKey":               Permanent,
	"NotFound":                Permanent,
	"NoSuchUpload":            Permanent,
	"NoSuchVersion":           Permanent,
	"PreconditionFailed":      Permanent,
	"InvalidRange":            Permanent,
	"EntityTooSmall":          Permanent,
	"EntityTooLarge":          Permanent,
	"InvalidPart":             Permanent,
	"InvalidPartOrder":        Permanent,
	"InvalidArgument":         Permanent,
	"InvalidRequest":          Permanent,
	"InvalidObjectState":      Permanent,
	"InvalidDigest":           Permanent,
	"InvalidStorageClass":     Permanent,
	"KeyTooLongError":         Permanent,
	"MetadataTooLarge":        Permanent,
	"MalformedXML":            Permanent,
	"MissingContentLength":    Permanent,
	"MethodNotAllowed":        Permanent,
	"NotImplemented":          Permanent,
	"BucketAlreadyExists":     Permanent,
	"BucketAlreadyOwnedByYou": Permanent,
	"BucketNotEmpty":          Permanent,
}

// Classify decides what to do about err, a failed request on one object.
// See the package documentation for what each class asks of the caller.
func Classify(err error) Class {
	if err == nil {
		return None
	}
	// The run is stopping; nothing is worth retrying.
	if errors.Is(err, context.Canceled) {
		return Fatal
	}
	if errors.Is(err, store.ErrInvalidCredentials) || errors.Is(err, store.ErrBucketNotFound) {
		return Fatal
	}
	// An error that says it may be retried is believed: the SDK marks a
	// request signed with a skewed clock this way after correcting the clock.
	var r interface{ RetryableError() bool }
	if errors.As(err, &r) && r.RetryableError() {
		return Retryable
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		if c, ok := codes[apiErr.ErrorCode()]; ok {
			return c
		}
	}
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() >= 300 {
		return classifyStatus(status.HTTPStatusCode())
	}
	if c, ok := classifyLocal(err); ok {
		return c
	}
	if c, ok := classifyNetwork(err); ok {
		return c
	}
	switch {
	case errors.Is(err, store.ErrAccessDenied),
		errors.Is(err, store.ErrNotFound),
		errors.Is(err, store.ErrPreconditionFailed),
		errors.Is(err, store.ErrNoSuchUpload),
		errors.Is(err, store.ErrChecksumMismatch),
		errors.Is(err, store.ErrUnsafeKey),
		errors.Is(err, store.ErrExists):
		return Permanent
	}
	// What we do not understand we do not retry: a retried bug only fails
	// more slowly.
	return Permanent
}

func classifyStatus(code int) Class {
	switch {
	case code == 301:
		return Fatal // wrong region or endpoint
	case code == 307:
		return Retryable
	case code == 401:
		return Fatal
	case code == 408:
		return Retryable
	case code == 429, code == 503:
		return Throttled
	case code == 501:
		return Permanent // the server does not implement this; it never will
	case code >= 500:
		return Retryable
	}
	return Permanent
}

// classifyLocal handles the errors of local files, which a local store
// returns next to the network errors of an S3 store.
func classifyLocal(err error) (Class, bool) {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), errors.Is(err, syscall.EROFS):
		return Fatal, true // every later write fails the same way
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return Throttled, true // too many open files: fewer at once helps
	case errors.Is(err, os.ErrPermission), errors.Is(err, os.ErrNotExist):
		return Permanent, true
	}
	return 0, false
}

func classifyNetwork(err error) (Class, bool) {
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalidCert) {
		return Fatal, true // the endpoint will not become trustworthy by retrying
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return Fatal, true // no such host: a wrong endpoint
		}
		return Retryable, true
	}
	switch {
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.ENETDOWN):
		return Retryable, true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Retryable, true // the connection ended mid-response
	case errors.Is(err, context.DeadlineExceeded):
		return Retryable, true
	}
	var conn interface{ ConnectionError() bool }
	if errors.As(err, &conn) && conn.ConnectionError() {
		return Retryable, true
	}
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return Retryable, true
	}
	return 0, false
}
