package cli

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/localstore"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// The tests in this file put internal/faultproxy between s3bulk and the
// real server and check that what arrives is exactly what was sent, and
// that nothing is left behind: no partial file, no unfinished upload.

// bodyFor is the content of the i-th seeded object: distinct per object, so
// that a body delivered under the wrong key, or cut short, is caught.
func bodyFor(i, size int) []byte {
	stamp := fmt.Sprintf("%08d|", i)
	return bytes.Repeat([]byte(stamp), size/len(stamp)+1)[:size]
}

// seedObjects writes n objects of size bytes under prefix, in parallel, and
// returns them by key.
func seedObjects(t *testing.T, srv *s3test.Server, bucket, prefix string, n, size int) map[string][]byte {
	t.Helper()
	objs := make(map[string][]byte, n)
	for i := range n {
		objs[fmt.Sprintf("%sd%02d/obj-%05d", prefix, i%17, i)] = bodyFor(i, size)
	}
	if err := putAll(t.Context(), srv.Client(t), bucket, objs); err != nil {
		t.Fatalf("seed s3://%s/%s: %v", bucket, prefix, err)
	}
	return objs
}

func putAll(ctx context.Context, c *s3.Client, bucket string, objs map[string][]byte) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for k, v := range objs {
		g.Go(func() error {
			_, err := c.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String(k),
				Body: bytes.NewReader(v), ContentLength: aws.Int64(int64(len(v))),
			})
			if err != nil {
				return fmt.Errorf("put %s: %w", k, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// checkBucketHolds fails the test unless bucket holds exactly want under
// prefix (keys relative to prefix) and no unfinished multipart upload. Every
// object's size and ETag (the MD5 of its body, for these single-part
// objects) is checked from the listing, and the bodies of up to 500 of them
// are read back and compared byte for byte.
func checkBucketHolds(t *testing.T, srv *s3test.Server, bucket, prefix string, want map[string][]byte) {
	t.Helper()
	c := srv.Client(t)
	got := map[string]string{}
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatalf("list s3://%s/%s: %v", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			got[strings.TrimPrefix(aws.ToString(o.Key), prefix)] = fmt.Sprintf("%d %s", aws.ToInt64(o.Size), strings.Trim(aws.ToString(o.ETag), `"`))
		}
	}
	wantTags := make(map[string]string, len(want))
	for k, v := range want {
		wantTags[k] = fmt.Sprintf("%d %x", len(v), md5.Sum(v))
	}
	if diff := cmp.Diff(wantTags, got); diff != "" {
		t.Fatalf("objects in s3://%s/%s, as size and ETag (-want +got):\n%.3000s", bucket, prefix, diff)
	}

	var mu sync.Mutex
	var wrong []string
	g, ctx := errgroup.WithContext(t.Context())
	g.SetLimit(32)
	every := max(1, len(want)/500)
	i := 0
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if i++; i%every != 0 {
			continue
		}
		g.Go(func() error {
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(prefix + k)})
			if err != nil {
				return fmt.Errorf("get %s: %w", k, err)
			}
			defer out.Body.Close()
			b, err := io.ReadAll(out.Body)
			if err != nil {
				return fmt.Errorf("get %s: %w", k, err)
			}
			if !bytes.Equal(b, want[k]) {
				mu.Lock()
				wrong = append(wrong, k)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("verify s3://%s/%s: %v", bucket, prefix, err)
	}
	if len(wrong) > 0 {
		t.Fatalf("%d objects in s3://%s/%s have other bodies than their sources, e.g. %s", len(wrong), bucket, prefix, wrong[0])
	}
	if up := s3test.ListUploads(t, c, bucket); len(up) != 0 {
		t.Errorf("unfinished multipart uploads left in s3://%s: %v", bucket, up)
	}
}

func startFaultProxy(t *testing.T, srv *s3test.Server, cfg faultproxy.Config) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(srv.Endpoint, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// cliSummary is the part of the --json summary (stderr) these tests read.
type cliSummary struct {
	Objects          int64   `json:"objects"`
	Failed           int64   `json:"failed"`
	Skipped          int64   `json:"skipped"`
	Seconds          float64 `json:"seconds"`
	ObjectsPerSecond float64 `json:"objects_per_second"`
	ConcurrencyLimit int     `json:"concurrency_limit"`
	Requests         map[string]int64
	Unverified       int64 `json:"unverified"`
}

func parseSummary(t *testing.T, stderr string) cliSummary {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, `"type":"summary"`) {
			continue
		}
		var s cliSummary
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("summary %q: %v", line, err)
		}
		return s
	}
	t.Fatalf("no JSON summary on stderr:\n%s", stderr)
	return cliSummary{}
}

// faultCounts formats the faults the proxy injected between two Stats.
func faultCounts(before, after faultproxy.Stats) string {
	var parts []string
	for f := faultproxy.SlowDown; f <= faultproxy.Stall; f++ {
		if n := after.Faults[f] - before.Faults[f]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %v", n, f))
		}
	}
	return fmt.Sprintf("%d requests, faults: %s", after.Requests-before.Requests, strings.Join(parts, ", "))
}

func injected(before, after faultproxy.Stats, f faultproxy.Fault) int64 {
	return after.Faults[f] - before.Faults[f]
}

func TestCopyOf5000ObjectsUnderSlowDownsAndResetsLosesNothing(t *testing.T) {
	t.Parallel()
	n := 5000
	if testing.Short() {
		n = 500
	}
	srv := s3test.StartPrivate(t)
	src, clean, faulty := srv.NewBucket(t), srv.NewBucket(t), srv.NewBucket(t)
	stopBeforeBucketCleanup(t, srv)
	t0 := time.Now()
	want := seedObjects(t, srv, src, "", n, 1024)
	t.Logf("seeded in %v", time.Since(t0))

	// Both runs go through the proxy, so the fraction compares faults with
	// no faults, not a proxy with none.
	proxy := startFaultProxy(t, srv, faultproxy.Config{Seed: 1})
	copyAll := func(dst string) cliSummary {
		t.Helper()
		out, errOut, code := runCLI(t, srv, "--endpoint-url", proxy.URL(), "--json", "cp", "--recursive", "s3://"+src+"/", "s3://"+dst+"/")
		if code != ExitOK {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, tail(errOut, 20))
		}
		if lines := strings.Count(out, "\n"); lines != n {
			t.Errorf("printed %d result lines, want %d", lines, n)
		}
		return parseSummary(t, errOut)
	}

	cleanSum := copyAll(clean)
	t0 = time.Now()
	checkBucketHolds(t, srv, clean, "", want)
	t.Logf("verified in %v", time.Since(t0))

	// 5% of requests answered 503 SlowDown, 1% of connections reset: half
	// before the answer, half in the middle of it (after the server did the
	// copy, so the retry copies again).
	err := proxy.SetConfig(faultproxy.Config{Seed: 2, SlowDownRate: 0.05, ResetBeforeRate: 0.005, ResetMidBodyRate: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	before := proxy.Stats()
	faultSum := copyAll(faulty)
	after := proxy.Stats()
	checkBucketHolds(t, srv, faulty, "", want)

	if faultSum.Objects != int64(n) || faultSum.Failed != 0 {
		t.Errorf("summary under faults: %d objects, %d failed; want %d, 0", faultSum.Objects, faultSum.Failed, n)
	}
	if injected(before, after, faultproxy.SlowDown) == 0 || injected(before, after, faultproxy.ResetBefore)+injected(before, after, faultproxy.ResetMidBody) == 0 {
		t.Errorf("the proxy injected too few faults to test anything: %s", faultCounts(before, after))
	}
	t.Logf("clean: %d objects in %.2fs, %.0f objects/s", cleanSum.Objects, cleanSum.Seconds, cleanSum.ObjectsPerSecond)
	t.Logf("faults: %d objects in %.2fs, %.0f objects/s (%.0f%% of clean); %s; requests %v; final concurrency limit %d",
		faultSum.Objects, faultSum.Seconds, faultSum.ObjectsPerSecond, 100*faultSum.ObjectsPerSecond/cleanSum.ObjectsPerSecond,
		faultCounts(before, after), faultSum.Requests, faultSum.ConcurrencyLimit)
}

// stopBeforeBucketCleanup stops a private server before the cleanups of the
// buckets made so far run (cleanups run last in, first out): its objects
// then go with its directory instead of being deleted one request at a time.
func stopBeforeBucketCleanup(t *testing.T, srv *s3test.Server) {
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// engineClient is an s3store client for driving the engine directly,
// through endpoint (a proxy), with short waits so that a test with many
// faults stays short.
func engineClient(t *testing.T, srv *s3test.Server, endpoint string, cfg s3store.Config) *s3store.Client {
	t.Helper()
	cfg.EndpointURL = endpoint
	cfg.Region = srv.Region
	cfg.AccessKey, cfg.SecretKey = srv.AccessKey, srv.SecretKey
	cfg.ChecksumWhenRequired = true
	if cfg.Backoff.Base == 0 {
		cfg.Backoff = s3store.Backoff{Base: 5 * time.Millisecond, ThrottleBase: 20 * time.Millisecond, Max: 200 * time.Millisecond}
	}
	c, err := s3store.NewClient(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func bucketEndpoint(t *testing.T, c *s3store.Client, url string) engine.Endpoint {
	t.Helper()
	loc, err := s3url.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Endpoint{Store: c.Bucket(loc.Bucket), Loc: loc}
}

func localEndpoint(t *testing.T, dir string) engine.Endpoint {
	t.Helper()
	st, err := localstore.New(dir, localstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return engine.Endpoint{Store: st, Loc: s3url.Location{Local: true}}
}

// isCopyObject selects CopyObject requests: a PUT naming a copy source
// without a part number.
func isCopyObject(r *http.Request) bool {
	return r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != "" && !r.URL.Query().Has("partNumber")
}

// limitTrace records the run's concurrency limit as tasks end.
type limitTrace struct {
	mu                          sync.Mutex
	switched                    bool
	lowest, atSwitch, recovered int
	maxInFlightThrottled        int
	samples                     []string
}

func TestThrottlingShrinksTheInFlightLimitAndSuccessGrowsItBack(t *testing.T) {
	t.Parallel()
	const (
		n         = 1500
		throttled = 300 // objects done under throttling
		ceiling   = 32
		floor     = 2
	)
	srv := s3test.StartPrivate(t)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	stopBeforeBucketCleanup(t, srv)
	want := seedObjects(t, srv, src, "", n, 64)

	// Only the copies are throttled, so the listing runs ahead as usual.
	proxy := startFaultProxy(t, srv, faultproxy.Config{Seed: 3, SlowDownRate: 0.6, Match: isCopyObject})
	// The window (how long after a decrease further throttles are taken as
	// echoes) is shorter than the default second so that the limit falls
	// within the first objects whatever the machine's speed.
	// The floor is a sixteenth of the ceiling.
	eng := engine.New(engine.Config{Concurrency: ceiling, ThrottleWindow: 50 * time.Millisecond})
	// 0.6^30: no object runs out of attempts while throttled.
	c := engineClient(t, srv, proxy.URL(), s3store.Config{Concurrency: ceiling, OnThrottle: eng.Throttled, MaxAttempts: 30})

	progress := &engine.Progress{}
	tr := &limitTrace{lowest: ceiling}
	observe := func(r engine.Result) {
		s := progress.Snapshot()
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if !tr.switched {
			tr.lowest = min(tr.lowest, s.Limit)
			tr.maxInFlightThrottled = max(tr.maxInFlightThrottled, s.InFlight)
			if s.Done >= throttled {
				// From here on every request succeeds.
				tr.switched, tr.atSwitch = true, s.Limit
				if err := proxy.SetConfig(faultproxy.Config{Seed: 4}); err != nil {
					t.Error(err)
				}
			}
		} else {
			tr.recovered = max(tr.recovered, s.Limit)
		}
		if s.Done%50 == 0 {
			tr.samples = append(tr.samples, fmt.Sprintf("%d:%d/%d", s.Done, s.InFlight, s.Limit))
		}
	}
	sum, err := eng.Run(t.Context(), engine.Job{
		Src: bucketEndpoint(t, c, "s3://"+src+"/"), Dst: bucketEndpoint(t, c, "s3://"+dst+"/"), Recursive: true,
	}, engine.Options{Progress: progress, Observer: observe})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Objects != n || sum.Failed != 0 {
		t.Fatalf("copied %d objects, %d failed; want %d, 0", sum.Objects, sum.Failed, n)
	}
	checkBucketHolds(t, srv, dst, "", want)

	tr.mu.Lock()
	defer tr.mu.Unlock()
	t.Logf("under 60%% SlowDown the limit fell from %d to %d (%d after %d objects; in flight at most %d), then grew back to %d; done:in-flight/limit: %s",
		ceiling, tr.lowest, tr.atSwitch, throttled, tr.maxInFlightThrottled, tr.recovered, strings.Join(tr.samples, " "))
	if tr.lowest != floor || tr.atSwitch > ceiling/4 {
		t.Errorf("under sustained throttling the limit fell to %d and was %d after %d objects; want the floor %d, and at most %d", tr.lowest, tr.atSwitch, throttled, floor, ceiling/4)
	}
	if tr.recovered != ceiling {
		t.Errorf("after the throttling stopped the limit grew back to %d, want the ceiling %d", tr.recovered, ceiling)
	}
}

func TestStalledRequestsAreRetriedAndTheRunCompletes(t *testing.T) {
	const n = 300
	srv := s3test.StartPrivate(t)
	src, dst := srv.NewBucket(t), srv.NewBucket(t)
	stopBeforeBucketCleanup(t, srv)
	want := seedObjects(t, srv, src, "", n, 2048)
	proxy := startFaultProxy(t, srv, faultproxy.Config{Seed: 5, StallRate: 0.03})
	// The stall timeouts are the knobs under test: below their defaults
	// (5s, and 5m for CopyObject) so that a few dozen stalls, a few at a
	// time on 32 workers, cost seconds. Not much lower: an answer the
	// server, loaded by other tests, takes longer than this to give is cut
	// and sent again, which loads it more; at 300ms that spiral made a
	// loaded machine fail an object after all its attempts. The proxy's
	// stalls never end, so any timeout tells them from slow answers.
	const stallTimeout = 2 * time.Second
	c := engineClient(t, srv, proxy.URL(), s3store.Config{Concurrency: 32, StallTimeout: stallTimeout, CopyStallTimeout: stallTimeout})
	// failures says why objects failed, when some did.
	var mu sync.Mutex
	var failures []string
	observe := func(r engine.Result) {
		if r.Err != nil {
			mu.Lock()
			failures = append(failures, r.Err.Error())
			mu.Unlock()
		}
	}
	failed := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(failures, "\n")
	}

	// run runs the engine from the source to to through the proxy: every
	// object arrives, and some request stalled on the way.
	run := func(t *testing.T, verb string, to engine.Endpoint) {
		t.Helper()
		before := proxy.Stats()
		sum, err := engine.New(engine.Config{Concurrency: 32}).Run(t.Context(), engine.Job{
			Src: bucketEndpoint(t, c, "s3://"+src+"/"), Dst: to, Recursive: true,
		}, engine.Options{Observer: observe})
		after := proxy.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if sum.Objects != n || sum.Failed != 0 {
			t.Errorf("%s %d, %d failed; want %d, 0:\n%s", verb, sum.Objects, sum.Failed, n, failed())
		}
		if injected(before, after, faultproxy.Stall) == 0 {
			t.Errorf("no request stalled: %s", faultCounts(before, after))
		}
		t.Logf("%s %d objects in %.2fs; %s", verb, sum.Objects, sum.Seconds, faultCounts(before, after))
	}

	t.Run("a server-side copy", func(t *testing.T) {
		run(t, "copied", bucketEndpoint(t, c, "s3://"+dst+"/"))
		checkBucketHolds(t, srv, dst, "", want)
	})
	t.Run("a download", func(t *testing.T) {
		dir := t.TempDir()
		run(t, "downloaded", localEndpoint(t, dir))
		if diff := cmp.Diff(stringMap(want), testfs.Read(t, dir)); diff != "" {
			t.Errorf("downloaded files (-want +got):\n%s", diff)
		}
	})
}

func stringMap(m map[string][]byte) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// isGetObject selects object reads: GETs that are not listings.
func isGetObject(r *http.Request) bool {
	q := r.URL.Query()
	return r.Method == http.MethodGet && !q.Has("list-type") && !q.Has("uploads") && !q.Has("uploadId") &&
		strings.Count(strings.Trim(r.URL.Path, "/"), "/") >= 1
}

func TestDownloadsUnderErrorsAndTruncationAreExactOrAbsent(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	want := map[string][]byte{}
	for i := range 100 {
		want[fmt.Sprintf("small/%02d.bin", i)] = bodyFor(i, 1+i*1031)
	}
	// Big enough for a ranged download in three parts of 5 MiB.
	want["big/twelve.bin"] = bodyFor(99, 12<<20+12345)
	if err := putAll(t.Context(), srv.Client(t), bucket, want); err != nil {
		t.Fatal(err)
	}
	partFlags := []string{"--part-size", "5MiB", "--multipart-threshold", "5MiB"}

	t.Run("500s, 429s, resets and truncated bodies: every file exact", func(t *testing.T) {
		proxy := startFaultProxy(t, srv, faultproxy.Config{
			Seed: 6, InternalErrorRate: 0.05, TooManyRequestsRate: 0.05, TruncateRate: 0.1, ResetMidBodyRate: 0.05,
			Match: isGetObject,
		})
		dir := t.TempDir()
		args := append([]string{"--endpoint-url", proxy.URL(), "--quiet", "cp", "--recursive"}, partFlags...)
		_, errOut, code := runCLI(t, srv, append(args, "s3://"+bucket+"/", dir)...)
		if code != ExitOK {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, tail(errOut, 20))
		}
		if diff := cmp.Diff(stringMap(want), testfs.Read(t, dir)); diff != "" {
			t.Errorf("downloaded files differ (-want +got):\n%.2000s", diff)
		}
		s := proxy.Stats()
		if s.Faults[faultproxy.Truncate] == 0 || s.Faults[faultproxy.InternalError]+s.Faults[faultproxy.TooManyRequests] == 0 {
			t.Errorf("too few faults injected to test anything: %s", faultCounts(faultproxy.Stats{}, s))
		}
		t.Logf("%s", faultCounts(faultproxy.Stats{}, s))
	})

	failing := []struct {
		name string
		cfg  faultproxy.Config
		// stops: a server error every object shares stops the run
		// after engine.DefaultStopAfter objects, with one line.
		stops bool
	}{
		{"every body truncated", faultproxy.Config{Seed: 7, TruncateRate: 1, Match: isGetObject}, false},
		{"every read answered 500", faultproxy.Config{Seed: 8, InternalErrorRate: 1, Match: isGetObject}, true},
		{"every read answered 429", faultproxy.Config{Seed: 9, TooManyRequestsRate: 1, Match: isGetObject}, false},
	}
	for _, tt := range failing {
		t.Run(tt.name+": each download fails and leaves no file", func(t *testing.T) {
			// Three attempts, so that giving up takes seconds, not minutes.
			env := withEnv(srv, "AWS_MAX_ATTEMPTS=3")
			proxy := startFaultProxy(t, srv, tt.cfg)
			dir := t.TempDir()
			// A file already under a final name survives a failed download.
			old := map[string]string{"small/00.bin": "old"}
			testfs.Write(t, dir, old)
			args := append([]string{"--endpoint-url", proxy.URL(), "--quiet", "cp", "--recursive"}, partFlags...)
			_, errOut, code := runCLI(t, env, append(args, "s3://"+bucket+"/", dir)...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			switch {
			case tt.stops:
				if code != ExitFatal {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitFatal, tail(errOut, 10))
				}
				if len(lines) != 1 || !strings.HasPrefix(lines[0], fmt.Sprintf("s3bulk: stopped: %d objects in a row failed the same way: download s3://%s/", engine.DefaultStopAfter, bucket)) {
					t.Errorf("stderr has %d lines, want the one that stops the run:\n%s", len(lines), tail(errOut, 10))
				}
			default:
				if code != ExitPartial {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitPartial, tail(errOut, 10))
				}
				if len(lines) != len(want) {
					t.Errorf("stderr has %d lines, want one per object (%d):\n%s", len(lines), len(want), tail(errOut, 10))
				}
				for k := range want {
					if !strings.Contains(errOut, "s3://"+bucket+"/"+k+" ") {
						t.Errorf("no error names s3://%s/%s", bucket, k)
					}
				}
			}
			if diff := cmp.Diff(old, testfs.Read(t, dir)); diff != "" {
				t.Errorf("local files after failed downloads (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDebugLogsAndResultsShareStderrWithoutARace runs a copy whose objects
// all fail while every request is logged, into the plain buffers a library
// caller of Run would pass: error lines and log lines go to stderr from many
// goroutines, and must not race on it.
func TestDebugLogsAndResultsShareStderrWithoutARace(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	const n = 50
	seedObjects(t, srv, src, "", n, 16)
	env := withEnv(srv, "AWS_MAX_ATTEMPTS=1")
	// 429, not 500: a 500 on every object would stop the run after a few
	// (engine.StopAfter), and this test needs every object's line.
	proxy := startFaultProxy(t, srv, faultproxy.Config{TooManyRequestsRate: 1, Match: isCopyObject})
	_, stderr, code := runCLI(t, env, "--endpoint-url", proxy.URL(), "--log-level", "debug", "cp", "--recursive", "s3://"+src+"/", "s3://"+dst+"/")
	if code != ExitPartial {
		t.Errorf("exit %d, want %d:\n%s", code, ExitPartial, tail(stderr, 10))
	}
	if e, d := strings.Count(stderr, "ERROR copy "), strings.Count(stderr, "level=DEBUG"); e != n || d < n {
		t.Errorf("%d error lines and %d debug lines for %d failed copies", e, d, n)
	}
}
