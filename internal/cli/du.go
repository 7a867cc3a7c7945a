package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/progress"
)

func (a *app) duCmd() *cobra.Command {
	var human, group, raw bool
	var sel selectFlags
	cmd := &cobra.Command{
		Use:   "du LOCATION...",
		Short: "Count the objects under a prefix, a wildcard or a directory, and their total size",
		Long: `Count objects and add up their sizes, streaming the listing: memory stays
flat whatever the number of keys.`,
		Example: `  s3bulk du s3://bucket/logs/
  s3bulk du -H --group 's3://bucket/*.parquet'
  s3bulk du --newer-than 7d ./photos`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var opts engine.Options
			if err := sel.apply(&opts, a.env); err != nil {
				return err
			}
			s := a.newSession()
			enc := progress.NewJSON(a.stdio.Out)
			for _, arg := range args {
				loc, err := parseLocation(arg, raw)
				if err != nil {
					return err
				}
				ep, err := s.sourceEndpoint(ctx, loc, true)
				if err != nil {
					return err
				}
				// A local file is one object; anything else is a prefix.
				recursive := !(loc.Local && !ep.Loc.HasWildcard() && ep.Loc.Key != "")
				u := progress.NewUsage(loc.String(), group)
				if err := s.eng.Walk(ctx, engine.Job{Src: ep, Recursive: recursive}, opts, u.Add); err != nil {
					return err
				}
				for _, r := range u.Records() {
					if a.g.json {
						if err := enc.Encode(r); err != nil {
							return err
						}
						continue
					}
					fmt.Fprintln(a.stdio.Out, progress.UsageText(r, human, group))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&human, "human-readable", "H", false, "sizes as KiB, MiB, GiB")
	cmd.Flags().BoolVarP(&group, "group", "g", false, "one line per storage class")
	cmd.Flags().BoolVar(&raw, "raw", false, "treat '*' and '?' as ordinary characters")
	sel.register(cmd, false)
	return cmd
}
