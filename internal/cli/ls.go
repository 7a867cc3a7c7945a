package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func (a *app) lsCmd() *cobra.Command {
	var recursive, human, summarize bool
	var sel selectFlags
	cmd := &cobra.Command{
		Use:   "ls [s3://bucket[/prefix]]",
		Short: "List buckets, or objects and prefixes under a prefix",
		Example: `  s3bulk ls
  s3bulk ls s3://bucket/logs/
  s3bulk ls --recursive --human-readable --summarize s3://bucket/`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s := a.newSession()
			if len(args) == 0 {
				return a.listBuckets(ctx, s)
			}
			loc, err := parseLocation(args[0], false)
			if err != nil {
				return err
			}
			if !loc.IsS3() {
				return usagef("ls %s: want an s3:// URL", loc)
			}
			keep, err := sel.filter()
			if err != nil {
				return err
			}
			c, err := s.s3(ctx)
			if err != nil {
				return err
			}
			b := c.Bucket(loc.Bucket)
			delim := "/"
			if recursive || loc.HasWildcard() {
				delim = ""
			}
			var count, total int64
			enc := json.NewEncoder(a.stdio.Out)
			err = b.List(ctx, loc.Prefix(), delim, func(o store.Object) error {
				if loc.HasWildcard() && !loc.Match(o.Key) {
					return nil
				}
				if keep != nil && !o.IsPrefix {
					// Filters see keys as cp does: relative to the base.
					rel := o
					rel.Key = strings.TrimPrefix(o.Key, loc.Base())
					if !keep(rel) {
						return nil
					}
				}
				if a.g.json {
					return enc.Encode(lsRecord{Key: o.Key, URL: b.URL(o.Key), Size: o.Size, ModTime: o.ModTime.UTC().Format("2006-01-02T15:04:05Z"), ETag: o.ETag, StorageClass: o.StorageClass, IsPrefix: o.IsPrefix})
				}
				if o.IsPrefix {
					_, err := fmt.Fprintf(a.stdio.Out, "%19s %12s  %s\n", "", "PRE", o.Key)
					return err
				}
				count++
				total += o.Size
				size := fmt.Sprint(o.Size)
				if human {
					size = progress.HumanBytes(o.Size)
				}
				_, err := fmt.Fprintf(a.stdio.Out, "%s %12s  %s\n", o.ModTime.Local().Format("2006-01-02 15:04:05"), size, o.Key)
				return err
			})
			if err != nil {
				return err // the store names the operation and the URL
			}
			if summarize && !a.g.json {
				fmt.Fprintf(a.stdio.Out, "\nTotal Objects: %d\n   Total Size: %s\n", count, strings.TrimSpace(progress.HumanBytes(total)))
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "list every object under the prefix, not just one level")
	cmd.Flags().BoolVarP(&human, "human-readable", "H", false, "sizes as KiB, MiB, GiB")
	cmd.Flags().BoolVar(&summarize, "summarize", false, "print the number of objects and their total size")
	sel.register(cmd, false)
	return cmd
}

type lsRecord struct {
	Key          string `json:"key,omitempty"`
	URL          string `json:"url"`
	Size         int64  `json:"size"`
	ModTime      string `json:"mtime,omitempty"`
	ETag         string `json:"etag,omitempty"`
	StorageClass string `json:"storage_class,omitempty"`
	IsPrefix     bool   `json:"is_prefix,omitempty"`
}

func (a *app) listBuckets(ctx context.Context, s *session) error {
	c, err := s.s3(ctx)
	if err != nil {
		return err
	}
	buckets, err := c.ListBuckets(ctx)
	if err != nil {
		return fmt.Errorf("list buckets: %w", err)
	}
	enc := json.NewEncoder(a.stdio.Out)
	for _, b := range buckets {
		if a.g.json {
			if err := enc.Encode(map[string]string{"bucket": b.Name, "created": b.Created.UTC().Format("2006-01-02T15:04:05Z")}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(a.stdio.Out, "%s  s3://%s\n", b.Created.Local().Format("2006-01-02 15:04:05"), b.Name)
	}
	return nil
}

func (a *app) mbCmd() *cobra.Command {
	cmd := a.bucketCmd("mb", "Make a bucket", (*s3store.Client).MakeBucket)
	cmd.Example = "  s3bulk mb s3://new-bucket\n  s3bulk --region eu-west-1 mb s3://new-bucket"
	return cmd
}

func (a *app) rbCmd() *cobra.Command {
	cmd := a.bucketCmd("rb", "Remove an empty bucket", (*s3store.Client).RemoveBucket)
	cmd.Example = "  s3bulk rm --recursive s3://old-bucket/   # empty it first\n  s3bulk rb s3://old-bucket"
	return cmd
}

// bucketCmd is a verb that does one thing to one bucket: mb, rb.
func (a *app) bucketCmd(verb, short string, do func(*s3store.Client, context.Context, string) error) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " s3://bucket",
		Short: short,
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc, err := parseLocation(args[0], false)
			if err != nil {
				return err
			}
			if !loc.IsS3() || loc.Key != "" {
				return usagef("%s %s: want s3://bucket", verb, args[0])
			}
			if a.g.dryRun {
				fmt.Fprintf(a.stdio.Out, "DRY-RUN %s %s\n", verb, loc)
				return nil
			}
			c, err := a.newSession().s3(cmd.Context())
			if err != nil {
				return err
			}
			if err := do(c, cmd.Context(), loc.Bucket); err != nil {
				return err
			}
			fmt.Fprintf(a.stdio.Out, "%s %s\n", verb, loc)
			return nil
		},
	}
}
