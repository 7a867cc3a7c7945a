package cli

import (
	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
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
			loc, err := parseObject("cat", args[0], raw)
			if err != nil {
				return err
			}
			c, err := a.newSession().s3(ctx)
			if err != nil {
				return err
			}
			return engine.Cat(ctx, c.Bucket(loc.Bucket), loc, a.stdio.Out)
		},
	}
	cmd.Flags().BoolVar(&raw, "raw", false, "treat '*' and '?' as ordinary characters")
	return cmd
}

// parseObject reads the argument of a verb that takes exactly one S3
// object (cat, presign): not a local path, a wildcard, a bucket or a prefix.
func parseObject(verb, arg string, raw bool) (s3url.Location, error) {
	return parseOne(arg, raw, verb, "", "is a bucket or prefix, not an object")
}

// parseOne parses an argument that must name one S3 object; its errors
// start with prefix, add also to the first two reasons, and say dirLike of
// a bucket or prefix.
func parseOne(arg string, raw bool, prefix, also, dirLike string) (s3url.Location, error) {
	loc, err := parseLocation(arg, raw)
	if err != nil {
		return loc, err
	}
	switch {
	case !loc.IsS3():
		return loc, usagef("%s %s: want an s3:// URL%s", prefix, loc, also)
	case loc.HasWildcard():
		return loc, usagef("%s %s: one object, not a wildcard%s", prefix, loc, also)
	case loc.IsDirLike():
		return loc, usagef("%s %s: %s", prefix, loc, dirLike)
	}
	return loc, nil
}
