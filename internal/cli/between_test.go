package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// providers are two S3 services, each its own versitygw process with its
// own data and its own account: what a copy from one provider (or
// account) to another meets. The destination's credentials are in the
// environment, as AWS_* variables; the source's are the profile "src" of
// a shared credentials file, which must win over them for the source.
type providers struct {
	src, dst *s3test.Server
	env      map[string]string
}

func startProviders(t *testing.T) *providers {
	t.Helper()
	p := &providers{
		src: s3test.StartPrivate(t, s3test.WithCredentials("source-account", "source-secret")),
		dst: s3test.StartPrivate(t, s3test.WithCredentials("destination-account", "destination-secret")),
	}
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	config := filepath.Join(dir, "config")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(creds, fmt.Sprintf("[src]\naws_access_key_id = %s\naws_secret_access_key = %s\n"+
		"[wrong]\naws_access_key_id = %[1]s\naws_secret_access_key = not-the-secret\n", p.src.AccessKey, p.src.SecretKey))
	write(config, "[profile src]\nregion = us-east-1\n[profile wrong]\nregion = us-east-1\n")
	p.env = map[string]string{"AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_CONFIG_FILE": config}
	return p
}

// run runs an s3bulk command line with the destination's environment;
// verbArgs start with the verb, after which the source flags are added.
func (p *providers) run(t *testing.T, global []string, verbArgs ...string) (stdout, stderr string, code int) {
	t.Helper()
	args := append(slices.Clone(global), verbArgs[0], "--source-endpoint-url", p.src.Endpoint, "--source-profile", "src")
	return runCLIEnv(t, p.dst, p.env, append(args, verbArgs[1:]...)...)
}

func (p *providers) mustRun(t *testing.T, global []string, verbArgs ...string) (stdout, stderr string) {
	t.Helper()
	out, errOut, code := p.run(t, global, verbArgs...)
	if code != ExitOK {
		t.Fatalf("s3bulk %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(verbArgs, " "), code, out, tail(errOut, 20))
	}
	return out, errOut
}

// putWithChecksum uploads body as the SDK does by default, with a CRC32C
// that the server keeps as the object's full-object checksum.
func putWithChecksum(t *testing.T, c *s3.Client, bucket, key string, body []byte, meta func(*s3.PutObjectInput)) {
	t.Helper()
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body),
		ChecksumAlgorithm: s3types.ChecksumAlgorithmCrc32c}
	if meta != nil {
		meta(in)
	}
	if _, err := c.PutObject(context.Background(), in); err != nil {
		t.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
}

// records decodes the JSON result lines of stdout.
func records(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON record: %q", l)
		}
		out = append(out, m)
	}
	return out
}

// TestBetweenProviders runs every case on one pair of servers: starting
// two gateways is the slow part.
func TestBetweenProviders(t *testing.T) {
	t.Parallel()
	p := startProviders(t)
	for _, c := range []struct {
		name string
		run  func(*testing.T, *providers)
	}{
		{"cp, sync and mv copy between two accounts", copyBetweenProviders},
		{"a corrupted byte fails the object", aCorruptedByteFailsTheObject},
		{"a stream its source cannot check is reported", aStreamItsSourceCannotCheckIsReported},
		{"a source with nothing to check against is reported", anUncheckableSourceIsReported},
		{"a killed copy resumes from the journal", aKilledCopyResumesFromTheJournal},
		{"a big object in small parts", aBigObjectInSmallParts},
		{"the storage class carries over", theStorageClassCarriesOver},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, p) })
	}
}

func copyBetweenProviders(t *testing.T, p *providers) {
	srcC, dstC := p.src.Client(t), p.dst.Client(t)
	src, dst := p.src.NewBucket(t), p.dst.NewBucket(t)
	seed := map[string]string{
		"data/2026-01/a.json": `{"a":1}`,
		"data/2026-01/b.csv":  "b,1",
		"data/2026-02/c.json": `{"c":3}`,
	}
	for k, v := range oddKeys {
		seed[k] = v
	}
	for k, v := range seed {
		s3test.PutObject(t, srcC, src, k, []byte(v))
	}
	putWithChecksum(t, srcC, src, "meta/page.html", []byte("<p>hi</p>"), func(in *s3.PutObjectInput) {
		in.ContentType = aws.String("text/html")
		in.CacheControl = aws.String("max-age=60")
		in.Metadata = map[string]string{"team": "data"}
	})
	seed["meta/page.html"] = "<p>hi</p>"
	big := stamped(12*mib + 3)
	putWithChecksum(t, srcC, src, "big/big.bin", big, nil)
	seed["big/big.bin"] = string(big)

	t.Run("the plan streams every object and a dry run writes nothing", func(t *testing.T) {
		out, _ := p.mustRun(t, []string{"--dry-run", "--json"}, "cp", "--recursive", "s3://"+src+"/", "s3://"+dst+"/all/")
		recs := records(t, out)
		if len(recs) != len(seed) {
			t.Errorf("planned %d objects, want %d", len(recs), len(seed))
		}
		for _, r := range recs {
			if r["kind"] != "stream" || r["status"] != "dry-run" {
				t.Errorf("planned %v, want kind stream, status dry-run", r)
			}
		}
		if got := s3test.ListKeys(t, dstC, dst, ""); len(got) != 0 {
			t.Errorf("a dry run wrote %v", got)
		}
	})
	t.Run("cp --recursive copies every object, odd keys and metadata included", func(t *testing.T) {
		out, _ := p.mustRun(t, []string{"--json"}, "cp", "--recursive", "s3://"+src+"/", "s3://"+dst+"/all/")
		for _, r := range records(t, out) {
			if r["kind"] != "stream" || r["status"] != "done" {
				t.Errorf("result %v, want a done stream", r)
			}
		}
		want := map[string]string{}
		for k, v := range seed {
			want["all/"+k] = v
		}
		if diff := cmp.Diff(want, bucketContents(t, p.dst, dst, "all/")); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
		wantMeta := headed{ContentType: "text/html", CacheControl: "max-age=60", User: map[string]string{"team": "data"}}
		if diff := cmp.Diff(wantMeta, headOf(t, dstC, dst, "all/meta/page.html")); diff != "" {
			t.Errorf("metadata (-want +got):\n%s", diff)
		}
	})
	t.Run("one endpoint and one account copy server-side", func(t *testing.T) {
		// The destination's own endpoint named as the source's, with the
		// destination's credentials: the engine copies server-side.
		out, _, code := runCLIEnv(t, p.dst, p.env, "--json", "cp", "--source-endpoint-url", p.dst.Endpoint,
			"s3://"+dst+"/all/data/2026-01/a.json", "s3://"+dst+"/same/a.json")
		if code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if recs := records(t, out); len(recs) != 1 || recs[0]["kind"] != "copy" {
			t.Errorf("results %v, want one server-side copy", recs)
		}
	})
	t.Run("a big object streams in parts", func(t *testing.T) {
		out, _ := p.mustRun(t, []string{"--json"}, append([]string{"cp"}, append(partFlags, "s3://"+src+"/big/big.bin", "s3://"+dst+"/parts/big.bin")...)...)
		recs := records(t, out)
		if len(recs) != 1 || recs[0]["kind"] != "stream" || recs[0]["parts"] != float64(3) {
			t.Errorf("results %v, want one stream in 3 parts", recs)
		}
		body, etag := objectState(t, p.dst, dst, "parts/big.bin")
		if !bytes.Equal(body, big) || etag != wantETag(big, 5*mib) {
			t.Errorf("destination: %d bytes, ETag %s; want %d bytes, ETag %s", len(body), etag, len(big), wantETag(big, 5*mib))
		}
		if up := s3test.ListUploads(t, dstC, dst); len(up) != 0 {
			t.Errorf("unfinished multipart uploads left: %v", up)
		}
	})
	t.Run("a wildcard copies only what matches", func(t *testing.T) {
		p.mustRun(t, nil, "cp", "s3://"+src+"/data/*/*.json", "s3://"+dst+"/wild/")
		want := map[string]string{"wild/2026-01/a.json": `{"a":1}`, "wild/2026-02/c.json": `{"c":3}`}
		if diff := cmp.Diff(want, bucketContents(t, p.dst, dst, "wild/")); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
	})
	t.Run("a filter leaves out what it excludes", func(t *testing.T) {
		p.mustRun(t, nil, "cp", "--recursive", "--exclude", "*.csv", "s3://"+src+"/data/", "s3://"+dst+"/filtered/")
		want := map[string]string{"filtered/2026-01/a.json": `{"a":1}`, "filtered/2026-02/c.json": `{"c":3}`}
		if diff := cmp.Diff(want, bucketContents(t, p.dst, dst, "filtered/")); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
	})
	t.Run("sync twice: the second run moves nothing", func(t *testing.T) {
		p.mustRun(t, nil, "sync", "s3://"+src+"/data/", "s3://"+dst+"/synced/")
		out, errOut := p.mustRun(t, []string{"--json"}, "sync", "s3://"+src+"/data/", "s3://"+dst+"/synced/")
		if sum := parseSummary(t, errOut); sum.Objects != 0 || sum.Requests["GetObject"] != 0 || sum.Requests["PutObject"] != 0 {
			t.Errorf("second sync: %+v, want nothing moved\n%s", sum, out)
		}
		want := map[string]string{}
		for k, v := range seed {
			if rest, ok := strings.CutPrefix(k, "data/"); ok {
				want["synced/"+rest] = v
			}
		}
		if diff := cmp.Diff(want, bucketContents(t, p.dst, dst, "synced/")); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
	})
	t.Run("sync --delete removes what the source lacks", func(t *testing.T) {
		s3test.PutObject(t, dstC, dst, "synced/extra.txt", []byte("x"))
		p.mustRun(t, nil, "sync", "--delete", "s3://"+src+"/data/", "s3://"+dst+"/synced/")
		got := bucketContents(t, p.dst, dst, "synced/")
		if _, ok := got["synced/extra.txt"]; ok || len(got) != 3 {
			t.Errorf("destination after sync --delete: %v, want the 3 source objects only", keys(got))
		}
	})
	t.Run("mv deletes each source once it is copied", func(t *testing.T) {
		p.mustRun(t, nil, "mv", "--recursive", "s3://"+src+"/odd/", "s3://"+dst+"/moved/")
		want := map[string]string{}
		for k, v := range oddKeys {
			want["moved/"+strings.TrimPrefix(k, "odd/")] = v
		}
		if diff := cmp.Diff(want, bucketContents(t, p.dst, dst, "moved/")); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
		if left := s3test.ListKeys(t, srcC, src, "odd/"); len(left) != 0 {
			t.Errorf("sources left after mv: %v", left)
		}
	})
	t.Run("a wrong source credential is one line and exit 3", func(t *testing.T) {
		before := s3test.ListKeys(t, dstC, dst, "")
		_, errOut, code := runCLIEnv(t, p.dst, p.env, "cp", "--recursive", "--source-endpoint-url", p.src.Endpoint,
			"--source-profile", "wrong", "s3://"+src+"/", "s3://"+dst+"/wrong/")
		if code != ExitFatal {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitFatal, errOut)
		}
		lines := errorLines(errOut)
		if len(lines) != 1 || !strings.Contains(lines[0], "credentials") || !strings.Contains(lines[0], "s3://"+src) {
			t.Errorf("stderr %q, want one line naming the source and its credentials", lines)
		}
		if strings.Contains(errOut, "not-the-secret") {
			t.Errorf("the secret appears in the output: %s", errOut)
		}
		if after := s3test.ListKeys(t, dstC, dst, ""); !slices.Equal(before, after) {
			t.Errorf("the destination changed: %v, was %v", after, before)
		}
	})
}

// isObjectRead selects GETs of object bytes: not listings, not uploads.
func isObjectRead(r *http.Request) bool {
	q := r.URL.Query()
	return r.Method == http.MethodGet && !q.Has("list-type") && !q.Has("uploads") && !q.Has("uploadId") &&
		strings.Count(strings.Trim(r.URL.Path, "/"), "/") >= 1
}

func aCorruptedByteFailsTheObject(t *testing.T, p *providers) {
	srcC, dstC := p.src.Client(t), p.dst.Client(t)
	src, dst := p.src.NewBucket(t), p.dst.NewBucket(t)
	small, big := stamped(1*mib+7), stamped(12*mib+5)
	putWithChecksum(t, srcC, src, "small.bin", small, nil)
	putWithChecksum(t, srcC, src, "big.bin", big, nil)
	// Every object read through the proxy has one bit flipped.
	proxy := startFaultProxy(t, p.src, faultproxy.Config{CorruptRate: 1, Match: isObjectRead})
	for _, tt := range []struct {
		name, key string
		flags     []string
	}{
		{"in one read", "small.bin", nil},
		{"in parts", "big.bin", partFlags},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cp := func(global ...string) (string, int) {
				args := append(append(global, "cp", "--source-endpoint-url", proxy.URL(), "--source-profile", "src"), tt.flags...)
				_, errOut, code := runCLIEnv(t, p.dst, p.env, append(args, "s3://"+src+"/"+tt.key, "s3://"+dst+"/"+tt.key)...)
				return errOut, code
			}
			errOut, code := cp()
			if code != ExitPartial {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitPartial, tail(errOut, 10))
			}
			if !strings.Contains(errOut, "checksum mismatch") {
				t.Errorf("stderr does not name the mismatch:\n%s", tail(errOut, 10))
			}
			if objs := s3test.ListKeys(t, dstC, dst, ""); len(objs) != 0 {
				t.Errorf("objects at the destination: %v", objs)
			}
			if up := s3test.ListUploads(t, dstC, dst); len(up) != 0 {
				t.Errorf("unfinished multipart uploads left: %v", up)
			}
			// With the checks off the corrupted copy goes through: the
			// checks are what stopped it.
			errOut, code = cp("--checksum-when-required")
			if code != ExitOK {
				t.Fatalf("with --checksum-when-required: exit %d; stderr:\n%s", code, tail(errOut, 10))
			}
			if !strings.Contains(errOut, "WARNING 1 object was read without a check") {
				t.Errorf("the unchecked copy is not reported:\n%s", tail(errOut, 10))
			}
			if got, _ := objectState(t, p.dst, dst, tt.key); bytes.Equal(got, small) || bytes.Equal(got, big) {
				t.Errorf("the unchecked copy is not the corrupted body the proxy sent")
			}
			if _, err := dstC.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String(dst), Key: aws.String(tt.key)}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// aStreamItsSourceCannotCheckIsReported copies from a source that keeps
// no checksums, only ETags: one read is checked against the MD5 ETag, but
// parts streamed to another endpoint cannot be (an MD5 needs the bytes in
// order, and nothing of a stream is kept to read back), and the run says
// so rather than passing them as checked.
func aStreamItsSourceCannotCheckIsReported(t *testing.T, p *providers) {
	srcC := p.src.Client(t)
	src, dst := p.src.NewBucket(t), p.dst.NewBucket(t)
	small, big := stamped(1*mib+7), stamped(12*mib+5)
	s3test.PutObject(t, srcC, src, "small.bin", small)
	s3test.PutObject(t, srcC, src, "big.bin", big)
	proxy := startFaultProxy(t, p.src, faultproxy.Config{DropChecksums: true})
	args := append([]string{"--json", "cp", "--recursive", "--source-endpoint-url", proxy.URL(), "--source-profile", "src"}, partFlags...)
	out, errOut, code := runCLIEnv(t, p.dst, p.env, append(args, "s3://"+src+"/", "s3://"+dst+"/")...)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, tail(errOut, 10))
	}
	unverified := map[string]bool{}
	for _, r := range records(t, out) {
		src, _ := r["src"].(string)
		unverified[path.Base(src)] = r["unverified"] == true
	}
	if want := map[string]bool{"small.bin": false, "big.bin": true}; !maps.Equal(unverified, want) {
		t.Errorf("unverified by object %v, want %v", unverified, want)
	}
	if sum := parseSummary(t, errOut); sum.Unverified != 1 {
		t.Errorf("the summary counts %d unverified objects, want 1", sum.Unverified)
	}
	if body, _ := objectState(t, p.dst, dst, "big.bin"); !bytes.Equal(body, big) {
		t.Error("the streamed object differs from its source")
	}
}

// startChild runs s3bulk with the destination's environment in a child
// process, so that it can be killed.
func (p *providers) startChild(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	raw, _ := json.Marshal(append([]string{"--no-progress"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), p.dst.Env()...)
	for k, v := range p.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, childArgsEnv+"="+string(raw))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

func aKilledCopyResumesFromTheJournal(t *testing.T, p *providers) {
	dstC := p.dst.Client(t)
	src := p.src.NewBucket(t)
	const n = 200
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("many/c%d/f%04d", i%4, i)] = fmt.Sprint("body-", i)
	}
	// Seeded in parallel; the big object in parts, with the full-object
	// CRC32C a stream checks.
	local := t.TempDir()
	testfs.Write(t, local, files)
	big := stamped(40 * mib)
	testfs.Write(t, local, map[string]string{"big/big.bin": string(big)})
	mustRun(t, p.src, "--quiet", "cp", "--recursive", local+"/", "s3://"+src+"/")
	// A delay on every source request makes the runs long enough to kill.
	proxy := startFaultProxy(t, p.src, faultproxy.Config{Latency: 20 * time.Millisecond})
	const concurrency = 4

	t.Run("many objects", func(t *testing.T) {
		dst := p.dst.NewBucket(t)
		journalPath := filepath.Join(t.TempDir(), "run.journal")
		args := []string{"--concurrency", fmt.Sprint(concurrency), "--json", "cp", "--recursive", "--journal", journalPath,
			"--source-endpoint-url", proxy.URL(), "--source-profile", "src", "s3://" + src + "/many/", "s3://" + dst + "/"}
		child, out := p.startChild(t, args...)
		doneAtKill := killAt(t, child, journalPath, "done", n/3)
		atDestination := len(s3test.ListKeys(t, dstC, dst, ""))
		if doneAtKill >= n {
			t.Fatalf("the run finished before it was killed; output:\n%s", out)
		}

		stdout, stderr, code := runCLIEnv(t, p.dst, p.env, args...)
		if code != ExitOK {
			t.Fatalf("rerun exit %d:\n%s", code, tail(stderr, 10))
		}
		sum := parseSummary(t, stderr)
		if int(sum.Skipped) != doneAtKill || int(sum.Objects) != n-doneAtKill {
			t.Errorf("rerun skipped %d and copied %d, want %d and %d", sum.Skipped, sum.Objects, doneAtKill, n-doneAtKill)
		}
		// What was copied but not yet journaled is copied again: at most
		// what was in flight.
		if again := atDestination - doneAtKill; again > concurrency {
			t.Errorf("%d objects copied twice, want at most the %d in flight", again, concurrency)
		}
		if got := strings.Count(stdout, `"status":"skipped"`); got != doneAtKill {
			t.Errorf("%d skip lines, want %d", got, doneAtKill)
		}
		want := map[string]string{}
		for k, v := range files {
			want[strings.TrimPrefix(k, "many/")] = v
		}
		if diff := cmp.Diff(want, bucketContents(t, p.dst, dst, "")); diff != "" {
			t.Errorf("destination (-want +got):\n%s", diff)
		}
	})
	t.Run("one big object", func(t *testing.T) {
		dst := p.dst.NewBucket(t)
		journalPath := filepath.Join(t.TempDir(), "run.journal")
		args := append([]string{"--concurrency", fmt.Sprint(concurrency), "--json", "cp", "--journal", journalPath,
			"--source-endpoint-url", proxy.URL(), "--source-profile", "src", "--part-concurrency", "2"}, partFlags...)
		args = append(args, "s3://"+src+"/big/big.bin", "s3://"+dst+"/big.bin")
		const count = 8 // 40 MiB in 5 MiB parts
		child, out := p.startChild(t, args...)
		partsAtKill := killAt(t, child, journalPath, "part", 3)
		if countRecords(t, journalPath, "done") != 0 {
			t.Fatalf("the copy finished before it was killed; output:\n%s", out)
		}
		if ups := s3test.ListUploads(t, dstC, dst); len(ups) != 1 {
			t.Fatalf("uploads after the kill = %v, want the one checkpointed", ups)
		}

		_, stderr, code := runCLIEnv(t, p.dst, p.env, args...)
		if code != ExitOK {
			t.Fatalf("rerun exit %d:\n%s", code, tail(stderr, 10))
		}
		if sent := parseSummary(t, stderr).Requests["UploadPart"]; int(sent) > count-partsAtKill {
			t.Errorf("rerun uploaded %d parts, want at most %d (%d minus the %d checkpointed)", sent, count-partsAtKill, count, partsAtKill)
		}
		if body, _ := objectState(t, p.dst, dst, "big.bin"); !bytes.Equal(body, big) {
			t.Errorf("the resumed copy differs from the source (%d bytes, want %d)", len(body), len(big))
		}
		if ups := s3test.ListUploads(t, dstC, dst); len(ups) != 0 {
			t.Errorf("multipart uploads left: %v", ups)
		}
	})
}

func aBigObjectInSmallParts(t *testing.T, p *providers) {
	src, dst := p.src.NewBucket(t), p.dst.NewBucket(t)
	// 1 GiB in the issue; on a shared machine 200 MiB in forced 5 MiB
	// parts (40 parts) goes through the same path.
	const size = 200 * mib
	file := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	sent := sha256.New()
	chunk := stamped(mib)
	for range size / mib {
		sent.Write(chunk)
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Uploaded in parts, with the full-object CRC64NVME the copy checks.
	mustRun(t, p.src, "--quiet", "cp", file, "s3://"+src+"/big.bin")
	_, errOut := p.mustRun(t, []string{"--json"}, "cp", "--part-size", "5MiB", "--max-buffer", "64MiB", "s3://"+src+"/big.bin", "s3://"+dst+"/big.bin")
	if sum := parseSummary(t, errOut); sum.Requests["UploadPart"] != size/(5*mib) || sum.Requests["CopyObject"] != 0 {
		t.Errorf("requests %v, want %d UploadPart and no server-side copy", sum.Requests, size/(5*mib))
	}
	out, err := p.dst.Client(t).GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(dst), Key: aws.String("big.bin"),
		ChecksumMode: s3types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	if !bytes.Equal(sha256Of(t, out.Body, size), sent.Sum(nil)) {
		t.Errorf("the copy differs from the source")
	}
	if out.ChecksumType != s3types.ChecksumTypeFullObject || aws.ToString(out.ChecksumCRC64NVME) == "" {
		t.Errorf("the copy has checksum %s %q, want a FULL_OBJECT CRC64NVME", out.ChecksumType, aws.ToString(out.ChecksumCRC64NVME))
	}
	if up := s3test.ListUploads(t, p.dst.Client(t), dst); len(up) != 0 {
		t.Errorf("unfinished multipart uploads left: %v", up)
	}
}

// theStorageClassCarriesOver: versitygw keeps no
// storage class, so a proxy in front of the source says one in the
// source's answers and the destination's requests are looked at.
func theStorageClassCarriesOver(t *testing.T, p *providers) {
	src, dst := p.src.NewBucket(t), p.dst.NewBucket(t)
	s3test.PutObject(t, p.src.Client(t), src, "small.json", []byte(`{}`))
	putWithChecksum(t, p.src.Client(t), src, "big.bin", stamped(6*mib), nil)
	srcEP := hookServer(t, p.src, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			w.Header().Set("X-Amz-Storage-Class", "STANDARD_IA")
		}
		next.ServeHTTP(w, r)
	})
	var mu sync.Mutex
	classes := map[string]string{} // request kind -> storage class sent
	dstEP := hookServer(t, p.dst, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		kind := ""
		switch q := r.URL.Query(); {
		case r.Method == http.MethodPut && !q.Has("uploadId"):
			kind = "put"
		case r.Method == http.MethodPost && q.Has("uploads"):
			kind = "create multipart"
		}
		if kind != "" {
			mu.Lock()
			classes[kind] = r.Header.Get("X-Amz-Storage-Class")
			mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
	args := append([]string{"--endpoint-url", dstEP, "cp", "--recursive", "--source-endpoint-url", srcEP, "--source-profile", "src"}, partFlags...)
	if _, errOut, code := runCLIEnv(t, p.dst, p.env, append(args, "s3://"+src+"/", "s3://"+dst+"/")...); code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, tail(errOut, 10))
	}
	if diff := cmp.Diff(map[string]string{"put": "STANDARD_IA", "create multipart": "STANDARD_IA"}, classes); diff != "" {
		t.Errorf("storage class sent to the destination (-want +got):\n%s", diff)
	}
}

// putInParts uploads body as a multipart upload of parts of size (the last
// one shorter), without checksums: its ETag is not an MD5.
func putInParts(t *testing.T, c *s3.Client, bucket, key string, body []byte, size int) {
	t.Helper()
	var sizes []int
	for off := 0; off < len(body); off += size {
		sizes = append(sizes, min(size, len(body)-off))
	}
	putMultipart(t, c, bucket, key, body, sizes,
		func(o *s3.Options) { o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired })
}

// anUncheckableSourceIsReported copies objects whose source keeps neither
// a full-object checksum (a proxy hides it) nor an MD5 ETag (they were
// uploaded in parts): one read is checked against its multipart ETag part
// by part; parts streamed to another endpoint cannot be, and the run
// counts them in one warning line and in --json, never passing them as
// checked.
func anUncheckableSourceIsReported(t *testing.T, p *providers) {
	srcC := p.src.Client(t)
	src, dst := p.src.NewBucket(t), p.dst.NewBucket(t)
	small, big := stamped(1*mib+7), stamped(12*mib+5)
	putInParts(t, srcC, src, "small.bin", small, 5*mib)
	putInParts(t, srcC, src, "big.bin", big, 5*mib)
	putWithChecksum(t, srcC, src, "checked.bin", small, nil)
	proxy := startFaultProxy(t, p.src, faultproxy.Config{DropChecksums: true})
	args := append([]string{"cp", "--recursive", "--source-endpoint-url", proxy.URL(), "--source-profile", "src"}, partFlags...)
	args = append(args, "s3://"+src+"/", "s3://"+dst+"/")
	_, errOut, code := runCLIEnv(t, p.dst, p.env, args...)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, tail(errOut, 10))
	}
	if n := strings.Count(errOut, "without a check"); n != 1 {
		t.Errorf("stderr says %d times that objects went unchecked, want once:\n%s", n, errOut)
	}
	if !strings.Contains(errOut, "WARNING 1 object was read without a check") {
		t.Errorf("stderr does not count the 1 unchecked object:\n%s", errOut)
	}
	for key, want := range map[string][]byte{"small.bin": small, "big.bin": big, "checked.bin": small} {
		if got, _ := objectState(t, p.dst, dst, key); !bytes.Equal(got, want) {
			t.Errorf("%s: the copy differs from the source", key)
		}
	}
	out, _, code := runCLIEnv(t, p.dst, p.env, append([]string{"--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("--json: exit %d", code)
	}
	unverified := map[string]bool{}
	for _, r := range records(t, out) {
		if src, ok := r["src"].(string); ok && r["status"] == "done" {
			unverified[path.Base(src)], _ = r["unverified"].(bool)
		}
	}
	if diff := cmp.Diff(map[string]bool{"small.bin": false, "big.bin": true, "checked.bin": false}, unverified); diff != "" {
		t.Logf("records:\n%s", out)
		t.Errorf("unverified per object (-want +got):\n%s", diff)
	}
}
