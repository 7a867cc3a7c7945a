package progress

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/store"
)

func TestVerifyPrintsFindingsAndASummary(t *testing.T) {
	t.Parallel()
	f := diff.Finding{Type: diff.FindingMissing, Key: "a", Src: "s3://b/a", Reason: "not in the destination (1 B)"}
	sum := diff.CheckStats{Source: 1, Missing: 1}
	tests := []struct {
		name              string
		v                 Verify
		out, errOut       string
		summaryIsJSONLine bool
	}{
		{"text", Verify{}, "MISSING s3://b/a: not in the destination (1 B)\n", VerifyText(sum) + "\n", false},
		{"quiet keeps the findings", Verify{Quiet: true}, "MISSING s3://b/a: not in the destination (1 B)\n", "", false},
		{"JSON", Verify{JSON: true}, `"type":"missing"`, "{", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			v := tt.v
			v.Out, v.Err = &out, &errOut
			if err := v.Finding(f); err != nil {
				t.Fatal(err)
			}
			v.Summary(sum, 1.5)
			if !strings.Contains(out.String(), tt.out) {
				t.Errorf("stdout %q, want %q", out.String(), tt.out)
			}
			if tt.summaryIsJSONLine {
				if !strings.HasPrefix(errOut.String(), "{") || strings.Count(errOut.String(), "\n") != 1 {
					t.Errorf("stderr %q, want one JSON line", errOut.String())
				}
			} else if errOut.String() != tt.errOut {
				t.Errorf("stderr %q, want %q", errOut.String(), tt.errOut)
			}
		})
	}
}

func TestUploadsUploadAndAborted(t *testing.T) {
	t.Parallel()
	u := store.Upload{Key: "k", UploadID: "id", Initiated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	var out, errOut bytes.Buffer
	p := &Uploads{Out: &out, ErrOut: &errOut}
	if err := p.Upload("b", u); err != nil {
		t.Fatal(err)
	}
	p.Aborted("b", engine.UploadResult{Upload: u, Status: engine.StatusDone})
	p.Aborted("b", engine.UploadResult{Upload: u, Status: engine.StatusFailed, Err: errors.New("denied")})
	if !strings.HasSuffix(out.String(), "  id  s3://b/k\nabort s3://b/k id\n") {
		t.Errorf("stdout %q", out.String())
	}
	if errOut.String() != "ERROR abort s3://b/k (upload id): denied\n" {
		t.Errorf("stderr %q", errOut.String())
	}
}
