package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/internal/gateway"
)

func (a *app) serveCmd() *cobra.Command {
	var opts gateway.Options
	cmd := &cobra.Command{
		Use:   "serve --dir DIR",
		Short: "Run an S3-compatible server (versitygw) on a local directory",
		Long: `Run the embedded versitygw S3 server on a directory: every subdirectory is a
bucket. It prints the endpoint, the credentials and region clients must use,
and the lines to paste into another terminal, then serves until interrupted.

Credentials come from --access-key/--secret-key, else AWS_ACCESS_KEY_ID /
AWS_SECRET_ACCESS_KEY, else the built-in s3bulk / s3bulk-local-secret. The
built-in ones are public: serve refuses them on any address but loopback
(127.0.0.1, ::1, localhost), where only this machine can connect; give your
own to listen on the network.

The first line on stdout is always "endpoint: URL", for scripts. The
server's own notices and one line per request go to stderr with --verbose.`,
		Example: `  s3bulk serve --dir ./s3data --addr 127.0.0.1:9000
  s3bulk serve --dir ./s3data --addr 0.0.0.0:9000 --access-key me --secret-key "$SECRET"
  s3bulk --verbose serve --dir ./s3data      # log every request`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Region == "" {
				opts.Region = a.g.region
			}
			opts.Quiet = !a.g.verbose
			opts, err := opts.Check(a.env.get)
			if err != nil {
				return usageError{err}
			}
			// The server changes the process's working directory: name
			// the directory, for the banner, before it does.
			if opts.Dir, err = filepath.Abs(opts.Dir); err != nil {
				return fmt.Errorf("serve %s: %w", opts.Dir, err)
			}
			err = gateway.Main(cmd.Context(), opts, gateway.WithBanner(a.stdio.Out, opts))
			if cmd.Context().Err() != nil {
				return nil // interrupted is how a server stops
			}
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("serve: %s is already in use: stop what listens there, or pick another --addr (port 0 picks a free one)", opts.Resolved().Addr)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Dir, "dir", "", "the `DIR` to serve, created if missing: each subdirectory is a bucket")
	f.StringVar(&opts.Addr, "addr", gateway.DefaultAddr, "listen on `HOST:PORT`; port 0 picks a free port; a host other than loopback needs your own credentials")
	f.StringVar(&opts.AccessKey, "access-key", "", "access key id clients must use (default AWS_ACCESS_KEY_ID, else "+gateway.DefaultAccessKey+")")
	f.StringVar(&opts.SecretKey, "secret-key", "", "secret access key clients must use (default AWS_SECRET_ACCESS_KEY, else the built-in one)")
	return cmd
}
