package cli

import (
	"bytes"
	"testing"

	"github.com/s3bulk/s3bulk/engine"
)

func TestWarnEmptySaysARecursiveRunFoundNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		planOnly bool
		sum      engine.Summary
		filtered bool
		want     string
	}{
		{"nothing under the prefix", false, engine.Summary{}, false, "warning: no object under s3://b/p/\n"},
		{"nothing kept by the filters", false, engine.Summary{Skipped: 3}, true, "warning: no object under s3://b/p/ is kept by the filters\n"},
		{"something planned", false, engine.Summary{Planned: 1}, false, ""},
		{"something failed", false, engine.Summary{Failed: 1}, false, ""},
		{"a plan printed says nothing", true, engine.Summary{}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			a := &app{stdio: Stdio{Err: &b}, planOnly: tt.planOnly}
			a.warnEmpty("s3://b/p/", tt.sum, tt.filtered)
			if b.String() != tt.want {
				t.Errorf("%q, want %q", b.String(), tt.want)
			}
		})
	}
}
