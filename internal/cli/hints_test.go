package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// The engine names no flag; the CLI's messages still say which flag fixes
// what, word for word as before the engine stopped naming them.
func TestEngineErrorsGetTheirFlagHints(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a missing exact key", &engine.NoMatchError{URL: "s3://b/k", Exact: true}, "no object matches s3://b/k (for a prefix use --recursive)"},
		{"a missing file keeps its own hint", &engine.NoMatchError{URL: "f", Exact: true, Hint: "no such file or directory"}, "no object matches f (no such file or directory)"},
		{"a wildcard that matched nothing", &engine.NoMatchError{URL: "s3://b/*.x"}, "no object matches s3://b/*.x"},
		{"a prefix without --recursive", fmt.Errorf("copy s3://b/p/: %w", engine.ErrPrefix), "copy s3://b/p/: is a prefix or directory: use --recursive or a wildcard"},
		{"a remove of a prefix", &engine.FatalError{Op: "list", URL: "s3://b/p/", Err: engine.ErrPrefix}, "list s3://b/p/: is a prefix or directory: use --recursive or a wildcard"},
		{"a stream past 10,000 parts", &engine.TaskError{Op: "upload", Src: "-", Dst: "s3://b/k", Err: &engine.PartsLimitError{Size: 42}}, "upload - to s3://b/k: the stream is longer than 10000 parts (42 bytes so far): give a larger --part-size"},
		{"a server without the upload's checksums", &engine.TaskError{Op: "upload", Src: "f", Dst: "s3://b/k", Err: fmt.Errorf("complete multipart upload s3://b/k: the server gave no CRC32C of part 2: %w", store.ErrChecksumsUnsupported)},
			"upload f to s3://b/k: complete multipart upload s3://b/k: the server gave no CRC32C of part 2: the server cannot keep the upload's checksums: --checksum-when-required uploads without checksums"},
		{"anything else is left alone", errors.New("slow down"), "slow down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := flagHints(tt.err).Error(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	if flagHints(nil) != nil {
		t.Error("flagHints(nil) is not nil")
	}
	var fe *engine.FatalError
	if !errors.As(flagHints(&engine.FatalError{Op: "list", URL: "u", Err: engine.ErrPrefix}), &fe) {
		t.Error("a hinted error no longer unwraps to its cause: its exit code would change")
	}
	r := withFlagHints(engine.Result{Status: engine.StatusSkipped, Task: engine.Task{Reason: engine.ReasonExists}})
	if r.Task.Reason != "destination exists (--no-clobber)" {
		t.Errorf("no-clobber skip reason %q", r.Task.Reason)
	}
}
