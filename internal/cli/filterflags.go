package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/internal/filter"
	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/store"
)

// selectFlags choose the objects a run keeps: filters (cp, mv, sync, rm, ls,
// du) and a shard (cp, mv, sync, rm). Every value is checked while the
// flags are parsed, so a bad one is a usage error before anything runs
// (and `run` finds it before the first line runs).
type selectFlags struct {
	// rules are --include and --exclude in the order given: both flags
	// append to it.
	rules                []filter.Rule
	minSize, maxSize     boundFlag
	newerThan, olderThan timeFlag
	shard                shardFlag
	shardCount           int
}

func (f *selectFlags) register(cmd *cobra.Command, withShard bool) {
	fl := cmd.Flags()
	fl.Var(&patternsFlag{rules: &f.rules, include: true}, "include", "keep keys matching this pattern (repeatable; relative to the source prefix; '*' and '?' cross '/', [seq] classes; the last matching --include or --exclude decides; an --include first leaves out what no --include matches)")
	fl.Var(&patternsFlag{rules: &f.rules}, "exclude", "leave out keys matching this pattern (repeatable; see --include)")
	fl.Var(&f.minSize, "min-size", "keep only objects of at least this size, e.g. 1MiB")
	fl.Var(&f.maxSize, "max-size", "keep only objects of at most this size")
	fl.Var(&f.newerThan, "newer-than", "keep only objects modified at or after this time: an age (36h, 7d, 2w) or a date (2026-01-02, RFC 3339)")
	fl.Var(&f.olderThan, "older-than", "keep only objects modified before this time: an age or a date")
	if withShard {
		fl.Var(&f.shard, "shard", "take only shard i of n (i/n, numbered from 0) of the objects, by a stable hash of each key: n runs cover everything once")
		fl.IntVar(&f.shardCount, "shard-count", 0, "take the shard numbered by "+shard.JobIndexEnv+" (a Kubernetes Indexed Job) out of this many")
	}
}

// active reports whether any filter or shard was asked for.
func (f *selectFlags) active() bool {
	return len(f.rules) > 0 || f.minSize.set || f.maxSize.set ||
		!f.newerThan.t.IsZero() || !f.olderThan.t.IsZero() || f.shard.set || f.shardCount > 0
}

// filter compiles the filter flags; it returns nil when there are none.
func (f *selectFlags) filter() (func(store.Object) bool, error) {
	opts := filter.Options{Rules: f.rules, NewerThan: f.newerThan.t, OlderThan: f.olderThan.t}
	if f.minSize.set {
		opts.MinSize = &f.minSize.n
	}
	if f.maxSize.set {
		opts.MaxSize = &f.maxSize.n
	}
	if len(opts.Rules) == 0 && opts.MinSize == nil && opts.MaxSize == nil && opts.NewerThan.IsZero() && opts.OlderThan.IsZero() {
		return nil, nil
	}
	flt, err := filter.New(opts)
	if err != nil {
		return nil, usageError{err}
	}
	return flt.Keep, nil
}

// shardOf returns the shard asked for: --shard i/n, or the index of a
// Kubernetes Indexed Job's pod (in env) with --shard-count n.
func (f *selectFlags) shardOf(env environ) (shard.Shard, error) {
	switch {
	case f.shard.set && f.shardCount > 0:
		return shard.Shard{}, usagef("--shard and --shard-count: give one or the other")
	case f.shard.set:
		return f.shard.s, nil
	case f.shardCount > 0:
		s, err := shard.FromJobIndex(env.get(shard.JobIndexEnv), f.shardCount)
		if err != nil {
			return shard.Shard{}, usagef("--shard-count %d: %v", f.shardCount, err)
		}
		return s, nil
	case f.shardCount < 0:
		return shard.Shard{}, usagef("--shard-count %d: must be at least 1", f.shardCount)
	}
	return shard.Shard{}, nil
}

// patternsFlag is --include or --exclude: repeatable, checked when given,
// appended to the rules both flags share so that their order is kept.
type patternsFlag struct {
	rules   *[]filter.Rule
	include bool
}

func (p *patternsFlag) String() string {
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
func (p *patternsFlag) Type() string { return "pattern" }
func (p *patternsFlag) Set(v string) error {
	if _, err := filter.Compile(v); err != nil {
		return err
	}
	*p.rules = append(*p.rules, filter.Rule{Include: p.include, Pattern: v})
	return nil
}

// boundFlag is an optional size.
type boundFlag struct {
	n   int64
	set bool
}

func (b *boundFlag) String() string {
	if !b.set {
		return ""
	}
	return units.FormatSize(b.n)
}
func (b *boundFlag) Type() string { return "size" }
func (b *boundFlag) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	b.n, b.set = n, true
	return nil
}

// timeFlag is a time or an age, read when the flag is parsed.
type timeFlag struct {
	t   time.Time
	raw string // as given: "7d" means the same job on every rerun
}

func (f *timeFlag) String() string {
	if f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339)
}
func (f *timeFlag) Type() string { return "time" }
func (f *timeFlag) Set(v string) error {
	t, err := filter.ParseTime(v, time.Now())
	if err != nil {
		return err
	}
	f.t, f.raw = t, v
	return nil
}

// shardFlag is --shard i/n.
type shardFlag struct {
	s   shard.Shard
	set bool
}

func (f *shardFlag) String() string {
	if !f.set {
		return ""
	}
	return f.s.String()
}
func (f *shardFlag) Type() string { return "i/n" }
func (f *shardFlag) Set(v string) error {
	s, err := shard.Parse(v)
	if err != nil {
		return err
	}
	f.s, f.set = s, true
	return nil
}

// apply sets a run's filter and shard from the flags.
func (f *selectFlags) apply(opts *engine.Options, env environ) error {
	flt, err := f.filter()
	if err != nil {
		return err
	}
	sh, err := f.shardOf(env)
	if err != nil {
		return err
	}
	opts.Filter, opts.Shard = flt, sh
	return nil
}

// fingerprint distinguishes the journals of runs that keep different
// objects (two shards of one job run on one machine); it is empty without
// filters or shard, so that older journals still match.
func (f *selectFlags) fingerprint(env environ) string {
	if !f.active() {
		return ""
	}
	sh, _ := f.shardOf(env)
	var include, exclude []string
	for _, r := range f.rules {
		if r.Include {
			include = append(include, r.Pattern)
		} else {
			exclude = append(exclude, r.Pattern)
		}
	}
	order := ""
	if len(include) > 0 && len(exclude) > 0 {
		order = fmt.Sprintf(" rules=%q", f.rules) // the order decides
	}
	return fmt.Sprintf(" include=%q exclude=%q min=%s max=%s newer=%s older=%s shard=%s%s",
		include, exclude, f.minSize.String(), f.maxSize.String(), f.newerThan.raw, f.olderThan.raw, sh, order)
}
