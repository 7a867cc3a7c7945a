package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/progress"
)

func (a *app) planCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan cp|mv|sync|rm ARGS...",
		Short: "Print the plan of a cp, mv, sync or rm as JSON lines, touching nothing",
		Long: `Print what a command would do, one task a line, as JSON: the same plan that
the command carries out, that --shard splits and that a journal resumes.

Each line is a task: {"op":"copy"|"upload"|"download"|"stream"|"delete"|"skip",
"src", "dst", "src_key", "dst_key", "size", "etag", "mtime", "part_size"
(when the object moves in parts), "reason" (why a sync copies, why a task is
a skip), "delete_source" (mv)}. A sync lists its copies first and its
deletes last, in the order it would carry them out. The commands take the
same arguments and flags as when they run; --dry-run --json prints their
results instead.`,
		Example: `  s3bulk plan sync --delete ./site s3://bucket/site/ > plan.jsonl
  s3bulk plan rm --recursive --older-than 90d s3://bucket/logs/ | wc -l`,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.planOnly = true
			a.g.dryRun = true // nothing is created, not even a destination directory
			return a.setup(cmd.Flags().Changed("concurrency"))
		},
	}
	cmd.AddCommand(a.cpCmd(), a.mvCmd(), a.syncCmd(), a.rmCmd())
	return cmd
}

// writePlan prints job's plan as JSON lines on stdout.
func (a *app) writePlan(ctx context.Context, s *session, job engine.Job, opts engine.Options) error {
	enc := progress.NewJSON(a.stdio.Out)
	return flagHints(s.eng.Plan(ctx, job, opts).Each(func(t engine.Task) error { return enc.Encode(t) }))
}
