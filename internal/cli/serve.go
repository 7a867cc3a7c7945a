package cli

import (
	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/internal/gateway"
)

func (a *app) serveCmd() *cobra.Command {
	var opts gateway.Options
	cmd := &cobra.Command{
		Use:   "serve --dir DIR",
		Short: "Run an S3-compatible server (versitygw) on a local directory",
		Long: `Run the embedded versitygw S3 server on a directory: every subdirectory is a
bucket. Credentials come from --access-key/--secret-key or AWS_ACCESS_KEY_ID /
AWS_SECRET_ACCESS_KEY. It prints "endpoint: URL" once it accepts connections
and serves until interrupted.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Dir == "" {
				return usagef("serve: --dir is required")
			}
			if opts.Region == "" {
				opts.Region = a.g.region
			}
			err := gateway.Main(cmd.Context(), opts, a.stdio.Out)
			if cmd.Context().Err() != nil {
				return nil // interrupted is how a server stops
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Dir, "dir", "", "directory to serve (created if missing)")
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free port)")
	f.StringVar(&opts.AccessKey, "access-key", "", "access key id (default AWS_ACCESS_KEY_ID)")
	f.StringVar(&opts.SecretKey, "secret-key", "", "secret access key (default AWS_SECRET_ACCESS_KEY)")
	return cmd
}
