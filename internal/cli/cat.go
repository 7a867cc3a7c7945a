package cli

import (
	"github.com/spf13/cobra"
)

func (a *app) catCmd() *cobra.Command {
	var raw bool
	cmd := &cobra.Command{
		Use:   "cat s3://bucket/key",
		Short: "Write one object to standard output",
		Long: `Stream one object to standard output as it arrives: memory stays flat
whatever its size.`,
		Example: `  s3bulk cat s3://bucket/config.json | jq .
  s3bulk cat s3://bucket/dump.sql.gz | gunzip | psql`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			loc, err := parseLocation(args[0], raw)
			if err != nil {
				return err
			}
			switch {
			case !loc.IsS3():
				return usagef("cat %s: want an s3:// URL", loc)
			case loc.HasWildcard():
				return usagef("cat %s: one object, not a wildcard", loc)
			case loc.IsDirLike():
				return usagef("cat %s: is a bucket or prefix, not an object", loc)
			}
			c, err := a.newSession().s3(ctx)
			if err != nil {
				return err
			}
			return a.catObject(ctx, c.Bucket(loc.Bucket), loc, a.stdio.Out)
		},
	}
	cmd.Flags().BoolVar(&raw, "raw", false, "treat '*' and '?' as ordinary characters")
	return cmd
}
