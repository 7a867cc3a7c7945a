package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/bench"
	"github.com/s3bulk/s3bulk/internal/gateway"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

// benchDoc is the part of `bench --json` the tests read.
type benchDoc struct {
	Methods []struct {
		Method   string           `json:"method"`
		Status   string           `json:"status"`
		Reason   string           `json:"reason"`
		Objects  int64            `json:"objects"`
		Requests map[string]int64 `json:"requests"`
	} `json:"methods"`
	Baseline    string `json:"baseline"`
	Environment struct {
		Objects   int64  `json:"objects"`
		Companies int    `json:"companies"`
		Latency   string `json:"latency"`
		Regime    string `json:"regime"`
	} `json:"environment"`
	Calibration []struct {
		Method string `json:"method"`
	} `json:"calibration"`
}

func (d benchDoc) statuses() map[string]string {
	out := map[string]string{}
	for _, m := range d.Methods {
		out[m.Method] = m.Status
	}
	return out
}

func TestSeedThenBench(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	out := mustRun(t, srv, "seed", "s3://"+src+"/seed", "--objects", "24", "--size", "2KiB", "--users-per-company", "2")
	if want := "seeded 24 objects (48 KiB) under s3://" + src + "/seed/"; !strings.HasPrefix(out, want) {
		t.Errorf("seed printed %q, want it to start with %q", out, want)
	}
	dir := t.TempDir()
	report, chart := filepath.Join(dir, "bench.md"), filepath.Join(dir, "bench.png")
	out = mustRun(t, srv, "--json", "bench", "--source", "s3://"+src+"/seed/", "--dest", "s3://"+dst+"/copy/",
		"--methods", "copy-per-company,s3bulk,batchops", "--report", report, "--chart", chart)
	var doc benchDoc
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out)
	}
	if dec.More() {
		t.Errorf("bench --json printed more than one document:\n%s", out)
	}
	want := map[string]string{"copy-per-company": "ok", "s3bulk": "ok", "batchops": "not-run"}
	if diff := cmp.Diff(want, doc.statuses()); diff != "" {
		t.Errorf("statuses (-want +got):\n%s\n%s", diff, out)
	}
	for _, m := range doc.Methods {
		if m.Status == "ok" && (m.Objects != 24 || m.Requests["CopyObject"] != 24) {
			t.Errorf("%s: %d objects, requests %v; want 24 objects in 24 copies", m.Method, m.Objects, m.Requests)
		}
	}
	if doc.Environment.Objects != 24 || doc.Environment.Companies != 3 || doc.Baseline != "copy-per-company" {
		t.Errorf("environment %+v, baseline %q", doc.Environment, doc.Baseline)
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "![objects per second and projected time](bench.png)") || !strings.Contains(string(md), "| s3bulk | ok | 24 |") {
		t.Errorf("report:\n%s", md)
	}
	checkPNG(t, chart)
}

func checkPNG(t *testing.T, name string) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bench without a source", []string{"bench", "--dest", "s3://b/q/"}, "--source and --dest are required"},
		{"bench with an unknown method", []string{"bench", "--source", "s3://a/p/", "--dest", "s3://b/q/", "--methods", "teleport"}, `unknown method "teleport"`},
		{"bench into its own source", []string{"bench", "--source", "s3://a/p/", "--dest", "s3://a/p/q/"}, "overlaps the source"},
		{"bench into a whole bucket", []string{"bench", "--source", "s3://a/p/", "--dest", "s3://b"}, "give the destination a prefix"},
		{"bench with a missing price file", []string{"bench", "--source", "s3://a/p/", "--dest", "s3://b/q/", "--prices", "/nonexistent.json"}, "--prices"},
		{"bench with an unknown price region", []string{"bench", "--source", "s3://a/p/", "--dest", "s3://b/q/", "--price-region", "mars-1"}, "--price-region mars-1"},
		{"seed of bodies too small for JSON", []string{"seed", "s3://b/p/", "--size", "1"}, "size 1"},
		{"seed of a bad size", []string{"seed", "s3://b/p/", "--size", "lots"}, "lots"},
		{"seed without a target", []string{"seed"}, "accepts 1 arg"},
		{"demo with an unknown method", []string{"demo", "--methods", "teleport"}, `unknown method "teleport"`},
		{"demo with a negative latency", []string{"demo", "--latency", "-1s"}, "--latency"},
		{"demo on an unknown server", []string{"demo", "--server", "aws"}, `--server "aws": want sim or local`},
		{"demo of a huge object in the simulated region", []string{"demo", "--huge", "1GiB"}, "use it with --server local"},
		{"bench --simulate with a source", []string{"bench", "--simulate", "--source", "s3://a/p/"}, "drop --source and --dest"},
		{"bench --simulate with a role", []string{"bench", "--simulate", "--role-arn", "arn:aws:iam::1:role/r"}, "drop --role-arn"},
		{"bench --latency without --simulate", []string{"bench", "--source", "s3://a/p/", "--dest", "s3://b/q/", "--latency", "1s"}, "use it with --simulate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, srv, tt.args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, ExitUsage, tt.want)
			}
		})
	}
}

func TestDemoNamesWhereItCannotWrite(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, out, want string
	}{
		{"--out is a file: named once", file,
			"demo: create the report directory " + file + ": not a directory (choose another with --out)"},
		{"--out is below a file: both named", filepath.Join(file, "report"),
			"demo: create the report directory " + filepath.Join(file, "report") + ": mkdir " + file + ": not a directory (choose another with --out)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, srv, "demo", "--out", tt.out)
			if code == ExitOK || !strings.Contains(errOut, tt.want) || strings.Count(errOut, tt.out) != 1 {
				t.Errorf("exit %d, stderr %q; want an error %q", code, errOut, tt.want)
			}
			if strings.Contains(errOut, "S3 server at") {
				t.Errorf("demo started its server before finding it cannot write its report:\n%s", errOut)
			}
		})
	}
}

// These variables make this test binary one of demo's children: a test
// binary cannot run `s3bulk serve` or `s3bulk demo latency-proxy`.
const (
	demoServerEnv       = "S3BULK_TEST_DEMO_SERVER_DIR"
	demoProxyTargetEnv  = "S3BULK_TEST_DEMO_PROXY_TARGET"
	demoProxyLatencyEnv = "S3BULK_TEST_DEMO_PROXY_LATENCY"
	demoSimEnv          = "S3BULK_TEST_DEMO_SIM" // latency,objects,size
)

// TestDemoChildProcesses checks the commands demo starts, and is one of
// those children when re-executed with the variables above.
func TestDemoChildProcesses(t *testing.T) {
	if dir, target, sim := os.Getenv(demoServerEnv), os.Getenv(demoProxyTargetEnv), os.Getenv(demoSimEnv); dir != "" || target != "" || sim != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		var err error
		switch {
		case dir != "":
			err = gateway.Main(ctx, gateway.Options{Dir: dir, Quiet: true}, os.Stdout)
		case sim != "":
			var latency time.Duration
			l := bench.DefaultLayout()
			var lat string
			if _, err = fmt.Sscanf(sim, "%s %d %d", &lat, &l.Objects, &l.Size); err == nil {
				latency, _ = time.ParseDuration(lat)
				err = bench.ServeSimRegion(ctx, bench.SimRegionOptions{Latency: latency, Layout: l,
					AccessKey: os.Getenv("AWS_ACCESS_KEY_ID"), SecretKey: os.Getenv("AWS_SECRET_ACCESS_KEY")}, os.Stdout)
			}
		default:
			latency, _ := time.ParseDuration(os.Getenv(demoProxyLatencyEnv))
			err = bench.ServeLatencyProxy(ctx, target, latency, os.Stdout)
		}
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0) // nothing of the test framework's on stdout
	}
	t.Parallel()
	server, err := serveSelf("/data")
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := proxySelf("http://127.0.0.1:1", 30*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simSelf(120*time.Millisecond, bench.Layout{Objects: 5000, Size: 102400})
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{server.Args[1:], proxy.Args[1:], sim.Args[1:]}
	want := [][]string{
		{"serve", "--dir", "/data", "--addr", "127.0.0.1:0"},
		{"demo", "latency-proxy", "--target", "http://127.0.0.1:1", "--latency", "30ms"},
		{"demo", "sim-region", "--latency", "120ms", "--objects", "5000", "--size", "102400"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("demo's child commands (-want +got):\n%s", diff)
	}
}

// testChild re-executes the test binary as one of demo's children; runDemo
// adds its own environment before env.
func testChild(env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestDemoChildProcesses$")
	cmd.Env = env
	return cmd
}

func testServerCmd(dir string) (*exec.Cmd, error) {
	return testChild(demoServerEnv + "=" + dir), nil
}

func testProxyCmd(target string, latency time.Duration) (*exec.Cmd, error) {
	return testChild(demoProxyTargetEnv+"="+target, demoProxyLatencyEnv+"="+latency.String()), nil
}

func testSimCmd(latency time.Duration, l bench.Layout) (*exec.Cmd, error) {
	return testChild(fmt.Sprintf("%s=%s %d %d", demoSimEnv, latency, l.Objects, l.Size)), nil
}

// demoApp is an app as Run builds it, for calling runDemo with a test
// server command, in this process's environment with kv added.
func demoApp(stdout, stderr io.Writer, json bool, kv ...string) *app {
	return &app{
		stdio:  Stdio{In: strings.NewReader(""), Out: stdout, Err: stderr},
		env:    newEnviron(append(os.Environ(), kv...)),
		g:      globals{concurrency: 16, json: json, pathStyle: "auto", logLevel: "warn", noProgress: true},
		logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func demoFlagsFor(out string, methods ...string) demoFlags {
	return demoFlags{bench: benchFlags{methods: methods, companyConcurrency: 2}, server: serverLocal, latency: 0, out: out,
		serverCmd: testServerCmd, proxyCmd: testProxyCmd, simCmd: testSimCmd}
}

// smallDemo is 3 companies of 2 users of 4 files.
var smallDemo = bench.Layout{Objects: 24, Size: 1500, FilesPerUser: 4, UsersPerCompany: 2, Seed: 1}

func TestDemoRunsTheBenchOnItsOwnServerAndCleansUp(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "report")
	var stdout, stderr bytes.Buffer
	f := demoFlagsFor(out, bench.MethodCopyPerCompany, bench.MethodS3bulk)
	f.latency = 2 * time.Millisecond // the proxy in the path
	err := demoApp(&stdout, &stderr, true, "TMPDIR="+tmp).runDemo(t.Context(), f, smallDemo, bench.DefaultPrices()["us-east-1"])
	if err != nil {
		t.Fatalf("demo: %v\nstderr:\n%s", err, stderr.String())
	}
	var doc benchDoc
	dec := json.NewDecoder(&stdout)
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("demo --json: want one document (%v):\n%s", err, stdout.String())
	}
	if diff := cmp.Diff(map[string]string{"copy-per-company": "ok", "s3bulk": "ok"}, doc.statuses()); diff != "" {
		t.Errorf("statuses (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
	}
	if doc.Environment.Latency != "2ms" || doc.Environment.Objects != 24 {
		t.Errorf("environment %+v", doc.Environment)
	}
	checkPNG(t, filepath.Join(out, "bench.png"))
	if _, err := os.Stat(filepath.Join(out, "bench.md")); err != nil {
		t.Error(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("demo left %d entries in the temp dir, e.g. %s", len(left), left[0].Name())
	}
}

// TestDemoRunsInTheSimulatedRegion runs demo's default: the data set is
// described by the region, not seeded; the report's SDK program runs on a
// sample; the report says the regime and compares with the report.
func TestDemoRunsInTheSimulatedRegion(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "report")
	var stdout, stderr bytes.Buffer
	f := demoFlagsFor(out, bench.MethodCopyPerCompany, bench.MethodS3bulk)
	f.server, f.latency = serverSim, 2*time.Millisecond
	err := demoApp(&stdout, &stderr, true, "TMPDIR="+tmp).runDemo(t.Context(), f, bench.Layout{Objects: 48, Size: 1000, FilesPerUser: 4, UsersPerCompany: 100}, bench.DefaultPrices()["us-east-1"])
	if err != nil {
		t.Fatalf("demo: %v\nstderr:\n%s", err, stderr.String())
	}
	var doc benchDoc
	if err := json.NewDecoder(&stdout).Decode(&doc); err != nil {
		t.Fatalf("demo --json: %v:\n%s", err, stdout.String())
	}
	if diff := cmp.Diff(map[string]string{"copy-per-company": "ok", "s3bulk": "ok"}, doc.statuses()); diff != "" {
		t.Errorf("statuses (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
	}
	if e := doc.Environment; e.Regime != "simulated" || e.Latency != "2ms" || e.Objects != 48 {
		t.Errorf("environment %+v, want the simulated region's, 2ms, 48 objects", e)
	}
	for _, m := range doc.Methods {
		if m.Method == bench.MethodCopyPerCompany && (m.Objects != 4 || !strings.Contains(m.Reason, "sample")) {
			t.Errorf("copy-per-company copied %d objects (%s), want a stated sample of 4 (1 in 12 of 48)", m.Objects, m.Reason)
		}
	}
	if len(doc.Calibration) != 1 || doc.Calibration[0].Method != bench.MethodCopyPerCompany {
		t.Errorf("calibration %+v, want copy-per-company's", doc.Calibration)
	}
	md, err := os.ReadFile(filepath.Join(out, "bench.md"))
	if err != nil || !strings.HasPrefix(string(md), "# s3bulk bench in a simulated S3 region (2ms per request") {
		t.Errorf("bench.md does not name the regime in its title: %.100q (%v)", md, err)
	}
	if strings.Contains(stderr.String(), "seeded") {
		t.Errorf("demo seeded the simulated region, which holds the data set already:\n%s", stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("demo left %d entries in the temp dir, e.g. %s", len(left), left[0].Name())
	}
}

// cancelOn cancels a context once a line containing trigger is written.
type cancelOn struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	trigger string
	cancel  context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.trigger) {
		c.cancel()
	}
	return len(p), nil
}

func TestDemoCleansUpWhenInterrupted(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stderr := &cancelOn{trigger: "bench: copy-per-company: running", cancel: cancel}
	var stdout bytes.Buffer
	f := demoFlagsFor(t.TempDir(), bench.MethodCopyPerCompany, bench.MethodS3bulk)
	err := demoApp(&stdout, stderr, false, "TMPDIR="+tmp).runDemo(ctx, f, smallDemo, bench.DefaultPrices()["us-east-1"])
	if err == nil || exitCode(ctx, err) != ExitInterrupted {
		t.Fatalf("interrupted demo returned %v, want an interruption", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("demo left %d entries in the temp dir, e.g. %s", len(left), left[0].Name())
	}
	if stdout.Len() != 0 {
		t.Errorf("an interrupted demo printed a table:\n%s", stdout.String())
	}
}

// TestBenchRunsTheBatchopsMethodWithARole runs report 1's fourth method for
// real against the fake control plane: one job, its wall and active time
// and cost in the table.
func TestBenchRunsTheBatchopsMethodWithARole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	if out := e.run(ctx, "seed", "s3://"+e.src, "--objects", "8", "--size", "1KiB", "--users-per-company", "2"); out.code != ExitOK {
		t.Fatalf("seed: exit %d\n%s", out.code, out.err)
	}
	r := e.run(ctx, append([]string{"--json", "bench", "--source", "s3://" + e.src + "/", "--dest", "s3://" + e.dst + "/copy/", "--methods", "batchops"}, e.jobFlags()...)...)
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.err)
	}
	var doc benchDoc
	if err := json.NewDecoder(strings.NewReader(r.out)).Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if diff := cmp.Diff(map[string]string{"batchops": "ok"}, doc.statuses()); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s\n%s", diff, r.out)
	}
	for _, m := range doc.Methods {
		if m.Method == "batchops" && (m.Objects != 8 || !strings.Contains(m.Reason, "job active for")) {
			t.Errorf("batchops: %d objects, reason %q; want 8 and the job's active time", m.Objects, m.Reason)
		}
	}
	t.Run("from a prefix it is not run, and says why", func(t *testing.T) {
		if out := e.run(ctx, "seed", "s3://"+e.src+"/seed", "--objects", "4", "--size", "1KiB", "--users-per-company", "2"); out.code != ExitOK {
			t.Fatalf("seed: exit %d", out.code)
		}
		r := e.run(ctx, append([]string{"--json", "bench", "--source", "s3://" + e.src + "/seed/", "--dest", "s3://" + e.dst + "/copy2/", "--methods", "batchops"}, e.jobFlags()...)...)
		if r.code != ExitOK || !strings.Contains(r.out, "not-run") || !strings.Contains(r.out, "keeps whole source keys") {
			t.Errorf("exit %d, stdout:\n%s", r.code, r.out)
		}
	})
}
