package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// doneDsts returns the destinations of the done results of --json output.
func doneDsts(t *testing.T, out string) []string {
	t.Helper()
	var dsts []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var rec struct{ Status, Src, Dst string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("result %q: %v", line, err)
		}
		if rec.Status == "done" {
			dsts = append(dsts, rec.Dst)
		}
	}
	return dsts
}

func TestShardsTogetherCopyEachObjectOnce(t *testing.T) {
	t.Parallel()
	srv, src := newBucket(t)
	local := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("p%d/obj-%03d", i%4, i)] = strconv.Itoa(i)
	}
	testfs.Write(t, local, files)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local+"/", "s3://"+src+"/in/")

	for _, how := range []string{"--shard i/n", "JOB_COMPLETION_INDEX with --shard-count"} {
		t.Run("run one after another with "+how, func(t *testing.T) {
			dst := srv.NewBucket(t)
			const n = 3
			var all []string
			var copies int64
			for i := range n {
				args := []string{"cp", "--recursive"}
				env := withEnv(srv)
				if strings.HasPrefix(how, "--shard ") {
					args = append(args, "--shard", fmt.Sprintf("%d/%d", i, n))
				} else {
					env = withEnv(srv, shard.JobIndexEnv+"="+strconv.Itoa(i))
					args = append(args, "--shard-count", strconv.Itoa(n))
				}
				out, errOut := mustRunJSON(t, env, append(args, "s3://"+src+"/in/", "s3://"+dst+"/out/")...)
				got := doneDsts(t, out)
				if len(got) < 300/n/2 {
					t.Errorf("shard %d copied only %d objects: the split is uneven", i, len(got))
				}
				all = append(all, got...)
				copies += requestsOf(t, errOut)["CopyObject"]
			}
			sort.Strings(all)
			var want []string
			for k := range files {
				want = append(want, "s3://"+dst+"/out/"+k)
			}
			sort.Strings(want)
			if diff := cmp.Diff(want, all); diff != "" {
				t.Errorf("copied by all shards (-want +got):\n%s", diff)
			}
			if copies != 300 {
				t.Errorf("%d CopyObject requests in all, want 300", copies)
			}
		})
	}
	t.Run("sync shards delete each stale name once", func(t *testing.T) {
		dst := srv.NewBucket(t)
		seedKeys(t, srv, dst, "stale/1", "stale/2", "stale/3", "stale/4", "stale/5")
		var deletes int
		for i := range 2 {
			out, _ := mustRunJSON(t, srv, "sync", "--delete", "--shard", fmt.Sprintf("%d/2", i), "s3://"+src+"/in/", "s3://"+dst+"/")
			deletes += strings.Count(out, `"kind":"delete","status":"done"`)
		}
		if deletes != 5 {
			t.Errorf("%d deletes in all, want 5", deletes)
		}
		if n := len(s3test.ListKeys(t, srv.Client(t), dst, "")); n != 300 {
			t.Errorf("%d objects at the destination, want 300", n)
		}
	})
	t.Run("bad shards are usage errors", func(t *testing.T) {
		env := withEnv(srv, shard.JobIndexEnv+"=")
		for _, args := range [][]string{
			{"--shard", "3/3"}, {"--shard", "x"}, {"--shard-count", "3"}, {"--shard", "0/2", "--shard-count", "2"},
		} {
			_, errOut, code := runCLI(t, env, append(append([]string{"cp", "-r"}, args...), "s3://"+src+"/in/", "s3://"+src+"/x/")...)
			if code != ExitUsage || !strings.Contains(errOut, "shard") {
				t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
			}
		}
	})
}

func TestFiltersOnCpAndLs(t *testing.T) {
	t.Parallel()
	srv, src := newBucket(t)
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{
		"a.json": "1", "b.tmp": "22", "logs/c.json": strings.Repeat("3", 300), "logs/deep/d.json": "4444", "old.json": "55555",
	})
	old := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(local, "old.json"), old, old); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		flags []string
		want  []string
	}{
		{"exclude leaves out a name at any depth", []string{"--exclude", "*.json"}, []string{"b.tmp"}},
		{"include keeps only its matches", []string{"--include", "logs/**"}, []string{"logs/c.json", "logs/deep/d.json"}},
		{"a later exclude takes back what an include kept", []string{"--include", "*.json", "--exclude", "logs/*"}, []string{"a.json", "old.json"}},
		{"exclude everything, then include, is the aws idiom", []string{"--exclude", "*", "--include", "*.json"}, []string{"a.json", "logs/c.json", "logs/deep/d.json", "old.json"}},
		{"an include alone selects", []string{"--include", "*.tmp"}, []string{"b.tmp"}},
		{"brackets are a character class", []string{"--exclude", "[ab].*"}, []string{"logs/c.json", "logs/deep/d.json", "old.json"}},
		{"a trailing slash is no directory rule", []string{"--exclude", "logs/"}, []string{"a.json", "b.tmp", "logs/c.json", "logs/deep/d.json", "old.json"}},
		{"sizes are inclusive bounds", []string{"--min-size", "2", "--max-size", "5"}, []string{"b.tmp", "logs/deep/d.json", "old.json"}},
		{"older-than keeps old files", []string{"--older-than", "7d"}, []string{"old.json"}},
		{"newer-than leaves them out", []string{"--newer-than", "7d", "--include", "*.json"}, []string{"a.json", "logs/c.json", "logs/deep/d.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := srv.NewBucket(t)
			mustRun(t, srv, append(append([]string{"cp", "--recursive"}, tt.flags...), local+"/", "s3://"+dst+"/")...)
			got := s3test.ListKeys(t, srv.Client(t), dst, "")
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("copied (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("ls filters keys relative to its prefix", func(t *testing.T) {
		mustRun(t, srv, "--quiet", "cp", "--recursive", local+"/", "s3://"+src+"/")
		out := mustRun(t, srv, "--json", "ls", "--recursive", "--exclude", "deep/*", "--min-size", "2", "s3://"+src+"/logs/")
		if !strings.Contains(out, "logs/c.json") || strings.Contains(out, "deep") || strings.Count(out, "\n") != 1 {
			t.Errorf("listing:\n%s", out)
		}
	})
	t.Run("a bad pattern is a usage error", func(t *testing.T) {
		_, errOut, code := runCLI(t, srv, "cp", "-r", "--include", "", local+"/", "s3://"+src+"/x/")
		if code != ExitUsage || !strings.Contains(errOut, "empty pattern") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}
