package filter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// Options are the selection flags. The zero value keeps every object.
type Options struct {
	// Base is cut from the start of every key before patterns see it: the
	// source's base ("photos/" for s3://b/photos/). Keys outside Base are
	// matched whole.
	Base string
	// Include and Exclude are patterns; see the package documentation.
	Include []string
	Exclude []string
	// MinSize and MaxSize, when not nil, are inclusive bounds in bytes.
	MinSize *int64
	MaxSize *int64
	// NewerThan, when not zero, keeps objects modified at or after it;
	// OlderThan, when not zero, objects modified before it. ParseTime reads
	// the flags' values.
	NewerThan time.Time
	OlderThan time.Time
}

// Filter decides which source objects a run keeps. It is safe for
// concurrent use.
type Filter struct {
	base               string
	include, exclude   []s3url.Location
	minSize, maxSize   int64
	newer, older       time.Time
	hasNewer, hasOlder bool
}

// New compiles opts. It fails on a malformed pattern and on bounds that
// would keep nothing (a minimum above the maximum, a window of times that is
// empty), which are mistakes rather than wishes.
func New(opts Options) (*Filter, error) {
	f := &Filter{base: opts.Base, minSize: 0, maxSize: -1}
	for _, p := range opts.Include {
		l, err := compile(p)
		if err != nil {
			return nil, fmt.Errorf("filter --include %q: %w", p, err)
		}
		f.include = append(f.include, l)
	}
	for _, p := range opts.Exclude {
		l, err := compile(p)
		if err != nil {
			return nil, fmt.Errorf("filter --exclude %q: %w", p, err)
		}
		f.exclude = append(f.exclude, l)
	}
	if opts.MinSize != nil {
		if *opts.MinSize < 0 {
			return nil, fmt.Errorf("filter --min-size %d: negative", *opts.MinSize)
		}
		f.minSize = *opts.MinSize
	}
	if opts.MaxSize != nil {
		if *opts.MaxSize < 0 {
			return nil, fmt.Errorf("filter --max-size %d: negative", *opts.MaxSize)
		}
		f.maxSize = *opts.MaxSize
		if f.maxSize < f.minSize {
			return nil, fmt.Errorf("filter --max-size %d is below --min-size %d: nothing would be kept", f.maxSize, f.minSize)
		}
	}
	f.newer, f.hasNewer = opts.NewerThan, !opts.NewerThan.IsZero()
	f.older, f.hasOlder = opts.OlderThan, !opts.OlderThan.IsZero()
	if f.hasNewer && f.hasOlder && !f.newer.Before(f.older) {
		return nil, fmt.Errorf("filter --newer-than %s and --older-than %s: no time is both, nothing would be kept",
			f.newer.Format(time.RFC3339), f.older.Format(time.RFC3339))
	}
	return f, nil
}

// Keep reports whether the run should keep o. A nil Filter keeps everything.
func (f *Filter) Keep(o store.Object) bool {
	if f == nil {
		return true
	}
	if o.Size < f.minSize || f.maxSize >= 0 && o.Size > f.maxSize {
		return false
	}
	if f.hasNewer && o.ModTime.Before(f.newer) {
		return false
	}
	if f.hasOlder && !o.ModTime.Before(f.older) {
		return false
	}
	if len(f.include) == 0 && len(f.exclude) == 0 {
		return true
	}
	return f.KeepKey(o.Key)
}

// KeepKey applies only the patterns to key, a key of the listing (Base is
// cut from it as in Keep).
func (f *Filter) KeepKey(key string) bool {
	if f == nil {
		return true
	}
	rel := strings.TrimPrefix(key, f.base)
	for _, l := range f.exclude {
		if l.Match(rel) {
			return false
		}
	}
	if len(f.include) == 0 {
		return true
	}
	for _, l := range f.include {
		if l.Match(rel) {
			return true
		}
	}
	return false
}

// compile applies the anchoring rules of the package documentation and
// returns the pattern as an s3url location, whose Match does the rest.
func compile(p string) (s3url.Location, error) {
	switch {
	case p == "" || p == "/":
		return s3url.Location{}, errors.New("empty pattern")
	case strings.Contains(p, "***"):
		return s3url.Location{}, errors.New(`malformed wildcard "***": use * within a segment or ** across segments`)
	case strings.IndexByte(p, 0) >= 0:
		return s3url.Location{}, errors.New("contains a NUL byte")
	}
	anchored := false
	if rest, ok := strings.CutPrefix(p, "/"); ok {
		p, anchored = rest, true
	}
	dir := false
	if rest, ok := strings.CutSuffix(p, "/"); ok && rest != "" {
		p, dir = rest, true
	}
	if !anchored && !strings.Contains(p, "/") {
		p = "**/" + p
	}
	if dir {
		p += "/**"
	}
	return s3url.Location{Key: p}, nil
}

// ParseTime reads the value of --newer-than or --older-than: an age before
// now ("90m", "36h", "7d", "2w", "1d12h"; units ns us ms s m h d w, a day
// being 24 hours), an RFC 3339 time, or a day ("2026-01-02", midnight UTC).
func ParseTime(s string, now time.Time) (time.Time, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return time.Time{}, fmt.Errorf("parse time %q: empty", s)
	}
	if t, err := time.Parse(time.RFC3339Nano, in); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, in); err == nil {
		return t, nil
	}
	d, err := parseAge(in)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse time %q: %w", s, err)
	}
	return now.Add(-d), nil
}

var units = map[string]time.Duration{
	"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "ms": time.Millisecond,
	"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour,
}

// parseAge reads a sequence of <number><unit>, like time.ParseDuration with
// days and weeks, never negative.
func parseAge(s string) (time.Duration, error) {
	const msg = "want an age like 36h, 7d or 1d12h, an RFC 3339 time, or a day like 2026-01-02"
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
			return 0, errors.New(msg)
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, errors.New(msg)
		}
		part := v * float64(mult)
		if part >= float64(1<<63-1)-float64(total) {
			return 0, errors.New("age too large")
		}
		total += time.Duration(part)
	}
	return total, nil
}
