package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/internal/batchops/fakecontrol"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/store"
)

// checksumOf is the checksum of alg of b as S3 writes it.
func checksumOf(alg string, b []byte) string {
	h := store.NewChecksumHash(alg)
	h.Write(b)
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// headChecksum is the checksum the server reports of an object: its
// algorithm, type and value (HeadObject with checksum mode).
func headChecksum(t *testing.T, c *s3.Client, bucket, key string) (alg, typ, value string) {
	t.Helper()
	out, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: s3types.ChecksumModeEnabled})
	if err != nil {
		t.Fatalf("head s3://%s/%s: %v", bucket, key, err)
	}
	for _, s := range []struct {
		alg string
		v   *string
	}{{"CRC32", out.ChecksumCRC32}, {"CRC32C", out.ChecksumCRC32C}, {"CRC64NVME", out.ChecksumCRC64NVME}, {"SHA1", out.ChecksumSHA1}, {"SHA256", out.ChecksumSHA256}} {
		if s.v != nil {
			return s.alg, string(out.ChecksumType), aws.ToString(s.v)
		}
	}
	return "", string(out.ChecksumType), ""
}

// noPartCopySums is what a run says when the destination gives parts
// copied server-side wrong checksums (versitygw's UploadPartCopy into an
// upload of the source's algorithm) and its copies in parts fall back to
// the server's default checksum.
const noPartCopySums = "cannot keep a checksum of its own for parts copied server-side"

// TestChecksumsOnEveryPath copies objects with a CRC32C, small and in
// parts, by every path that writes S3 objects, with every
// --checksum-algorithm, and checks the checksum each destination object
// has with a HEAD of its own: the source's algorithm (and value) unless
// the flag names another, and a local file's CRC64NVME (the AWS CLI v2's
// default); a SHA of an object in parts is COMPOSITE.
func TestChecksumsOnEveryPath(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	objects := []struct {
		key  string
		size int
	}{{"small", 1 << 10}, {"big", 6 << 20}}
	local := t.TempDir()
	files := map[string]string{}
	bodies := map[string][]byte{}
	for _, o := range objects {
		b := bytes.Repeat([]byte{'c'}, o.size)
		bodies[o.key], files[o.key] = b, string(b)
		_, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(src), Key: aws.String(o.key),
			Body: bytes.NewReader(b), ChecksumAlgorithm: s3types.ChecksumAlgorithmCrc32c})
		if err != nil {
			t.Fatalf("put %s: %v", o.key, err)
		}
		if alg, _, v := headChecksum(t, c, src, o.key); alg != "CRC32C" || v != checksumOf("CRC32C", b) {
			t.Fatalf("the source %s has %s %s; want its CRC32C", o.key, alg, v)
		}
	}
	testfs.Write(t, local, files)
	other := strings.Replace(srv.Endpoint, "127.0.0.1", "localhost", 1)
	if other == srv.Endpoint {
		t.Skipf("no second name for the endpoint %s", srv.Endpoint)
	}
	paths := []struct {
		name   string
		args   func(prefix string) []string
		upload bool
	}{
		{"copy", func(prefix string) []string { return []string{"s3://" + src + "/", "s3://" + dst + "/" + prefix} }, false},
		{"stream", func(prefix string) []string {
			return []string{"--source-endpoint-url", other, "s3://" + src + "/", "s3://" + dst + "/" + prefix}
		}, false},
		{"upload", func(prefix string) []string { return []string{local + "/", "s3://" + dst + "/" + prefix} }, true},
	}
	for _, p := range paths {
		for _, alg := range []string{"", "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"} {
			name := p.name + " with --checksum-algorithm " + alg
			if alg == "" {
				name = p.name + " by default"
			}
			t.Run(name, func(t *testing.T) {
				prefix := fmt.Sprintf("%s/%s/", p.name, alg)
				args := []string{"cp", "--recursive", "--multipart-threshold", propsThreshold, "--part-size", "5MiB"}
				if alg != "" {
					args = append(args, "--checksum-algorithm", strings.ToLower(alg))
				}
				_, errOut := mustRunJSON(t, srv, append(args, p.args(prefix)...)...)
				for _, o := range objects {
					parts := o.size > 5<<20
					want := alg
					switch {
					case want != "":
					case !p.upload:
						want = "CRC32C" // the source's
					default:
						want = "CRC64NVME" // an upload's default, in one request or in parts
					}
					wantType := "FULL_OBJECT"
					if parts && strings.HasPrefix(want, "SHA") {
						wantType = "COMPOSITE"
					}
					if p.name == "copy" && parts && want == "CRC32C" && strings.Contains(errOut, noPartCopySums) {
						// The source's algorithm, which versitygw gets
						// wrong for parts copied: the run said so.
						want = "CRC64NVME" // the server's default
					}
					gotAlg, gotType, got := headChecksum(t, c, dst, prefix+o.key)
					if gotAlg != want || gotType != wantType && gotType != "" {
						t.Errorf("%s by %s has a %s %s checksum; want %s %s", o.key, name, gotType, gotAlg, wantType, want)
						continue
					}
					if wantType == "FULL_OBJECT" && got != checksumOf(want, bodies[o.key]) {
						t.Errorf("%s by %s has %s %s; want %s", o.key, name, want, got, checksumOf(want, bodies[o.key]))
					}
				}
			})
		}
	}
}

// TestADestinationRefusingAChecksumFailsTheObjectInOneLine: a server that
// does not implement an algorithm fails each object written with it with
// one line naming the flag; without the flag the same copy goes through.
func TestADestinationRefusingAChecksumFailsTheObjectInOneLine(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	s3test.PutObject(t, srv.Client(t), src, "k", []byte("kk"))
	refuse := hookServer(t, srv, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Header.Get("X-Amz-Checksum-Algorithm") == "SHA256" || r.Header.Get("X-Amz-Checksum-Sha256") != "" || r.Header.Get("X-Amz-Sdk-Checksum-Algorithm") == "SHA256" {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotImplemented)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>SHA256 is not implemented</Message></Error>`)
			return
		}
		next.ServeHTTP(w, r)
	})
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"f": "ff"})
	for _, from := range []string{"s3://" + src + "/k", local + "/f"} {
		t.Run("a write from "+from+" fails with a hint", func(t *testing.T) {
			_, stderr, code := runCLI(t, srv, "--endpoint-url", refuse, "cp", "--checksum-algorithm", "SHA256", from, "s3://"+dst+"/refused")
			if code != ExitPartial {
				t.Errorf("exit %d, want %d", code, ExitPartial)
			}
			lines := errorLines(stderr)
			if len(lines) != 1 || !strings.Contains(lines[0], "drop --checksum-algorithm") || !strings.Contains(lines[0], "not implemented") {
				t.Errorf("want one line naming the cause and --checksum-algorithm, got:\n%s", stderr)
			}
		})
	}
	mustRun(t, withEnv(srv), "--endpoint-url", refuse, "cp", "s3://"+src+"/k", "s3://"+dst+"/kept")
}

// TestVerifyPropsComparesChecksums: copies in parts of another layout than
// their sources' have ETags that cannot be compared; verify --props
// compares their full-object checksums instead, and names the algorithm
// when they differ.
func TestVerifyPropsComparesChecksums(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	for _, k := range []string{"a", "b"} {
		_, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(src), Key: aws.String(k),
			Body: bytes.NewReader(bytes.Repeat([]byte(k), 6<<20)), ChecksumAlgorithm: s3types.ChecksumAlgorithmCrc32c})
		if err != nil {
			t.Fatal(err)
		}
	}
	other := strings.Replace(srv.Endpoint, "127.0.0.1", "localhost", 1)
	if other == srv.Endpoint {
		t.Skipf("no second name for the endpoint %s", srv.Endpoint)
	}
	S, D := "s3://"+src+"/", "s3://"+dst+"/"
	stream := []string{"cp", "--source-endpoint-url", other, "--multipart-threshold", "5MiB", "--part-size", "5MiB"}
	mustRun(t, srv, append(stream, "--recursive", S, D)...)
	if out, errOut, code := runCLI(t, srv, "verify", S, D); !strings.Contains(out, "NOT-COMPARABLE") {
		t.Fatalf("verify of copies in parts of single-part sources: want them not comparable by ETag, got exit %d:\n%s\n%s", code, out, errOut)
	}
	if out := mustRun(t, srv, "verify", "--props", S, D); out != "" {
		t.Fatalf("verify --props after the copy found:\n%s", out)
	}
	mustRun(t, srv, append(stream, S+"b", D+"a")...) // the same size, other bytes
	stdout, _, code := runCLI(t, srv, "verify", "--props", S, D)
	if code != ExitPartial {
		t.Errorf("exit %d, want %d", code, ExitPartial)
	}
	want := fmt.Sprintf("DIFFERS %sa %sa: crc32c checksums differ (source %s, destination %s)", S, D,
		checksumOf("CRC32C", bytes.Repeat([]byte("a"), 6<<20)), checksumOf("CRC32C", bytes.Repeat([]byte("b"), 6<<20)))
	if got := strings.TrimSpace(stdout); got != want {
		t.Errorf("verify --props = %q; want %q", got, want)
	}
}

// TestABatchJobCarriesObjectLockAndChecksum: a job's S3PutObjectCopy takes
// Object Lock values and a checksum algorithm, which every copy gets; the
// fake control plane passes them to each CopyObject. copy of each source's
// settings a job cannot do: refused, exit 2, as is a destination bucket
// without Object Lock, before any job is made.
func TestABatchJobCarriesObjectLockAndChecksum(t *testing.T) {
	t.Parallel()
	// The server with versions: its Object Lock cleanup can bypass
	// GOVERNANCE retention.
	srv := s3test.StartVersioned(t)
	sdk := srv.Client(t)
	e := &batchEnv{srv: srv, sdk: sdk, fake: fakecontrol.New(t, sdk, fakecontrol.Options{}), src: srv.NewBucket(t), dst: srv.NewBucket(t)}
	e.seed(t, map[string]string{"1": "11", "2": "222"})
	locked := e.srv.NewVersionedBucket(t, s3test.BucketOptions{ObjectLock: true})
	ctx := context.Background()
	until := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	r := e.run(ctx, append([]string{"cp", "--engine", "batchops", "--recursive", "--object-lock-mode", "GOVERNANCE",
		"--object-lock-retain-until-date", until, "--object-lock-legal-hold", "ON", "--checksum-algorithm", "sha256",
		"s3://" + e.src, "s3://" + locked + "/job/"}, e.jobFlags()...)...)
	if r.code != ExitOK {
		t.Fatalf("exit %d:\n%s", r.code, r.err)
	}
	for k, body := range map[string]string{"1": "11", "2": "222"} {
		if got := lockOf(t, e.sdk, locked, "job/"+k); got != (lockState{"GOVERNANCE", until, "ON"}) {
			t.Errorf("job/%s has Object Lock %+v; want GOVERNANCE until %s, legal hold ON", k, got, until)
		}
		if alg, _, v := headChecksum(t, e.sdk, locked, "job/"+k); alg != "SHA256" || v != checksumOf("SHA256", []byte(body)) {
			t.Errorf("job/%s has checksum %s %s; want its SHA256", k, alg, v)
		}
	}
	for _, tt := range []struct {
		name, want string
		args       []string
	}{
		{"copy of each source's lock", "--object-lock-* copy needs --engine local: a job sets one Object Lock value for all its objects", []string{"--object-lock-legal-hold", "copy", "s3://" + e.src, "s3://" + locked + "/copy/"}},
		{"copy of each source's retention", "or give the job one value for all (--object-lock-mode GOVERNANCE|COMPLIANCE", []string{"--object-lock-mode", "copy", "--object-lock-retain-until-date", "copy", "s3://" + e.src, "s3://" + locked + "/copy/"}},
		{"a bucket without Object Lock", "has no Object Lock", []string{"--object-lock-legal-hold", "ON", "s3://" + e.src, "s3://" + e.dst + "/plain/"}},
	} {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			jobs := e.run(ctx, "batch", "ls").out
			r := e.run(ctx, append(append([]string{"cp", "--engine", "batchops", "--recursive"}, tt.args...), e.jobFlags()...)...)
			if lines := errorLines(r.err); r.code != ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
				t.Errorf("exit %d, want %d and one line saying %q:\n%s", r.code, ExitUsage, tt.want, r.err)
			}
			if after := e.run(ctx, "batch", "ls").out; after != jobs {
				t.Errorf("a job was created:\n%s", after)
			}
			for _, at := range [][2]string{{locked, "copy/"}, {e.dst, ""}} {
				if keys := s3test.ListKeys(t, e.sdk, at[0], at[1]); len(keys) > 0 {
					t.Errorf("s3://%s/%s holds %v: something was written", at[0], at[1], keys)
				}
			}
		})
	}
}
