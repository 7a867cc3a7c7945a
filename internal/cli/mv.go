package cli

import "github.com/spf13/cobra"

func (a *app) mvCmd() *cobra.Command {
	return a.transferCmd(&cobra.Command{
		Use:   "mv SRC DST",
		Short: "Move objects: copy, then delete each source only once its copy succeeded",
		Long: `Move one object, a prefix (--recursive) or a wildcard match: S3 to S3
(server-side), local to S3, or S3 to local.

Each source is deleted only after its copy succeeded; a failed copy leaves
its source in place. Sources, destinations, wildcards and flags are those of
cp. A wildcard that is also the exact name of an existing object (a key
with a literal '*' or '?') is refused: use --raw to move only that object.
Folder markers are left in the source. With --version-id the version
named is moved: it is deleted for good once copied (not hidden behind a
delete marker).`,
		Example: `  s3bulk mv s3://bucket/incoming/a.json s3://bucket/done/
  s3bulk mv --recursive s3://bucket/incoming/ s3://archive/2026/
  s3bulk mv 's3://bucket/tmp/*.csv' ./csv/`,
	}, true)
}
