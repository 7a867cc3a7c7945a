package cli

import (
	"fmt"
	"testing"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

func TestExplainSaysWhatToDoAboutAnObjectThatFailedEveryRestart(t *testing.T) {
	changed := fmt.Errorf("get f: the file changed while it was read: %w", store.ErrPreconditionFailed)
	damaged := fmt.Errorf("get s3://b/k: %w", store.ErrChecksumMismatch)
	task := func(attempts int, err error) error {
		return &engine.TaskError{Op: "upload", Src: "f", Dst: "s3://b/f", Attempts: attempts, Err: err}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a source that kept changing", task(3, changed), "the source kept changing while it was read: copy it again once nothing writes to it"},
		{"bytes damaged on every attempt", task(3, damaged), "its bytes arrived damaged on every attempt: check the network and any proxy on the way"},
		{"a source changed, not restarted (restarts off), says nothing more", task(1, changed), ""},
		{"bytes damaged, not restarted, say nothing more", task(1, damaged), ""},
		{"another failure after restarts says nothing more", task(3, fmt.Errorf("get: %w", store.ErrAccessDenied)), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := explain(tt.err); got != tt.want {
				t.Errorf("explain(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}
