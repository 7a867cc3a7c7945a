package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/batchops"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func TestMain(m *testing.M) { s3test.Main(m) }

// smallLayout is the report's shape at a size a test can afford: 4 files
// per user, 3 users per company, so 40 objects make 10 users in 4
// companies, the last holding one user.
var smallLayout = Layout{Objects: 40, Size: 3000, FilesPerUser: 4, UsersPerCompany: 3, Seed: 1}

func connFor(srv *s3test.Server) Conn {
	return Conn{
		AWS: aws.Config{
			Region:      srv.Region,
			Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
		},
		Endpoint: srv.Endpoint, PathStyle: true, ChecksumWhenRequired: true,
		ToolEnv: srv.Env(),
	}
}

func TestSeedWritesTheLayout(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	var calls atomic.Int64
	st, err := Seed(t.Context(), connFor(srv), Target{Bucket: bucket, Prefix: "seed/"}, smallLayout,
		SeedOptions{Concurrency: 8, Progress: func(int64, int64) { calls.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(SeedStats{Objects: 40, Bytes: 40 * 3000}, st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if calls.Load() != 40 {
		t.Errorf("progress called %d times, want 40", calls.Load())
	}
	client := srv.Client(t)
	got, err := listEntries(t.Context(), client, Target{Bucket: bucket, Prefix: "seed/"})
	if err != nil {
		t.Fatal(err)
	}
	var want []Entry
	for i := range smallLayout.Objects {
		want = append(want, Entry{Key: smallLayout.Key(i), Size: 3000})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seeded objects (-want +got):\n%s", diff)
	}
	if g := groupByCompany(got); len(g) != 4 || len(g[3].Objects) != 4 {
		t.Errorf("got %d companies, the last with %d objects; want 4, the last with 4", len(g), len(g[len(g)-1].Objects))
	}
	obj, err := client.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("seed/company-0004/user-0010/file-04.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Body.Close()
	data, err := io.ReadAll(obj.Body)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Key != "seed/company-0004/user-0010/file-04.json" {
		t.Errorf("body of the last object: key %q, err %v", doc.Key, err)
	}
}

// sdkEngine stands in for s3bulk's engine, which the CLI injects: a plain
// parallel CopyObject over the listing. limit > 0 copies only that many
// objects, to see a short copy reported as failed.
func sdkEngine(conn Conn, limit int) EngineFunc {
	return func(ctx context.Context, src, dst string) (int64, int64, map[string]int64, error) {
		s, err := ParseTarget(src)
		if err != nil {
			return 0, 0, nil, err
		}
		d, err := ParseTarget(dst)
		if err != nil {
			return 0, 0, nil, err
		}
		counter := s3store.NewRequestCounter()
		client := conn.Client(counter, 0)
		entries, err := listEntries(ctx, client, s)
		if err != nil {
			return 0, 0, nil, err
		}
		if limit > 0 {
			entries = entries[:limit]
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(16)
		var bytes atomic.Int64
		for _, e := range entries {
			g.Go(func() error {
				_, err := client.CopyObject(gctx, &s3.CopyObjectInput{
					Bucket: aws.String(d.Bucket), Key: aws.String(d.Prefix + e.Key),
					CopySource: aws.String(s3store.CopySource(s.Bucket, s.Prefix+e.Key)),
				})
				bytes.Add(e.Size)
				return err
			})
		}
		err = g.Wait()
		return int64(len(entries)), bytes.Load(), counter.Counts(), err
	}
}

// toolPath finds an external tool for tests: an S3BULK_TEST_<NAME> variable,
// else PATH.
func toolPath(name string) string {
	if p := os.Getenv("S3BULK_TEST_" + strings.ToUpper(name)); p != "" {
		return p
	}
	p, _ := exec.LookPath(name)
	return p
}

// seeded is the test server, a connection to it, a source seeded with
// smallLayout and an empty destination, each in a bucket of its own.
func seeded(t *testing.T) (*s3test.Server, Conn, Target, Target) {
	t.Helper()
	srv := s3test.Start(t)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	conn := connFor(srv)
	source, dest := Target{Bucket: src, Prefix: "seed/"}, Target{Bucket: dst, Prefix: "copy/"}
	if _, err := Seed(t.Context(), conn, source, smallLayout, SeedOptions{}); err != nil {
		t.Fatal(err)
	}
	return srv, conn, source, dest
}

func TestRunMeasuresEachMethod(t *testing.T) {
	srv, conn, source, dest := seeded(t)
	tools := map[string]string{}
	for _, name := range []string{"aws", "s5cmd", "rclone"} {
		if p := toolPath(name); p != "" {
			tools[name] = p
		} else {
			t.Logf("%s not installed: its method must be skipped", name)
			tools[name] = "/nonexistent/" + name
		}
	}
	var events []string
	report, err := Run(t.Context(), Config{
		Conn: conn, Source: source, Dest: dest,
		Engine: sdkEngine(conn, 0), Tools: tools,
		Prices:  DefaultPrices()["ap-northeast-1"],
		Observe: func(e Event) { events = append(events, e.Method+":"+e.Stage) },
	})
	if err != nil {
		t.Fatal(err)
	}
	byMethod := map[string]Result{}
	var order []string
	for _, m := range report.Methods {
		byMethod[m.Method] = m
		order = append(order, m.Method)
		t.Logf("%-16s %-8s %4d objects %6.2fs cpu %.2fs %v %s", m.Method, m.Status, m.Objects, m.Seconds, m.ClientCPUSeconds, m.Requests, m.Reason)
	}
	if diff := cmp.Diff(AllMethods, order); diff != "" {
		t.Errorf("methods (-want +got):\n%s", diff)
	}
	for _, method := range []string{MethodPut, MethodCopyPerCompany, MethodS3bulk} {
		t.Run(method+" copies every object and counts its requests", func(t *testing.T) {
			m := byMethod[method]
			if m.Status != StatusOK || m.Objects != 40 || m.Bytes != 40*3000 || m.Seconds <= 0 || m.ObjectsPerSecond <= 0 {
				t.Errorf("%s: %+v", method, m)
			}
			if m.RequestsEstimated || m.EstimatedCostUSD <= 0 || m.SpeedupVsBaseline == nil {
				t.Errorf("%s: estimated=%v cost=%v speed-up=%v", method, m.RequestsEstimated, m.EstimatedCostUSD, m.SpeedupVsBaseline)
			}
		})
	}
	t.Run("put makes one PutObject per object", func(t *testing.T) {
		if diff := cmp.Diff(map[string]int64{"PutObject": 40}, byMethod[MethodPut].Requests); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("copy-per-company lists once and copies each object", func(t *testing.T) {
		if diff := cmp.Diff(map[string]int64{"ListObjectsV2": 1, "CopyObject": 40}, byMethod[MethodCopyPerCompany].Requests); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("batch operations is not run off AWS but priced", func(t *testing.T) {
		m := byMethod[MethodBatchOps]
		if m.Status != StatusNotRun || !approx(m.EstimatedCostUSD, DefaultPrices()["ap-northeast-1"].BatchOpsCost(40)) || !strings.Contains(m.Reason, "only on AWS") {
			t.Errorf("batchops: %+v", m)
		}
	})
	for _, name := range []string{"aws", "s5cmd", "rclone"} {
		t.Run(name+" runs when installed and is skipped when not", func(t *testing.T) {
			m := byMethod[name]
			if strings.HasPrefix(tools[name], "/nonexistent/") {
				if m.Status != StatusSkipped || !strings.Contains(m.Reason, tools[name]) {
					t.Errorf("%s: %+v", name, m)
				}
				return
			}
			if m.Status != StatusOK || m.Objects != 40 || !m.RequestsEstimated || m.Requests["CopyObject"] != 40 || m.ClientCPUSeconds <= 0 {
				t.Errorf("%s: %+v", name, m)
			}
			if report.Environment.Tools[name] == "" {
				t.Errorf("no version recorded for %s", name)
			}
		})
	}
	t.Run("the destination is left empty", func(t *testing.T) {
		left, err := listEntries(t.Context(), srv.Client(t), dest)
		if err != nil || len(left) != 0 {
			t.Errorf("destination holds %d objects (%v)", len(left), err)
		}
	})
	if report.Baseline != MethodPut || report.Environment.Objects != 40 || report.Environment.Companies != 4 {
		t.Errorf("baseline %q, environment %+v", report.Baseline, report.Environment)
	}
	if len(events) == 0 || events[0] != "put:clear" {
		t.Errorf("events = %v", events)
	}
}

func TestRunReportsAShortCopyAsFailed(t *testing.T) {
	_, conn, source, dest := seeded(t)
	report, err := Run(t.Context(), Config{Conn: conn, Source: source, Dest: dest, Methods: []string{MethodS3bulk},
		Engine: sdkEngine(conn, 30), Prices: DefaultPrices()["us-east-1"]})
	if err != nil {
		t.Fatal(err)
	}
	m := report.Methods[0]
	if m.Status != StatusFailed || m.Objects != 30 || !strings.Contains(m.Reason, "copied 30 of 40 objects intact (10 missing") {
		t.Errorf("short copy: %+v", m)
	}
	if m.SpeedupVsBaseline != nil || report.Baseline != "" {
		t.Errorf("a failed method got a speed-up or became the baseline")
	}
}

func TestRunRefusesADestinationItWouldWreck(t *testing.T) {
	tests := []struct {
		name      string
		src, dst  Target
		wantError string
	}{
		{"a destination inside the source", Target{"b", "seed/"}, Target{"b", "seed/copy/"}, "overlaps the source"},
		{"a source inside the destination", Target{"b", "x/seed/"}, Target{"b", "x/"}, "overlaps the source"},
		{"a whole bucket as destination", Target{"a", "seed/"}, Target{"b", ""}, "give the destination a prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(t.Context(), Config{Source: tt.src, Dest: tt.dst})
			if err == nil || !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("Run = %v, want an error containing %q", err, tt.wantError)
			}
		})
	}
}

func TestHugeCopiesWithEachPartSize(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.PartCopy)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	conn := connFor(srv)
	source, dest := Target{Bucket: src, Prefix: "seed/"}, Target{Bucket: dst, Prefix: "copy/"}
	if _, err := Seed(t.Context(), conn, source, Layout{Objects: 1, Size: 100, FilesPerUser: 1, UsersPerCompany: 1}, SeedOptions{}); err != nil {
		t.Fatal(err)
	}
	const size = 70 << 20 // above putObject's multipart threshold
	report, err := Run(t.Context(), Config{Conn: conn, Source: source, Dest: dest, Methods: []string{},
		Prices: DefaultPrices()["us-east-1"],
		Huge: HugeConfig{Size: size, PartSizes: []int64{8 << 20, 32 << 20, 1 << 10}, Concurrency: 4,
			Auto: func(int64) int64 { return 16 << 20 }}})
	if err != nil {
		t.Fatal(err)
	}
	h := report.Huge
	type row struct {
		Label  string
		Status Status
		Parts  int
		Copies int64
	}
	var got []row
	for _, r := range h.Rows {
		got = append(got, row{r.Label, r.Status, r.Parts, r.Requests["UploadPartCopy"]})
	}
	want := []row{
		{"8 MiB", StatusOK, 9, 9},
		{"32 MiB", StatusOK, 3, 3},
		{"1 KiB", StatusSkipped, 0, 0},
		{"auto (16 MiB)", StatusOK, 5, 5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("huge rows (-want +got):\n%s", diff)
	}
	if h.AutoVsBest == nil || h.BestPartSize == 0 {
		t.Errorf("auto vs best = %v, best part size %d", h.AutoVsBest, h.BestPartSize)
	}
	client := srv.Client(t)
	for _, tgt := range []Target{{src, hugeKey(source.Prefix, size)}, {dst, hugeKey(dest.Prefix, size)}} {
		if _, err := client.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(tgt.Bucket), Key: aws.String(tgt.Prefix)}); err == nil {
			t.Errorf("s3://%s/%s was left behind", tgt.Bucket, tgt.Prefix)
		}
	}
}

func TestBatchMethodSaysWhenItCannotRun(t *testing.T) {
	t.Parallel()
	noRunner := func(context.Context) (*batchops.Runner, error) { return nil, errors.New("runner made") }
	tests := []struct {
		name     string
		endpoint string
		control  bool
		src      string
		notRun   string // "" when the method goes on to make its runner
	}{
		{name: "an endpoint that is not AWS has no Batch Operations", endpoint: "http://127.0.0.1:9000", src: "s3://src/", notRun: "exists only on AWS, not on http://127.0.0.1:9000"},
		{name: "a control plane stands in for AWS's", endpoint: "http://127.0.0.1:9000", control: true, src: "s3://src/"},
		{name: "a job runs from a bucket's root", src: "s3://src/seed/", notRun: "from a bucket's root (--source s3://src/)"},
		{name: "AWS at a bucket's root runs", src: "s3://src/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BatchMethod(Conn{Endpoint: tt.endpoint}, "arn", tt.control, noRunner)(context.Background(), tt.src, "s3://dst/copy/")
			if tt.notRun == "" {
				if err == nil || err.Error() != "runner made" {
					t.Errorf("BatchFunc: %v, want it to go on to make its runner", err)
				}
				return
			}
			if !errors.Is(err, ErrNotRun) || !strings.Contains(err.Error(), tt.notRun) {
				t.Errorf("BatchFunc: %v, want ErrNotRun saying %q", err, tt.notRun)
			}
		})
	}
}

func TestEngineMethodCopiesWithANewEngineAndCountsItsRequests(t *testing.T) {
	srv, _, source, dest := seeded(t)
	cfg := s3store.Config{EndpointURL: srv.Endpoint, Region: srv.Region, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, ChecksumWhenRequired: true}
	engines := 0
	run := EngineMethod(cfg, func() *engine.Engine { engines++; return engine.New(engine.Config{Concurrency: 4}) })
	for range 2 {
		objects, bytes, requests, err := run(t.Context(), source.String(), dest.String())
		if err != nil {
			t.Fatal(err)
		}
		if objects != int64(smallLayout.Objects) || bytes != smallLayout.Bytes() {
			t.Errorf("copied %d objects, %d bytes; want %d, %d", objects, bytes, smallLayout.Objects, smallLayout.Bytes())
		}
		if requests["CopyObject"] != int64(smallLayout.Objects) || requests["ListObjectsV2"] == 0 {
			t.Errorf("requests %v, want a CopyObject per object and a listing", requests)
		}
	}
	if engines != 2 {
		t.Errorf("%d engines for 2 runs, want one each", engines)
	}
	got := s3test.ListKeys(t, srv.Client(t), dest.Bucket, dest.Prefix)
	if len(got) != smallLayout.Objects {
		t.Errorf("destination holds %d objects, want %d", len(got), smallLayout.Objects)
	}
}

func TestRunMeasuresTheCLIAloneOnFewerCoresThanTheReports(t *testing.T) {
	srv, conn, source, dest := seeded(t)
	aws := toolPath("aws")
	if aws == "" {
		t.Log("aws not installed: its method is skipped, and nothing is run alone")
		aws = "/nonexistent/aws"
	}
	var events []string
	report, err := Run(t.Context(), Config{
		Conn: conn, Source: source, Dest: dest, Methods: []string{MethodAWS}, Regime: RegimeSimulated,
		Tools: map[string]string{"aws": aws}, Prices: DefaultPrices()["ap-northeast-1"],
		Observe: func(e Event) { events = append(events, e.Method+":"+e.Stage) },
	})
	if err != nil {
		t.Fatal(err)
	}
	installed := !strings.HasPrefix(aws, "/nonexistent/")
	want := installed && report.Environment.CPUs < ReportClientCores
	if got := slices.Contains(events, "aws:alone"); got != want {
		t.Errorf("ran the CLI alone: %v, want %v (installed %v, %d CPUs): events %v", got, want, installed, report.Environment.CPUs, events)
	}
	for _, c := range report.Calibration {
		if a := c.Alone; a != nil && (a.Objects != 12 || a.Seconds <= 0 || a.ScheduledObjectsPerSecond <= 0) {
			t.Errorf("alone %+v: want the largest company's 12 objects, timed", a)
		}
	}
	left, err := listEntries(t.Context(), srv.Client(t), dest)
	if err != nil || len(left) != 0 {
		t.Errorf("destination holds %d objects (%v)", len(left), err)
	}
}
