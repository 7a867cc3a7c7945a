package units

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"24h", 24 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"7d", 7 * 24 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{"0d", 0, true},
		{"1ns", 1, true},
		{"", 0, false},
		{"d", 0, false},
		{"-1h", 0, false},
		{"1d-1h", 0, false},
		{"+1d", 0, false},
		{"1w", 0, false},
		{"1.5d", 0, false},
		{"99999999999d", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAge(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("ParseAge(%q) = %v, %v; want %v, ok %t", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"24h", "7d", "1d12h30m", "1.5h", "-3s", "0", "100000d2562047h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseAge(s)
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("ParseAge(%q) = %v: negative", s, d)
		}
		// Whatever parses prints as a Go duration that parses back.
		if back, err := ParseAge(d.String()); err != nil || back != d {
			t.Fatalf("ParseAge(%q) = %v, but ParseAge(%q) = %v, %v", s, d, d.String(), back, err)
		}
	})
}
