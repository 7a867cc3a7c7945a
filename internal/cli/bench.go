package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/bench"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/internal/units"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// seed, bench and demo: the field report's benchmark as commands.

type seedFlags struct {
	objects, filesPerUser, usersPerCompany int
	size                                   sizeFlag
	seed                                   int64
}

func (a *app) seedCmd() *cobra.Command {
	f := seedFlags{size: sizeFlag(bench.DefaultLayout().Size)}
	cmd := &cobra.Command{
		Use:   "seed s3://BUCKET/PREFIX",
		Short: "Write the benchmark's data set: companies of users of JSON files",
		Long: `Write the field report's data set under a prefix, in parallel:

  PREFIX/company-0001/user-0001/file-01.json ... company-0013/user-1250/file-04.json

The defaults are the report's: 5,000 objects of 100 KiB, 4 files per user,
100 users per company (13 companies, the last holding the rest). Bodies are
JSON of exactly --size bytes, the same for the same --seed.`,
		Example: `  s3bulk seed s3://my-bucket/seed/
  s3bulk seed s3://my-bucket/seed/ --objects 100000 --size 1MiB`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			dst, err := bench.ParseTarget(args[0])
			if err != nil {
				return usageError{err}
			}
			layout, err := f.layout()
			if err != nil {
				return err
			}
			conn, err := a.benchConn(cmd.Context())
			if err != nil {
				return err
			}
			out := a.benchOutput()
			st, secs, err := out.Seed(cmd.Context(), conn, dst, layout, a.seedOptions())
			if err != nil {
				return err
			}
			return out.Seeded(dst, st, secs)
		},
	}
	f.register(cmd)
	return cmd
}

func (f *seedFlags) register(cmd *cobra.Command) {
	d := bench.DefaultLayout()
	fl := cmd.Flags()
	fl.IntVar(&f.objects, "objects", d.Objects, "number of objects")
	fl.Var(&f.size, "size", "size of each object, e.g. 100KiB, 1MiB")
	fl.IntVar(&f.filesPerUser, "files-per-user", d.FilesPerUser, "objects per user")
	fl.IntVar(&f.usersPerCompany, "users-per-company", d.UsersPerCompany, "users per company (the report's unit of parallelism)")
	fl.Int64Var(&f.seed, "seed", d.Seed, "seed of the bodies' contents")
}

func (f *seedFlags) layout() (bench.Layout, error) {
	l := bench.Layout{Objects: f.objects, Size: int64(f.size), FilesPerUser: f.filesPerUser, UsersPerCompany: f.usersPerCompany, Seed: f.seed}
	if err := l.Validate(); err != nil {
		return l, usageError{err}
	}
	return l, nil
}

func (a *app) seedOptions() bench.SeedOptions {
	return bench.SeedOptions{Concurrency: a.concurrencyOr(defaultConcurrency)}
}

// benchOutput renders seed, bench and demo.
func (a *app) benchOutput() progress.Bench {
	return progress.Bench{Out: a.stdio.Out, Err: a.stdio.Err, JSON: a.g.json, Quiet: a.g.quiet, Bar: a.showProgress()}
}

// benchFlags are bench's, and demo's where they apply.
type benchFlags struct {
	source, dest       string
	methods            []string
	report, chart      string
	prices             string
	priceRegion        string
	huge               sizeFlag
	hugeRepeat         int
	companyConcurrency int
	tools              map[string]string
	keepDest           bool
	// roleArn runs the batchops method for real: one job per bench run.
	roleArn string
	batch   batchFlags
	// simulate runs bench in a simulated S3 region started for the run,
	// latency its round trip.
	simulate bool
	latency  time.Duration
}

func (f *benchFlags) register(cmd *cobra.Command, demo bool) {
	fl := cmd.Flags()
	if !demo {
		fl.StringVar(&f.source, "source", "", "s3://BUCKET/PREFIX/ holding the data set (see seed)")
		fl.StringVar(&f.dest, "dest", "", "s3://BUCKET/PREFIX/ to copy to; emptied before each method")
		fl.StringVar(&f.report, "report", "", "write a Markdown report to this file")
		fl.StringVar(&f.chart, "chart", "", "write a PNG chart to this file")
		fl.BoolVar(&f.keepDest, "keep-dest", false, "leave the last method's copy in the destination")
		fl.StringVar(&f.roleArn, "role-arn", "", "`ARN` of the IAM role to run the batchops method for real with: a job per run (--source at a bucket's root, as a job keeps whole keys)")
		fl.StringVar(&f.batch.accountID, "account-id", "", "AWS account for the batchops method (default: asked from STS)")
		fl.StringVar(&f.batch.controlEndpoint, "control-endpoint-url", "", "S3 Control endpoint URL for the batchops method")
		fl.DurationVar(&f.batch.pollInterval, "poll-interval", defaultPollInterval, "how often the batchops method asks for its job's state")
		_ = fl.MarkHidden("poll-interval")
		fl.BoolVar(&f.simulate, "simulate", false, "run in a simulated S3 region started for the run, holding the report's data set (no --source, --dest or AWS account)")
		fl.DurationVar(&f.latency, "latency", bench.DefaultSimLatency, "with --simulate: the region's round trip per request")
	}
	fl.StringSliceVar(&f.methods, "methods", nil, "methods to run, from "+strings.Join(bench.AllMethods, ","))
	fl.StringVar(&f.prices, "prices", "", "JSON file of prices per region, laid over the built-in table")
	fl.StringVar(&f.priceRegion, "price-region", "", "region whose prices to use (default: the run's region, else "+bench.DefaultPriceRegion+")")
	fl.Var(&f.huge, "huge", "also copy one object of this size with part sizes 8-512 MiB and the automatic one, e.g. 5GiB")
	fl.IntVar(&f.hugeRepeat, "huge-repeat", 1, "copy the --huge object this many times per part size and keep the fastest")
	fl.IntVar(&f.companyConcurrency, "company-concurrency", bench.DefaultCompanyConcurrency, "companies at once for the per-company methods (the report's 4)")
	f.tools = map[string]string{}
	for _, t := range []string{"aws", "s5cmd", "rclone"} {
		fl.Var(&toolFlag{m: f.tools, name: t}, t, "path to "+t+" (default: found on PATH; the method is skipped without it)")
	}
}

// toolFlag sets one entry of the tools map.
type toolFlag struct {
	m    map[string]string
	name string
}

func (t *toolFlag) String() string     { return t.m[t.name] }
func (t *toolFlag) Set(v string) error { t.m[t.name] = v; return nil }
func (t *toolFlag) Type() string       { return "path" }

func (a *app) benchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench --source s3://A/P/ --dest s3://B/Q/",
		Short: "Compare ways of copying a data set between buckets: time, CPU, requests, cost",
		Long: `Copy the objects under --source to --dest with each method in turn, emptying
--dest before each and checking afterwards that every object arrived with its
size. The methods are the field report's and the usual tools':

  put               the report's baseline: PutObject, 4 companies at a time, one object at a time in each
  copy-per-company  the report's SDK program: ListObjectsV2 + CopyObject, same shape
  s3bulk            this tool's engine, with its defaults
  aws               aws s3 cp --recursive per company prefix, 4 at a time (skipped if not installed)
  s5cmd             s5cmd cp 'SRC/*' DST (skipped if not installed)
  rclone            rclone copy, configured by environment variables (skipped if not installed)
  batchops          S3 Batch Operations: with --role-arn, a manifest and one Copy job per run,
                    its active and wall seconds; without, not run, with its estimated cost

Results: a table (or --json, one document), --report FILE.md, --chart FILE.png,
and the report's linear projection to 50,000, 100,000 and 150,000 objects.
--huge SIZE adds report 3's experiment: one big object copied server-side
with part sizes from 8 to 512 MiB and with the automatic choice.`,
		Example: `  s3bulk seed s3://my-bucket/seed/
  s3bulk bench --source s3://my-bucket/seed/ --dest s3://other-bucket/copy/ --report bench.md --chart bench.png`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.simulate {
				return a.benchSimulated(cmd, f)
			}
			if cmd.Flags().Changed("latency") {
				return usagef("bench: --latency is the simulated region's: use it with --simulate")
			}
			if f.source == "" || f.dest == "" {
				return usagef("bench: --source and --dest are required (or --simulate)")
			}
			src, err := bench.ParseTarget(f.source)
			if err != nil {
				return usageError{err}
			}
			dst, err := bench.ParseTarget(f.dest)
			if err != nil {
				return usageError{err}
			}
			if err := bench.CheckTargets(src, dst); err != nil {
				return usageError{err}
			}
			if err := bench.CheckMethods(f.methods); err != nil {
				return usageError{err}
			}
			ctx := cmd.Context()
			conn, err := a.benchConn(ctx)
			if err != nil {
				return err
			}
			prices, err := a.benchPrices(f, conn.AWS.Region)
			if err != nil {
				return err
			}
			return a.runBench(ctx, conn, a.storeConfig(), src, dst, f, prices, benchRegime{})
		},
	}
	f.register(cmd, false)
	return cmd
}

// benchSimulated is bench --simulate: the report's data set in a
// simulated region started for the run.
func (a *app) benchSimulated(cmd *cobra.Command, f benchFlags) error {
	if f.source != "" || f.dest != "" {
		return usagef("bench --simulate: the simulated region holds its own data set: drop --source and --dest")
	}
	if f.latency < 0 {
		return usagef("--latency %v: must not be negative", f.latency)
	}
	if f.roleArn != "" {
		return usagef("bench --simulate: S3 Batch Operations runs on AWS only: drop --role-arn")
	}
	if err := bench.CheckMethods(f.methods); err != nil {
		return usageError{err}
	}
	prices, err := a.benchPrices(f, bench.DefaultPriceRegion)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	d, err := a.startSimRegion(ctx, "bench", f.latency, bench.DefaultLayout(), simSelf)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	f.keepDest = true // the region goes at the end
	return a.runBench(ctx, d.Conn, d.Store, d.Source, d.Dest, f, prices, simRegime(f.latency))
}

// benchRegime is what runBench records of the endpoint it ran against
// when demo or bench --simulate started it.
type benchRegime struct {
	// latency is the delay added to every request ("" for none).
	latency string
	// name is bench.RegimeSimulated or bench.RegimeLocal, "" for an
	// endpoint given.
	name string
	// sample has the per-company SDK methods copy one in sample objects.
	sample int
}

func simRegime(latency time.Duration) benchRegime {
	return benchRegime{latency: latency.String(), name: bench.RegimeSimulated, sample: bench.SimSample}
}

// startSimRegion starts the simulated region, holding layout, as a child
// process: its CPU time is never the client's.
func (a *app) startSimRegion(ctx context.Context, who string, latency time.Duration, layout bench.Layout, simCmd func(time.Duration, bench.Layout) (*exec.Cmd, error)) (*bench.Demo, error) {
	d, err := bench.StartDemo(ctx, bench.DemoOptions{
		ServerCmd: func(string) (*exec.Cmd, error) { return simCmd(latency, layout) },
		Env:       a.env.list(), TempDir: a.env.tempDir(),
	})
	if err != nil {
		return nil, err
	}
	if !a.g.quiet {
		fmt.Fprintf(a.stdio.Err, "%s: simulated S3 region at %s: %v per request, SlowDown above %d writes/s and %d reads/s per prefix; it holds %d objects of %s under %s, described, not stored\n",
			who, d.Endpoint, latency, bench.SimWriteRate, bench.SimReadRate, layout.Objects, units.HumanExact(layout.Size), d.Source)
	}
	return d, nil
}

// benchConn loads the AWS configuration the way the report's programs did
// (the SDK's default chain), with the global flags applied.
func (a *app) benchConn(ctx context.Context) (bench.Conn, error) {
	c, err := bench.NewConn(ctx, a.storeConfig())
	c.ToolEnv = a.env.list()
	return c, err
}

// engineFunc runs s3bulk's engine as the "s3bulk" method
// (bench.EngineMethod): a fresh engine and client per run, with the global
// --concurrency.
func (a *app) engineFunc(storeCfg s3store.Config) bench.EngineFunc {
	storeCfg.Logger = a.logger
	return bench.EngineMethod(storeCfg, func() *engine.Engine { return a.newSession().eng })
}

// benchPrices picks the price table entry for the run (bench.SelectPrices).
func (a *app) benchPrices(f benchFlags, region string) (bench.Prices, error) {
	p, ok, err := bench.SelectPrices(f.prices, f.priceRegion, region)
	if err != nil {
		return p, usageError{err}
	}
	if !ok {
		a.logger.Info("no prices for the region: using the report's", "region", region, "prices", p.Region)
	}
	return p, nil
}

// runBench runs the methods and writes the table (or JSON) to stdout, the
// Markdown report and the chart to their files. regime, when set, is the
// endpoint demo or bench --simulate started, recorded in the report.
func (a *app) runBench(ctx context.Context, conn bench.Conn, storeCfg s3store.Config, src, dst bench.Target, f benchFlags, prices bench.Prices, regime benchRegime) error {
	cfg := bench.Config{
		Conn: conn, Source: src, Dest: dst, Methods: f.methods,
		CompanyConcurrency: f.companyConcurrency,
		Engine:             a.engineFunc(storeCfg),
		Batch:              a.batchMethod(conn, f),
		Tools:              f.tools,
		Prices:             prices,
		KeepDest:           f.keepDest,
		Huge:               bench.HugeConfig{Size: int64(f.huge), Repeat: f.hugeRepeat},
		Observe:            a.benchOutput().Observer(),
		Regime:             regime.name,
		Sample:             regime.sample,
	}
	report, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	report.Environment.Latency = regime.latency
	if err := a.benchOutput().Report(report); err != nil {
		return err
	}
	if err := bench.WriteFiles(report, f.report, f.chart); err != nil {
		return err
	}
	if short := report.Shortfall(); short > 0 {
		return partialError{failed: short}
	}
	return nil
}

// batchMethod runs the batchops method (bench.BatchMethod): a job per run.
// Nil without --role-arn: the method is then shown as not run, with its
// estimated cost.
func (a *app) batchMethod(conn bench.Conn, f benchFlags) bench.BatchFunc {
	if f.roleArn == "" {
		return nil
	}
	return bench.BatchMethod(conn, f.roleArn, f.batch.controlEndpoint != "", func(ctx context.Context) (*batchops.Runner, error) {
		bf := f.batch
		return a.batchRunner(ctx, &bf)
	})
}

type demoFlags struct {
	bench   benchFlags
	seed    seedFlags
	server  string
	latency time.Duration
	out     string
	// serverCmd, proxyCmd and simCmd make the commands that run the S3
	// server, the latency proxy and the simulated region; tests replace
	// them, since a test binary cannot run s3bulk's commands.
	serverCmd func(dir string) (*exec.Cmd, error)
	proxyCmd  func(target string, latency time.Duration) (*exec.Cmd, error)
	simCmd    func(latency time.Duration, layout bench.Layout) (*exec.Cmd, error)
}

// demo's --server values.
const (
	serverSim   = "sim"
	serverLocal = "local"
)

func (a *app) demoCmd() *cobra.Command {
	f := demoFlags{seed: seedFlags{size: sizeFlag(bench.DefaultLayout().Size)}, serverCmd: serveSelf, proxyCmd: proxySelf, simCmd: simSelf}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the benchmark in a simulated S3 region: no AWS account, no set-up",
		Long: `Run the field report's benchmark on its 5,000 objects of 100 KiB, print the
table and write the Markdown report and the chart to --out. Everything is
removed afterwards, also when interrupted.

--server sim (the default) runs it in a simulated S3 region, the regime
users of AWS live in: every request costs a round trip (--latency, default
120ms, what the report's own figures imply), capacity is S3's (SlowDown above 3,500 writes/s and
5,500 reads/s per prefix), the region keeps metadata only (the data set is
described, not stored) and checks signatures, checksums and copy sources.
The report's own methods reproduce its figures there (the calibration lines
under the table); the report's SDK program copies a stated sample of each
company's objects, as at 30 objects/s the whole set would take minutes. On
fewer cores than the report's 4, the AWS CLI is also run for one company
alone (four processes at once measure this machine's Python), and judged
by the rate the report's schedule gives at that process's pace.

--server local runs it on the embedded S3 server (versitygw) on a
temporary directory: bodies stored, the server on this machine's cores,
--latency (default 10ms) added by a proxy. There the server's CPU is the
bound and every method that keeps it busy ties: the regime of an
S3-compatible server on your own hardware.

The put baseline is left out unless asked for with --methods.`,
		Example: `  s3bulk demo
  s3bulk demo --latency 60ms --out ./demo-report
  s3bulk demo --server local
  s3bulk demo --server local --objects 1000 --size 1MiB --huge 1GiB`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			layout, err := f.seed.layout()
			if err != nil {
				return err
			}
			switch f.server {
			case serverSim:
				if f.bench.huge > 0 {
					return usagef("demo: --huge copies in parts, which the simulated region does not simulate: use it with --server local")
				}
			case serverLocal:
				if !cmd.Flags().Changed("latency") {
					f.latency = bench.DefaultDemoLatency
				}
			default:
				return usagef("demo: --server %q: want sim or local", f.server)
			}
			if f.latency < 0 {
				return usagef("--latency %v: must not be negative", f.latency)
			}
			if f.bench.methods == nil {
				f.bench.methods = bench.DemoMethods
			}
			if !cmd.Flags().Changed("out") {
				cwd, err := os.Getwd()
				if err != nil {
					return fmt.Errorf("demo: find the working directory for the report: %w (name a directory with --out)", err)
				}
				f.out = bench.DefaultDemoOut(cwd, a.env.tempDir())
			}
			if err := bench.CheckMethods(f.bench.methods); err != nil {
				return usageError{err}
			}
			// Neither server has prices of its own: use the report's
			// region, so the costs read like the report's.
			prices, err := a.benchPrices(f.bench, bench.DefaultPriceRegion)
			if err != nil {
				return err
			}
			return a.runDemo(cmd.Context(), f, layout, prices)
		},
	}
	f.bench.register(cmd, true)
	fl := cmd.Flags()
	fl.IntVar(&f.seed.objects, "objects", bench.DefaultLayout().Objects, "number of objects")
	fl.Var(&f.seed.size, "size", "size of each object")
	f.seed.filesPerUser, f.seed.usersPerCompany, f.seed.seed = bench.DefaultLayout().FilesPerUser, bench.DefaultLayout().UsersPerCompany, bench.DefaultLayout().Seed
	fl.StringVar(&f.server, "server", serverSim, "where to run: sim, a simulated S3 region; local, the embedded S3 server on this machine")
	fl.DurationVar(&f.latency, "latency", bench.DefaultSimLatency, "round trip of every request, e.g. 60ms (default 120ms in the simulated region, 10ms added on the local server); 0 for none")
	fl.StringVar(&f.out, "out", "s3bulk-demo", "directory for bench.md and bench.png (run inside s3bulk's source tree, the default is s3bulk-demo in the temp directory)")
	cmd.AddCommand(a.latencyProxyCmd(), a.simRegionCmd())
	return cmd
}

// latencyProxyCmd runs demo's latency proxy. It is a process of its own so
// that its CPU time never counts as the client CPU of in-process methods.
func (a *app) latencyProxyCmd() *cobra.Command {
	var target string
	var latency time.Duration
	cmd := &cobra.Command{
		Use:    "latency-proxy --target URL --latency D",
		Short:  "Relay connections to an S3 endpoint, adding a network's round trip (used by demo)",
		Hidden: true,
		Args:   usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.ServeLatencyProxy(cmd.Context(), target, latency, a.stdio.Out)
		},
	}
	cmd.Flags().StringVar(&target, "target", "", "endpoint to relay to (an http or https URL)")
	cmd.Flags().DurationVar(&latency, "latency", 0, "round trip added to every request, and to every new connection's handshake")
	return cmd
}

// simRegionCmd runs demo's simulated region, with the keys of
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. It is a process of its own
// so that its CPU time never counts as the client's.
func (a *app) simRegionCmd() *cobra.Command {
	var opts bench.SimRegionOptions
	var size sizeFlag
	cmd := &cobra.Command{
		Use:    "sim-region --latency D --objects N --size S",
		Short:  "Serve a simulated S3 region holding the demo's data set (used by demo)",
		Hidden: true,
		Args:   usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			l := bench.DefaultLayout()
			l.Objects, l.Size = opts.Layout.Objects, int64(size)
			opts.Layout = l
			opts.AccessKey, opts.SecretKey = a.env.get("AWS_ACCESS_KEY_ID"), a.env.get("AWS_SECRET_ACCESS_KEY")
			if opts.AccessKey == "" || opts.SecretKey == "" {
				return usagef("demo sim-region: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to the keys it accepts")
			}
			return bench.ServeSimRegion(cmd.Context(), opts, a.stdio.Out)
		},
	}
	size = sizeFlag(bench.DefaultLayout().Size)
	cmd.Flags().DurationVar(&opts.Latency, "latency", bench.DefaultSimLatency, "round trip of every request")
	cmd.Flags().IntVar(&opts.Layout.Objects, "objects", bench.DefaultLayout().Objects, "objects of the data set")
	cmd.Flags().Var(&size, "size", "size of each object")
	return cmd
}

// proxySelf runs this executable's latency proxy.
func proxySelf(target string, latency time.Duration) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the s3bulk executable: %w", err)
	}
	return exec.Command(exe, "demo", "latency-proxy", "--target", target, "--latency", latency.String()), nil
}

// simSelf runs this executable's simulated region.
func simSelf(latency time.Duration, layout bench.Layout) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the s3bulk executable: %w", err)
	}
	return exec.Command(exe, "demo", "sim-region", "--latency", latency.String(),
		"--objects", strconv.Itoa(layout.Objects), "--size", strconv.FormatInt(layout.Size, 10)), nil
}

// serveSelf runs this executable's serve command.
func serveSelf(dir string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the s3bulk executable: %w", err)
	}
	return exec.Command(exe, "serve", "--dir", dir, "--addr", "127.0.0.1:0"), nil
}

func (a *app) runDemo(ctx context.Context, f demoFlags, layout bench.Layout, prices bench.Prices) (err error) {
	// Before anything starts: a report with nowhere to go fails at once.
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("demo: create the report directory %s: %v (choose another with --out)", f.out, store.PathCause(err, f.out))
	}
	var d *bench.Demo
	regime := benchRegime{name: bench.RegimeLocal}
	if f.server == serverSim {
		d, err = a.startSimRegion(ctx, "demo", f.latency, layout, f.simCmd)
		regime = simRegime(f.latency)
	} else {
		d, err = bench.StartDemo(ctx, bench.DemoOptions{Latency: f.latency, ServerCmd: f.serverCmd, ProxyCmd: f.proxyCmd, Env: a.env.list(), TempDir: a.env.tempDir()})
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := d.Close(); cerr != nil && err == nil && ctx.Err() == nil {
			err = cerr
		}
	}()
	if f.server == serverLocal {
		if !a.g.quiet {
			fmt.Fprintf(a.stdio.Err, "demo: local S3 server at %s (data in a temporary directory); the report goes to %s\n", d.Endpoint, f.out)
		}
		st, secs, err := a.benchOutput().Seed(ctx, d.Conn, d.Source, layout, a.seedOptions())
		if err != nil {
			return err
		}
		if !a.g.quiet {
			// stderr: stdout carries only the table or the JSON document.
			fmt.Fprintf(a.stdio.Err, "demo: seeded %d objects (%s) in %.1f s\n", st.Objects, units.HumanExact(st.Bytes), secs)
		}
		if f.latency > 0 {
			regime.latency = f.latency.String()
		}
	}
	// The whole server goes at the end: no need to empty it.
	f.bench.keepDest = true
	f.bench.report = filepath.Join(f.out, "bench.md")
	f.bench.chart = filepath.Join(f.out, "bench.png")
	if err := a.runBench(ctx, d.Conn, d.Store, d.Source, d.Dest, f.bench, prices, regime); err != nil {
		return err
	}
	if !a.g.quiet {
		fmt.Fprintf(a.stdio.Err, "demo: wrote %s and %s\n", f.bench.report, f.bench.chart)
	}
	return nil
}
