package bench

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"
)

// DefaultCompanyConcurrency is the report's: 4 companies at once.
const DefaultCompanyConcurrency = 4

// abortTimeout bounds clean-up calls made after the caller's context ended.
const abortTimeout = 30 * time.Second

// EngineFunc runs s3bulk's engine from src to dst (s3:// URLs ending in
// "/") with its defaults and reports what it moved and the HTTP attempts it
// made by operation name (nil when it cannot count them).
type EngineFunc func(ctx context.Context, src, dst string) (objects, bytes int64, requests map[string]int64, err error)

// BatchOutcome is what a Batch Operations job did.
type BatchOutcome struct {
	Objects int64
	Bytes   int64
	// ActiveSeconds is the job's ElapsedTimeInActiveSeconds; Run measures
	// the wall clock itself.
	ActiveSeconds float64
	// Requests the client made (manifest PUT, CreateJob, DescribeJob...)
	// and, when known, those the job made.
	Requests map[string]int64
}

// BatchFunc runs an S3 Batch Operations copy job from src to dst (s3://
// URLs ending in "/") and waits for it. An error wrapping ErrNotRun means it
// cannot run here (no AWS, a custom endpoint, no role): the method is then
// reported as not-run with its estimated cost.
type BatchFunc func(ctx context.Context, src, dst string) (BatchOutcome, error)

// Event tells the caller what Run is doing, for progress lines.
type Event struct {
	Method string
	// Stage is "start", "clear", "verify", "done" or "alone" (the AWS
	// CLI's process for one company, alone, for the calibration); Result
	// is set on "done".
	Stage  string
	Result *Result
}

// Config is everything Run needs.
type Config struct {
	Conn         Conn
	Source, Dest Target
	// Methods to run, from AllMethods; nil runs them all. The others are
	// listed as skipped.
	Methods []string
	// CompanyConcurrency for the per-company methods; 0 means 4.
	CompanyConcurrency int
	Engine             EngineFunc
	Batch              BatchFunc
	// Tools maps "aws", "s5cmd" and "rclone" to an executable; missing
	// entries are looked up on PATH.
	Tools map[string]string
	// LookPath finds tools; nil means exec.LookPath.
	LookPath func(string) (string, error)
	Prices   Prices
	// Huge, when Size > 0, adds report 3's part-size experiment.
	Huge HugeConfig
	// KeepDest leaves the last method's copy in place instead of emptying
	// the destination prefix at the end.
	KeepDest bool
	// Observe, when set, is told about each stage of each method.
	Observe func(Event)
	// Regime is RegimeSimulated or RegimeLocal when the endpoint was
	// started for the run, recorded in the report; in the simulated
	// region the report's methods are compared with its figures.
	Regime string
	// Sample, above 1, has the report's per-company SDK methods (put,
	// copy-per-company) copy one in Sample of each company's objects,
	// the first ones (see SimSample); their rate is what compares.
	Sample int
}

// Run measures each method copying Source to Dest, one after another on the
// same data, emptying Dest before each and checking after each that every
// source object arrived with its size.
//
// Dest's prefix is emptied: it must not overlap Source.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := CheckTargets(cfg.Source, cfg.Dest); err != nil {
		return nil, err
	}
	if err := CheckMethods(cfg.Methods); err != nil {
		return nil, err
	}
	if cfg.CompanyConcurrency <= 0 {
		cfg.CompanyConcurrency = DefaultCompanyConcurrency
	}
	if cfg.LookPath == nil {
		cfg.LookPath = exec.LookPath
	}
	if cfg.Observe == nil {
		cfg.Observe = func(Event) {}
	}
	r := &runner{cfg: cfg, admin: cfg.Conn.Client(nil, 0)}
	entries, err := r.list(ctx, cfg.Source)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("bench %s: no objects to copy (run s3bulk seed first)", cfg.Source)
	}
	r.entries = entries
	r.groups = groupByCompany(entries)
	for _, e := range entries {
		r.bytes += e.Size
	}
	report := &Report{Environment: r.environment()}
	for _, method := range AllMethods {
		if cfg.Methods != nil && !slices.Contains(cfg.Methods, method) {
			continue
		}
		res, err := r.measure(ctx, method)
		if err != nil {
			return nil, err
		}
		report.Methods = append(report.Methods, res)
		cfg.Observe(Event{Method: method, Stage: "done", Result: &res})
	}
	var alone *AloneRun
	if needsAlone(cfg.Regime, report.Environment.CPUs) && slices.ContainsFunc(report.Methods, func(m Result) bool { return m.Method == MethodAWS && finished(m) }) {
		if alone, err = r.awsAlone(ctx); err != nil {
			return nil, err
		}
	}
	if !cfg.KeepDest {
		if err := r.clear(ctx, cfg.Dest); err != nil {
			return nil, err
		}
	}
	report.Baseline = setSpeedups(report.Methods)
	if cfg.Regime == RegimeSimulated {
		report.Calibration = calibrate(report.Methods, report.Environment.CPUs, alone)
	}
	report.Extrapolation = extrapolate(report.Methods, reportObjectCounts, cfg.Prices)
	report.Environment.Tools = r.toolVersions
	if cfg.Huge.Size > 0 {
		h, err := r.huge(ctx, cfg.Huge)
		if err != nil {
			return nil, err
		}
		report.Huge = h
	}
	return report, nil
}

// CheckTargets refuses a destination that bench's clearing would wreck:
// one overlapping the source, or a whole bucket.
func CheckTargets(src, dst Target) error {
	if src.overlaps(dst) {
		return fmt.Errorf("bench %s to %s: the destination overlaps the source, and bench empties the destination", src, dst)
	}
	if dst.Prefix == "" {
		return fmt.Errorf("bench %s to %s: give the destination a prefix (s3://bucket/prefix/): bench empties it between methods", src, dst)
	}
	return nil
}

// CheckMethods refuses unknown method names.
func CheckMethods(methods []string) error {
	for _, m := range methods {
		if !slices.Contains(AllMethods, m) {
			return fmt.Errorf("bench: unknown method %q (want %s)", m, strings.Join(AllMethods, ", "))
		}
	}
	return nil
}

type runner struct {
	cfg     Config
	admin   *s3.Client // set-up, clearing, verification: not measured
	entries []Entry
	groups  []Group
	// sample is the current method's one-in-n sample of each company (0
	// or 1: all of it).
	sample       int
	bytes        int64
	toolVersions map[string]string
}

func (r *runner) environment() Environment {
	region := r.cfg.Conn.AWS.Region
	return Environment{
		Endpoint: r.cfg.Conn.Endpoint, Region: region, PriceRegion: r.cfg.Prices.Region,
		Source: r.cfg.Source.String(), Dest: r.cfg.Dest.String(),
		Objects: int64(len(r.entries)), Bytes: r.bytes, Companies: len(r.groups),
		CompanyConcurrency: r.cfg.CompanyConcurrency, Regime: r.cfg.Regime,
		GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		Started: time.Now().UTC().Truncate(time.Second), Tools: map[string]string{},
	}
}

// measure runs one method between a clear and a verification.
func (r *runner) measure(ctx context.Context, method string) (Result, error) {
	res := Result{Method: method, Description: describe(method, r.cfg.CompanyConcurrency)}
	// The BatchFunc says itself when it cannot run (ErrNotRun): a control
	// plane other than AWS's may stand in for an endpoint that is not AWS.
	if method == MethodBatchOps && r.cfg.Batch == nil {
		return r.batchNotRun(res, ""), nil
	}
	if method == MethodS3bulk && r.cfg.Engine == nil {
		res.Status, res.Reason = StatusSkipped, "the engine was not provided to the benchmark"
		return res, nil
	}
	var tool string
	if t, ok := toolOf[method]; ok {
		path, reason := r.findTool(t)
		if path == "" {
			res.Status, res.Reason = StatusSkipped, reason
			return res, nil
		}
		tool = path
	}
	r.sample = 0
	want := r.entries
	if r.cfg.Sample > 1 && sampled(method) {
		r.sample = r.cfg.Sample
		want = nil
		for _, g := range sampleGroups(r.groups, r.sample) {
			want = append(want, g.Objects...)
		}
		res.Reason = fmt.Sprintf("a sample: the first 1 in %d of each company's objects (%d of %d), %d companies at once as in the report; its rate is what compares",
			r.sample, len(want), len(r.entries), r.cfg.CompanyConcurrency)
	}
	r.cfg.Observe(Event{Method: method, Stage: "clear"})
	if err := r.clear(ctx, r.cfg.Dest); err != nil {
		return res, err
	}
	r.cfg.Observe(Event{Method: method, Stage: "start"})
	cpu0, cpuOK := processCPU()
	start := time.Now()
	out, err := r.run(ctx, method, tool)
	res.Seconds = time.Since(start).Seconds()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if errors.Is(err, ErrNotRun) {
		return r.batchNotRun(res, err.Error()), nil
	}
	if out.external {
		res.ClientCPUSeconds = out.cpu
	} else if cpu1, ok := processCPU(); ok && cpuOK {
		res.ClientCPUSeconds = cpu1 - cpu0
	}
	res.Requests, res.RequestsEstimated = out.requests, out.estimated
	if out.note != "" {
		res.Reason = out.note
	}
	res.EstimatedCostUSD = r.cfg.Prices.RequestCost(res.Requests)
	if method == MethodBatchOps {
		res.EstimatedCostUSD = r.cfg.Prices.BatchOpsCost(int64(len(r.entries)))
	}
	r.cfg.Observe(Event{Method: method, Stage: "verify"})
	objects, bytes, problem, verr := r.verify(ctx, want)
	if verr != nil {
		return res, verr
	}
	res.Objects, res.Bytes = objects, bytes
	res.finish()
	switch {
	case err != nil:
		res.Status, res.Reason = StatusFailed, oneLine(err)
	case problem != "":
		res.Status, res.Reason = StatusFailed, problem
	default:
		res.Status = StatusOK
	}
	return res, nil
}

func (r *runner) batchNotRun(res Result, why string) Result {
	res.Status = StatusNotRun
	switch {
	case why != "":
		res.Reason = why
	case r.cfg.Conn.Endpoint != "":
		res.Reason = "S3 Batch Operations exists only on AWS, not on " + r.cfg.Conn.Endpoint
	default:
		res.Reason = "Batch Operations was not provided to the benchmark"
	}
	res.EstimatedCostUSD = r.cfg.Prices.BatchOpsCost(int64(len(r.entries)))
	res.Reason += fmt.Sprintf("; estimated cost for %d objects: $%.4f", len(r.entries), res.EstimatedCostUSD)
	return res
}

// outcome is what a method's runner reports besides time and the copy itself.
type outcome struct {
	requests  map[string]int64
	estimated bool
	external  bool
	cpu       float64 // of external processes
	note      string
}

func (r *runner) run(ctx context.Context, method, tool string) (outcome, error) {
	src, dst := r.cfg.Source, r.cfg.Dest
	switch method {
	case MethodPut:
		return r.put(ctx)
	case MethodCopyPerCompany:
		return r.copyPerCompany(ctx)
	case MethodS3bulk:
		_, _, requests, err := r.cfg.Engine(ctx, src.String(), dst.String())
		return outcome{requests: requests}, err
	case MethodBatchOps:
		out, err := r.cfg.Batch(ctx, src.String(), dst.String())
		o := outcome{requests: out.Requests}
		if err == nil {
			// The table's time is the wall clock, start-up included, as the
			// report's second Batch Operations row; this is its first.
			o.note = fmt.Sprintf("job active for %.1f s of the wall clock", out.ActiveSeconds)
		}
		return o, err
	case MethodAWS:
		return r.awsCLI(ctx, tool)
	case MethodS5cmd:
		return r.s5cmd(ctx, tool)
	case MethodRclone:
		return r.rclone(ctx, tool)
	}
	return outcome{}, fmt.Errorf("bench: no runner for method %q", method)
}

// describe says what each method does, for reports.
func describe(method string, companies int) string {
	switch method {
	case MethodPut:
		return fmt.Sprintf("the report's baseline: PutObject of every object from client memory, %d companies at a time, one object at a time inside a company, one attempt per request", companies)
	case MethodCopyPerCompany:
		return fmt.Sprintf("the report's SDK method: ListObjectsV2, then CopyObject, %d companies at a time, one object at a time inside a company, one attempt per request", companies)
	case MethodS3bulk:
		return "s3bulk's engine with its defaults: server-side copies from one run-wide pool of requests"
	case MethodAWS:
		return fmt.Sprintf("the report's CLI method: `aws s3 cp --recursive` per company prefix, %d processes at a time, with the CLI's defaults", companies)
	case MethodS5cmd:
		return "`s5cmd cp 's3://src/prefix/*' s3://dst/prefix/` with its defaults"
	case MethodRclone:
		return "`rclone copy` between two paths of one remote (server-side copy), configured through environment variables"
	case MethodBatchOps:
		return "S3 Batch Operations: a CSV manifest, one Copy job, polled until complete"
	}
	return method
}

// list returns every object under t, keys relative to t's prefix.
func (r *runner) list(ctx context.Context, t Target) ([]Entry, error) {
	return listEntries(ctx, r.admin, t)
}

func listEntries(ctx context.Context, client *s3.Client, t Target) ([]Entry, error) {
	var out []Entry
	p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(t.Bucket), Prefix: aws.String(t.Prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", t, err)
		}
		for _, o := range page.Contents {
			out = append(out, Entry{Key: strings.TrimPrefix(aws.ToString(o.Key), t.Prefix), Size: aws.ToInt64(o.Size)})
		}
	}
	return out, nil
}

// clear deletes everything under t, 1,000 keys per DeleteObjects.
func (r *runner) clear(ctx context.Context, t Target) error {
	return clearPrefix(ctx, r.admin, t)
}

func clearPrefix(ctx context.Context, client *s3.Client, t Target) error {
	// Batches go out a few at a time: a server deletes the keys of one
	// batch one by one, and the clear sits between every two methods.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(clearConcurrency)
	p := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(t.Bucket), Prefix: aws.String(t.Prefix)})
	for p.HasMorePages() && gctx.Err() == nil {
		page, err := p.NextPage(gctx)
		if err != nil {
			g.Go(func() error { return fmt.Errorf("clear %s: %w", t, err) })
			break
		}
		if len(page.Contents) == 0 {
			continue
		}
		ids := make([]types.ObjectIdentifier, len(page.Contents))
		for i, o := range page.Contents {
			ids[i] = types.ObjectIdentifier{Key: o.Key}
		}
		g.Go(func() error {
			out, err := client.DeleteObjects(gctx, &s3.DeleteObjectsInput{
				Bucket: aws.String(t.Bucket), Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
			})
			if err != nil {
				return fmt.Errorf("clear %s: %w", t, err)
			}
			if len(out.Errors) > 0 {
				e := out.Errors[0]
				return fmt.Errorf("clear %s: delete %s: %s", t, aws.ToString(e.Key), aws.ToString(e.Message))
			}
			return nil
		})
	}
	return g.Wait()
}

// clearConcurrency is how many DeleteObjects batches clearing sends at once.
const clearConcurrency = 4

// verify compares the destination with the source listing: the objects
// and bytes that arrived intact, and a description of what did not.
func (r *runner) verify(ctx context.Context, want []Entry) (objects, bytes int64, problem string, err error) {
	got, err := r.list(ctx, r.cfg.Dest)
	if err != nil {
		return 0, 0, "", err
	}
	sizes := make(map[string]int64, len(got))
	for _, e := range got {
		sizes[e.Key] = e.Size
	}
	var missing, wrong int
	var example string
	for _, e := range want {
		size, ok := sizes[e.Key]
		switch {
		case !ok:
			missing++
			if example == "" {
				example = "missing " + r.cfg.Dest.Prefix + e.Key
			}
		case size != e.Size:
			wrong++
			if example == "" {
				example = fmt.Sprintf("%s%s has %d bytes, want %d", r.cfg.Dest.Prefix, e.Key, size, e.Size)
			}
		default:
			objects++
			bytes += size
		}
	}
	if missing+wrong > 0 {
		problem = fmt.Sprintf("copied %d of %d objects intact (%d missing, %d of the wrong size; e.g. %s)",
			objects, len(want), missing, wrong, example)
	}
	return objects, bytes, problem, nil
}

func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
}

// Text is the line bench prints on stderr for e, "" for a stage it does
// not tell.
func (e Event) Text() string {
	switch e.Stage {
	case "start":
		return fmt.Sprintf("bench: %s: running", e.Method)
	case "alone":
		return fmt.Sprintf("bench: %s: one company's process alone, for the calibration (this machine has fewer cores than the report's %d)", e.Method, ReportClientCores)
	case "done":
		r := e.Result
		if r.Status == StatusOK {
			return fmt.Sprintf("bench: %s: %d objects in %.1f s (%.1f objects/s)", r.Method, r.Objects, r.Seconds, r.ObjectsPerSecond)
		}
		return fmt.Sprintf("bench: %s: %s: %s", r.Method, r.Status, r.Reason)
	}
	return ""
}
