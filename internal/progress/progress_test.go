package progress

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

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
		{"a verbose skip goes to stderr with its reason", engine.Result{Task: engine.Task{Op: engine.OpSkip, Src: "s3://a/k", Reason: "exists"}, Status: engine.StatusSkipped}, false, "", "SKIP s3://a/k: exists\n"},
		{"a copy prints source and destination", engine.Result{Task: engine.Task{Op: engine.OpCopy, Src: "s3://a/k", Dst: "s3://b/k"}, Status: engine.StatusDone}, false, "cp s3://a/k s3://b/k\n", ""},
		{"a move is mv", engine.Result{Task: engine.Task{Op: engine.OpCopy, Src: "s3://a/k", Dst: "s3://b/k", DeleteSource: true}, Status: engine.StatusDone}, false, "mv s3://a/k s3://b/k\n", ""},
		{"a delete has no trailing space", engine.Result{Task: engine.Task{Op: engine.OpDelete, Src: "s3://a/k"}, Status: engine.StatusDone}, false, "rm s3://a/k\n", ""},
		{"a dry run says so", engine.Result{Task: engine.Task{Op: engine.OpUpload, Src: "x", Dst: "s3://b/x"}, Status: engine.StatusDryRun}, false, "DRY-RUN cp x s3://b/x\n", ""},
		{"a skip is counted, not printed", engine.Result{Task: engine.Task{Op: engine.OpSkip, Src: "s3://a/k", Reason: "exists"}, Status: engine.StatusSkipped}, false, "", ""},
		{"a failure goes to stderr", engine.Result{Task: engine.Task{Op: engine.OpCopy}, Status: engine.StatusFailed, Err: errors.New("copy s3://a/k to s3://b/k: slow down")}, false, "", "ERROR copy s3://a/k to s3://b/k: slow down\n"},
		{"quiet prints only failures", engine.Result{Task: engine.Task{Op: engine.OpCopy, Src: "s3://a/k", Dst: "s3://b/k"}, Status: engine.StatusDone}, true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			l := &Lines{Out: &out, ErrOut: &errOut, Quiet: tt.quiet, Verbose: strings.HasPrefix(tt.name, "a verbose")}
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

func TestSkipsAreToldInOneLine(t *testing.T) {
	skip := func(reason string) engine.Result {
		return engine.Result{Task: engine.Task{Op: engine.OpSkip, Src: "s3://a/k", Reason: reason}, Status: engine.StatusSkipped}
	}
	tests := []struct {
		name    string
		reasons []string
		want    string
	}{
		{"no skips, no line", nil, ""},
		{"one reason", []string{"done in journal", "done in journal", "done in journal"}, "skipped 3 objects: done in journal (--verbose lists them)\n"},
		{"one object", []string{"directory marker"}, "skipped 1 object: directory marker (--verbose lists them)\n"},
		{"reasons in the order first seen, details grouped", []string{"done in journal", "cannot compare checksums: x", "cannot compare checksums: y", "done in journal"},
			"skipped 4 objects: 2 done in journal, 2 cannot compare checksums (--verbose lists them)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			l := &Lines{Out: &out, ErrOut: &errOut}
			for _, r := range tt.reasons {
				l.Result(skip(r))
			}
			if errOut.Len() != 0 {
				t.Errorf("skips printed before the end: %q", errOut.String())
			}
			l.Skips()
			if diff := cmp.Diff(tt.want, errOut.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAFailureEndsWithWhatToDo(t *testing.T) {
	var out, errOut bytes.Buffer
	l := &Lines{Out: &out, ErrOut: &errOut, Explain: func(error) string { return "create it with `s3bulk mb s3://b`" }}
	l.Result(engine.Result{Task: engine.Task{Op: engine.OpCopy}, Status: engine.StatusFailed, Err: errors.New("copy s3://a/k to s3://b/k: no such bucket")})
	if want := "ERROR copy s3://a/k to s3://b/k: no such bucket; create it with `s3bulk mb s3://b`\n"; errOut.String() != want {
		t.Errorf("got %q, want %q", errOut.String(), want)
	}
}

func TestSummaryText(t *testing.T) {
	sec := func(s float64) (time.Duration, float64) { return time.Duration(s * float64(time.Second)), s }
	el, secs := sec(20)
	tests := []struct {
		name string
		s    engine.Summary
		verb string
		want string
	}{
		{"one big object has a byte rate, not an object rate",
			engine.Summary{Objects: 1, Bytes: 3 << 30, Elapsed: el, Seconds: secs}, "copied",
			"copied 1 object, 3.0 GiB in 20.00s: 153.60 MiB/s; 0 failed, 0 skipped"},
		{"many small objects have both",
			engine.Summary{Objects: 5000, Bytes: 5000 * 100 << 10, Elapsed: el, Seconds: secs}, "copied",
			"copied 5,000 objects, 488.3 MiB in 20.00s: 24.41 MiB/s, 250.0 objects/s; 0 failed, 0 skipped"},
		{"a sync tells copies and deletes apart",
			engine.Summary{Objects: 4012, Deleted: 4000, Bytes: 12 << 20, Skipped: 3, Elapsed: el, Seconds: secs}, "copied",
			"copied 12 objects, 12.0 MiB in 20.00s: 0.60 MiB/s, 0.6 objects/s; deleted 4,000 objects; 0 failed, 3 skipped"},
		{"a sync that only deleted still says it copied nothing",
			engine.Summary{Objects: 4, Deleted: 4, Elapsed: el, Seconds: secs}, "copied",
			"copied 0 objects, 0 B in 20.00s; deleted 4 objects; 0 failed, 0 skipped"},
		{"rm tells its deletes with their rate",
			engine.Summary{Objects: 4000, Deleted: 4000, Failed: 2, Elapsed: el, Seconds: secs}, "",
			"deleted 4,000 objects in 20.00s: 200.0 objects/s; 2 failed, 0 skipped"},
		{"a move says moved",
			engine.Summary{Objects: 2, Bytes: 2048, Elapsed: el, Seconds: secs}, "moved",
			"moved 2 objects, 2.0 KiB in 20.00s: 0.00 MiB/s, 0.1 objects/s; 0 failed, 0 skipped"},
		{"objects started over are told after the failures",
			engine.Summary{Objects: 3, Bytes: 3 << 20, Failed: 1, Restarted: 2, Elapsed: el, Seconds: secs}, "copied",
			"copied 3 objects, 3.0 MiB in 20.00s: 0.15 MiB/s, 0.1 objects/s; 1 failed, 0 skipped, 2 restarted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summaryText(tt.s, tt.verb)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBarTextTellsFailuresAndRestarts(t *testing.T) {
	s := engine.Snapshot{Planned: 10, PlanComplete: true, Done: 7, Failed: 1, Restarted: 2, Bytes: 7 << 20, RemainingBytes: 2 << 20,
		Seconds: 7, Limit: 64, InFlight: 3}
	left, right := BarText(s)
	if want := "8/10 objects"; left != want {
		t.Errorf("left %q, want %q", left, want)
	}
	if want := "7.0 MiB/9.0 MiB  1.0 MiB/s  ETA 2s  1 obj/s  1 failed  2 restarted  in-flight 3/64"; right != want {
		t.Errorf("right %q, want %q", right, want)
	}
}

func TestCount(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4000: "-4,000"} {
		if got := Count(in); got != want {
			t.Errorf("Count(%d) = %q, want %q", in, got, want)
		}
	}
}
