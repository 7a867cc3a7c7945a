package retry

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBackoffCaps(t *testing.T) {
	// Rand returning n-1 exposes the cap of each attempt.
	top := func(n int64) int64 { return n - 1 }
	tests := []struct {
		name    string
		backoff Backoff
		class   Class
		want    []time.Duration // caps for attempts 1..len(want), less 1ns
	}{
		{
			name:    "retryable errors double from 100ms up to 20s",
			backoff: Backoff{Rand: top},
			class:   Retryable,
			want:    caps(100*time.Millisecond, 200*time.Millisecond, 400*time.Millisecond, 800*time.Millisecond, 1600*time.Millisecond, 3200*time.Millisecond, 6400*time.Millisecond, 12800*time.Millisecond, 20*time.Second, 20*time.Second),
		},
		{
			name:    "throttled errors start at a quarter second",
			backoff: Backoff{Rand: top},
			class:   Throttled,
			want:    caps(250*time.Millisecond, 500*time.Millisecond, time.Second, 2*time.Second, 4*time.Second, 8*time.Second, 16*time.Second, 20*time.Second),
		},
		{
			name:    "custom bases and ceiling apply",
			backoff: Backoff{Base: 10 * time.Millisecond, ThrottleBase: 50 * time.Millisecond, Max: 30 * time.Millisecond, Rand: top},
			class:   Retryable,
			want:    caps(10*time.Millisecond, 20*time.Millisecond, 30*time.Millisecond, 30*time.Millisecond),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []time.Duration
			for attempt := 1; attempt <= len(tt.want); attempt++ {
				got = append(got, tt.backoff.Delay(attempt, tt.class))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("delays (-want +got):\n%s", diff)
			}
		})
	}
}

func caps(ds ...time.Duration) []time.Duration {
	for i := range ds {
		ds[i]--
	}
	return ds
}

func TestBackoffIsFullJitter(t *testing.T) {
	// Rand returning 0 must give no wait at all: full jitter starts at zero,
	// unlike "equal jitter" which keeps half the cap.
	b := Backoff{Rand: func(int64) int64 { return 0 }}
	for attempt := 1; attempt <= 12; attempt++ {
		if d := b.Delay(attempt, Throttled); d != 0 {
			t.Fatalf("Delay(%d) with zero jitter = %v, want 0", attempt, d)
		}
	}
}

func TestBackoffStaysWithinCap(t *testing.T) {
	var b Backoff
	for attempt := 1; attempt <= 40; attempt++ {
		for range 50 {
			if d := b.Delay(attempt, Throttled); d < 0 || d >= 20*time.Second {
				t.Fatalf("Delay(%d) = %v, want in [0, 20s)", attempt, d)
			}
		}
	}
}
