package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/simregion"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// plannedKeys returns the source keys of the tasks a --json dry run
// printed, and its summary's ListObjectsV2 requests.
func plannedKeys(t *testing.T, out, errOut string) ([]string, int64) {
	t.Helper()
	var keys []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var rec struct{ Src string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("result %q: %v", line, err)
		}
		_, k, _ := strings.Cut(strings.TrimPrefix(rec.Src, "s3://"), "/")
		keys = append(keys, k)
	}
	return keys, requestsOf(t, errOut)["ListObjectsV2"]
}

// shardRuns plans a copy of src/ as each of n shards and checks that every
// key of want is planned by exactly one, and each shard's share is within
// 15% of the mean. It returns the ListObjectsV2 requests of all runs.
func shardRuns(t *testing.T, env environment, src string, n int, want []string) int64 {
	t.Helper()
	by := map[string]int{}
	var requests int64
	mean := float64(len(want)) / float64(n)
	for i := range n {
		out, errOut := mustRunJSON(t, env, "--dry-run", "cp", "--recursive", "--shard", fmt.Sprintf("%d/%d", i, n), "s3://"+src+"/", "s3://dst/")
		keys, lists := plannedKeys(t, out, errOut)
		requests += lists
		for _, k := range keys {
			if j, dup := by[k]; dup {
				t.Fatalf("%s planned by shards %d and %d of %d", k, j, i, n)
			}
			by[k] = i
		}
		if d := float64(len(keys))/mean - 1; d > 0.15 || d < -0.15 {
			t.Errorf("shard %d/%d planned %d keys, %+.1f%% off the mean %.0f", i, n, len(keys), 100*d, mean)
		}
	}
	for _, k := range want {
		if _, ok := by[k]; !ok {
			t.Fatalf("%s planned by none of %d shards", k, n)
		}
	}
	if len(by) != len(want) {
		t.Fatalf("%d keys planned over %d shards, the source has %d", len(by), n, len(want))
	}
	return requests
}

func reportLayout(n int) map[string]string {
	files := make(map[string]string, n)
	for _, k := range simregion.ReportKeys(n) {
		files[k] = ""
	}
	return files
}

// Shards list only their part, and together every key once, balanced: on
// the embedded server, a few thousand keys of the report's layout.
func TestShardsListTheirPartOnce(t *testing.T) {
	t.Parallel()
	srv, src := newBucket(t)
	local := t.TempDir()
	files := reportLayout(2400)
	testfs.Write(t, local, files)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local+"/", "s3://"+src+"/")
	want := slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	})
	for _, n := range []int{3, 8} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			shardRuns(t, srv, src, n, want)
		})
	}
}

// The same on the latency fixture, with 100,000 keys: and the runs
// together list about as much as one run without shards.
func TestShardsListTheirPartOnceOnTheFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("plans 100,000 keys 12 times")
	}
	t.Parallel()
	keys := simregion.ReportKeys(100_000)
	fx, err := simregion.Start(simregion.Config{Bucket: "src", Keys: keys, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fx.Close() })
	env := envList{"AWS_ACCESS_KEY_ID=a", "AWS_SECRET_ACCESS_KEY=s", "AWS_REGION=us-east-1", "AWS_ENDPOINT_URL=" + fx.URL(),
		"AWS_CONFIG_FILE=" + t.TempDir() + "/none", "AWS_SHARED_CREDENTIALS_FILE=" + t.TempDir() + "/none", "AWS_EC2_METADATA_DISABLED=true"}
	_, errOut := mustRunJSON(t, env, "--dry-run", "cp", "--recursive", "s3://src/", "s3://dst/")
	one := requestsOf(t, errOut)["ListObjectsV2"]
	want := slices.Sorted(slices.Values(keys))
	for _, n := range []int{3, 8} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			if got := shardRuns(t, env, "src", n, want); float64(got) > 1.25*float64(one) {
				t.Errorf("%d shards made %d LIST requests in all, one run %d: want at most 1.25x", n, got, one)
			}
		})
	}
}

// A sync --delete over shards deletes exactly the stale names, each once,
// wherever they sort among the source's names.
func TestShardedSyncDeletesExactlyTheStaleNames(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	local := t.TempDir()
	files := reportLayout(1200)
	testfs.Write(t, local, files)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local+"/", "s3://"+src+"/")
	mustRun(t, srv, "--quiet", "cp", "--recursive", local+"/", "s3://"+dst+"/")
	stale := []string{"0-first", "company-0001/user-0001/zz-stale", "company-0002/stale.json", "company-0002/user-0150/file-09.json",
		"company-00025/x", "company-0003/user-0300/a", "gone/1", "gone/2/3", "zzz"}
	seedKeys(t, srv, dst, stale...)
	for _, n := range []int{3, 8} {
		var deleted []string
		for i := range n {
			out, _ := mustRunJSON(t, srv, "--dry-run", "sync", "--delete", "--shard", fmt.Sprintf("%d/%d", i, n), "s3://"+src+"/", "s3://"+dst+"/")
			for _, line := range strings.Split(out, "\n") {
				var rec struct {
					Kind, Status, Src string
				}
				if line == "" || json.Unmarshal([]byte(line), &rec) != nil {
					continue
				}
				switch {
				case rec.Kind == "delete":
					deleted = append(deleted, strings.TrimPrefix(rec.Src, "s3://"+dst+"/"))
				case rec.Status != "skipped":
					t.Errorf("%d shards: shard %d plans %s", n, i, line)
				}
			}
		}
		slices.Sort(deleted)
		if !slices.Equal(deleted, stale) {
			t.Errorf("%d shards deleted %q, want %q", n, deleted, stale)
		}
	}
	// And for real: the destination ends as the source.
	for i := range 3 {
		mustRun(t, srv, "--quiet", "sync", "--delete", "--shard", fmt.Sprintf("%d/3", i), "s3://"+src+"/", "s3://"+dst+"/")
	}
	if got := s3test.ListKeys(t, srv.Client(t), dst, ""); len(got) != len(files) {
		t.Errorf("%d objects at the destination, want %d", len(got), len(files))
	}
}
