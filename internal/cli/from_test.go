package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	shardpkg "github.com/s3bulk/s3bulk/engine/shard"
	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/invtest"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

// inventoryOf lists bucket as S3 Inventory would and writes the report
// (in format, split over two data files) under inv/ of invBucket, in a
// directory of its own for each bucket and format; tamper
// may change the files first. It returns the manifest's URL.
func inventoryOf(t *testing.T, srv *s3test.Server, bucket, invBucket, format string, extra []invtest.Entry, tamper func([]invtest.File)) string {
	t.Helper()
	c := srv.Client(t)
	var entries []invtest.Entry
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			entries = append(entries, invtest.Entry{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), Modified: aws.ToTime(o.LastModified),
				ETag: strings.Trim(aws.ToString(o.ETag), `"`), StorageClass: string(o.StorageClass)})
		}
	}
	entries = append(entries, extra...)
	// One inventory configuration a format, as AWS would have it: the
	// reports of one bucket in two formats do not overwrite each other.
	r := invtest.Report{SourceBucket: bucket, DestBucket: invBucket, Prefix: "inv/" + bucket + "/all-" + strings.ToLower(format) + "/2026-01-02T01-00Z", Format: format}
	half := len(entries) / 2
	files, err := r.Build(entries[:half], entries[half:])
	if err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		tamper(files)
	}
	for _, f := range files {
		s3test.PutObject(t, c, invBucket, f.Key, f.Body)
	}
	return "s3://" + invBucket + "/" + r.Prefix + "/manifest.json"
}

func TestCopyFromInventoryTakesTheReportsObjects(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	inv := srv.NewBucket(t)
	c := srv.Client(t)
	objs := map[string]string{"data/a.json": "a", "data/b.txt": "b", "data/sub/c.json": "c", "other/d.json": "d", "data/odd key+%.json": "odd"}
	for k, v := range objs {
		s3test.PutObject(t, c, src, k, []byte(v))
	}
	// A non-current version and a delete marker the report lists are not
	// copied; an object deleted since the report is a skip.
	extra := []invtest.Entry{{Key: "data/old", NotLatest: true, Size: 1}, {Key: "data/marker", DeleteMarker: true}, {Key: "data/deleted-since", Size: 3, ETag: "x"}}
	for _, format := range []string{"CSV", "Parquet", "ORC"} {
		t.Run(format, func(t *testing.T) {
			manifest := inventoryOf(t, srv, src, inv, format, extra, nil)
			prefix := strings.ToLower(format) + "/"
			_, stderr, code := runCLI(t, srv, "cp", "--from-inventory", manifest, "--exclude", "*.txt", "s3://"+src+"/data/", "s3://"+dst+"/"+prefix)
			if code != 1 && code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want := map[string]string{prefix + "a.json": "a", prefix + "sub/c.json": "c", prefix + "odd key+%.json": "odd"}
			if diff := cmp.Diff(want, bucketContents(t, srv, dst, prefix)); diff != "" {
				t.Errorf("destination (-want +got):\n%s\nstderr:\n%s", diff, stderr)
			}
		})
	}
}

func TestCopyFromKeyListTakesTheListedKeys(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	for _, k := range []string{"d/a", "d/b c", "d/x/y", "d/z"} {
		s3test.PutObject(t, c, src, k, []byte(k))
	}
	list := filepath.Join(t.TempDir(), "keys.txt")
	if err := os.WriteFile(list, []byte("a\nb c\r\n\nx/y\nmissing\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, srv, "--verbose", "cp", "--files-from", list, "s3://"+src+"/d/", "s3://"+dst+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout+stderr, "not found at the source") {
		t.Errorf("no skip of the missing key in:\n%s%s", stdout, stderr)
	}
	want := map[string]string{"a": "d/a", "b c": "d/b c", "x/y": "d/x/y"}
	if diff := cmp.Diff(want, bucketContents(t, srv, dst, "")); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
	// The same keys as Batch Operations manifest lines, from stdin.
	dst2 := srv.NewBucket(t)
	lines := fmt.Sprintf("%s,d/a\n%s,d/b+c\n", src, src)
	if _, stderr, code := runCLIStdin(t, srv, strings.NewReader(lines), "cp", "--files-from", "-", "s3://"+src+"/d/", "s3://"+dst2+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(map[string]string{"a": "d/a", "b c": "d/b c"}, bucketContents(t, srv, dst2, "")); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
}

func TestShardsOfAnInventoryCoverItOnce(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	inv := srv.NewBucket(t)
	seedEmpty(t, srv, src, "k/%03d", 60)
	manifest := inventoryOf(t, srv, src, inv, "CSV", nil, nil)
	seen := map[string]int{}
	for i := range 3 {
		shard := fmt.Sprintf("%d/3", i)
		out := mustRun(t, srv, "--json", "plan", "cp", "--from-inventory", manifest, "--shard", shard, "s3://"+src+"/", "s3://"+dst+"/")
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l != "" {
				seen[l]++
				lines = append(lines, l)
			}
		}
		// A report's entries are split by their names' hash (a listing's
		// shards list their part: docs/shards.md).
		for _, l := range lines {
			var task struct {
				SrcKey string `json:"src_key"`
			}
			if err := json.Unmarshal([]byte(l), &task); err != nil {
				t.Fatal(err)
			}
			if got := shardpkg.Of(task.SrcKey, 3); got != i {
				t.Errorf("shard %s planned %s, of shard %d by its hash", shard, task.SrcKey, got)
			}
		}
	}
	if len(seen) != 60 {
		t.Errorf("%d distinct tasks over 3 shards, want 60", len(seen))
	}
	for l, n := range seen {
		if n != 1 {
			t.Errorf("planned %d times: %s", n, l)
		}
	}
}

func TestSyncFromInventoryDeletesWhatTheReportLacks(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	inv := srv.NewBucket(t)
	c := srv.Client(t)
	for _, k := range []string{"a", "b", "c"} {
		s3test.PutObject(t, c, src, k, []byte("new "+k))
	}
	s3test.PutObject(t, c, dst, "a", []byte("new a"))
	s3test.PutObject(t, c, dst, "stale", []byte("stale"))
	manifest := inventoryOf(t, srv, src, inv, "Parquet", nil, nil)
	if _, stderr, code := runCLI(t, srv, "sync", "--delete", "--from-inventory", manifest, "s3://"+src+"/", "s3://"+dst+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string]string{"a": "new a", "b": "new b", "c": "new c"}
	if diff := cmp.Diff(want, bucketContents(t, srv, dst, "")); diff != "" {
		t.Errorf("destination (-want +got):\n%s", diff)
	}
}

func TestBadListsExitTwoAndCopyNothing(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	inv := srv.NewBucket(t)
	other := srv.NewBucket(t)
	c := srv.Client(t)
	for _, k := range []string{"a", "b"} {
		s3test.PutObject(t, c, src, k, []byte(k))
		s3test.PutObject(t, c, other, k, []byte(k))
	}
	good := inventoryOf(t, srv, src, inv, "CSV", nil, nil)
	badSum := inventoryOf(t, srv, other, inv, "CSV", nil, func(fs []invtest.File) { fs[1].Body[len(fs[1].Body)-1] ^= 1 })
	badORC := inventoryOf(t, srv, other, inv, "ORC", nil, func(fs []invtest.File) { fs[0].Body[len(fs[0].Body)/2] ^= 1 })
	goodORC := inventoryOf(t, srv, src, inv, "ORC", nil, nil)
	list := filepath.Join(t.TempDir(), "keys.csv")
	if err := os.WriteFile(list, []byte(src+",a\n"+src+",b,v1,extra\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a data file whose checksum does not match", []string{"cp", "--from-inventory", badSum, "s3://" + other + "/", "s3://" + dst + "/"}, "but the manifest says"},
		{"an ORC data file whose checksum does not match", []string{"cp", "--from-inventory", badORC, "s3://" + other + "/", "s3://" + dst + "/"}, ".orc: MD5 "},
		{"a report of another bucket", []string{"cp", "--from-inventory", good, "s3://" + other + "/", "s3://" + dst + "/"}, "an inventory of bucket"},
		{"an ORC report of another bucket", []string{"cp", "--from-inventory", goodORC, "s3://" + other + "/", "s3://" + dst + "/"}, "an inventory of bucket"},
		{"a key list with a malformed line", []string{"cp", "--files-from", list, "s3://" + src + "/", "s3://" + dst + "/"}, "line 2: 4 fields"},
		{"both lists", []string{"cp", "--files-from", list, "--from-inventory", good, "s3://" + src + "/", "s3://" + dst + "/"}, "give one or the other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, srv, tc.args...)
			lines := errorLines(stderr)
			if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("exit %d, stderr %q: want exit 2 and one line with %q", code, stderr, tc.want)
			}
			if got := bucketContents(t, srv, dst, ""); len(got) != 0 {
				t.Errorf("copied %v", slicesOf(got))
			}
		})
	}
}

func slicesOf(m map[string]string) []string { return keys(maps.Clone(m)) }

func TestBatchOpsJobTakesTheInventoryAsItsManifest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newBatchEnv(t, fakecontrol.Options{})
	e.seed(t, map[string]string{"a/1.json": "1", "a/2 +.json": "2", "b/3.json": "3"})
	inv := e.srv.NewBucket(t)
	csv := inventoryOf(t, e.srv, e.src, inv, "CSV", nil, nil)
	jobArgs := []string{"cp", "--engine", "batchops", "--role-arn", batchRole,
		"--control-endpoint-url", e.fake.URL, "--account-id", e.fake.AccountID(), "--poll-interval", "1ms"}
	r := e.run(ctx, append(jobArgs, "--from-inventory", csv, "s3://"+e.src+"/", "s3://"+e.dst+"/job/")...)
	if r.code != ExitOK {
		t.Fatalf("exit %d:\n%s", r.code, r.err)
	}
	want := map[string]string{"job/a/1.json": "1", "job/a/2 +.json": "2", "job/b/3.json": "3"}
	if diff := cmp.Diff(want, bucketContents(t, e.srv, e.dst, "job/")); diff != "" {
		t.Errorf("destination (-want +got):\n%s\nstderr:\n%s", diff, r.err)
	}
	parquet := inventoryOf(t, e.srv, e.src, inv, "Parquet", nil, nil)
	orc := inventoryOf(t, e.srv, e.src, inv, "ORC", nil, nil)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a Parquet report", []string{"--from-inventory", parquet, "s3://" + e.src + "/", "s3://" + e.dst + "/p/"}, "a Parquet report: S3 Batch Operations takes CSV inventory reports only"},
		{"an ORC report", []string{"--from-inventory", orc, "s3://" + e.src + "/", "s3://" + e.dst + "/p/"}, "an ORC report: S3 Batch Operations takes CSV inventory reports only"},
		{"a source prefix", []string{"--from-inventory", csv, "s3://" + e.src + "/a/", "s3://" + e.dst + "/p/"}, "a job keeps whole source keys"},
		{"a filter", []string{"--from-inventory", csv, "--exclude", "*.json", "s3://" + e.src + "/", "s3://" + e.dst + "/p/"}, "filters, shards and metadata flags need --engine local"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run(ctx, append(jobArgs, tc.args...)...)
			if lines := errorLines(r.err); r.code != ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("exit %d, stderr %q: want exit 2 and one line with %q", r.code, r.err, tc.want)
			}
			if got := bucketContents(t, e.srv, e.dst, "p/"); len(got) != 0 {
				t.Errorf("copied %v", slicesOf(got))
			}
		})
	}
}

// An entry of the report deleted from the source since is skipped, with
// one summary line saying why, not failed: the run exits 0.
func TestInventoryEntriesGoneSinceAreSkipped(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	inv := srv.NewBucket(t)
	c := srv.Client(t)
	for _, k := range []string{"a", "b", "c", "d"} {
		s3test.PutObject(t, c, src, k, []byte("body "+k))
	}
	manifests := map[string]string{}
	for _, format := range []string{"CSV", "Parquet", "ORC"} {
		manifests[format] = inventoryOf(t, srv, src, inv, format, nil, nil)
	}
	for _, k := range []string{"b", "d"} {
		if _, err := c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(src), Key: aws.String(k)}); err != nil {
			t.Fatal(err)
		}
	}
	for format, manifest := range manifests {
		out, stderr, code := runCLI(t, srv, "cp", "--from-inventory", manifest, "s3://"+src+"/", "s3://"+dst+"/"+format+"/")
		if code != 0 || !strings.Contains(stderr, "skipped 2 objects: gone since the inventory or list was made") || strings.Contains(stderr, "ERROR") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", format, code, out, stderr)
		}
		if got := s3test.ListKeys(t, c, dst, format+"/"); len(got) != 2 {
			t.Errorf("%s: copied %v, want a and c", format, got)
		}
	}
}
