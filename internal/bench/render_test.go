package bench

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// reportLikeResults is the field report's table as Results, so renderers
// can be checked on known numbers.
func reportLikeResults() []Result {
	prices := DefaultPrices()["ap-northeast-1"]
	mk := func(method string, seconds, cpu float64, requests map[string]int64, estimated bool) Result {
		r := Result{Method: method, Status: StatusOK, Description: "test " + method, Objects: 5000, Bytes: 5000 * 102400,
			Seconds: seconds, ClientCPUSeconds: cpu, Requests: requests, RequestsEstimated: estimated}
		r.EstimatedCostUSD = prices.RequestCost(requests)
		r.finish()
		return r
	}
	return []Result{
		mk(MethodPut, 441.0, 12.5, map[string]int64{"PutObject": 5000}, false),
		mk(MethodCopyPerCompany, 166.7, 3.1, map[string]int64{"ListObjectsV2": 5, "CopyObject": 5000}, false),
		mk(MethodS3bulk, 4.2, 1.9, map[string]int64{"ListObjectsV2": 5, "CopyObject": 5000}, false),
		mk(MethodAWS, 19.9, 40, map[string]int64{"ListObjectsV2": 13, "CopyObject": 5000}, true),
		{Method: MethodS5cmd, Status: StatusSkipped, Reason: "s5cmd not found on PATH", Description: "s5cmd cp"},
		{Method: MethodRclone, Status: StatusFailed, Reason: "copied 4990 of 5000 objects", Objects: 4990, Bytes: 4990 * 102400, Description: "rclone copy"},
		{Method: MethodBatchOps, Status: StatusNotRun, Reason: "needs AWS", Description: "S3 Batch Operations", EstimatedCostUSD: prices.BatchOpsCost(5000)},
	}
}

func sampleReport() *Report {
	results := reportLikeResults()
	prices := DefaultPrices()["ap-northeast-1"]
	r := &Report{Methods: results}
	r.Baseline = setSpeedups(r.Methods)
	r.Extrapolation = extrapolate(r.Methods, reportObjectCounts, prices)
	r.Environment = Environment{
		Endpoint: "http://127.0.0.1:9000", Region: "us-east-1", PriceRegion: "ap-northeast-1",
		Source: "s3://src/seed/", Dest: "s3://dst/copy/", Objects: 5000, Bytes: 5000 * 102400, Companies: 13,
		CompanyConcurrency: 4, Latency: "30ms", GoVersion: "go1.26", OS: "linux", Arch: "amd64", CPUs: 2,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Tools: map[string]string{"aws": "aws-cli/1.45"},
	}
	return r
}

func TestSpeedupsAreAgainstPut(t *testing.T) {
	r := sampleReport()
	if r.Baseline != MethodPut {
		t.Fatalf("baseline = %q, want put", r.Baseline)
	}
	got := map[string]float64{}
	for _, m := range r.Methods {
		if m.SpeedupVsBaseline != nil {
			got[m.Method] = float64(int(*m.SpeedupVsBaseline*100)) / 100
		}
	}
	want := map[string]float64{MethodPut: 1, MethodCopyPerCompany: 2.64, MethodS3bulk: 105, MethodAWS: 22.16}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("speed-ups (-want +got):\n%s", diff)
	}
}

func TestSpeedupsFallBackToTheFirstFinishedMethod(t *testing.T) {
	results := reportLikeResults()[1:]
	if got := setSpeedups(results); got != MethodCopyPerCompany {
		t.Errorf("baseline = %q, want copy-per-company", got)
	}
}

func TestExtrapolationIsTheReports(t *testing.T) {
	prices := DefaultPrices()["ap-northeast-1"]
	got := extrapolate([]Result{
		{Method: MethodAWS, Status: StatusOK, Objects: 5000, Seconds: 19.9, EstimatedCostUSD: prices.CopyCost(5000)},
		{Method: MethodBatchOps, Status: StatusOK, Objects: 5000, Seconds: 15, EstimatedCostUSD: prices.BatchOpsCost(5000)},
		{Method: MethodS5cmd, Status: StatusSkipped},
	}, reportObjectCounts, prices)
	round := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = float64(int(x*1000+0.5)) / 1000
		}
		return out
	}
	for i := range got.Methods {
		got.Methods[i].Seconds = round(got.Methods[i].Seconds)
		got.Methods[i].EstimatedCostUSD = round(got.Methods[i].EstimatedCostUSD)
	}
	want := Extrapolation{
		Model:        "linear in object count",
		ObjectCounts: reportObjectCounts,
		Methods: []Projection{
			// The report: CLI ~9.9 min at 150k, ~$0.47 at 100k.
			{Method: MethodAWS, Seconds: []float64{199, 398, 597}, EstimatedCostUSD: []float64{0.235, 0.47, 0.705}},
			// The report: Batch Operations ~7.5 min at 150k, ~$0.82 at 100k.
			{Method: MethodBatchOps, Seconds: []float64{150, 300, 450}, EstimatedCostUSD: []float64{0.535, 0.82, 1.105}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("extrapolation (-want +got):\n%s", diff)
	}
}

func TestExtrapolationKeepsBatchOpsCostWhenNotRun(t *testing.T) {
	prices := DefaultPrices()["ap-northeast-1"]
	got := extrapolate([]Result{{Method: MethodBatchOps, Status: StatusNotRun}}, []int64{100_000}, prices)
	if len(got.Methods) != 1 || got.Methods[0].Seconds != nil || !approx(got.Methods[0].EstimatedCostUSD[0], 0.82) {
		t.Errorf("projection = %+v, want no seconds and $0.82", got.Methods)
	}
}

// TestJSONSchema pins every field name and JSON type of the document: a
// rename here breaks scripts that read `s3bulk bench --json`.
func TestJSONSchema(t *testing.T) {
	r := sampleReport()
	r.Huge = &HugeReport{Key: "k", Size: 1 << 30, Concurrency: 10, Repeat: 1, BestPartSize: 64 << 20, AutoVsBest: new(float64),
		Rows: []HugeRow{{Label: "8 MiB", Status: StatusOK, PartSize: 8 << 20, Parts: 128, Seconds: 1, MiBPerSecond: 1024, Requests: map[string]int64{"UploadPartCopy": 128}}}}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"methods":                                    "array",
		"methods[].method":                           "string",
		"methods[].status":                           "string",
		"methods[].reason":                           "string",
		"methods[].description":                      "string",
		"methods[].objects":                          "number",
		"methods[].bytes":                            "number",
		"methods[].seconds":                          "number",
		"methods[].objects_per_second":               "number",
		"methods[].mib_per_second":                   "number",
		"methods[].client_cpu_seconds":               "number",
		"methods[].requests":                         "object",
		"methods[].requests_estimated":               "bool",
		"methods[].estimated_cost_usd":               "number",
		"methods[].speedup_vs_baseline":              "number",
		"baseline":                                   "string",
		"extrapolation":                              "object",
		"extrapolation.model":                        "string",
		"extrapolation.object_counts":                "array",
		"extrapolation.methods":                      "array",
		"extrapolation.methods[].method":             "string",
		"extrapolation.methods[].seconds":            "array",
		"extrapolation.methods[].estimated_cost_usd": "array",
		"environment":                                "object",
		"environment.endpoint":                       "string",
		"environment.region":                         "string",
		"environment.price_region":                   "string",
		"environment.source":                         "string",
		"environment.dest":                           "string",
		"environment.objects":                        "number",
		"environment.bytes":                          "number",
		"environment.companies":                      "number",
		"environment.company_concurrency":            "number",
		"environment.latency":                        "string",
		"environment.go_version":                     "string",
		"environment.os":                             "string",
		"environment.arch":                           "string",
		"environment.cpus":                           "number",
		"environment.started":                        "string",
		"environment.tools":                          "object",
		"huge":                                       "object",
		"huge.key":                                   "string",
		"huge.size":                                  "number",
		"huge.concurrency":                           "number",
		"huge.repeat":                                "number",
		"huge.best_part_size":                        "number",
		"huge.auto_vs_best":                          "number",
		"huge.rows":                                  "array",
		"huge.rows[].label":                          "string",
		"huge.rows[].auto":                           "bool",
		"huge.rows[].status":                         "string",
		"huge.rows[].reason":                         "string",
		"huge.rows[].part_size":                      "number",
		"huge.rows[].parts":                          "number",
		"huge.rows[].seconds":                        "number",
		"huge.rows[].mib_per_second":                 "number",
		"huge.rows[].requests":                       "object",
	}
	got := map[string]string{}
	schema(doc, "", got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON schema (-want +got):\n%s", diff)
	}
	// The first method's values, to catch a field filled from the wrong place.
	m := doc["methods"].([]any)[0].(map[string]any)
	gotVals := map[string]any{"method": m["method"], "status": m["status"], "objects": m["objects"], "bytes": m["bytes"], "seconds": m["seconds"], "requests": m["requests"]}
	wantVals := map[string]any{"method": "put", "status": "ok", "objects": 5000.0, "bytes": 512000000.0, "seconds": 441.0, "requests": map[string]any{"PutObject": 5000.0}}
	if diff := cmp.Diff(wantVals, gotVals); diff != "" {
		t.Errorf("first method (-want +got):\n%s", diff)
	}
	if rate := m["objects_per_second"].(float64); rate < 11.33 || rate > 11.35 {
		t.Errorf("objects_per_second = %v, want the report's 11.34", rate)
	}
}

// schema records the JSON type of every path in v; arrays are described by
// the union of their elements' fields, maps of counts (requests, tools) as
// plain objects.
func schema(v any, path string, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		if path != "" {
			out[path] = "object"
		}
		if strings.HasSuffix(path, "requests") || strings.HasSuffix(path, "tools") {
			return
		}
		for k, child := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			schema(child, p, out)
		}
	case []any:
		out[path] = "array"
		for _, child := range v {
			if _, ok := child.(map[string]any); ok {
				for k, c := range child.(map[string]any) {
					if c == nil {
						continue // null for unfinished methods; typed by the others
					}
					schema(c, path+"[]."+k, out)
				}
			}
		}
	case string:
		out[path] = "string"
	case float64:
		out[path] = "number"
	case bool:
		out[path] = "bool"
	case nil:
		out[path] = "null"
	default:
		out[path] = reflect.TypeOf(v).String()
	}
}

func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"objects/s", "put", "11.34", "105.0x", "~5013",
		"s5cmd: s5cmd not found on PATH",
		"rclone: copied 4990 of 5000 objects",
		"Speed-up is objects/s against put",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, sampleReport(), "chart.png"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"# s3bulk bench: 5000 objects, 488.28 MiB",
		"30ms added to every request",
		"![objects per second and projected time](chart.png)",
		"| put | ok | 5000 | 488.3 | 441.0 | 11.34 | 1.11 | 12.5 | PutObject 5000 | 0.0235 | 1.0x |",
		"| aws | ok | 5000 | 488.3 | 19.9 | 251.26 | 24.54 | 40.0 | ~ CopyObject 5000, ListObjectsV2 13 |",
		"| batchops | not run, $0.54 | not run, $0.82 | not run, $1.10 |",
		"| aws | 3.3 min, $0.24 | 6.6 min, $0.47 | 9.9 min, $0.71 |",
		"_skipped: s5cmd not found on PATH_",
		"| S3 Batch Operations (wall clock) | 63.3 | 79.02 | 7.72 | 0.2785 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteChartMakesAPNG(t *testing.T) {
	tests := []struct {
		name   string
		report *Report
	}{
		{"a report with finished methods", sampleReport()},
		{"a report where nothing finished", &Report{Methods: []Result{{Method: MethodPut, Status: StatusFailed}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeChart(&buf, tt.report); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 500 {
				t.Errorf("chart is %dx%d, too small to read", b.Dx(), b.Dy())
			}
		})
	}
	if dir := os.Getenv("BENCH_CHART_DIR"); dir != "" {
		// For looking at the chart by eye.
		var buf bytes.Buffer
		if err := writeChart(&buf, sampleReport()); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sample-chart.png"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTheTableReadsOnItsOwn(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Field report 1's benchmark: copy 5000 objects of 100 KiB (488.28 MiB) from one bucket to another",
		"on a local S3 server (http://127.0.0.1:9000), 30ms added to every request.",
		"its SDK program is copy-per-company",
		"\nMethods:\n  put: test put\n  copy-per-company: test copy-per-company\n",
		"  s5cmd: s5cmd cp\n",
		"shares its 2 CPUs with the clients: figures move with the machine's load",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table does not say %q:\n%s", want, out)
		}
	}
	r := sampleReport()
	r.Environment.Endpoint, r.Environment.Latency = "", ""
	b.Reset()
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "on AWS, no latency added.") || strings.Contains(out, "shares its") {
		t.Errorf("on AWS the table speaks of a local server or added latency:\n%s", out)
	}
}

func TestTheChartNamesTheLatencyAndMarksMethodsNotRun(t *testing.T) {
	r := sampleReport()
	if got, want := chartTitle(r), "Objects per second (5000 objects of 100 KiB, 30ms added per request)"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	names, _, labels := barLabels(r)
	got := map[string]string{}
	for i, n := range names {
		got[n] = labels[i]
	}
	want := map[string]string{MethodPut: "11", MethodCopyPerCompany: "30", MethodS3bulk: "1190", MethodAWS: "251",
		MethodS5cmd: "skipped", MethodRclone: "failed", MethodBatchOps: "not-run"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bar labels (-want +got):\n%s", diff)
	}
}
