package units

import (
	"errors"
	"fmt"
	"time"
)

// Age is a flag value (a pflag.Value) for an age (ParseAge).
type Age time.Duration

func (f *Age) String() string {
	if *f == 0 {
		return ""
	}
	return time.Duration(*f).String()
}

// Set reads an age.
func (f *Age) Set(v string) error {
	d, err := ParseAge(v)
	if err != nil {
		return err
	}
	*f = Age(d)
	return nil
}

// Type names the value in help.
func (f *Age) Type() string { return "age" }

// ErrAgeTooLarge is an age beyond what a time.Duration holds (about 292
// years); errors.Is finds it in ParseAge's error.
var ErrAgeTooLarge = errors.New("age too large")

// ageError is a value ParseAge cannot read.
type ageError struct {
	input string
	err   error // ErrAgeTooLarge, or nil for a value that is no age
}

func (e *ageError) Error() string {
	if e.err != nil {
		return fmt.Sprintf("%q: %v", e.input, e.err)
	}
	return fmt.Sprintf("%q: want an age such as 90m, 24h, 7d, 2w, 1.5d or 1d12h", e.input)
}

func (e *ageError) Unwrap() error { return e.err }

var ageUnits = map[string]uint64{
	"ns": uint64(time.Nanosecond),
	"us": uint64(time.Microsecond),
	"µs": uint64(time.Microsecond), // U+00B5, as time.ParseDuration
	"μs": uint64(time.Microsecond), // U+03BC
	"ms": uint64(time.Millisecond),
	"s":  uint64(time.Second),
	"m":  uint64(time.Minute),
	"h":  uint64(time.Hour),
	"d":  uint64(24 * time.Hour),
	"w":  uint64(7 * 24 * time.Hour),
}

// ParseAge reads an age: a sequence of numbers each with its unit, like a
// Go duration (time.ParseDuration) with days and weeks added: 90m, 24h, 7d,
// 2w, 1.5d, 1d12h; units ns, us (µs), ms, s, m, h, d (24 hours) and w (7
// days), in any order, a number with a fraction or not. "0" alone, or after
// the other parts, is zero. An age is never negative: there is no sign.
// The sum is exact to the nanosecond as time.ParseDuration's is, and one
// beyond a time.Duration is an error that wraps ErrAgeTooLarge.
func ParseAge(s string) (time.Duration, error) {
	bad := &ageError{input: s}
	if s == "" {
		return 0, bad
	}
	var total uint64
	for rest := s; rest != ""; {
		if rest == "0" {
			break // a bare 0, as time.ParseDuration reads it
		}
		v, frac, scale, digits, after, tooLong := leadingNumber(rest)
		if !digits {
			return 0, bad
		}
		i := 0
		for i < len(after) && after[i] != '.' && (after[i] < '0' || after[i] > '9') {
			i++
		}
		unit, ok := ageUnits[after[:i]]
		if !ok {
			return 0, bad
		}
		rest = after[i:]
		if tooLong || v > (1<<63-1)/unit {
			return 0, &ageError{input: s, err: ErrAgeTooLarge}
		}
		v *= unit
		if frac > 0 {
			// As time.ParseDuration: float64 is nanosecond accurate for the
			// fraction of one unit.
			v += uint64(float64(frac) * (float64(unit) / scale))
		}
		if v > 1<<63-1-total {
			return 0, &ageError{input: s, err: ErrAgeTooLarge}
		}
		total += v
	}
	return time.Duration(total), nil
}

// leadingNumber reads [0-9]*(\.[0-9]*)? from the start of s: the whole part
// v, the fraction frac/scale, whether there was any digit, and what follows.
// tooLong is a whole part beyond 1<<63; digits of a fraction beyond what
// counts are read and dropped.
func leadingNumber(s string) (v, frac uint64, scale float64, digits bool, rest string, tooLong bool) {
	scale = 1
	i := 0
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		if v > 1<<63/10 {
			tooLong = true
			continue
		}
		v = v*10 + uint64(s[i]-'0')
		if v > 1<<63 {
			tooLong = true
		}
	}
	digits = i > 0
	if i < len(s) && s[i] == '.' {
		i++
		overflow := false
		for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
			digits = true
			if overflow {
				continue
			}
			if frac > (1<<63-1)/10 {
				overflow = true
				continue
			}
			y := frac*10 + uint64(s[i]-'0')
			if y > 1<<63 {
				overflow = true
				continue
			}
			frac = y
			scale *= 10
		}
	}
	return v, frac, scale, digits, s[i:], tooLong
}
