package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/versity/versitygw/backend/meta"
	"github.com/versity/versitygw/backend/posix"
	"github.com/versity/versitygw/embedgw"
	"github.com/versity/versitygw/s3api"
)

const (
	// HealthPath answers GET with 200 without authentication. Bucket names
	// cannot contain '_', so no bucket is ever masked by it.
	HealthPath = "/_s3bulk_health"

	// DefaultAccessKey and DefaultSecretKey are the root credentials of a
	// gateway started without credentials in its options or environment.
	// They are meant for servers on the loopback interface only.
	DefaultAccessKey = "s3bulk"
	DefaultSecretKey = "s3bulk-local-secret"

	// DefaultRegion is the region SigV4 signatures must name.
	DefaultRegion = "us-east-1"

	// DefaultAddr binds the loopback interface on a free port.
	DefaultAddr = "127.0.0.1:0"

	// EndpointPrefix starts the one line Main prints on stdout.
	EndpointPrefix = "endpoint: "
)

// Limits sized for a benchmark with a few hundred requests in flight plus
// the idle keep-alive connections of several clients. The gateway answers
// 503 SlowDown once maxRequests are in flight, which would look like
// throttling to the client under test, so it is set well above what any
// test or benchmark uses.
const (
	maxConnections = 8192
	maxRequests    = 8192
	maxParts       = 10000
	// copyThreshold must be set explicitly: a zero threshold makes every
	// CopyObject and UploadPartCopy fail.
	copyThreshold = 5 << 30
	// ioBufferSize is the copy buffer of PUT and UploadPart (pooled) and the
	// read-ahead of ranged GETs (allocated per request). versitygw's 1 MiB
	// default costs 256 MiB of garbage for 256 ranged GETs in flight; 256 KiB
	// keeps syscalls per GiB in the low thousands at a quarter of that.
	ioBufferSize = 256 << 10
	// shutdownGrace bounds how long Main waits for the gateway to finish
	// in-flight requests once its context is done.
	shutdownGrace = 2 * time.Second
	// bindAttempts bounds retries when the free port we picked is taken
	// by someone else before the gateway binds it.
	bindAttempts = 10
)

// Options configure Main. Zero values take the defaults documented on each
// field.
type Options struct {
	// Dir is the directory served: each subdirectory is a bucket. Created
	// when missing. Required.
	Dir string
	// Addr is host:port to listen on; port 0 picks a free port. Default
	// DefaultAddr.
	Addr string
	// AccessKey and SecretKey are the root credentials. Default
	// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, else DefaultAccessKey and
	// DefaultSecretKey.
	AccessKey, SecretKey string
	// Region is the region clients must sign for. Default DefaultRegion.
	Region string
	// Quiet drops the per-request log lines and startup notices otherwise
	// written to stderr.
	Quiet bool
	// VersioningDir, when set, lets buckets keep object versions
	// (PutBucketVersioning): versitygw keeps older versions there. It must
	// lie outside Dir; it is created when missing.
	VersioningDir string
}

func (o Options) withDefaults() Options {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.AccessKey == "" && o.SecretKey == "" {
		o.AccessKey, o.SecretKey = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
		if o.AccessKey == "" || o.SecretKey == "" {
			o.AccessKey, o.SecretKey = DefaultAccessKey, DefaultSecretKey
		}
	}
	if o.Region == "" {
		o.Region = DefaultRegion
	}
	return o
}

// Main serves opts.Dir until ctx is done, then gives requests in flight a
// short grace period and returns. Once the server answers on
// HealthPath it writes exactly one line, "endpoint: http://HOST:PORT", to
// stdout.
//
// Main owns the process while it runs: versitygw changes the working
// directory and keeps package-level state, so only one Main may run per
// process, and versitygw's own notices, which it prints to os.Stdout, are
// sent to os.Stderr (or dropped when opts.Quiet) so that stdout carries
// only the endpoint line.
func Main(ctx context.Context, opts Options, stdout io.Writer) error {
	return run(ctx, opts, stdout, false)
}

// run is Main with a switch that forces sidecar metadata, so tests can
// cover the path taken on filesystems without extended attributes.
func run(ctx context.Context, opts Options, stdout io.Writer, forceSidecar bool) error {
	opts = opts.withDefaults()
	if opts.Dir == "" {
		return errors.New("serve: no directory given")
	}
	if opts.AccessKey == "" || opts.SecretKey == "" {
		return errors.New("serve: access key and secret key must both be set")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return fmt.Errorf("serve %s: %w", opts.Dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("serve %s: %w", dir, err)
	}
	host, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return fmt.Errorf("serve %s: address %q: %w", dir, opts.Addr, err)
	}
	pickPort := port == "0" || port == ""

	// versitygw prints notices ("No IAM service configured...") to
	// os.Stdout; stdout is reserved for the endpoint line.
	saved := os.Stdout
	os.Stdout = os.Stderr
	if opts.Quiet {
		devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("serve %s: %w", dir, err)
		}
		defer devNull.Close()
		os.Stdout = devNull
	}
	defer func() { os.Stdout = saved }()

	for attempt := 1; ; attempt++ {
		addr := opts.Addr
		if pickPort {
			p, err := freePort(host)
			if err != nil {
				return fmt.Errorf("serve %s: %w", dir, err)
			}
			addr = net.JoinHostPort(host, strconv.Itoa(p))
		}
		err := serve(ctx, opts, dir, addr, stdout, forceSidecar)
		if pickPort && attempt < bindAttempts && errors.Is(err, syscall.EADDRINUSE) {
			continue
		}
		if err != nil {
			return fmt.Errorf("serve %s on %s: %w", dir, addr, err)
		}
		return nil
	}
}

// freePort asks the kernel for a free port on host. Another process may
// take it before the gateway binds it; run retries then.
func freePort(host string) (int, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// serve runs one gateway on addr until ctx is done or it fails.
func serve(ctx context.Context, opts Options, dir, addr string, stdout io.Writer, forceSidecar bool) error {
	be, err := newBackend(dir, opts.VersioningDir, forceSidecar)
	if err != nil {
		return err
	}
	listening := make(chan struct{})
	s3opts := []s3api.Option{s3api.WithOnListen(func() { close(listening) })}
	if !opts.Quiet {
		s3opts = append(s3opts, s3api.WithMiddleware("/", requestLog(os.Stderr)))
	}
	cfg := &embedgw.Config{
		RootUserAccess:    opts.AccessKey,
		RootUserSecret:    opts.SecretKey,
		Region:            opts.Region,
		Ports:             []string{addr},
		MaxConnections:    maxConnections,
		MaxRequests:       maxRequests,
		MultipartMaxParts: maxParts,
		HealthPath:        HealthPath,
		// Without keep-alive versitygw closes every connection after one
		// response, and clients pay a TCP handshake per request.
		KeepAlive: true,
		// Quiet here silences versitygw's banner and request log on
		// stdout; our own request log goes to stderr.
		Quiet:     true,
		S3Options: s3opts,
	}

	gwctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runErr error
	stopped := make(chan struct{})
	go func() {
		runErr = embedgw.RunVersityGW(gwctx, be, cfg)
		close(stopped)
	}()

	select {
	case <-stopped:
		return runErr
	case <-listening:
	}
	endpoint := "http://" + net.JoinHostPort(clientHost(addr), portOf(addr))
	err = waitHealthy(gwctx, endpoint, stopped)
	if err == nil {
		_, err = fmt.Fprintf(stdout, "%s%s\n", EndpointPrefix, endpoint)
	}
	if err != nil {
		cancel()
		<-stopped
		return err
	}
	select {
	case <-stopped:
		return runErr
	case <-ctx.Done():
	}
	// versitygw's graceful shutdown waits up to 10s for connections the
	// server has not yet counted as idle, which is every connection a
	// client opened in the last 5s; clients keep many of them. Requests
	// still running after the grace period end with the process.
	grace := time.NewTimer(shutdownGrace)
	defer grace.Stop()
	select {
	case <-stopped:
		return runErr
	case <-grace.C:
		return nil
	}
}

// newBackend picks extended attributes for object metadata, as versitygw's
// own posix command does, and falls back to a sidecar directory next to dir
// on filesystems without them. The sidecar must live outside dir, or it
// would be listed as a bucket.
func newBackend(dir, versioningDir string, forceSidecar bool) (*posix.Posix, error) {
	popts := posix.PosixOpts{
		CopyObjectThreshold: copyThreshold,
		IOBufferSize:        ioBufferSize,
		// One gateway process serves a directory, so the in-process locks
		// suffice to serialize writers to one key; the lock files would add
		// an open, flock and close to every PUT.
		ForceNoObjLockFile: true,
		// O_TMPFILE and copy_file_range stay on (the defaults): objects are
		// written unnamed and linked in place at the end, and completing a
		// multipart upload copies parts in the kernel. O_DIRECT stays off:
		// the page cache is what makes re-reads in benchmarks fast.
	}
	if versioningDir != "" {
		if err := os.MkdirAll(versioningDir, 0o755); err != nil {
			return nil, fmt.Errorf("create versioning directory: %w", err)
		}
		popts.VersioningDir = versioningDir
	}
	var ms meta.MetadataStorer = meta.XattrMeta{}
	if forceSidecar || (meta.XattrMeta{}).Test(dir) != nil {
		side := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".meta")
		if err := os.MkdirAll(side, 0o755); err != nil {
			return nil, fmt.Errorf("create metadata directory: %w", err)
		}
		sc, err := meta.NewSideCar(side)
		if err != nil {
			return nil, fmt.Errorf("open metadata directory %s: %w", side, err)
		}
		ms = sc
		popts.SideCarDir = side
	}
	be, err := posix.New(dir, ms, popts)
	if err != nil {
		return nil, fmt.Errorf("open posix backend: %w", err)
	}
	return be, nil
}

// clientHost turns a listening host into one a client can dial.
func clientHost(addr string) string {
	host, _, _ := net.SplitHostPort(addr)
	switch host {
	case "", "0.0.0.0":
		return "127.0.0.1"
	case "::":
		return "::1"
	}
	return host
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// waitHealthy polls the health path until the server answers 200, stopped
// is closed, or ctx is done.
func waitHealthy(ctx context.Context, endpoint string, stopped <-chan struct{}) error {
	client := &http.Client{Timeout: 2 * time.Second}
	defer client.CloseIdleConnections()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		last = checkHealth(ctx, client, endpoint)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w (last: %v)", endpoint, ctx.Err(), last)
		case <-stopped:
			return fmt.Errorf("wait for %s: server stopped (last: %v)", endpoint, last)
		case <-tick.C:
		}
	}
}

func checkHealth(ctx context.Context, client *http.Client, endpoint string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+HealthPath, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: %s", resp.Status)
	}
	return nil
}

// requestLog writes one line per request. It replaces versitygw's logger,
// which can only write to stdout.
func requestLog(w io.Writer) fiber.Handler {
	return func(c fiber.Ctx) error {
		start := time.Now()
		err := c.Next()
		status := c.Response().StatusCode()
		var fe *fiber.Error
		if errors.As(err, &fe) {
			status = fe.Code
		}
		fmt.Fprintf(w, "%s %d %s %s %s\n", start.Format(time.RFC3339), status,
			c.Method(), c.OriginalURL(), time.Since(start).Round(time.Microsecond))
		return err
	}
}

// Resolved returns opts as Main will use them: the defaults documented on
// each field filled in, credentials from the environment or the built-in
// ones included.
func (o Options) Resolved() Options { return o.withDefaults() }

// BuiltinCredentials reports whether opts (resolved) use DefaultAccessKey
// and DefaultSecretKey, which anyone can read in this source.
func (o Options) BuiltinCredentials() bool {
	r := o.withDefaults()
	return r.AccessKey == DefaultAccessKey && r.SecretKey == DefaultSecretKey
}
