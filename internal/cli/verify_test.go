package cli

import (
	"bytes"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/internal/progress"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// putMultipart uploads body as a multipart upload cut into parts of the
// given sizes, so that its ETag is "digest-N"; optFns go with each part
// (to send it without a checksum, say).
func putMultipart(t *testing.T, c *s3.Client, bucket, key string, body []byte, sizes []int, optFns ...func(*s3.Options)) {
	t.Helper()
	ctx := t.Context()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	var done []types.CompletedPart
	off := 0
	for i, n := range sizes {
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId, PartNumber: aws.Int32(int32(i + 1)),
			Body: bytes.NewReader(body[off : off+n]), ContentLength: aws.Int64(int64(n)),
		}, optFns...)
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(int32(i + 1))})
		off += n
	}
	if off != len(body) {
		t.Fatalf("parts of %d bytes for a body of %d", off, len(body))
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerifyOfAnExactCopyFindsNothing(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t, s3test.OddKeys)
	local := t.TempDir()
	testfs.Write(t, local, oddKeys)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local, "s3://"+src+"/data/")
	mustRun(t, srv, "--quiet", "cp", "--recursive", "s3://"+src+"/data/", "s3://"+dst+"/copy/")

	tests := []struct {
		name, src, dst string
		summary        string
	}{
		{"bucket to bucket compares ETags", "s3://" + src + "/data/", "s3://" + dst + "/copy", "7 source and 7 destination objects: 7 identical (0 by size only)"},
		{"a directory against a bucket compares sizes", local, "s3://" + dst + "/copy/", "7 source and 7 destination objects: 7 identical (7 by size only)"},
		{"a bucket against a directory compares sizes", "s3://" + src + "/data", local, "7 source and 7 destination objects: 7 identical (7 by size only)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, srv, "verify", tt.src, tt.dst)
			if code != ExitOK {
				t.Errorf("exit %d, want 0; stderr:\n%s", code, errOut)
			}
			if out != "" {
				t.Errorf("findings on stdout:\n%s", out)
			}
			if !strings.HasPrefix(errOut, tt.summary+", 0 missing, 0 extra, 0 differing, 0 not comparable\n") {
				t.Errorf("summary %q, want it to start with %q", errOut, tt.summary)
			}
		})
	}
}

func TestVerifyReportsMissingExtraAndDifferingObjects(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	for k, v := range map[string]string{"p/same": "same", "p/longer": "short", "p/changed": "abcd", "p/missing": "m", "p/dir/deep": "d"} {
		s3test.PutObject(t, c, src, k, []byte(v))
	}
	for k, v := range map[string]string{"q/same": "same", "q/longer": "shorter", "q/changed": "abcX", "q/extra": "ee", "q/dir/deep": "d", "q/dir/": ""} {
		s3test.PutObject(t, c, dst, k, []byte(v))
	}
	S, D := "s3://"+src+"/p/", "s3://"+dst+"/q/"

	t.Run("one line per finding and exit 1", func(t *testing.T) {
		out, errOut, code := runCLI(t, srv, "verify", S, D)
		if code != ExitPartial {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitPartial, errOut)
		}
		want := strings.Join([]string{
			fmt.Sprintf("DIFFERS %schanged %schanged: ETags differ (source %s, destination %s)", S, D, md5sum("abcd"), md5sum("abcX")),
			fmt.Sprintf("DIFFERS %slonger %slonger: sizes differ (source 5 bytes, destination 7)", S, D),
			fmt.Sprintf("MISSING %smissing: not in the destination (1 bytes)", S),
			fmt.Sprintf("EXTRA %sextra: not in the source (2 bytes)", D),
		}, "\n") + "\n"
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("stdout (-want +got):\n%s", diff)
		}
		wantSum := "5 source and 5 destination objects: 2 identical (0 by size only), 1 missing, 1 extra, 2 differing, 0 not comparable\n"
		if errOut != wantSum {
			t.Errorf("stderr %q, want %q", errOut, wantSum)
		}
	})
	t.Run("--json prints one document per finding and the summary", func(t *testing.T) {
		out, errOut, code := runCLI(t, srv, "--json", "verify", S, D)
		if code != ExitPartial {
			t.Errorf("exit %d, want %d", code, ExitPartial)
		}
		var got []diff.Finding
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var f diff.Finding
			if err := dec.Decode(&f); err != nil {
				t.Fatalf("stdout is not JSON lines: %v\n%s", err, out)
			}
			got = append(got, f)
		}
		size := func(n int64) *int64 { return &n }
		want := []diff.Finding{
			{Type: "differs", Key: "changed", Src: S + "changed", Dst: D + "changed", SrcSize: size(4), DstSize: size(4),
				SrcETag: md5sum("abcd"), DstETag: md5sum("abcX"), Reason: fmt.Sprintf("ETags differ (source %s, destination %s)", md5sum("abcd"), md5sum("abcX"))},
			{Type: "differs", Key: "longer", Src: S + "longer", Dst: D + "longer", SrcSize: size(5), DstSize: size(7),
				SrcETag: md5sum("short"), DstETag: md5sum("shorter"), Reason: "sizes differ (source 5 bytes, destination 7)"},
			{Type: "missing", Key: "missing", Src: S + "missing", SrcSize: size(1), Reason: "not in the destination (1 bytes)"},
			{Type: "extra", Key: "extra", Dst: D + "extra", DstSize: size(2), Reason: "not in the source (2 bytes)"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("findings (-want +got):\n%s", diff)
		}
		var sum progress.VerifySummary
		if err := json.Unmarshal([]byte(errOut), &sum); err != nil {
			t.Fatalf("stderr is not one JSON summary: %v\n%s", err, errOut)
		}
		sum.Seconds = 0
		wantSum := progress.VerifySummary{Type: "summary", Source: 5, Destination: 5, Identical: 2, Missing: 1, Extra: 1, Differing: 2}
		if diff := cmp.Diff(wantSum, sum); diff != "" {
			t.Errorf("summary (-want +got):\n%s", diff)
		}
	})
	t.Run("a directory missing an object", func(t *testing.T) {
		local := t.TempDir()
		mustRun(t, srv, "--quiet", "cp", "--recursive", S, local)
		if err := os.Remove(filepath.Join(local, "dir", "deep")); err != nil {
			t.Fatal(err)
		}
		out, _, code := runCLI(t, srv, "verify", S, local)
		if code != ExitPartial {
			t.Errorf("exit %d, want %d", code, ExitPartial)
		}
		if want := "MISSING " + S + "dir/deep: not in the destination (1 bytes)\n"; out != want {
			t.Errorf("stdout %q, want %q", out, want)
		}
	})
}

func md5sum(s string) string { return fmt.Sprintf("%x", md5.Sum([]byte(s))) }

func TestVerifyComparesMultipartETagsOnlyWhenThePartSizeIsKnown(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t, s3test.MultipartETag)
	c := srv.Client(t)
	const mib = 1 << 20
	eleven := bodyFor(1, 11*mib)
	other := bodyFor(2, 11*mib)
	tight, tightOther := bodyFor(3, 5*mib+1), bodyFor(4, 5*mib+1) // two parts can only be 5 MiB + 1 byte

	putMultipart(t, c, src, "same-parts", eleven, []int{5 * mib, 5 * mib, mib})
	putMultipart(t, c, dst, "same-parts", eleven, []int{5 * mib, 5 * mib, mib})
	putMultipart(t, c, src, "other-part-count", eleven, []int{5 * mib, 5 * mib, mib})
	putMultipart(t, c, dst, "other-part-count", eleven, []int{6 * mib, 5 * mib})
	putMultipart(t, c, src, "same-count-other-bytes", eleven, []int{6 * mib, 5 * mib})
	putMultipart(t, c, dst, "same-count-other-bytes", other, []int{6 * mib, 5 * mib})
	putMultipart(t, c, src, "tight-other-bytes", tight, []int{5 * mib, 1})
	putMultipart(t, c, dst, "tight-other-bytes", tightOther, []int{5 * mib, 1})
	putMultipart(t, c, src, "single-vs-multi", eleven, []int{5 * mib, 5 * mib, mib})
	s3test.PutObject(t, c, dst, "single-vs-multi", eleven)

	out, errOut, code := runCLI(t, srv, "verify", "s3://"+src, "s3://"+dst)
	if code != ExitPartial {
		t.Errorf("exit %d, want %d (one object differs); stderr:\n%s", code, ExitPartial, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	got := map[string]string{}
	for _, l := range lines {
		kind, rest, _ := strings.Cut(l, " ")
		key := strings.TrimPrefix(strings.Fields(rest)[0], "s3://"+src+"/")
		got[key] = kind
	}
	want := map[string]string{
		"other-part-count":       "NOT-COMPARABLE",
		"same-count-other-bytes": "NOT-COMPARABLE",
		"tight-other-bytes":      "DIFFERS",
		"single-vs-multi":        "NOT-COMPARABLE",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings by key (-want +got):\n%s\nstdout:\n%s", diff, out)
	}
	if !strings.Contains(errOut, "5 source and 5 destination objects: 1 identical (0 by size only), 0 missing, 0 extra, 1 differing, 3 not comparable") {
		t.Errorf("summary: %s", errOut)
	}
}

func TestVerifyUsageAndFatalErrors(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	tests := []struct {
		name     string
		args     []string
		code     int
		mentions []string
	}{
		{"a wildcard is a usage error", []string{"verify", "s3://" + bucket + "/*.txt", "s3://" + bucket + "/x/"}, ExitUsage, []string{"s3://" + bucket + "/*.txt", "wildcards"}},
		{"one argument is a usage error", []string{"verify", "s3://" + bucket}, ExitUsage, []string{"verify", "accepts 2 arg(s)"}},
		{"a missing bucket is fatal", []string{"verify", "s3://" + bucket, "s3://" + missing(t, 230) + "/x/"}, ExitFatal, []string{"s3://" + missing(t, 230) + "/x/", "no such bucket"}},
		{"a missing directory is fatal", []string{"verify", filepath.Join(t.TempDir(), "nope"), "s3://" + bucket}, ExitFatal, []string{"nope", "no such directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, srv, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			lines := errorLines(errOut)
			if len(lines) != 1 {
				t.Fatalf("want one line of error, got:\n%s", errOut)
			}
			for _, m := range tt.mentions {
				if !strings.Contains(lines[0], m) {
					t.Errorf("error %q does not mention %q", lines[0], m)
				}
			}
			if out != "" {
				t.Errorf("stdout: %q", out)
			}
		})
	}
}
