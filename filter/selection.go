package filter

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/store"
)

// Selection is what the selection flags of a command ask for: the filter's
// rules and bounds (--include, --exclude, --min-size, --max-size,
// --newer-than, --older-than) and a shard (--shard, --shard-count). Its
// values are flag values (pflag.Value), each checked when it is set, so a
// bad one fails while the command line is parsed. The zero value keeps
// every object.
type Selection struct {
	// Rules are --include and --exclude in the order given: both flags
	// append to them (see IncludeValue).
	Rules                []Rule
	MinSize, MaxSize     SizeBound
	NewerThan, OlderThan TimeValue
	Shard                ShardValue
	// ShardCount takes the shard numbered by shard.JobIndexEnv out of
	// this many.
	ShardCount int
}

// IncludeValue and ExcludeValue are the flag values of --include and
// --exclude: repeatable, checked when given, appended to s.Rules so that
// their order is kept.
func (s *Selection) IncludeValue() *PatternValue {
	return &PatternValue{rules: &s.Rules, include: true}
}

// ExcludeValue: see IncludeValue.
func (s *Selection) ExcludeValue() *PatternValue { return &PatternValue{rules: &s.Rules} }

// Active reports whether any filter or shard was asked for.
func (s *Selection) Active() bool {
	return len(s.Rules) > 0 || s.MinSize.Given || s.MaxSize.Given ||
		!s.NewerThan.T.IsZero() || !s.OlderThan.T.IsZero() || s.Shard.Given || s.ShardCount > 0
}

// Keep compiles the filter (New); it returns nil when there is none.
func (s *Selection) Keep() (func(store.Object) bool, error) {
	opts := Options{Rules: s.Rules, NewerThan: s.NewerThan.T, OlderThan: s.OlderThan.T}
	if s.MinSize.Given {
		opts.MinSize = &s.MinSize.N
	}
	if s.MaxSize.Given {
		opts.MaxSize = &s.MaxSize.N
	}
	if len(opts.Rules) == 0 && opts.MinSize == nil && opts.MaxSize == nil && opts.NewerThan.IsZero() && opts.OlderThan.IsZero() {
		return nil, nil
	}
	flt, err := New(opts)
	if err != nil {
		return nil, err
	}
	return flt.Keep, nil
}

// ShardOf returns the shard asked for: --shard i/n, or the index of a
// Kubernetes Indexed Job's pod (getenv(shard.JobIndexEnv)) with
// --shard-count n. The zero Shard is the whole listing.
func (s *Selection) ShardOf(getenv func(string) string) (shard.Shard, error) {
	switch {
	case s.Shard.Given && s.ShardCount > 0:
		return shard.Shard{}, errors.New("--shard and --shard-count: give one or the other")
	case s.Shard.Given:
		return s.Shard.S, nil
	case s.ShardCount > 0:
		sh, err := shard.FromJobIndex(getenv(shard.JobIndexEnv), s.ShardCount)
		if err != nil {
			return shard.Shard{}, fmt.Errorf("--shard-count %d: %v", s.ShardCount, err)
		}
		return sh, nil
	case s.ShardCount < 0:
		return shard.Shard{}, fmt.Errorf("--shard-count %d: must be at least 1", s.ShardCount)
	}
	return shard.Shard{}, nil
}

// Fingerprint distinguishes the journals of runs that keep different
// objects (two shards of one job run on one machine); it is empty without
// filters or shard, so that older journals still match. Ages count as
// typed: "7d" is the same job on every rerun.
func (s *Selection) Fingerprint(getenv func(string) string) string {
	if !s.Active() {
		return ""
	}
	sh, _ := s.ShardOf(getenv)
	var include, exclude []string
	for _, r := range s.Rules {
		if r.Include {
			include = append(include, r.Pattern)
		} else {
			exclude = append(exclude, r.Pattern)
		}
	}
	order := ""
	if len(include) > 0 && len(exclude) > 0 {
		order = fmt.Sprintf(" rules=%q", s.Rules) // the order decides
	}
	return fmt.Sprintf(" include=%q exclude=%q min=%s max=%s newer=%s older=%s shard=%s%s",
		include, exclude, s.MinSize.String(), s.MaxSize.String(), s.NewerThan.Raw, s.OlderThan.Raw, sh, order)
}

// PatternValue is the flag value of --include or --exclude.
type PatternValue struct {
	rules   *[]Rule
	include bool
}

func (p *PatternValue) String() string {
	if p.rules == nil {
		return ""
	}
	var out []string
	for _, r := range *p.rules {
		if r.Include == p.include {
			out = append(out, r.Pattern)
		}
	}
	return strings.Join(out, ",")
}

// Type names the value in help.
func (p *PatternValue) Type() string { return "pattern" }

// Set checks a pattern and appends its rule.
func (p *PatternValue) Set(v string) error {
	if _, err := Compile(v); err != nil {
		return err
	}
	r := Exclude(v)
	if p.include {
		r = Include(v)
	}
	*p.rules = append(*p.rules, r)
	return nil
}

// SizeBound is an optional size, the flag value of --min-size and
// --max-size.
type SizeBound struct {
	N     int64
	Given bool
}

func (b *SizeBound) String() string {
	if !b.Given {
		return ""
	}
	return units.FormatSize(b.N)
}

// Type names the value in help.
func (b *SizeBound) Type() string { return "size" }

// Set reads a size such as 1MiB.
func (b *SizeBound) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	b.N, b.Given = n, true
	return nil
}

// TimeValue is a time or an age (ParseTime), read when the flag is set:
// the flag value of --newer-than and --older-than.
type TimeValue struct {
	T   time.Time
	Raw string // as given
}

func (f *TimeValue) String() string {
	if f.T.IsZero() {
		return ""
	}
	return f.T.Format(time.RFC3339)
}

// Type names the value in help.
func (f *TimeValue) Type() string { return "time" }

// Set reads a time or an age before now.
func (f *TimeValue) Set(v string) error {
	t, err := ParseTime(v, time.Now())
	if err != nil {
		return err
	}
	f.T, f.Raw = t, v
	return nil
}

// ShardValue is the flag value of --shard i/n.
type ShardValue struct {
	S     shard.Shard
	Given bool
}

func (f *ShardValue) String() string {
	if !f.Given {
		return ""
	}
	return f.S.String()
}

// Type names the value in help.
func (f *ShardValue) Type() string { return "i/n" }

// Set reads i/n.
func (f *ShardValue) Set(v string) error {
	s, err := shard.Parse(v)
	if err != nil {
		return err
	}
	f.S, f.Given = s, true
	return nil
}
