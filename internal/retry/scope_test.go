package retry

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/s3bulk/s3bulk/store"
)

func TestStopsRun(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"bad credentials", fmt.Errorf("copy: %w", store.ErrInvalidCredentials), true},
		{"a missing bucket", fmt.Errorf("list: %w", store.ErrBucketNotFound), true},
		{"an endpoint that never answered", fmt.Errorf("head: %w", store.ErrUnreachable), true},
		{"a wrong region (301)", apiErr("HeadObject", 301, "PermanentRedirect"), true},
		{"a cancelled run is the caller's to explain", fmt.Errorf("%w: %w", store.ErrBucketNotFound, context.Canceled), false},
		{"access denied is the object's: a policy may deny one key", apiErr("PutObject", 403, "AccessDenied"), false},
		{"access denied as a sentinel alike", fmt.Errorf("put: %w", store.ErrAccessDenied), false},
		{"a full disk is each file's own", &os.PathError{Op: "write", Path: "f", Err: syscall.ENOSPC}, false},
		{"a missing key", apiErr("HeadObject", 404, "NoSuchKey"), false},
		{"a server error after its retries (the streak's to judge)", apiErr("PutObject", 500, "InternalError"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StopsRun(tt.err); got != tt.want {
				t.Errorf("StopsRun(%v) = %v; want %v", tt.err, got, tt.want)
			}
		})
	}
}
