package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// Parts of an unfinished multipart upload are stored, and billed, until
// the upload is completed or aborted. s3bulk aborts the uploads it starts
// when they fail; `mpu` finds and cleans up those that anybody else (or a
// killed process) left behind.
func (a *app) mpuCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mpu",
		Short: "List or abort unfinished multipart uploads",
		Long: `Unfinished multipart uploads keep their parts, and are billed for them,
until they are completed or aborted. They are invisible to ls.`,
		Example: `  s3bulk mpu ls s3://bucket/prefix
  s3bulk mpu abort --older-than 24h s3://bucket/
  s3bulk mpu abort --dry-run s3://bucket/tmp/`,
	}
	cmd.AddCommand(a.mpuLsCmd(), a.mpuAbortCmd())
	return cmd
}

func (a *app) mpuLsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ls s3://bucket[/prefix]",
		Short: "List unfinished multipart uploads under a prefix, one line each",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			_, mp, loc, err := a.uploadsStore(ctx, args[0])
			if err != nil {
				return err
			}
			out := a.uploadLines()
			return engine.ListUploads(ctx, mp, loc, func(u store.Upload) error {
				if err := out.Upload(loc.Bucket, u); err != nil {
					return fmt.Errorf("%w: %v", errPrinted, err)
				}
				return nil
			})
		},
	}
}

func (a *app) mpuAbortCmd() *cobra.Command {
	var olderThan units.Age
	cmd := &cobra.Command{
		Use:   "abort s3://bucket[/prefix]",
		Short: "Abort unfinished multipart uploads under a prefix, freeing their parts",
		Long: `Abort every unfinished multipart upload under a prefix (all of a bucket with
s3://bucket/), one line per upload. --older-than spares recent uploads,
which may still be running; --dry-run only lists what would be aborted.
Exit codes are those of cp: 1 when some aborts failed.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, mp, loc, err := a.uploadsStore(ctx, args[0])
			if err != nil {
				return err
			}
			out := a.uploadLines()
			sum, err := s.eng.AbortUploads(ctx, mp, loc,
				engine.Options{Workers: a.concurrencyOr(defaultConcurrency), DryRun: a.g.dryRun},
				engine.AbortOptions{OlderThan: time.Duration(olderThan), Observer: func(r engine.UploadResult) { out.Aborted(loc.Bucket, r) }})
			if err != nil {
				return err
			}
			if sum.Failed > 0 {
				return partialError{failed: sum.Failed}
			}
			return nil
		},
	}
	cmd.Flags().Var(&olderThan, "older-than", "only uploads started at least this long ago, e.g. 24h, 7d, 2w, 1d12h")
	return cmd
}

// uploadsStore opens the bucket of an s3:// argument in a new session.
func (a *app) uploadsStore(ctx context.Context, arg string) (*session, store.Multipart, s3url.Location, error) {
	loc, err := parseLocation(arg, false)
	if err != nil {
		return nil, nil, loc, err
	}
	if !loc.IsS3() {
		return nil, nil, loc, usagef("%s: want an s3:// URL", arg)
	}
	s := a.newSession()
	c, err := s.s3(ctx)
	if err != nil {
		return nil, nil, loc, err
	}
	return s, c.Bucket(loc.Bucket), loc, nil
}

// errPrinted stops a listing whose output could not be written.
var errPrinted = errors.New("write output")

func (a *app) uploadLines() *progress.Uploads {
	return &progress.Uploads{Out: a.stdio.Out, ErrOut: a.stdio.Err, JSON: a.g.json, Quiet: a.g.quiet}
}
