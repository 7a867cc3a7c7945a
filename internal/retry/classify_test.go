package retry

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"

	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/s3bulk/s3bulk/store"
)

// apiErr builds the error chain the SDK returns for an S3 error response:
// operation error -> response error (with status) -> API error (with code).
func apiErr(op string, status int, code string) error {
	resp := &smithyhttp.Response{Response: &http.Response{StatusCode: status, Header: http.Header{}}}
	var inner error = &smithy.GenericAPIError{Code: code, Message: "message for " + code}
	if code == "" {
		inner = errors.New("no body")
	}
	return &smithy.OperationError{
		ServiceID:     "S3",
		OperationName: op,
		Err: &awshttp.ResponseError{
			ResponseError: &smithyhttp.ResponseError{Response: resp, Err: inner},
			RequestID:     "req",
		},
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{"nil is none", nil, None},

		{"503 SlowDown is throttled", apiErr("PutObject", 503, "SlowDown"), Throttled},
		{"503 without a code is throttled", apiErr("HeadObject", 503, ""), Throttled},
		{"429 without a code is throttled", apiErr("GetObject", 429, ""), Throttled},
		{"Throttling code is throttled", apiErr("CopyObject", 400, "Throttling"), Throttled},
		{"RequestLimitExceeded is throttled", apiErr("CopyObject", 400, "RequestLimitExceeded"), Throttled},
		{"SlowDown inside a 200 copy response is throttled", apiErr("CopyObject", 500, "SlowDown"), Throttled},
		{"too many open files is throttled", &os.PathError{Op: "open", Path: "f", Err: syscall.EMFILE}, Throttled},

		{"500 InternalError is retryable", apiErr("UploadPartCopy", 500, "InternalError"), Retryable},
		{"502 without a code is retryable", apiErr("GetObject", 502, ""), Retryable},
		{"504 without a code is retryable", apiErr("GetObject", 504, ""), Retryable},
		{"RequestTimeout is retryable", apiErr("PutObject", 400, "RequestTimeout"), Retryable},
		{"BadDigest is retryable", apiErr("PutObject", 400, "BadDigest"), Retryable},
		{"OperationAborted is retryable", apiErr("PutObject", 409, "OperationAborted"), Retryable},
		{"connection reset is retryable", &url.Error{Op: "Get", URL: "u", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}, Retryable},
		{"broken pipe is retryable", &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, Retryable},
		{"connection refused is retryable", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, Retryable},
		{"a network timeout is retryable", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, Retryable},
		{"a truncated body is retryable", &smithy.DeserializationError{Err: fmt.Errorf("read body: %w", io.ErrUnexpectedEOF)}, Retryable},
		{"a request that could not be sent is retryable", &smithyhttp.RequestSendError{Err: errors.New("server closed idle connection")}, Retryable},
		{"a request deadline is retryable", fmt.Errorf("head: %w", context.DeadlineExceeded), Retryable},
		{"a temporary DNS failure is retryable", &net.DNSError{Err: "server misbehaving", Name: "s3", IsTemporary: true}, Retryable},
		{"an error that says it is retryable is retryable", retryableErr{}, Retryable},

		{"NoSuchKey is permanent", apiErr("GetObject", 404, "NoSuchKey"), Permanent},
		{"HEAD 404 is permanent", apiErr("HeadObject", 404, "NotFound"), Permanent},
		{"NoSuchUpload is permanent", apiErr("UploadPart", 404, "NoSuchUpload"), Permanent},
		{"PreconditionFailed is permanent", apiErr("UploadPartCopy", 412, "PreconditionFailed"), Permanent},
		{"AccessDenied on one object is permanent", apiErr("GetObject", 403, "AccessDenied"), Permanent},
		{"HEAD 403 is permanent", apiErr("HeadObject", 403, "Forbidden"), Permanent},
		{"EntityTooLarge is permanent", apiErr("CopyObject", 400, "EntityTooLarge"), Permanent},
		{"501 NotImplemented is permanent", apiErr("PutObject", 501, "NotImplemented"), Permanent},
		{"an unknown 4xx is permanent", apiErr("PutObject", 400, "SomethingNew"), Permanent},
		{"an unknown 5xx is retryable", apiErr("PutObject", 500, "SomethingNew"), Retryable},
		{"a missing local file is permanent", &os.PathError{Op: "open", Path: "f", Err: syscall.ENOENT}, Permanent},
		{"a local permission error is permanent", &os.PathError{Op: "open", Path: "f", Err: syscall.EACCES}, Permanent},
		{"store not found is permanent", fmt.Errorf("head x: %w", store.ErrNotFound), Permanent},
		{"store precondition failed is permanent", fmt.Errorf("get x: %w", store.ErrPreconditionFailed), Permanent},
		{"an unknown error is permanent", errors.New("something odd"), Permanent},
		{"a message that names SlowDown is not trusted", errors.New("api error SlowDown: Please reduce your request rate"), Permanent},
		{"a message that says connection reset is not trusted", errors.New("read tcp: connection reset by peer"), Permanent},

		{"InvalidAccessKeyId is fatal", apiErr("ListObjectsV2", 403, "InvalidAccessKeyId"), Fatal},
		{"SignatureDoesNotMatch is fatal", apiErr("PutObject", 403, "SignatureDoesNotMatch"), Fatal},
		{"ExpiredToken is fatal", apiErr("PutObject", 400, "ExpiredToken"), Fatal},
		{"versitygw's unknown access key is fatal", apiErr("PutObject", 404, "XAdminUserNotFound"), Fatal},
		{"NoSuchBucket is fatal", apiErr("ListObjectsV2", 404, "NoSuchBucket"), Fatal},
		{"AuthorizationHeaderMalformed is fatal", apiErr("ListObjectsV2", 400, "AuthorizationHeaderMalformed"), Fatal},
		{"PermanentRedirect is fatal", apiErr("ListObjectsV2", 301, "PermanentRedirect"), Fatal},
		{"HEAD 301 is fatal", apiErr("HeadObject", 301, "MovedPermanently"), Fatal},
		{"301 without a code is fatal", apiErr("HeadBucket", 301, ""), Fatal},
		{"RequestTimeTooSkewed is fatal", apiErr("PutObject", 403, "RequestTimeTooSkewed"), Fatal},
		{"a cancelled run is fatal", &smithy.CanceledError{Err: context.Canceled}, Fatal},
		{"a cancelled run is fatal even under a retryable code", fmt.Errorf("%w: %w", context.Canceled, apiErr("GetObject", 503, "SlowDown")), Fatal},
		{"store invalid credentials is fatal", fmt.Errorf("list: %w", store.ErrInvalidCredentials), Fatal},
		{"store bucket not found is fatal", fmt.Errorf("list: %w", store.ErrBucketNotFound), Fatal},
		{"a full disk is fatal", &os.PathError{Op: "write", Path: "f", Err: syscall.ENOSPC}, Fatal},
		{"a read-only file system is fatal", &os.PathError{Op: "open", Path: "f", Err: syscall.EROFS}, Fatal},
		{"an untrusted certificate is fatal", &url.Error{Op: "Get", URL: "u", Err: x509.UnknownAuthorityError{}}, Fatal},
		{"an unknown host is fatal", &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}, Fatal},
		{"max attempts keeps the cause's class", &awsretry.MaxAttemptsError{Attempt: 10, Err: apiErr("PutObject", 503, "SlowDown")}, Throttled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.want {
				t.Errorf("Classify(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

type retryableErr struct{}

func (retryableErr) Error() string        { return "retry me" }
func (retryableErr) RetryableError() bool { return true }

func TestClassString(t *testing.T) {
	for c, want := range map[Class]string{None: "none", Retryable: "retryable", Throttled: "throttled", Permanent: "permanent", Fatal: "fatal", Class(99): "unknown"} {
		if got := c.String(); got != want {
			t.Errorf("Class(%d).String() = %q, want %q", int(c), got, want)
		}
	}
}
