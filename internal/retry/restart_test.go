package retry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/s3bulk/s3bulk/store"
)

func TestRestart(t *testing.T) {
	// What a local store returns for a file rewritten while it was read:
	// its own words, and the sentinel.
	changedFile := fmt.Errorf("get a.txt: the file changed while it was read: %w", store.ErrPreconditionFailed)
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"a source changed under If-Match is restarted", apiErr("UploadPartCopy", 412, "PreconditionFailed"), true},
		{"a source changed, as a store sentinel, is restarted", fmt.Errorf("read part 2: %w", store.ErrPreconditionFailed), true},
		{"a local file rewritten while it was read is restarted", changedFile, true},
		{"a vanished multipart upload is restarted", apiErr("UploadPart", 404, "NoSuchUpload"), true},
		{"a vanished upload, as a store sentinel, is restarted", fmt.Errorf("part 3: %w", store.ErrNoSuchUpload), true},
		{"a part another client replaced is restarted", apiErr("CompleteMultipartUpload", 400, "InvalidPart"), true},
		{"bytes that did not match their checksum are restarted", fmt.Errorf("get: %w", store.ErrChecksumMismatch), true},
		{"a body damaged on every send is restarted", apiErr("PutObject", 400, "BadDigest"), true},
		{"a body whose checksum header differs is restarted", apiErr("UploadPart", 400, "XAmzContentChecksumMismatch"), true},

		{"access denied is not restarted", apiErr("GetObject", 403, "AccessDenied"), false},
		{"a denied local file is not restarted", &os.PathError{Op: "open", Path: "f", Err: syscall.EACCES}, false},
		{"a missing key is not restarted", apiErr("GetObject", 404, "NoSuchKey"), false},
		{"a missing key, as a store sentinel, is not restarted", fmt.Errorf("head: %w", store.ErrNotFound), false},
		{"a missing local file is not restarted", &os.PathError{Op: "open", Path: "f", Err: syscall.ENOENT}, false},
		{"a missing bucket is not restarted", apiErr("PutObject", 404, "NoSuchBucket"), false},
		{"bad credentials are not restarted", apiErr("PutObject", 403, "InvalidAccessKeyId"), false},
		{"a bad request is not restarted", apiErr("PutObject", 400, "InvalidArgument"), false},
		{"a part too small is not restarted", apiErr("CompleteMultipartUpload", 400, "EntityTooSmall"), false},
		{"an unsafe key is not restarted", fmt.Errorf("put ../x: %w", store.ErrUnsafeKey), false},
		{"an existing destination is not restarted", fmt.Errorf("put x: %w", store.ErrExists), false},
		{"a server without the operation is not restarted", fmt.Errorf("copy part: %w", store.ErrNotImplemented), false},
		{"a full disk is not restarted", &os.PathError{Op: "write", Path: "f", Err: syscall.ENOSPC}, false},
		{"throttling, after its retries, is not restarted", apiErr("GetObject", 503, "SlowDown"), false},
		{"a server error, after its retries, is not restarted", apiErr("GetObject", 500, "InternalError"), false},
		{"a reset connection, after its retries, is not restarted", fmt.Errorf("read: %w", syscall.ECONNRESET), false},
		{"a cancelled run is not restarted", fmt.Errorf("part 1: %w", context.Canceled), false},
		{"a cancelled run that also failed a check is not restarted", errors.Join(context.Canceled, store.ErrChecksumMismatch), false},
		{"a task that ran out of time is not restarted", fmt.Errorf("get: %w", context.DeadlineExceeded), false},
		{"an error nobody understands is not restarted", errors.New("something odd"), false},
		{"nil is not restarted", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Restart(tt.err); got != tt.want {
				t.Errorf("Restart(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
