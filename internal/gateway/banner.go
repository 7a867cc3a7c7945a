package gateway

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
)

// Check refuses options Main would serve unsafely or not at all, and
// returns them with the credentials filled in from getenv: both of
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY when neither key was given,
// else the built-in pair. It refuses no directory, half a pair of keys,
// an address that is not HOST:PORT, and the built-in credentials (which
// anyone can read) on an address other clients can reach. Its messages
// name the serve command's flags.
func (o Options) Check(getenv func(string) string) (Options, error) {
	if o.Dir == "" {
		return o, errors.New("serve: --dir is required")
	}
	if (o.AccessKey == "") != (o.SecretKey == "") {
		return o, errors.New("serve: give both --access-key and --secret-key, or neither")
	}
	if o.AccessKey == "" {
		// Both from the environment, or neither (the built-in pair).
		if id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
			o.AccessKey, o.SecretKey = id, secret
		}
	}
	r := o.Resolved()
	host, _, err := net.SplitHostPort(r.Addr)
	if err != nil {
		return o, fmt.Errorf("serve --addr %q: want HOST:PORT (port 0 picks a free one)", r.Addr)
	}
	if o.BuiltinCredentials() && !Loopback(host) {
		return o, fmt.Errorf("serve --addr %s: the built-in credentials are public and would let anyone on the network in: give --access-key and --secret-key (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)", r.Addr)
	}
	return o, nil
}

// Loopback reports whether host only accepts connections from this machine.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// WriteBanner tells a person what a client needs to reach the server at
// endpoint. The secret is printed only when it is the built-in one, which
// is no secret.
func WriteBanner(w io.Writer, endpoint string, opts Options) {
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

// WithBanner returns a writer for Main's stdout that passes it through to
// w and, after the endpoint line, writes WriteBanner's text for that
// endpoint once.
func WithBanner(w io.Writer, opts Options) io.Writer {
	return &bannerWriter{w: w, banner: func(w io.Writer, endpoint string) { WriteBanner(w, endpoint, opts) }}
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
		if endpoint, ok := strings.CutPrefix(line, EndpointPrefix); ok {
			b.done, b.buf = true, nil
			b.banner(b.w, strings.TrimSpace(endpoint))
			break
		}
	}
	return len(p), nil
}
