package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/testfs"
)

// scrape reads the metrics served at addr: each sample's name with its
// labels as printed ("s3bulk_objects_total{status=\"done\"}") to its value.
func scrape(addr string) (map[string]float64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

// hookWriter calls hook with every write before passing it on: a scrape
// at a moment of the run the test picks, while the run waits.
type hookWriter struct {
	lockedBuffer
	hook func(p []byte)
}

func (w *hookWriter) Write(p []byte) (int, error) {
	w.hook(p)
	return w.lockedBuffer.Write(p)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// A scrape during a run sees it going on, and one after its last result
// holds the counts its summary gives.
func TestMetricsDuringARunMatchItsSummary(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	local := t.TempDir()
	files := map[string]string{}
	for i := range 120 {
		files[fmt.Sprintf("d/%03d", i)] = strings.Repeat("x", i)
	}
	testfs.Write(t, local, files)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local+"/", "s3://"+src+"/")
	seedKeys(t, srv, dst, "d/000", "d/001", "d/002", "d/003", "d/004", "d/005") // skipped by --no-clobber, in some shard

	addr := freeAddr(t)
	var during, final map[string]float64
	var scrapeErr error
	lines := 0
	out := &hookWriter{hook: func(p []byte) {
		if lines += bytes.Count(p, []byte("\n")); lines == 20 && during == nil {
			during, scrapeErr = scrape(addr)
		}
	}}
	errOut := &hookWriter{hook: func(p []byte) {
		if bytes.HasPrefix(p, []byte(`{"type":"summary"`)) {
			final, scrapeErr = scrape(addr)
		}
	}}
	code := Run(t.Context(), []string{"--no-progress", "--json", "--metrics-addr", addr, "cp", "--recursive", "--no-clobber", "--shard", "0/2",
		"s3://" + src + "/d/", "s3://" + dst + "/d/"}, Stdio{In: strings.NewReader(""), Out: out, Err: errOut, Env: srv.Env()})
	if code != 0 || scrapeErr != nil {
		t.Fatalf("exit %d, scrape: %v\nstderr:\n%s", code, scrapeErr, errOut.String())
	}
	if during == nil || final == nil {
		t.Fatalf("no scrape during the run (%d result lines) or after its last result", lines)
	}
	sum := summaryOf(t, errOut.String())
	if got := during[`s3bulk_objects_total{status="done"}`] + during[`s3bulk_objects_total{status="skipped"}`]; got < 20 || got > sum["objects"].(float64)+sum["skipped"].(float64) {
		t.Errorf("during the run: %v objects ended, want from 20 to the run's total", got)
	}
	for metric, field := range map[string]string{
		`s3bulk_objects_total{status="done"}`:    "objects",
		`s3bulk_objects_total{status="skipped"}`: "skipped",
		`s3bulk_objects_total{status="failed"}`:  "failed",
		`s3bulk_bytes_total{status="done"}`:      "bytes",
	} {
		if got, want := final[metric], sum[field].(float64); got != want {
			t.Errorf("%s = %v, the summary's %s is %v", metric, got, field, want)
		}
	}
	if sum["skipped"].(float64) == 0 || sum["objects"].(float64) == 0 {
		t.Errorf("summary %v: want some copied and some skipped", sum)
	}
	requests := map[string]float64{}
	for k, v := range final {
		if op, ok := strings.CutPrefix(k, `s3bulk_requests_total{operation="`); ok {
			op, _, _ = strings.Cut(op, `"`)
			requests[op] += v
		}
	}
	for op, n := range sum["requests"].(map[string]any) {
		if requests[op] != n.(float64) {
			t.Errorf("%s: %v requests served, the summary counts %v", op, requests[op], n)
		}
	}
	if sh, _ := sum["shard"].(map[string]any); sh == nil || sh["index"] != 0.0 || sh["count"] != 2.0 {
		t.Errorf("summary shard %v, want index 0 of 2", sum["shard"])
	}
	if final[`s3bulk_run_info{command="cp",shard="0",shards="2"}`] != 1 {
		t.Errorf("no run info of shard 0/2 in %v", final)
	}
	for _, m := range []string{"s3bulk_concurrency_limit", "s3bulk_objects_planned_total", "s3bulk_throttles_total", "s3bulk_requests_in_flight", "s3bulk_eta_seconds", "s3bulk_listing_keys_per_second"} {
		if _, ok := final[m]; !ok {
			t.Errorf("%s not served", m)
		}
	}
	if final["s3bulk_objects_planned_total"] != sum["objects"].(float64)+sum["skipped"].(float64) {
		t.Errorf("planned %v, want the objects done and skipped", final["s3bulk_objects_planned_total"])
	}
	// The run is over: nothing listens any more.
	if _, err := scrape(addr); err == nil {
		t.Errorf("metrics still served after the run")
	}
}

func TestBadMetricsAddressIsAUsageError(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{"nocolon", "127.0.0.1:notaport", "127.0.0.1:70000", busy.Addr().String()} {
		out, errOut, code := runCLI(t, envList{}, "--metrics-addr", addr, "ls", "s3://nothing/")
		lines := errorLines(errOut)
		if code != ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], "--metrics-addr") || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q: want exit 2 and one line naming --metrics-addr", addr, code, out, errOut)
		}
	}
}
