package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

func TestRunExecutesAMixedFile(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	seedKeys(t, srv, src, "one.txt", "with space.txt", "tmp/x", "tmp/y", "data/a", "data/b", "move/m1", "move/m2")
	seedKeys(t, srv, dst, "mirror/stale")
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"up/f1": "f1", "up/f2": "f2"})
	down := t.TempDir()

	file := filepath.Join(t.TempDir(), "commands.txt")
	script := fmt.Sprintf(`# copies, moves, deletes and a sync, run at once
cp s3://%[1]s/one.txt s3://%[2]s/one.txt
cp 's3://%[1]s/with space.txt' "%[3]s/"

s3bulk cp --recursive %[4]s/up/ s3://%[2]s/up/
mv --recursive s3://%[1]s/move/ s3://%[2]s/moved/   # a comment after a command
rm s3://%[1]s/tmp/*
sync --delete s3://%[1]s/data/ s3://%[2]s/mirror/
`, src, dst, down, local)
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut := mustRunJSON(t, srv, "run", file)
	if n := strings.Count(errOut, `"type":"summary"`); n != 1 {
		t.Errorf("%d summaries, want one for the whole file:\n%s", n, errOut)
	}
	if sum := summaryOf(t, errOut); sum["objects"] != float64(11) || sum["failed"] != float64(0) {
		t.Errorf("summary = %v, want 11 objects done, 0 failed", sum)
	}
	wantDst := []string{"mirror/a", "mirror/b", "moved/m1", "moved/m2", "one.txt", "up/f1", "up/f2"}
	gotDst := s3test.ListKeys(t, srv.Client(t), dst, "")
	sort.Strings(gotDst)
	if diff := cmp.Diff(wantDst, gotDst); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
	gotSrc := s3test.ListKeys(t, srv.Client(t), src, "")
	sort.Strings(gotSrc)
	if diff := cmp.Diff([]string{"data/a", "data/b", "one.txt", "with space.txt"}, gotSrc); diff != "" {
		t.Errorf("source (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"with space.txt": "body of with space.txt"}, testfs.Read(t, down)); diff != "" {
		t.Errorf("downloads (-want +got):\n%s", diff)
	}
}

func TestRunReadsStdin(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	seedKeys(t, srv, bucket, "a")
	in := fmt.Sprintf("cp s3://%[1]s/a s3://%[1]s/b\ncp s3://%[1]s/a s3://%[1]s/c\n", bucket)
	_, errOut, code := runCLIStdin(t, srv, strings.NewReader(in), "run", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := s3test.ListKeys(t, srv.Client(t), bucket, "")
	sort.Strings(got)
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

func TestRunChecksEveryLineBeforeRunningAny(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	seedKeys(t, srv, bucket, "a")
	tests := []struct {
		name, bad, message string
	}{
		{"an unknown verb", "copy a b", "unknown command"},
		{"a verb run files do not hold", "ls s3://" + bucket, "cp, mv, rm and sync"},
		{"an unknown flag", "cp --frobnicate s3://" + bucket + "/a s3://" + bucket + "/x", "unknown flag"},
		{"a missing argument", "cp s3://" + bucket + "/a", "accepts 2 arg"},
		{"a bad URL", "cp s3:// s3://" + bucket + "/x", "s3://"},
		{"a bad size", "cp --min-size lots s3://" + bucket + "/a s3://" + bucket + "/x", "min-size"},
		{"a bad shard", "cp --shard 3/3 s3://" + bucket + "/a s3://" + bucket + "/x", "shard"},
		{"an unterminated quote", "cp 's3://" + bucket + "/a s3://" + bucket + "/x", "unterminated single quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a usage error naming its line", func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "commands")
			script := fmt.Sprintf("cp s3://%[1]s/a s3://%[1]s/copied\n\n# comment\n%[2]s\nrm s3://%[1]s/a\n", bucket, tt.bad)
			if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runCLI(t, srv, "run", file)
			if code != ExitUsage || !strings.Contains(errOut, "line 4") || !strings.Contains(errOut, tt.message) {
				t.Errorf("exit %d, stderr %q; want %d naming line 4 and %q", code, errOut, ExitUsage, tt.message)
			}
			if diff := cmp.Diff([]string{"a"}, s3test.ListKeys(t, srv.Client(t), bucket, "")); diff != "" {
				t.Errorf("a line ran (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunExitCodeIsTheWorstLine(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	seedKeys(t, srv, bucket, "a")
	file := filepath.Join(t.TempDir(), "commands")
	script := fmt.Sprintf("cp s3://%[1]s/a s3://%[1]s/b\ncp s3://%[1]s/missing s3://%[1]s/c\n", bucket)
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, srv, "run", file)
	if code != ExitFatal || !strings.Contains(errOut, "line 2") || !strings.Contains(errOut, "missing") {
		t.Errorf("exit %d, stderr %q; want %d naming line 2", code, errOut, ExitFatal)
	}
	if got := s3test.ListKeys(t, srv.Client(t), bucket, "b"); len(got) != 1 {
		t.Errorf("the good line did not run: %v", got)
	}
}
