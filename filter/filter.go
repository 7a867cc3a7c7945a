package filter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/store"
)

// Options are the selection flags. The zero value keeps every object.
type Options struct {
	// Base is cut from the start of every key before patterns see it: the
	// source's base ("photos/" for s3://b/photos/). Keys outside Base are
	// matched whole.
	Base string
	// Rules are the --include and --exclude patterns in the order they
	// were given; see the package documentation.
	Rules []Rule
	// MinSize and MaxSize, when not nil, are inclusive bounds in bytes.
	MinSize *int64
	MaxSize *int64
	// NewerThan, when not zero, keeps objects modified at or after it;
	// OlderThan, when not zero, objects modified before it. ParseTime reads
	// the flags' values.
	NewerThan time.Time
	OlderThan time.Time
}

// Rule is one --include or --exclude.
type Rule struct {
	// Include is true for --include, false for --exclude.
	Include bool
	Pattern string
}

// Include is the rule of --include pattern.
func Include(pattern string) Rule { return Rule{Include: true, Pattern: pattern} }

// Exclude is the rule of --exclude pattern.
func Exclude(pattern string) Rule { return Rule{Pattern: pattern} }

func (r Rule) String() string {
	if r.Include {
		return "--include " + strconv.Quote(r.Pattern)
	}
	return "--exclude " + strconv.Quote(r.Pattern)
}

// Filter decides which source objects a run keeps. It is safe for
// concurrent use.
type Filter struct {
	base string
	// rules are compiled Options.Rules; byDefault is what a key no rule
	// matches gets.
	rules              []compiled
	byDefault          bool
	minSize, maxSize   int64
	newer, older       time.Time
	hasNewer, hasOlder bool
}

type compiled struct {
	include bool
	pattern Pattern
}

// New compiles opts. It fails on a malformed pattern and on bounds that
// would keep nothing (a minimum above the maximum, a window of times that is
// empty), which are mistakes rather than wishes.
func New(opts Options) (*Filter, error) {
	f := &Filter{base: opts.Base, minSize: 0, maxSize: -1, byDefault: true}
	for i, r := range opts.Rules {
		p, err := Compile(r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("filter %s: %w", r, err)
		}
		f.rules = append(f.rules, compiled{include: r.Include, pattern: p})
		if i == 0 && r.Include {
			// --include first: it selects, as s5cmd's does, rather than
			// re-adding to an everything that nothing took away.
			f.byDefault = false
		}
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
	if len(f.rules) == 0 {
		return true
	}
	return f.KeepKey(o.Key)
}

// KeepKey applies only the patterns to key, a key of the listing (Base is
// cut from it as in Keep): the last rule that matches decides; when none
// does, the key is kept unless the first rule is an --include.
func (f *Filter) KeepKey(key string) bool {
	if f == nil {
		return true
	}
	rel := strings.TrimPrefix(key, f.base)
	for i := len(f.rules) - 1; i >= 0; i-- {
		if f.rules[i].pattern.Match(rel) {
			return f.rules[i].include
		}
	}
	return f.byDefault
}

// ParseTime reads the value of --newer-than or --older-than: an age before
// now (units.ParseAge: "90m", "36h", "7d", "2w", "1.5d", "1d12h"), an
// RFC 3339 time, or a day ("2026-01-02", midnight UTC).
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
	d, err := units.ParseAge(in)
	switch {
	case errors.Is(err, units.ErrAgeTooLarge):
		return time.Time{}, fmt.Errorf("parse time %q: age too large", s)
	case err != nil:
		return time.Time{}, fmt.Errorf("parse time %q: want an age like 36h, 7d or 1d12h, an RFC 3339 time, or a day like 2026-01-02", s)
	}
	return now.Add(-d), nil
}
