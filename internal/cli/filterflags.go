package cli

import (
	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/filter"
	"github.com/s3bulk/s3bulk/store"
)

// selectFlags choose the objects a run keeps: filters (cp, mv, sync, rm, ls,
// du) and a shard (cp, mv, sync, rm), as a filter.Selection. Every value is
// checked while the flags are parsed, so a bad one is a usage error before
// anything runs (and `run` finds it before the first line runs).
type selectFlags struct{ s filter.Selection }

func (f *selectFlags) register(cmd *cobra.Command, withShard bool) {
	fl := cmd.Flags()
	fl.Var(f.s.IncludeValue(), "include", "keep keys matching this pattern (repeatable; relative to the source prefix; '*' and '?' cross '/', [seq] classes; the last matching --include or --exclude decides; an --include first leaves out what no --include matches)")
	fl.Var(f.s.ExcludeValue(), "exclude", "leave out keys matching this pattern (repeatable; see --include)")
	fl.Var(&f.s.MinSize, "min-size", "keep only objects of at least this size, e.g. 1MiB")
	fl.Var(&f.s.MaxSize, "max-size", "keep only objects of at most this size")
	fl.Var(&f.s.NewerThan, "newer-than", "keep only objects modified at or after this time: an age (36h, 7d, 2w) or a date (2026-01-02, RFC 3339)")
	fl.Var(&f.s.OlderThan, "older-than", "keep only objects modified before this time: an age or a date")
	if withShard {
		fl.Var(&f.s.Shard, "shard", "take only shard i of n (i/n, numbered from 0) of the objects: n runs cover everything once, each listing about its part (docs/shards.md)")
		fl.IntVar(&f.s.ShardCount, "shard-count", 0, "take the shard numbered by "+shard.JobIndexEnv+" (a Kubernetes Indexed Job) out of this many")
	}
}

// active reports whether any filter or shard was asked for.
func (f *selectFlags) active() bool { return f.s.Active() }

// filter compiles the filter flags; it returns nil when there are none.
func (f *selectFlags) filter() (func(store.Object) bool, error) {
	keep, err := f.s.Keep()
	if err != nil {
		return nil, usageError{err}
	}
	return keep, nil
}

// apply sets a run's filter and shard from the flags.
func (f *selectFlags) apply(opts *engine.Options, env environ) error {
	flt, err := f.filter()
	if err != nil {
		return err
	}
	sh, err := f.s.ShardOf(env.get)
	if err != nil {
		return usageError{err}
	}
	opts.Filter, opts.Shard = flt, sh
	return nil
}

// fingerprint distinguishes the journals of runs that keep different
// objects (filter.Selection.Fingerprint).
func (f *selectFlags) fingerprint(env environ) string { return f.s.Fingerprint(env.get) }
