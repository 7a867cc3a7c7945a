package engine

import (
	"errors"
	"testing"
)

func TestNewBudgets(t *testing.T) {
	tests := []struct {
		name                string
		cfg                 Config
		wantLimit, wantCeil int
		wantPhase           string
	}{
		{"no number: found by measuring from 256 up to 4,096", Config{}, 256, 4096, "grow"},
		{"no number, a ceiling: up to it", Config{MaxConcurrency: 1000}, 256, 1000, "grow"},
		{"a ceiling below the start: fixed at the ceiling", Config{MaxConcurrency: 100}, 100, 100, "fixed"},
		{"Concurrency fixes the number", Config{Concurrency: 64}, 64, 64, "fixed"},
		{"Concurrency fixes the number above the default ceiling too", Config{Concurrency: 8000}, 8000, 8000, "fixed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(tt.cfg)
			l := e.lim
			if l.Limit() != tt.wantLimit || l.Ceiling() != tt.wantCeil || l.Phase() != tt.wantPhase {
				t.Errorf("limit %d, ceiling %d, phase %s; want %d, %d, %s", l.Limit(), l.Ceiling(), l.Phase(), tt.wantLimit, tt.wantCeil, tt.wantPhase)
			}
			if e.Concurrency() != tt.wantLimit || e.MaxConcurrency() != tt.wantCeil {
				t.Errorf("Concurrency %d, MaxConcurrency %d; want %d, %d", e.Concurrency(), e.MaxConcurrency(), tt.wantLimit, tt.wantCeil)
			}
			if got := e.streams.Limit(); got != DefaultPartStreams {
				t.Errorf("part streams start at %d, want %d", got, DefaultPartStreams)
			}
		})
	}
	if got := New(Config{PartStreams: 3}).streams.Limit(); got != 3 {
		t.Errorf("PartStreams 3: %d part streams", got)
	}
	if got := New(Config{}).buffers.Total(); got != DefaultMaxBufferBytes {
		t.Errorf("byte budget %d, want %d", got, DefaultMaxBufferBytes)
	}
}

type nilJournal struct{ Journal }

func TestANilJournalPointerIsNoJournal(t *testing.T) {
	var j *nilJournal
	e := New(Config{}).newExecutor(Job{}, Options{Journal: j})
	if e.opts.Journal != nil {
		t.Error("a nil *T journal is kept: every call on it would crash")
	}
}

func TestTaskErrorSaysHowOftenTheObjectWasRestarted(t *testing.T) {
	cause := errors.New("get s3://a/k: checksum mismatch")
	tests := []struct {
		name string
		err  *TaskError
		want string
	}{
		{"tried once", &TaskError{Op: "download", Src: "s3://a/k", Dst: "k", Attempts: 1, Err: cause},
			"download s3://a/k to k: get s3://a/k: checksum mismatch"},
		{"attempts unknown (a caller's own TaskError)", &TaskError{Op: "download", Src: "s3://a/k", Dst: "k", Err: cause},
			"download s3://a/k to k: get s3://a/k: checksum mismatch"},
		{"restarted twice", &TaskError{Op: "download", Src: "s3://a/k", Dst: "k", Attempts: 3, Err: cause},
			"download s3://a/k to k: get s3://a/k: checksum mismatch (restarted 2 times, then gave up)"},
		{"restarted once, no destination", &TaskError{Op: "delete", Src: "s3://a/k", Attempts: 2, Err: cause},
			"delete s3://a/k: get s3://a/k: checksum mismatch (restarted once, then gave up)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
