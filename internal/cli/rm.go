package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
)

func (a *app) rmCmd() *cobra.Command {
	var recursive, raw bool
	var sel selectFlags
	cmd := &cobra.Command{
		Use:   "rm s3://bucket/key...",
		Short: "Delete objects: one key, a prefix (--recursive) or a wildcard match",
		Long: `Delete objects, in batches of 1,000 keys a request (DeleteObjects), starting
with the listing's first page.

Deleting a key that does not exist is not an error. --dry-run prints what
would be deleted and deletes nothing. Local files are not deleted by rm.
With several arguments, each is deleted in turn and summarized.`,
		Example: `  s3bulk rm s3://bucket/old.json
  s3bulk rm --recursive s3://bucket/tmp/
  s3bulk rm 's3://bucket/logs/2025-*/*.json'
  s3bulk --dry-run rm --recursive --older-than 90d s3://bucket/logs/`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts engine.Options
			if err := sel.apply(&opts); err != nil {
				return err
			}
			var jobs []engine.Job
			s := a.newSession()
			for _, arg := range args {
				loc, err := parseLocation(arg, raw)
				if err != nil {
					return err
				}
				switch {
				case !loc.IsS3():
					return usagef("rm %s: rm deletes S3 objects, not local files", loc)
				case !recursive && !loc.HasWildcard() && loc.IsDirLike():
					return usagef("rm %s: is a bucket or prefix: use --recursive or a wildcard", loc)
				}
				ep, err := s.sourceEndpoint(cmd.Context(), loc, recursive)
				if err != nil {
					return err
				}
				jobs = append(jobs, engine.Job{Src: ep, Recursive: recursive, Remove: true})
			}
			// Every argument is checked before the first is deleted; a
			// failed object does not stop the next argument.
			var failed int64
			for _, job := range jobs {
				err := a.execute(cmd.Context(), s, job, opts)
				var pe partialError
				switch {
				case errors.As(err, &pe):
					failed += pe.failed
				case err != nil:
					return err
				}
			}
			if failed > 0 {
				return partialError{failed: failed}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "delete every object under the prefix")
	cmd.Flags().BoolVar(&raw, "raw", false, "treat '*' and '?' as ordinary characters")
	sel.register(cmd, true)
	return cmd
}
