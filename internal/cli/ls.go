package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func (a *app) lsCmd() *cobra.Command {
	var recursive, human, summarize, allVersions bool
	var sel selectFlags
	cmd := &cobra.Command{
		Use:   "ls [s3://bucket[/prefix]]",
		Short: "List buckets, or objects and prefixes under a prefix",
		Long: `List buckets, or the objects and prefixes under a prefix, as aws s3 ls does.

Lines are those of the AWS CLI: "2026-01-02 15:04:05" in local time, the
size right-aligned in 10 columns, then the name; one level lists names
relative to the prefix's last '/', prefixes first as "PRE name/" (within
each page of 1,000 entries), --recursive and wildcards full keys. So
"awk '{print $4}'" gets what it gets from aws. --json prints one JSON
document per entry instead (docs/json.md).

--all-versions lists every version and delete marker of every key under
the prefix (or matched by a wildcard), full keys, in the order of aws
s3api list-object-versions: keys in byte order, each key's entries newest
first. A line is an object's line followed by the version ID, and
"latest" for the key's current entry; a delete marker's size reads MARKER:

  2026-01-02 15:04:05         12 a.json 3sL4kqtJlcpXroDTDmJ+rmSpXd3dIbrH latest
  2026-01-02 15:03:01     MARKER b.json 9dL4kqtJlcpXroDTDmJ+rmSpXd3dIbrH latest

--summarize counts versions, not delete markers.

Listing a key or prefix that holds nothing exits 1, as aws and s5cmd do;
an empty bucket exits 0.`,
		Example: `  s3bulk ls                                  the buckets
  s3bulk ls s3://bucket/logs/                one level: PRE lines, then objects
  s3bulk ls --recursive s3://bucket/logs/    every object below, full keys
  s3bulk ls 's3://bucket/logs/*.json'        a wildcard: matching keys, full
  s3bulk ls --recursive --human-readable --summarize s3://bucket/
  s3bulk ls --all-versions s3://bucket/logs/  every version and delete marker`,
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
			p := &progress.ListLines{Out: a.stdio.Out, Human: human, Full: recursive || allVersions || loc.HasWildcard(), Dir: loc.Base()}
			enc := progress.NewJSON(a.stdio.Out)
			if allVersions {
				err = engine.ListVersions(ctx, b, loc, keep, func(v store.Version) error {
					if a.g.json {
						return enc.Encode(progress.NewVersionRecord(v, b.URL(v.Key)))
					}
					return p.AddVersion(v)
				})
			} else {
				err = engine.List(ctx, s.eng.Lister(b), loc, recursive, keep, func(o store.Object) error {
					if a.g.json {
						return enc.Encode(progress.NewListRecord(o, b.URL(o.Key)))
					}
					return p.Add(o)
				})
			}
			var none *engine.NoMatchError
			if err != nil && !errors.As(err, &none) {
				return err // the store names the operation and the URL
			}
			if ferr := p.Flush(); ferr != nil {
				return ferr
			}
			if summarize && !a.g.json {
				if serr := p.Summary(); serr != nil {
					return serr
				}
			}
			return err
		},
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "list every object under the prefix, not just one level, with full keys")
	cmd.Flags().BoolVarP(&human, "human-readable", "H", false, "sizes as aws prints them: Bytes, KiB, MiB, GiB...")
	cmd.Flags().BoolVar(&summarize, "summarize", false, "print the number of objects and their total size")
	cmd.Flags().BoolVar(&allVersions, "all-versions", false, "list every version and delete marker under the prefix, with version IDs")
	sel.register(cmd, false)
	return cmd
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
	enc := progress.NewJSON(a.stdio.Out)
	for _, b := range buckets {
		if a.g.json {
			if err := enc.Encode(progress.NewBucketRecord(b.Name, b.Created)); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(a.stdio.Out, "%s %s\n", b.Created.Local().Format("2006-01-02 15:04:05"), b.Name)
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
