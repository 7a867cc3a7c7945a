package progress

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
)

func TestLines(t *testing.T) {
	tests := []struct {
		name        string
		r           engine.Result
		quiet       bool
		out, errOut string
	}{
		{"a copy prints source and destination", engine.Result{Task: engine.Task{Op: engine.OpCopy, Src: "s3://a/k", Dst: "s3://b/k"}, Status: engine.StatusDone}, false, "cp s3://a/k s3://b/k\n", ""},
		{"a move is mv", engine.Result{Task: engine.Task{Op: engine.OpCopy, Src: "s3://a/k", Dst: "s3://b/k", DeleteSource: true}, Status: engine.StatusDone}, false, "mv s3://a/k s3://b/k\n", ""},
		{"a delete has no trailing space", engine.Result{Task: engine.Task{Op: engine.OpDelete, Src: "s3://a/k"}, Status: engine.StatusDone}, false, "rm s3://a/k\n", ""},
		{"a dry run says so", engine.Result{Task: engine.Task{Op: engine.OpUpload, Src: "x", Dst: "s3://b/x"}, Status: engine.StatusDryRun}, false, "DRY-RUN cp x s3://b/x\n", ""},
		{"a skip goes to stderr with its reason", engine.Result{Task: engine.Task{Op: engine.OpSkip, Src: "s3://a/k", Reason: "exists"}, Status: engine.StatusSkipped}, false, "", "SKIP s3://a/k: exists\n"},
		{"a failure goes to stderr", engine.Result{Task: engine.Task{Op: engine.OpCopy}, Status: engine.StatusFailed, Err: errors.New("copy s3://a/k to s3://b/k: slow down")}, false, "", "ERROR copy s3://a/k to s3://b/k: slow down\n"},
		{"quiet prints only failures", engine.Result{Task: engine.Task{Op: engine.OpCopy, Src: "s3://a/k", Dst: "s3://b/k"}, Status: engine.StatusDone}, true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			l := &Lines{Out: &out, ErrOut: &errOut, Quiet: tt.quiet}
			l.Result(tt.r)
			if diff := cmp.Diff(tt.out, out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.errOut, errOut.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHumanBytes(t *testing.T) {
	for in, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 5 << 30: "5.0 GiB", 1536 << 20: "1.5 GiB"} {
		if got := HumanBytes(in); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", in, got, want)
		}
	}
}
