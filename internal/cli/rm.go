package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
)

func (a *app) rmCmd() *cobra.Command {
	var recursive, raw bool
	var sel selectFlags
	var versions versionFlags
	cmd := &cobra.Command{
		Use:   "rm s3://bucket/key...",
		Short: "Delete objects: one key, a prefix (--recursive) or a wildcard match",
		Long: `Delete objects, in batches of 1,000 keys a request (DeleteObjects), starting
with the listing's first page.

Deleting a key that does not exist is not an error (as with aws and s5cmd);
a wildcard that matches nothing is (exit 1). A wildcard that is also the
exact name of an existing object (a key with a literal '*' or '?') is
refused: use --raw to delete only that object. Filters are those of cp
(the AWS CLI's: --exclude 'sub/*' keeps everything below sub/). --dry-run
prints what would be deleted and deletes nothing. Local files are not
deleted by rm. With several arguments, each is deleted in turn and
summarized.

In a versioned bucket deleting a key adds a delete marker, and its
versions stay. --version-id deletes one version of one object for good;
--all-versions deletes every version and delete marker of the key, or
with --recursive of every key under the prefix, so that rb can then
remove the bucket.`,
		Example: `  s3bulk rm s3://bucket/old.json
  s3bulk rm --recursive s3://bucket/tmp/
  s3bulk rm 's3://bucket/logs/2025-*/*.json'
  s3bulk --dry-run rm --recursive --older-than 90d s3://bucket/logs/
  s3bulk rm --all-versions --recursive s3://versioned-bucket/ && s3bulk rb s3://versioned-bucket`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts engine.Options
			if err := sel.apply(&opts, a.env); err != nil {
				return err
			}
			var jobs []engine.Job
			s := a.newSession()
			for _, arg := range args {
				loc, err := parseLocation(arg, raw)
				if err != nil {
					return err
				}
				if err := versions.check("rm", loc, recursive); err != nil {
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
				if err := checkLiteral(cmd.Context(), "rm", loc, ep); err != nil {
					return err
				}
				jobs = append(jobs, engine.Job{Src: ep, Recursive: recursive, Remove: true, VersionID: versions.id, AllVersions: versions.all})
			}
			// Every argument is checked before the first is deleted; a
			// failed object does not stop the next argument.
			var failed int64
			for _, job := range jobs {
				sum, err := a.executeSum(cmd.Context(), s, job, opts)
				if err == nil && job.Recursive && !job.Src.Loc.HasWildcard() {
					a.warnEmpty(job.Src.Store.URL(job.Src.Loc.Key), sum, opts.Filter != nil)
				}
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
	versions.register(cmd, "delete", true)
	return cmd
}
