package engine_test

import (
	"testing"

	"github.com/s3bulk/s3bulk/engine"
)

func TestNewLimiter(t *testing.T) {
	tests := []struct {
		name                string
		fixed, ceiling      int
		wantLimit, wantCeil int
		wantPhase           string
	}{
		{"no number: found by measuring from 256 up to 4,096", 0, 0, 256, 4096, "grow"},
		{"no number, a ceiling: up to it", 0, 1000, 256, 1000, "grow"},
		{"a ceiling below the start: fixed at the ceiling", 0, 100, 100, 100, "fixed"},
		{"--concurrency fixes the number", 64, 0, 64, 64, "fixed"},
		{"--concurrency fixes the number above the default ceiling too", 8000, 0, 8000, 8000, "fixed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := engine.NewLimiter(tt.fixed, tt.ceiling)
			if l.Limit() != tt.wantLimit || l.Ceiling() != tt.wantCeil || l.Phase() != tt.wantPhase {
				t.Errorf("limit %d, ceiling %d, phase %s; want %d, %d, %s", l.Limit(), l.Ceiling(), l.Phase(), tt.wantLimit, tt.wantCeil, tt.wantPhase)
			}
		})
	}
}
