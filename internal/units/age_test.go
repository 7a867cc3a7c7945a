package units

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

const day = 24 * time.Hour

func TestParseAge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"24h", 24 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"7d", 7 * day, true},
		{"1d12h", 36 * time.Hour, true},
		{"0d", 0, true},
		{"0", 0, true},
		{"1d0", day, true},
		{"1ns", 1, true},
		{"1.5h", 90 * time.Minute, true},
		{".5h", 30 * time.Minute, true},
		{"1.h", time.Hour, true},
		{"1w", 7 * day, true},
		{"2w", 14 * day, true},
		{"1.5d", 36 * time.Hour, true},
		{"12h1d", 36 * time.Hour, true},
		{"1d1d", 2 * day, true},
		{"1w2d3h4m5s6ms7us8µs9μs10ns", 9*day + 3*time.Hour + 4*time.Minute + 5*time.Second + 6*time.Millisecond + 24*time.Microsecond + 10, true},
		{"0.000000001s", 1, true},
		{"106751d23h47m16.854775807s", math.MaxInt64, true},
		{"2562047h47m16.854775807s", math.MaxInt64, true},
		{"", 0, false},
		{"d", 0, false},
		{"7", 0, false},
		{"00", 0, false},
		{".d", 0, false},
		{"1.2.3h", 0, false},
		{"7 days", 0, false},
		{"1y", 0, false},
		{"-1h", 0, false},
		{"-0s", 0, false},
		{"1d-1h", 0, false},
		{"+1d", 0, false},
		{"1d+1h", 0, false},
		{" 1d", 0, false},
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

func TestParseAgeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		tooLarge bool
	}{
		{"soon", `"soon": want an age such as 90m, 24h, 7d, 2w, 1.5d or 1d12h`, false},
		{"-1h", `"-1h": want an age such as 90m, 24h, 7d, 2w, 1.5d or 1d12h`, false},
		{"99999999999d", `"99999999999d": age too large`, true},
		{"100000000w", `"100000000w": age too large`, true},
		{"106751d23h47m16.854775808s", `"106751d23h47m16.854775808s": age too large`, true},
		{"99999999999999999999ns", `"99999999999999999999ns": age too large`, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseAge(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("ParseAge(%q) = %v, want %q", tt.in, err, tt.want)
			}
			if errors.Is(err, ErrAgeTooLarge) != tt.tooLarge {
				t.Errorf("errors.Is(%v, ErrAgeTooLarge) = %t, want %t", err, !tt.tooLarge, tt.tooLarge)
			}
		})
	}
}

func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"24h", "7d", "1d12h30m", "1.5h", "-3s", "0", "100000d2562047h", "2w", "1.5d", "12h1d", "1d0", ".5µs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseAge(s)
		// Every age the two parsers this one replaced read keeps its value:
		// mpu's (a Go duration led by whole days) and the filters' (days and
		// weeks, fractions). The old one took a '-' before a zero ("-0s",
		// "-0d5h"): no age has a sign now. The filters never asked theirs about
		// "" (an empty time is an error before), and they multiplied in
		// float64: off by up to a microsecond in an age of centuries, where
		// this sum is exact.
		if old, oerr := oldMPUAge(s); oerr == nil && !strings.Contains(s, "-") && (err != nil || d != old) {
			t.Fatalf("ParseAge(%q) = %v, %v; mpu's parser read %v", s, d, err, old)
		}
		if old, oerr := oldFilterAge(s); oerr == nil && s != "" && (err != nil || !near(d, old)) {
			t.Fatalf("ParseAge(%q) = %v, %v; the filters' parser read %v", s, d, err, old)
		}
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
		// A Go duration means what it means to Go.
		if g, gerr := time.ParseDuration(s); gerr == nil && g >= 0 && !strings.ContainsAny(s, "+-") && g != d {
			t.Fatalf("ParseAge(%q) = %v, time.ParseDuration = %v", s, d, g)
		}
	})
}

// near: a and b are within float64's rounding of each other.
func near(a, b time.Duration) bool {
	diff := a - b
	if diff < 0 {
		diff = -diff
	}
	return diff <= max(a, b)>>50+1
}

// oldMPUAge is the parser mpu abort --older-than used, kept as the oracle
// of FuzzParseAge.
func oldMPUAge(s string) (time.Duration, error) {
	bad := errors.New("bad")
	var d time.Duration
	rest := s
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		days, err := strconv.Atoi(s[:i])
		if err != nil || days < 0 || days > 100_000 || strings.HasPrefix(s, "+") {
			return 0, bad
		}
		d = time.Duration(days) * 24 * time.Hour
		rest = s[i+1:]
	}
	if rest != "" || d == 0 && s == "" {
		r, err := time.ParseDuration(rest)
		if err != nil || r < 0 || strings.HasPrefix(rest, "+") || d > math.MaxInt64-r {
			return 0, bad
		}
		d += r
	}
	return d, nil
}

// oldFilterAge is the parser of --newer-than and --older-than ages, kept as
// the oracle of FuzzParseAge.
func oldFilterAge(s string) (time.Duration, error) {
	units := map[string]time.Duration{
		"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour,
	}
	bad := errors.New("bad")
	var total time.Duration
	for rest := s; rest != ""; {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		j := i
		for j < len(rest) && !(rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		num, unit := rest[:i], rest[i:j]
		rest = rest[j:]
		mult, ok := units[unit]
		if num == "" || !ok {
			return 0, bad
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, bad
		}
		part := v * float64(mult)
		if part >= float64(1<<63-1)-float64(total) {
			return 0, bad
		}
		total += time.Duration(part)
	}
	return total, nil
}
