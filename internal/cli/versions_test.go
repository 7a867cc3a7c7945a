package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

// history is one key's entries as list-object-versions gives them, newest
// first: a version's body, or "<marker>" for a delete marker.
type history map[string][]string

const marker = "<marker>"

// versionedPut writes body under key, returning its version ID.
func versionedPut(t *testing.T, c *s3.Client, bucket, key, body string) string {
	t.Helper()
	out, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: strings.NewReader(body), ContentLength: aws.Int64(int64(len(body)))})
	if err != nil {
		t.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
	return aws.ToString(out.VersionId)
}

func deleteKey(t *testing.T, c *s3.Client, bucket, key string) {
	t.Helper()
	if _, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		t.Fatalf("delete s3://%s/%s: %v", bucket, key, err)
	}
}

// historyOf reads every key's history in bucket with the SDK's own
// ListObjectVersions and GetObject of each version, and checks that the
// newest entry of each key is the one marked latest.
func historyOf(t *testing.T, c *s3.Client, bucket string) history {
	t.Helper()
	ctx := context.Background()
	type entry struct {
		key, id, body string
		latest        bool
		when          int64
	}
	var all []entry
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("list versions of %s: %v", bucket, err)
		}
		for _, v := range page.Versions {
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: v.Key, VersionId: v.VersionId})
			if err != nil {
				t.Fatalf("get %s version %s: %v", aws.ToString(v.Key), aws.ToString(v.VersionId), err)
			}
			b, _ := io.ReadAll(out.Body)
			out.Body.Close()
			all = append(all, entry{aws.ToString(v.Key), aws.ToString(v.VersionId), bodyName(b), aws.ToBool(v.IsLatest), aws.ToTime(v.LastModified).UnixNano()})
		}
		for _, m := range page.DeleteMarkers {
			all = append(all, entry{aws.ToString(m.Key), aws.ToString(m.VersionId), marker, aws.ToBool(m.IsLatest), aws.ToTime(m.LastModified).UnixNano()})
		}
	}
	h := history{}
	latest := map[string]string{}
	// Versions and markers come in two lists: the server's order within
	// each is newest first, and the two are merged by time.
	byKey := map[string][]entry{}
	for _, e := range all {
		byKey[e.key] = append(byKey[e.key], e)
		if e.latest {
			latest[e.key] = e.body
		}
	}
	for k, es := range byKey {
		var vs, ms []entry
		for _, e := range es {
			if e.body == marker {
				ms = append(ms, e)
			} else {
				vs = append(vs, e)
			}
		}
		for len(vs) > 0 || len(ms) > 0 {
			if len(ms) == 0 || len(vs) > 0 && (vs[0].latest || !ms[0].latest && vs[0].when >= ms[0].when) {
				h[k] = append(h[k], vs[0].body)
				vs = vs[1:]
			} else {
				h[k] = append(h[k], ms[0].body)
				ms = ms[1:]
			}
		}
		if h[k][0] != latest[k] {
			t.Errorf("%s: newest entry %q is not the one marked latest (%q)", k, h[k][0], latest[k])
		}
	}
	return h
}

// bodyName is a body as a history shows it: itself, or its size when it
// is too long to read in a diff.
func bodyName(b []byte) string {
	if len(b) > 64 {
		return fmt.Sprintf("<%d bytes %x>", len(b), sha256.Sum256(b))
	}
	return string(b)
}

func TestLsAllVersions(t *testing.T) {
	t.Parallel()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	bucket := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	a1 := versionedPut(t, c, bucket, "a.json", "1")
	a2 := versionedPut(t, c, bucket, "a.json", "22")
	b1 := versionedPut(t, c, bucket, "dir/b.json", "333")
	deleteKey(t, c, bucket, "dir/b.json")

	out := mustRun(t, srv, "ls", "--all-versions", "s3://"+bucket+"/")
	var got [][]string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		got = append(got, f[2:]) // no date and time
	}
	bm := "" // the marker's ID, from the listing itself
	if len(got) == 4 && len(got[2]) > 2 {
		bm = got[2][2]
	}
	want := [][]string{
		{"2", "a.json", a2, "latest"},
		{"1", "a.json", a1},
		{"MARKER", "dir/b.json", bm, "latest"},
		{"3", "dir/b.json", b1},
	}
	if diff := cmp.Diff(want, got); diff != "" || bm == "" || bm == b1 {
		t.Errorf("ls --all-versions (-want +got):\n%s\n%s", diff, out)
	}

	out = mustRun(t, srv, "--json", "ls", "--all-versions", "s3://"+bucket+"/dir/")
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		delete(r, "mtime")
		recs = append(recs, r)
	}
	wantJSON := []map[string]any{
		{"key": "dir/b.json", "url": "s3://" + bucket + "/dir/b.json", "size": 0.0, "version_id": bm, "is_latest": true, "delete_marker": true},
		{"key": "dir/b.json", "url": "s3://" + bucket + "/dir/b.json", "size": 3.0, "version_id": b1, "etag": recs[len(recs)-1]["etag"], "storage_class": "STANDARD"},
	}
	if diff := cmp.Diff(wantJSON, recs); diff != "" {
		t.Errorf("ls --json --all-versions (-want +got):\n%s", diff)
	}
}

func TestCpVersionID(t *testing.T) {
	t.Parallel()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	src := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	dst := srv.NewBucket(t)
	old := versionedPut(t, c, src, "k", "old body")
	versionedPut(t, c, src, "k", "current body")
	local := t.TempDir()

	tests := []struct {
		name string
		args []string
		read func(t *testing.T) string
	}{
		{"a server-side copy reads the version named", []string{"cp", "--version-id", old, "s3://" + src + "/k", "s3://" + dst + "/copy"},
			func(t *testing.T) string { return string(s3test.GetObject(t, c, dst, "copy")) }},
		{"a copy in parts reads the version named", []string{"cp", "--version-id", old, "--multipart-threshold", "1", "--part-size", "5MiB", "s3://" + src + "/k", "s3://" + dst + "/parts"},
			func(t *testing.T) string { return string(s3test.GetObject(t, c, dst, "parts")) }},
		{"a download reads the version named", []string{"cp", "--version-id", old, "s3://" + src + "/k", filepath.Join(local, "k")},
			func(t *testing.T) string { return readFile(t, filepath.Join(local, "k")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustRun(t, srv, tt.args...)
			if got := tt.read(t); got != "old body" {
				t.Errorf("copied %q, want the old version's body", got)
			}
		})
	}
	t.Run("a move deletes the version named, and only it", func(t *testing.T) {
		mustRun(t, srv, "mv", "--version-id", old, "s3://"+src+"/k", "s3://"+dst+"/moved")
		if got := string(s3test.GetObject(t, c, dst, "moved")); got != "old body" {
			t.Errorf("moved %q, want the old version's body", got)
		}
		if diff := cmp.Diff(history{"k": {"current body"}}, historyOf(t, c, src)); diff != "" {
			t.Errorf("source history (-want +got):\n%s", diff)
		}
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCpAllVersions(t *testing.T) {
	t.Parallel()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	src := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	big := strings.Repeat("x", 6<<20)
	versionedPut(t, c, src, "logs/a", "a1")
	versionedPut(t, c, src, "logs/a", "a2")
	versionedPut(t, c, src, "logs/a", "a3")
	versionedPut(t, c, src, "logs/b", "b1")
	deleteKey(t, c, src, "logs/b")
	versionedPut(t, c, src, "logs/c", "c1")
	deleteKey(t, c, src, "logs/c")
	versionedPut(t, c, src, "logs/c", "c1") // same body again: a version of its own
	versionedPut(t, c, src, "logs/big", big)
	versionedPut(t, c, src, "logs/big", "small now")
	bigName := bodyName([]byte(big))
	want := history{
		"logs/a":   {"a3", "a2", "a1"},
		"logs/b":   {marker, "b1"},
		"logs/c":   {"c1", marker, "c1"},
		"logs/big": {"small now", bigName},
	}
	if diff := cmp.Diff(want, historyOf(t, c, src)); diff != "" {
		t.Fatalf("source history (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"server-side", nil},
		{"in parts", []string{"--multipart-threshold", "5MiB", "--part-size", "5MiB"}},
	} {
		t.Run(tc.name+": the destination ends with the same history", func(t *testing.T) {
			dst := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
			journal := filepath.Join(t.TempDir(), "j")
			args := append([]string{"cp", "--all-versions", "--recursive", "--journal", journal}, tc.args...)
			args = append(args, "s3://"+src+"/logs/", "s3://"+dst+"/copy/")
			mustRun(t, srv, args...)
			wantDst := history{}
			for k, h := range want {
				wantDst["copy/"+strings.TrimPrefix(k, "logs/")] = h
			}
			if diff := cmp.Diff(wantDst, historyOf(t, c, dst)); diff != "" {
				t.Fatalf("destination history (-want +got):\n%s", diff)
			}
			// The same command again resumes from its journal: every
			// version is done, none is written twice.
			_, errOut, code := runCLI(t, srv, args...)
			if code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, errOut)
			}
			if diff := cmp.Diff(wantDst, historyOf(t, c, dst)); diff != "" {
				t.Errorf("destination history after a rerun (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("one key's versions", func(t *testing.T) {
		dst := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
		mustRun(t, srv, "cp", "--all-versions", "s3://"+src+"/logs/c", "s3://"+dst+"/c")
		if diff := cmp.Diff(history{"c": want["logs/c"]}, historyOf(t, c, dst)); diff != "" {
			t.Errorf("destination history (-want +got):\n%s", diff)
		}
	})
}

func TestRmAllVersionsEmptiesABucketForRb(t *testing.T) {
	t.Parallel()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	bucket := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	versionedPut(t, c, bucket, "keep/x", "x")
	versionedPut(t, c, bucket, "go/a", "1")
	old := versionedPut(t, c, bucket, "go/a", "2")
	versionedPut(t, c, bucket, "go/a", "3")
	versionedPut(t, c, bucket, "go/b", "b")
	deleteKey(t, c, bucket, "go/b")

	mustRun(t, srv, "rm", "--version-id", old, "s3://"+bucket+"/go/a")
	if diff := cmp.Diff(history{"keep/x": {"x"}, "go/a": {"3", "1"}, "go/b": {marker, "b"}}, historyOf(t, c, bucket)); diff != "" {
		t.Errorf("after rm --version-id (-want +got):\n%s", diff)
	}
	mustRun(t, srv, "rm", "--all-versions", "--recursive", "s3://"+bucket+"/go/")
	if diff := cmp.Diff(history{"keep/x": {"x"}}, historyOf(t, c, bucket)); diff != "" {
		t.Errorf("after rm --all-versions of go/ (-want +got):\n%s", diff)
	}
	mustRun(t, srv, "rm", "--recursive", "s3://"+bucket+"/")
	if _, errOut, code := runCLI(t, srv, "rb", "s3://"+bucket); code == 0 {
		t.Errorf("rb of a bucket with versions left succeeded:\n%s", errOut)
	}
	mustRun(t, srv, "rm", "--all-versions", "--recursive", "s3://"+bucket+"/")
	mustRun(t, srv, "rb", "s3://"+bucket)
	mustRun(t, srv, "mb", "s3://"+bucket) // for the test's own cleanup
}

func TestVersionFlagsBadInput(t *testing.T) {
	t.Parallel()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	src := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	plain := srv.NewBucket(t)
	suspended := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusSuspended})
	id := versionedPut(t, c, src, "dir/k", "v")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"--version-id on a prefix", []string{"cp", "--recursive", "--version-id", id, "s3://" + src + "/dir/", "s3://" + plain + "/"}, "--version-id names a version of one object"},
		{"--version-id on a wildcard", []string{"cp", "--version-id", id, "s3://" + src + "/dir/*", "s3://" + plain + "/"}, "--version-id names a version of one object"},
		{"--version-id of a local file", []string{"cp", "--version-id", id, "go.mod", "s3://" + plain + "/"}, "must be an s3:// URL"},
		{"--all-versions to an unversioned bucket", []string{"cp", "--all-versions", "--recursive", "s3://" + src + "/", "s3://" + plain + "/"}, "does not keep versions (versioning never enabled)"},
		{"--all-versions to a suspended bucket", []string{"cp", "--all-versions", "--recursive", "s3://" + src + "/", "s3://" + suspended + "/"}, "does not keep versions (versioning Suspended)"},
		{"--all-versions to a directory", []string{"cp", "--all-versions", "--recursive", "s3://" + src + "/", t.TempDir()}, "must be a versioned bucket"},
		{"--all-versions with --version-id", []string{"cp", "--all-versions", "--version-id", id, "s3://" + src + "/dir/k", "s3://" + plain + "/"}, "pick one"},
		{"--all-versions with --no-clobber", []string{"cp", "--all-versions", "--no-clobber", "--recursive", "s3://" + src + "/", "s3://" + plain + "/"}, "drop --no-clobber"},
		{"--version-id to standard output", []string{"cp", "--version-id", id, "s3://" + src + "/dir/k", "-"}, "not with '-'"},
		{"--version-id with a Batch Operations job", []string{"cp", "--engine", "batchops", "--role-arn", "arn:aws:iam::123456789012:role/r", "--version-id", id, "s3://" + src + "/dir/k", "s3://" + plain + "/"}, "--version-id and --all-versions need --engine local"},
		{"rm --version-id on a prefix", []string{"rm", "--recursive", "--version-id", id, "s3://" + src + "/dir/"}, "--version-id names a version of one object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, srv, tt.args...)
			lines := errorLines(errOut)
			if code != ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], tt.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and one line saying %q", code, out, errOut, tt.want)
			}
		})
	}
	if keys := s3test.ListKeys(t, c, plain, ""); len(keys) != 0 {
		t.Errorf("bad input wrote %v", keys)
	}
	if diff := cmp.Diff(history{"dir/k": {"v"}}, historyOf(t, c, src)); diff != "" {
		t.Errorf("bad input changed the source (-want +got):\n%s", diff)
	}
}

// The version listing is one request of the budget while it lists, not
// while the executor takes what it listed: at --concurrency 1, a listing
// that kept its slot through a full queue of tasks (about a thousand)
// would wait for the executor, and the executor for the slot.
func TestAllVersionsAtConcurrencyOne(t *testing.T) {
	t.Parallel()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	src := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	dst := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	const n = 1500
	var g errgroup.Group
	g.SetLimit(16)
	for i := range n {
		g.Go(func() error {
			key := fmt.Sprintf("k/%04d", i)
			_, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(src), Key: aws.String(key),
				Body: strings.NewReader(key), ContentLength: aws.Int64(int64(len(key)))})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	// A page of versitygw's starts with the last entry of the one before:
	// listed once all the same.
	if lines := strings.Count(mustRun(t, srv, "ls", "--all-versions", "--recursive", "s3://"+src+"/"), "\n"); lines != n {
		t.Errorf("ls --all-versions printed %d lines, want %d", lines, n)
	}
	for _, tc := range []struct {
		name, bucket string
		args         []string
		want         int
	}{
		{"cp", dst, []string{"cp", "--all-versions", "--recursive", "s3://" + src + "/", "s3://" + dst + "/"}, n},
		{"rm", src, []string{"rm", "--all-versions", "--recursive", "s3://" + src + "/"}, 0},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		var out, errOut bytes.Buffer
		code := Run(ctx, append([]string{"--no-progress", "--concurrency", "1"}, tc.args...), Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: srv.Env()})
		stopped := ctx.Err()
		cancel()
		if stopped != nil || code != 0 {
			t.Fatalf("%s --all-versions at --concurrency 1: exit %d, %v (want 0 well within the deadline): %s", tc.name, code, stopped, strings.TrimSpace(errOut.String()))
		}
		if got := countVersions(t, c, tc.bucket); got != tc.want {
			t.Errorf("%s: %d versions in s3://%s, want %d", tc.name, got, tc.bucket, tc.want)
		}
	}
}

// countVersions counts the versions and delete markers in bucket, each
// once: versitygw 1.8 starts a page with the entry the markers name, the
// last of the page before.
func countVersions(t *testing.T, c *s3.Client, bucket string) int {
	t.Helper()
	seen := map[[2]string]bool{}
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range page.Versions {
			seen[[2]string{aws.ToString(v.Key), aws.ToString(v.VersionId)}] = true
		}
		for _, m := range page.DeleteMarkers {
			seen[[2]string{aws.ToString(m.Key), aws.ToString(m.VersionId)}] = true
		}
	}
	return len(seen)
}
