package batchops

import (
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/s3url"
)

func TestBlockers(t *testing.T) {
	tests := []struct {
		name, src, dst string
		want           string // a fragment of the only reason; "" for none
	}{
		{"a bucket to a bucket is a job's copy", "s3://src", "s3://dst", ""},
		{"a bucket into a destination prefix is a job's copy", "s3://src/", "s3://dst/copy/", ""},
		{"a top-level wildcard keeps whole keys either way", "s3://src/*.json", "s3://dst/", ""},
		{"a source prefix would be kept by a job but dropped by cp", "s3://src/logs/", "s3://dst/archive/", `drops "logs/"`},
		{"a wildcard below a prefix would be kept too", "s3://src/logs/2026-*/*.json", "s3://dst/", `drops "logs/"`},
		{"a local source cannot be a job", "./photos", "s3://dst/", "the source is local"},
		{"a local destination cannot be a job", "s3://src", "out/", "the destination is local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, dst := locs(t, tt.src, tt.dst)
			got := Blockers(src, dst)
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("Blockers = %q, want none", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("Blockers = %q, want one saying %q", got, tt.want)
			}
		})
	}
}

func TestDestKeyKeepsTheWholeSourceKey(t *testing.T) {
	tests := []struct{ src, dst, key, want string }{
		{"s3://src/logs/", "s3://dst/archive/", "logs/a b.json", "archive/logs/a b.json"},
		{"s3://src/logs", "s3://dst/archive", "logs/2026/a.json", "archive/logs/2026/a.json"},
		{"s3://src", "s3://dst", "a.json", "a.json"},
		{"s3://src/logs/2026-*/*.json", "s3://dst/x/", "logs/2026-01/a.json", "x/logs/2026-01/a.json"},
		{"s3://src/*.json", "s3://dst", "a.json", "a.json"},
	}
	for _, tt := range tests {
		src, dst := locs(t, tt.src, tt.dst)
		if got, err := DestKey(src, dst, tt.key); err != nil || got != tt.want {
			t.Errorf("DestKey(%s, %s, %q) = %q, %v; want %q", tt.src, tt.dst, tt.key, got, err, tt.want)
		}
	}
}

// locs parses a source and a destination.
func locs(t *testing.T, src, dst string) (s3url.Location, s3url.Location) {
	t.Helper()
	s, err := s3url.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s3url.Parse(dst)
	if err != nil {
		t.Fatal(err)
	}
	return s, d
}
