package cli

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

// journalLine is what the kill window tests read of a journal's lines.
type journalLine struct {
	T          string `json:"t"`
	Dst        string `json:"dst"`
	Version    string `json:"version"`
	DstVersion string `json:"dst_version"`
}

// interrupt makes a finished copy of versions look as a run killed at
// source version id would leave it: the journal ends with the intent of
// id's write, and the destination holds what was written before it, and
// id's copy too when wrote is set (killed after the write, before its done
// record). The done records cut off name the destination's versions to
// delete for good: another key's write whose intent the cut keeps is one
// killed before it landed.
func interrupt(t *testing.T, c *s3.Client, bucket, journal, id string, wrote bool) {
	t.Helper()
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := -1
	for i, l := range lines {
		var r journalLine
		if json.Unmarshal([]byte(l), &r) == nil && r.T == "intent" && r.Version == id {
			cut = i + 1
			break
		}
	}
	if cut < 0 {
		t.Fatalf("no intent of version %s in the journal:\n%s", id, data)
	}
	if err := os.WriteFile(journal, []byte(strings.Join(lines[:cut], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[cut:] {
		var r journalLine
		if json.Unmarshal([]byte(l), &r) != nil || r.T != "done" {
			continue
		}
		if r.DstVersion == "" {
			t.Fatalf("done record without the destination's version: %s", l)
		}
		if r.Version == id && wrote {
			continue // id's own copy, which the killed run had written
		}
		if _, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(r.Dst), VersionId: aws.String(r.DstVersion)}); err != nil {
			t.Fatalf("delete version %s of s3://%s/%s: %v", r.DstVersion, bucket, r.Dst, err)
		}
	}
}

// killSource is a versioned bucket of keys whose histories a killed copy
// can interrupt in every way: versions, a delete marker, the body of an
// older version again, a version big enough to be copied in parts.
type killSource struct {
	srv    *s3test.Server
	c      *s3.Client
	bucket string
	ids    map[string][]string // the source's version IDs of each key, oldest first
	want   history
}

func newKillSource(t *testing.T) killSource {
	t.Helper()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	src := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	ids := map[string][]string{}
	put := func(key, body string) { ids[key] = append(ids[key], versionedPut(t, c, src, key, body)) }
	del := func(key string) {
		out, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(src), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		ids[key] = append(ids[key], aws.ToString(out.VersionId))
	}
	put("a", "a1")
	put("a", "a2")
	put("a", "a3")
	put("m", "m1")
	del("m")
	put("m", "m2")
	put("c", "c1")
	del("c")
	put("c", "c1") // the body of an older version again
	put("big", strings.Repeat("x", 6<<20))
	put("big", "small now")
	return killSource{srv: srv, c: c, bucket: src, ids: ids, want: historyOf(t, c, src)}
}

// TestCpAllVersionsResumesAKilledRunWritingEachVersionOnce resumes copies
// of every version killed on either side of a version's write: before it
// (its intent journaled, nothing written) and after it (written, its done
// record lost). Either way the destination ends with each version once,
// in order, the source's latest as its latest; the resumed run asks the
// destination about the one key in doubt, and the first run asks nothing
// more than before.
func TestCpAllVersionsResumesAKilledRunWritingEachVersionOnce(t *testing.T) {
	t.Parallel()
	ks := newKillSource(t)
	srv, c, src, ids, want := ks.srv, ks.c, ks.bucket, ks.ids, ks.want
	parts := []string{"--multipart-threshold", "5MiB", "--part-size", "5MiB"}

	for _, tc := range []struct {
		name  string
		key   string
		at    int // the version, oldest first, whose write the kill interrupts
		wrote bool
		args  []string
	}{
		{"killed after a version's write, before its done record", "a", 1, true, nil},
		{"killed after a version's intent, before its write", "a", 1, false, nil},
		{"killed after a key's first write", "a", 0, true, nil},
		{"killed before a key's first write", "a", 0, false, nil},
		{"killed after the write of a delete marker", "m", 1, true, nil},
		{"killed before the write of a delete marker", "m", 1, false, nil},
		{"killed after writing a body the key had before", "c", 2, true, nil},
		{"killed before writing a body the key had before", "c", 2, false, nil},
		{"killed after a copy in parts", "big", 0, true, parts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
			journal := filepath.Join(t.TempDir(), "j")
			args := append([]string{"--json", "cp", "--all-versions", "--journal", journal}, tc.args...)
			args = append(args, "s3://"+src+"/"+tc.key, "s3://"+dst+"/"+tc.key)
			_, stderr, code := runCLI(t, srv, args...)
			if code != 0 {
				t.Fatalf("first run: exit %d: %s", code, stderr)
			}
			if n := requestsOf(t, stderr)["ListObjectVersions"]; n != 1 {
				t.Errorf("the first run made %d ListObjectVersions, want 1 (the source's)", n)
			}
			interrupt(t, c, dst, journal, ids[tc.key][tc.at], tc.wrote)

			stdout, stderr, code := runCLI(t, srv, args...)
			if code != 0 {
				t.Fatalf("resumed run: exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(history{tc.key: want[tc.key]}, historyOf(t, c, dst)); diff != "" {
				t.Errorf("destination history after the resumed run (-want +got):\n%s", diff)
			}
			found, wantFound := strings.Count(stdout, engine.ReasonWrittenBefore), 0
			if tc.wrote {
				wantFound = 1
			}
			if found != wantFound {
				t.Errorf("the resumed run found %d versions written before the kill, want %d:\n%s", found, wantFound, stdout)
			}
			if n := requestsOf(t, stderr)["ListObjectVersions"]; n != 2 {
				t.Errorf("the resumed run made %d ListObjectVersions, want 2 (the source's, the key in doubt's)", n)
			}
		})
	}
}

// TestCpAllVersionsResumesAKilledTreeWithOneRequestInFlight resumes a copy
// of keys side by side on a budget of one request in flight: the planner
// asks the destination about a key in doubt while it lists the source,
// and must not wait for a second request's slot.
func TestCpAllVersionsResumesAKilledTreeWithOneRequestInFlight(t *testing.T) {
	t.Parallel()
	ks := newKillSource(t)
	srv, c, src := ks.srv, ks.c, ks.bucket
	dst := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	journal := filepath.Join(t.TempDir(), "j")
	args := []string{"--json", "--concurrency", "1", "cp", "--all-versions", "--recursive", "--journal", journal,
		"--exclude", "big", "s3://" + src + "/", "s3://" + dst + "/"}
	mustRun(t, srv, args...)
	interrupt(t, c, dst, journal, ks.ids["a"][1], true)
	stdout, stderr, code := runCLI(t, srv, args...)
	if code != 0 {
		t.Fatalf("resumed run: exit %d: %s", code, stderr)
	}
	want := maps.Clone(ks.want)
	delete(want, "big")
	if diff := cmp.Diff(want, historyOf(t, c, dst)); diff != "" {
		t.Errorf("destination history after the resumed run (-want +got):\n%s", diff)
	}
	if n := strings.Count(stdout, engine.ReasonWrittenBefore); n != 1 {
		t.Errorf("the resumed run found %d versions written before the kill, want 1:\n%s", n, stdout)
	}
}
