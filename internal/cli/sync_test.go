package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// requestsOf returns the summary's requests by operation.
func requestsOf(t *testing.T, stderr string) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	if m, ok := summaryOf(t, stderr)["requests"].(map[string]any); ok {
		for k, v := range m {
			got[k] = int64(v.(float64))
		}
	}
	return got
}

func mustRunJSON(t *testing.T, env environment, args ...string) (stdout, stderr string) {
	t.Helper()
	out, errOut, code := runCLI(t, env, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("s3bulk --json %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

func unprefixed(prefix string, m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[strings.TrimPrefix(k, prefix)] = v
	}
	return out
}

func TestSyncInThreeDirections(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t, s3test.OddKeys)
	local := t.TempDir()
	tree := map[string]string{"a.txt": "a", "dir/b.txt": "bb", "dir/sub/c.txt": "ccc", "odd/with space+plus.txt": "odd"}
	testfs.Write(t, local, tree)
	down := filepath.Join(t.TempDir(), "not-made-yet")

	// Each direction: a first sync copies everything, a rerun of the
	// unchanged tree costs only the listings, and a change, an addition and
	// a deletion at the source come across with --delete.
	steps := []struct {
		name      string
		from, to  string
		contents  func() map[string]string
		listings  int64 // ListObjectsV2 requests of an unchanged rerun
		change    func()
		changeOps map[string]int64 // requests of the sync after the change, but listings
	}{
		{
			name: "local to S3", from: local, to: "s3://" + src + "/up/",
			contents: func() map[string]string { return unprefixed("up/", bucketContents(t, srv, src, "up/")) },
			listings: 1,
			change: func() {
				testfs.Write(t, local, map[string]string{"dir/b.txt": "changed", "new.txt": "new"})
				if err := os.Remove(filepath.Join(local, "a.txt")); err != nil {
					t.Fatal(err)
				}
			},
			changeOps: map[string]int64{"PutObject": 2, "DeleteObjects": 1},
		},
		{
			name: "S3 to S3", from: "s3://" + src + "/up/", to: "s3://" + dst + "/copy",
			contents: func() map[string]string { return unprefixed("copy/", bucketContents(t, srv, dst, "copy/")) },
			listings: 2,
			change: func() {
				s3test.PutObject(t, srv.Client(t), src, "up/dir/sub/c.txt", []byte("changed again"))
				s3test.PutObject(t, srv.Client(t), src, "up/more.txt", []byte("more"))
				mustRun(t, srv, "rm", "s3://"+src+"/up/new.txt")
			},
			// One GetBucketOwnershipControls a run that copies, whatever
			// the number of objects: whether ACL grants are left behind.
			changeOps: map[string]int64{"CopyObject": 2, "DeleteObjects": 1, "GetBucketOwnershipControls": 1},
		},
		{
			name: "S3 to local", from: "s3://" + dst + "/copy/", to: down,
			contents: func() map[string]string { return testfs.Read(t, down) },
			listings: 1,
			change: func() {
				s3test.PutObject(t, srv.Client(t), dst, "copy/a.txt", []byte("back again"))
				mustRun(t, srv, "rm", "s3://"+dst+"/copy/more.txt")
			},
			changeOps: map[string]int64{"GetObject": 1},
		},
	}
	want := func(from string) map[string]string {
		if strings.HasPrefix(from, "s3://") {
			loc := strings.TrimPrefix(from, "s3://")
			bucket, prefix, _ := strings.Cut(loc, "/")
			return unprefixed(prefix, bucketContents(t, srv, bucket, prefix))
		}
		return testfs.Read(t, from)
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.to == down {
				// The objects were overwritten without checksums: a server
				// that keeps the old ones fails every download's check.
				srv.Require(t, s3test.FreshChecksums)
			}
			mustRun(t, srv, "sync", "--delete", st.from, st.to)
			if diff := cmp.Diff(want(st.from), st.contents()); diff != "" {
				t.Fatalf("after the first sync (-source +destination):\n%s", diff)
			}

			out, errOut := mustRunJSON(t, srv, "sync", "--delete", st.from, st.to)
			if out != "" {
				t.Errorf("an unchanged rerun printed results:\n%s", out)
			}
			if diff := cmp.Diff(map[string]int64{"ListObjectsV2": st.listings}, requestsOf(t, errOut)); diff != "" {
				t.Errorf("requests of an unchanged rerun (-want +got):\n%s", diff)
			}
			if sum := summaryOf(t, errOut); sum["objects"] != float64(0) || sum["skipped"] != float64(len(want(st.from))) {
				t.Errorf("summary of an unchanged rerun = %v, want 0 objects and every object skipped", sum)
			}

			st.change()
			_, errOut = mustRunJSON(t, srv, "sync", "--delete", st.from, st.to)
			reqs := requestsOf(t, errOut)
			delete(reqs, "ListObjectsV2")
			delete(reqs, "HeadObject")
			if diff := cmp.Diff(st.changeOps, reqs); diff != "" {
				t.Errorf("requests after a change (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want(st.from), st.contents()); diff != "" {
				t.Errorf("after the change (-source +destination):\n%s", diff)
			}
		})
	}
	t.Run("S3 to local deletes local files the source lacks", func(t *testing.T) {
		srv.Require(t, s3test.FreshChecksums) // as above
		testfs.Write(t, down, map[string]string{"stray/file.txt": "x"})
		mustRun(t, srv, "sync", "--delete", "s3://"+dst+"/copy/", down)
		if _, err := os.Stat(filepath.Join(down, "stray")); !os.IsNotExist(err) {
			t.Errorf("the stray file's directory is still there (stat: %v)", err)
		}
	})
}

func TestSyncDeletesInBatchesAndHonoursMaxDelete(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.Listing)
	seedEmpty(t, srv, bucket, "f/%04d", 2100)
	empty := t.TempDir()
	testfs.Write(t, empty, map[string]string{"f/0000": ""})

	out, errOut, code := runCLI(t, srv, "--json", "sync", "--delete", "--max-delete", "2000", empty, "s3://"+bucket+"/")
	if code != ExitFatal || !strings.Contains(errOut, "refusing to delete 2099 objects") || !strings.Contains(errOut, "--max-delete 2000") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d refusing 2099 deletes", code, errOut, ExitFatal)
	}
	if strings.Contains(out, `"op":"rm"`) {
		t.Errorf("deletes were reported:\n%s", out)
	}
	if n := len(s3test.ListKeys(t, srv.Client(t), bucket, "")); n != 2100 {
		t.Fatalf("%d objects left, want all 2100", n)
	}

	_, errOut = mustRunJSON(t, srv, "sync", "--delete", "--max-delete", "2099", empty, "s3://"+bucket+"/")
	if got := requestsOf(t, errOut)["DeleteObjects"]; got != 3 {
		t.Errorf("%d DeleteObjects requests for 2,099 keys, want 3", got)
	}
	if diff := cmp.Diff([]string{"f/0000"}, s3test.ListKeys(t, srv.Client(t), bucket, "")); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
}

func TestSyncChecksumFindsChangesSizeAndTimeMiss(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"same.txt": "12345", "edited.txt": "abcde"})
	mustRun(t, srv, "sync", local, "s3://"+bucket+"/")
	// Same size, older modification time: only the contents tell.
	testfs.Write(t, local, map[string]string{"edited.txt": "ABCDE"})
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(filepath.Join(local, "edited.txt"), old, old); err != nil {
		t.Fatal(err)
	}

	out, _ := mustRunJSON(t, srv, "sync", local, "s3://"+bucket+"/")
	if out != "" {
		t.Errorf("comparing sizes and times found a change:\n%s", out)
	}
	out, _ = mustRunJSON(t, srv, "sync", "--checksum", local, "s3://"+bucket+"/")
	if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, "edited.txt") {
		t.Errorf("--checksum results, want one upload of edited.txt:\n%s", out)
	}
	if got := string(s3test.GetObject(t, srv.Client(t), bucket, "edited.txt")); got != "ABCDE" {
		t.Errorf("edited.txt = %q, want ABCDE", got)
	}
	out, _ = mustRunJSON(t, srv, "sync", "--checksum", "s3://"+bucket+"/", local)
	if out != "" {
		t.Errorf("a download by checksum of equal files did something:\n%s", out)
	}
}

func TestSyncFiltersKeepExcludedNamesOnBothSides(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	c := srv.Client(t)
	s3test.PutObject(t, c, bucket, "keep.tmp", []byte("dest only, excluded"))
	s3test.PutObject(t, c, bucket, "gone.txt", []byte("dest only"))
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"a.txt": "a", "b.tmp": "b", "logs/x.log": "x"})
	mustRun(t, srv, "sync", "--delete", "--exclude", "*.tmp", "--exclude", "logs/*", local, "s3://"+bucket+"/")
	want := map[string]string{"a.txt": "a", "keep.tmp": "dest only, excluded"}
	if diff := cmp.Diff(want, bucketContents(t, srv, bucket, "")); diff != "" {
		t.Errorf("bucket (-want +got):\n%s", diff)
	}
}

func TestSyncUsageErrors(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"file": "x"})
	tests := []struct {
		name, message string
		args          []string
	}{
		{"a wildcard source", "not wildcards", []string{"sync", "s3://" + bucket + "/*.txt", local}},
		{"both comparison modes", "one or the other", []string{"sync", "--size-only", "--checksum", local, "s3://" + bucket}},
		{"a file as the source", "not a directory", []string{"sync", filepath.Join(local, "file"), "s3://" + bucket}},
		{"a limit without --delete", "only means something with --delete", []string{"sync", "--max-delete", "5", local, "s3://" + bucket}},
		{"a bad filter", "--min-size", []string{"sync", "--min-size", "10", "--max-size", "5", local, "s3://" + bucket}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a usage error", func(t *testing.T) {
			_, errOut, code := runCLI(t, srv, tt.args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.message) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, errOut, ExitUsage, tt.message)
			}
		})
	}
	if n := len(s3test.ListKeys(t, srv.Client(t), bucket, "")); n != 0 {
		t.Errorf("a usage error wrote %d objects", n)
	}
}

// A multipart object whose part size this run would not choose has an
// ETag nothing local can reproduce; its full-object CRC32C (sent with
// every multipart upload) still tells equal from different contents.
func TestSyncChecksumFallsBackToFullObjectChecksums(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	up, down := t.TempDir(), t.TempDir()
	body := stamped(12 * mib)
	if err := os.WriteFile(filepath.Join(up, "big.bin"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	// 3 parts of 5 MiB; the default for 12 MiB is fewer, larger parts.
	mustRun(t, srv, append(append([]string{"cp"}, partFlags...), filepath.Join(up, "big.bin"), "s3://"+bucket+"/big.bin")...)
	mustRun(t, srv, "cp", "s3://"+bucket+"/big.bin", filepath.Join(down, "big.bin"))

	for _, dir := range []struct{ name, src, dst, local string }{
		{"upload", up, "s3://" + bucket + "/", up},
		{"download", "s3://" + bucket + "/", down, down},
	} {
		t.Run(dir.name, func(t *testing.T) {
			out, _ := mustRunJSON(t, srv, "sync", "--checksum", dir.src, dir.dst)
			if out != "" {
				t.Errorf("equal contents were not recognised as equal:\n%s", out)
			}
		})
	}
	// Same size, different contents, at the local end of a download.
	edited := bytes.Clone(body)
	copy(edited[7*mib:], "edited")
	if err := os.WriteFile(filepath.Join(down, "big.bin"), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	reason := "CRC64NVME differs" // an upload's default
	if !srv.Has(t, s3test.Checksums) && !srv.Has(t, s3test.MultipartETag) {
		// gofakes3 and s3rver keep no checksums, but their ETag of an
		// upload in parts is the MD5 of the whole object: that tells the
		// contents apart there.
		reason = "MD5 differs"
	}
	out, _ := mustRunJSON(t, srv, "sync", "--checksum", "s3://"+bucket+"/", down)
	if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, "big.bin") || !strings.Contains(out, reason) {
		t.Errorf("want one download of big.bin because its %s:\n%s", reason, out)
	}
	got, err := os.ReadFile(filepath.Join(down, "big.bin"))
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("big.bin was not restored from the bucket (err %v)", err)
	}
}
