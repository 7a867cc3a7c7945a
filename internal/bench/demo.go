package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/gateway"
	"github.com/s3bulk/s3bulk/internal/netdelay"
	"github.com/s3bulk/s3bulk/internal/simregion"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// Demo credentials and buckets: the child server only listens on the
// loopback interface.
const (
	demoAccessKey = "s3bulk-demo"
	demoSecretKey = "s3bulk-demo-secret"
	demoRegion    = "us-east-1"
	demoSource    = "s3bulk-demo-source"
	demoDest      = "s3bulk-demo-dest"
	// demoSourcePrefix is where the data set is seeded (or described).
	demoSourcePrefix = "seed/"
)

// DemoMethods are demo's methods unless asked for others. They leave out
// put: seeding has just uploaded the same objects, and the baseline alone
// would take most of the two minutes demo aims at.
var DemoMethods = []string{MethodCopyPerCompany, MethodS3bulk, MethodAWS, MethodS5cmd, MethodRclone, MethodBatchOps}

// DefaultDemoLatency is the delay demo --server local puts in front of its
// local server: about the least a real region gives. Without any, the
// local server is the bottleneck and no client's parallelism can show.
const DefaultDemoLatency = 10 * time.Millisecond

// DemoOptions say how StartDemo starts its processes.
type DemoOptions struct {
	// Latency, above 0, puts a relay adding it to every round trip in
	// front of the server (ServeLatencyProxy).
	Latency time.Duration
	// ServerCmd makes the command that serves S3 on dir, announcing its
	// endpoint as gateway.Spawn expects; ProxyCmd the one that relays to
	// target adding latency (ServeLatencyProxy). Each runs in a process of
	// its own, so that its CPU time never counts as the client's.
	ServerCmd func(dir string) (*exec.Cmd, error)
	ProxyCmd  func(target string, latency time.Duration) (*exec.Cmd, error)
	// Env is added to the process's environment for the server, the proxy
	// and the tools the demo runs, after it, so it wins (a caller with an
	// environment of its own, as the CLI's tests have).
	Env []string
	// TempDir is where the server's data directory is made, "" for
	// os.TempDir (the caller's TMPDIR, when its environment is its own).
	TempDir string
}

// Demo is a local S3 server with an empty source and destination bucket,
// on a temporary directory that Close removes.
type Demo struct {
	// Endpoint is the server's URL (the proxy's, with latency).
	Endpoint string
	// Conn reaches it with the demo's keys only, whatever the user's AWS
	// configuration says; Store is the same for s3bulk's own client.
	Conn  Conn
	Store s3store.Config
	// Source and Dest are where the data set is seeded and copied to.
	Source, Dest Target

	tmp      string
	children []*gateway.Child
}

// StartDemo starts the server (and the proxy) and makes the buckets. On an
// error nothing is left running.
func StartDemo(ctx context.Context, opts DemoOptions) (d *Demo, err error) {
	tmp, err := os.MkdirTemp(opts.TempDir, "s3bulk-demo-")
	if err != nil {
		dir := opts.TempDir
		if dir == "" {
			dir = os.TempDir()
		}
		return nil, fmt.Errorf("demo: create a temporary directory in %s: %v (set TMPDIR to a writable directory)", dir, store.PathCause(err))
	}
	// started is closed on an error: `return nil, err` clears d first.
	started := &Demo{tmp: tmp, Source: Target{Bucket: demoSource, Prefix: demoSourcePrefix}, Dest: Target{Bucket: demoDest, Prefix: "copy/"}}
	d = started
	defer func() {
		if err != nil {
			_ = started.Close()
		}
	}()
	cmd, err := opts.ServerCmd(filepath.Join(tmp, "data"))
	if err != nil {
		return nil, err
	}
	cmd.Env = append(append(append(os.Environ(), opts.Env...), cmd.Env...), "AWS_ACCESS_KEY_ID="+demoAccessKey, "AWS_SECRET_ACCESS_KEY="+demoSecretKey)
	if err := d.spawn(ctx, cmd, "the S3 server"); err != nil {
		return nil, err
	}
	if opts.Latency > 0 {
		pcmd, err := opts.ProxyCmd(d.Endpoint, opts.Latency)
		if err != nil {
			return nil, err
		}
		pcmd.Env = append(append(os.Environ(), opts.Env...), pcmd.Env...)
		if err := d.spawn(ctx, pcmd, "the latency proxy"); err != nil {
			return nil, err
		}
	}
	d.Conn = Conn{
		AWS: aws.Config{
			Region:      demoRegion,
			Credentials: credentials.NewStaticCredentialsProvider(demoAccessKey, demoSecretKey, ""),
		},
		Endpoint: d.Endpoint, PathStyle: true, ChecksumWhenRequired: true,
		// Tools must reach the demo server with the demo keys only.
		ToolEnv: append(slices.Clip(opts.Env), "AWS_CONFIG_FILE="+os.DevNull, "AWS_SHARED_CREDENTIALS_FILE="+os.DevNull, "AWS_EC2_METADATA_DISABLED=true"),
	}
	pathStyle := true
	d.Store = s3store.Config{
		Region: demoRegion, EndpointURL: d.Endpoint, PathStyle: &pathStyle, ChecksumWhenRequired: true,
		AccessKey: demoAccessKey, SecretKey: demoSecretKey,
	}
	client, err := s3store.NewClient(ctx, d.Store)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	for _, b := range []string{demoSource, demoDest} {
		if err := client.MakeBucket(ctx, b); err != nil {
			return nil, fmt.Errorf("demo: create bucket %s: %w", b, err)
		}
	}
	return d, nil
}

// spawn starts one child; the last one started is the endpoint to use.
func (d *Demo) spawn(ctx context.Context, cmd *exec.Cmd, what string) error {
	child, err := gateway.Spawn(ctx, cmd)
	if err != nil {
		return fmt.Errorf("demo: start %s: %w", what, err)
	}
	d.children = append(d.children, child)
	d.Endpoint = child.Endpoint
	return nil
}

// Close stops the processes, the last started first, and removes the
// server's directory.
func (d *Demo) Close() error {
	var errs []error
	for i := len(d.children) - 1; i >= 0; i-- {
		if err := d.children[i].Stop(); err != nil {
			errs = append(errs, fmt.Errorf("demo: %w", err))
		}
	}
	d.children = nil
	if err := os.RemoveAll(d.tmp); err != nil {
		errs = append(errs, fmt.Errorf("demo: %w", err))
	}
	return errors.Join(errs...)
}

// ServeLatencyProxy relays connections to target (an http or https URL),
// adding latency to every round trip as a network would
// (internal/netdelay), until ctx is done. It announces its endpoint on out
// the way the gateway does, so that gateway.Spawn can start it.
func ServeLatencyProxy(ctx context.Context, target string, latency time.Duration, out io.Writer) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("latency proxy: target %q is not an http or https URL", target)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	r, err := netdelay.Listen("127.0.0.1:0", host, latency)
	if err != nil {
		return fmt.Errorf("latency proxy: %w", err)
	}
	fmt.Fprintf(out, "%s%s://%s\n", gateway.EndpointPrefix, u.Scheme, r.Addr())
	<-ctx.Done()
	return r.Close()
}

// modulePath is s3bulk's Go module.
const modulePath = "github.com/s3bulk/s3bulk"

// DefaultDemoOut is where demo writes its report without --out:
// cwd/s3bulk-demo, unless cwd is inside s3bulk's own source tree (as after
// `go run ./cmd/s3bulk demo` in a clone), where a report would show in
// `git status`: then s3bulk-demo under tmp.
func DefaultDemoOut(cwd, tmp string) string {
	for dir := cwd; ; dir = filepath.Dir(dir) {
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			first, _, _ := strings.Cut(string(mod), "\n")
			if strings.TrimSpace(first) == "module "+modulePath {
				return filepath.Join(tmp, "s3bulk-demo")
			}
			break // another module: cwd is not in our tree
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return filepath.Join(cwd, "s3bulk-demo")
}

// NewConn loads the AWS configuration through s3store's loader, as the
// report's programs did (the SDK's default chain) with cfg's region,
// profile and keys, and keeps cfg's endpoint settings: path-style when
// cfg says so, or when unset and an endpoint is configured.
func NewConn(ctx context.Context, cfg s3store.Config) (Conn, error) {
	awsCfg, err := s3store.LoadAWSConfig(ctx, s3store.Config{Region: cfg.Region, Profile: cfg.Profile,
		AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey, SessionToken: cfg.SessionToken,
		ConfigFiles: cfg.ConfigFiles, CredentialsFiles: cfg.CredentialsFiles})
	if err != nil {
		return Conn{}, err
	}
	if awsCfg.Region == "" {
		awsCfg.Region = demoRegion
	}
	endpoint := cfg.EndpointURL
	if endpoint == "" {
		endpoint = aws.ToString(awsCfg.BaseEndpoint)
	}
	pathStyle := endpoint != ""
	if cfg.PathStyle != nil {
		pathStyle = *cfg.PathStyle
	}
	return Conn{AWS: awsCfg, Endpoint: endpoint, PathStyle: pathStyle, ChecksumWhenRequired: cfg.ChecksumWhenRequired}, nil
}

// Shortfall is the number of objects the failed methods did not copy.
func (r Report) Shortfall() int64 {
	var short int64
	for _, m := range r.Methods {
		if m.Status == StatusFailed {
			short += r.Environment.Objects - m.Objects
		}
	}
	return short
}

// WriteFiles writes the Markdown report and the PNG chart to their files
// ("" for none), each through a temporary file renamed into place, so that
// a failed render never leaves half a report. The report links the chart
// by its path relative to the report.
func WriteFiles(r *Report, markdown, chart string) error {
	if chart != "" {
		if err := writeFile(chart, func(w io.Writer) error { return writeChart(w, r) }); err != nil {
			return err
		}
	}
	if markdown == "" {
		return nil
	}
	link := ""
	if chart != "" {
		if rel, err := filepath.Rel(filepath.Dir(markdown), chart); err == nil {
			link = filepath.ToSlash(rel)
		}
	}
	return writeFile(markdown, func(w io.Writer) error { return writeMarkdown(w, r, link) })
}

func writeFile(name string, write func(io.Writer) error) error {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, store.PathCause(err))
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("write %s: %w", name, store.PathCause(err))
	}
	return nil
}

// SimRegionOptions describe the simulated region demo and bench --simulate
// run in.
type SimRegionOptions struct {
	// Latency is every request's round trip.
	Latency time.Duration
	// Layout is the data set the region holds, described, under the demo's
	// source bucket and prefix.
	Layout Layout
	// AccessKey and SecretKey are the only keys it accepts.
	AccessKey, SecretKey string
}

// ServeSimRegion runs the simulated region until ctx is done: the demo's
// source bucket holding opts.Layout (described, not stored: every body is
// the region's pattern of the layout's size), an empty destination bucket
// to be created, S3's capacity per prefix (SimWriteRate, SimReadRate; a
// new bucket is one prefix) and opts.Latency per request. It announces its
// endpoint on out the way the gateway does, so that gateway.Spawn can
// start it.
func ServeSimRegion(ctx context.Context, opts SimRegionOptions, out io.Writer) error {
	if err := opts.Layout.Validate(); err != nil {
		return err
	}
	keys := make([]string, opts.Layout.Objects)
	for i := range keys {
		keys[i] = demoSourcePrefix + opts.Layout.Key(i)
	}
	srv, err := simregion.Start(simregion.Config{
		Bucket: demoSource, Keys: keys, Size: opts.Layout.Size, Delay: opts.Latency,
		Throttle: &faultproxy.Throttle{WriteRate: SimWriteRate, ReadRate: SimReadRate},
		Auth:     &simregion.Auth{AccessKey: opts.AccessKey, SecretKey: opts.SecretKey, Region: demoRegion},
		Buckets:  []string{}, HealthPath: gateway.HealthPath,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s%s\n", gateway.EndpointPrefix, srv.URL())
	<-ctx.Done()
	return srv.Close()
}
