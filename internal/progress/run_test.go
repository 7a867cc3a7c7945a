package progress

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/engine"
)

func TestRunOutputRendersLinesOrJSONAndCountsSkipsAtTheEnd(t *testing.T) {
	t.Parallel()
	done := engine.Result{Task: engine.Task{Op: engine.OpCopy, Src: "s3://a/k", Dst: "s3://b/k"}, Status: engine.StatusDone}
	skip := engine.Result{Task: engine.Task{Op: engine.OpSkip, Src: "s3://a/s", Reason: "exists"}, Status: engine.StatusSkipped}
	fail := engine.Result{Task: engine.Task{Op: engine.OpCopy}, Status: engine.StatusFailed, Err: errors.New("copy s3://a/f to s3://b/f: slow down")}
	explain := func(error) string { return "try later" }
	tests := []struct {
		name        string
		o           RunOutput
		out, errOut string // parts of each, in order
	}{
		{"lines", RunOutput{Explain: explain}, "cp s3://a/k s3://b/k\n", "ERROR copy s3://a/f to s3://b/f: slow down; try later\n"},
		{"quiet lines print only failures", RunOutput{Quiet: true}, "", "ERROR copy s3://a/f to s3://b/f: slow down\n"},
		{"verbose lines print each skip", RunOutput{Verbose: true}, "cp s3://a/k s3://b/k\n", "SKIP s3://a/s: exists\n"},
		{"JSON lines all go to stdout", RunOutput{JSON: true}, `"status":"done"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			tt.o.Out, tt.o.Err = &out, &errOut
			r := tt.o.Start(&engine.Progress{})
			for _, res := range []engine.Result{done, skip, fail} {
				r.Result(res)
			}
			r.Stop()
			if !strings.Contains(out.String(), tt.out) {
				t.Errorf("stdout %q, want it to hold %q", out.String(), tt.out)
			}
			if !strings.Contains(errOut.String(), tt.errOut) {
				t.Errorf("stderr %q, want it to hold %q", errOut.String(), tt.errOut)
			}
			if tt.o.JSON && errOut.Len() != 0 {
				t.Errorf("JSON: stderr %q", errOut.String())
			}
		})
	}
}
