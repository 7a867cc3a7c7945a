package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
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
			var err error
			if opts.Dir == "" {
				return usagef("serve: --dir is required")
			}
			if (opts.AccessKey == "") != (opts.SecretKey == "") {
				return usagef("serve: give both --access-key and --secret-key, or neither")
			}
			if opts.AccessKey == "" {
				// Both from the environment, or neither (the built-in pair).
				if id, secret := a.env.get("AWS_ACCESS_KEY_ID"), a.env.get("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
					opts.AccessKey, opts.SecretKey = id, secret
				}
			}
			if opts.Region == "" {
				opts.Region = a.g.region
			}
			opts.Quiet = !a.g.verbose
			// The server changes the process's working directory: name
			// the directory, for the banner, before it does.
			if opts.Dir, err = filepath.Abs(opts.Dir); err != nil {
				return fmt.Errorf("serve %s: %w", opts.Dir, err)
			}
			r := opts.Resolved()
			host, _, err := net.SplitHostPort(r.Addr)
			if err != nil {
				return usagef("serve --addr %q: want HOST:PORT (port 0 picks a free one)", r.Addr)
			}
			if opts.BuiltinCredentials() && !loopback(host) {
				return usagef("serve --addr %s: the built-in credentials are public and would let anyone on the network in: give --access-key and --secret-key (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)", r.Addr)
			}
			out := &bannerWriter{w: a.stdio.Out, banner: func(w io.Writer, endpoint string) {
				printServeBanner(w, endpoint, opts)
			}}
			err = gateway.Main(cmd.Context(), opts, out)
			if cmd.Context().Err() != nil {
				return nil // interrupted is how a server stops
			}
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("serve: %s is already in use: stop what listens there, or pick another --addr (port 0 picks a free one)", r.Addr)
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

// loopback reports whether host only accepts connections from this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// printServeBanner tells a person what a client needs to reach the server.
// The secret is printed only when it is the built-in one, which is no
// secret.
func printServeBanner(w io.Writer, endpoint string, opts gateway.Options) {
	r := opts.Resolved()
	secret, secretLine := "(the one you gave)", ""
	switch {
	case opts.BuiltinCredentials():
		secret = r.SecretKey + " (built-in; --access-key/--secret-key set your own)"
		secretLine = "  export AWS_SECRET_ACCESS_KEY=" + r.SecretKey + "\n"
	case opts.SecretKey == "":
		secret = "from AWS_SECRET_ACCESS_KEY"
	}
	fmt.Fprintf(w, `serving %s (each subdirectory is a bucket)
access key: %s
secret key: %s
region:     %s

In another terminal:
  export AWS_ENDPOINT_URL=%s
  export AWS_ACCESS_KEY_ID=%s
%s  export AWS_REGION=%s
  s3bulk mb s3://my-bucket
  s3bulk cp --recursive ./some-dir s3://my-bucket/some-dir/
  aws s3 ls          # the AWS CLI reads the same variables
or, without the exports: s3bulk --endpoint-url %s ls
Serving until Ctrl-C%s.
`, r.Dir, r.AccessKey, secret, r.Region, endpoint, r.AccessKey, secretLine, r.Region, endpoint, verboseNote(opts.Quiet))
}

func verboseNote(quiet bool) string {
	if quiet {
		return " (--verbose logs every request)"
	}
	return "; every request is logged on stderr"
}

// bannerWriter passes the gateway's stdout through and, after the
// endpoint line, writes the banner for that endpoint once.
type bannerWriter struct {
	w      io.Writer
	banner func(io.Writer, string)
	mu     sync.Mutex
	buf    []byte
	done   bool
}

func (b *bannerWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.w.Write(p); err != nil {
		return 0, err
	}
	if b.done {
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	for {
		line, rest, ok := strings.Cut(string(b.buf), "\n")
		if !ok {
			break
		}
		b.buf = []byte(rest)
		if endpoint, ok := strings.CutPrefix(line, gateway.EndpointPrefix); ok {
			b.done, b.buf = true, nil
			b.banner(b.w, strings.TrimSpace(endpoint))
			break
		}
	}
	return len(p), nil
}
