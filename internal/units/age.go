package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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

// maxDays keeps days*24h within a time.Duration (about 292 years).
const maxDays = 100_000

// ParseAge reads an age: a Go duration (90m, 24h), optionally led by a
// number of days ("7d", "1d12h"), which time.ParseDuration lacks; never
// negative.
func ParseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q: want an age such as 90m, 24h, 7d or 1d12h", s)
	var d time.Duration
	rest := s
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		days, err := strconv.Atoi(s[:i])
		if err != nil || days < 0 || days > maxDays || strings.HasPrefix(s, "+") {
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
