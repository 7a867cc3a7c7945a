package cli

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/s3url"
)

// The tests in this file move big objects in parts, with the threshold and
// the part size lowered to S3's minimum so that every boundary (exactly the
// threshold, a last part of one byte, exact multiples) costs megabytes, not
// gigabytes. The code path is the one a 5 GiB object takes.

const mib = 1 << 20

// partFlags make everything from 5 MiB up move in 5 MiB parts.
var partFlags = []string{"--multipart-threshold", "5MiB", "--part-size", "5MiB"}

// stamped is n bytes in which every 16-byte line names its own offset, so
// that a part written at the wrong place, twice, or not at all shows.
func stamped(n int64) []byte {
	var b bytes.Buffer
	b.Grow(int(n) + 16)
	for off := int64(0); off < n; off += 16 {
		fmt.Fprintf(&b, "%015x\n", off)
	}
	return b.Bytes()[:n]
}

// wantETag is the ETag S3 gives body uploaded in parts of partSize (0: in
// one request): the MD5 of the body, or the MD5 of the parts' MD5s
// followed by "-" and the number of parts.
func wantETag(body []byte, partSize int64) string {
	if partSize == 0 {
		sum := md5.Sum(body)
		return hex.EncodeToString(sum[:])
	}
	var sums []byte
	n := 0
	for off := int64(0); off < int64(len(body)) || n == 0; off += partSize {
		sum := md5.Sum(body[off:min(off+partSize, int64(len(body)))])
		sums = append(sums, sum[:]...)
		n++
	}
	sum := md5.Sum(sums)
	return fmt.Sprintf("%s-%d", hex.EncodeToString(sum[:]), n)
}

// objectState is what a test checks of an object: its body, exactly, and
// its ETag.
func objectState(t *testing.T, srv *s3test.Server, bucket, key string) (body []byte, etag string) {
	t.Helper()
	out, err := srv.Client(t).GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get s3://%s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	body, err = io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("read s3://%s/%s: %v", bucket, key, err)
	}
	return body, strings.Trim(aws.ToString(out.ETag), `"`)
}

// cpJSON runs cp with --json and returns its one result record and the
// summary.
func cpJSON(t *testing.T, env environment, args ...string) (map[string]any, cliSummary) {
	t.Helper()
	out, errOut, code := runCLI(t, env, append([]string{"--json", "cp"}, args...)...)
	if code != ExitOK {
		t.Fatalf("cp %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, tail(errOut, 20))
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("cp %s: stdout is not one JSON record: %v\n%s", strings.Join(args, " "), err, out)
	}
	return rec, parseSummary(t, errOut)
}

func TestObjectsMoveInPartsAtEveryBoundary(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	local := t.TempDir()
	sizes := []struct {
		name  string
		size  int64
		parts int // 0: one request
	}{
		{"an empty object moves in one request", 0, 0},
		{"one byte under the threshold moves in one request", 5*mib - 1, 0},
		{"exactly the threshold moves as one part", 5 * mib, 1},
		{"the threshold and one byte moves as a part and a part of one byte", 5*mib + 1, 2},
		{"an exact multiple of the part size has no short part", 10 * mib, 2},
		{"three parts and a last part of one byte", 15*mib + 1, 4},
	}
	for i, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			body := stamped(sz.size)
			key := fmt.Sprintf("size-%d.bin", sz.size)
			file := filepath.Join(local, key)
			if err := os.WriteFile(file, body, 0o644); err != nil {
				t.Fatal(err)
			}
			partSize := int64(0)
			if sz.parts > 0 {
				partSize = 5 * mib
			}
			// Each direction names the request that moves a part and the
			// one that moves a whole object.
			check := func(t *testing.T, rec map[string]any, sum cliSummary, partOp, wholeOp string) {
				t.Helper()
				gotParts, _ := rec["parts"].(float64)
				wantRequests := map[string]int64{partOp: int64(sz.parts)}
				if sz.parts == 0 {
					wantRequests = map[string]int64{partOp: 0, wholeOp: 1}
				}
				gotRequests := map[string]int64{partOp: sum.Requests[partOp]}
				if sz.parts == 0 {
					gotRequests[wholeOp] = sum.Requests[wholeOp]
				}
				if int(gotParts) != sz.parts {
					t.Errorf("moved in %v parts, want %d", gotParts, sz.parts)
				}
				if diff := cmp.Diff(wantRequests, gotRequests); diff != "" {
					t.Errorf("requests (-want +got):\n%s", diff)
				}
			}
			// The object at key has the file's bytes and the ETag S3 gives
			// them in these parts (where the server computes it so).
			checkObject := func(t *testing.T, key, differs string) {
				t.Helper()
				got, etag := objectState(t, srv, bucket, key)
				if !bytes.Equal(got, body) {
					t.Errorf("%s (%d bytes, want %d)", differs, len(got), len(body))
				}
				if want := wantETag(body, partSize); etag != want && (partSize == 0 || srv.Has(t, s3test.MultipartETag)) {
					t.Errorf("ETag %s, want %s", etag, want)
				}
			}
			t.Run("upload", func(t *testing.T) {
				// CRC64NVME: the copy below leaves it to the server.
				// Parts copied into an upload of the source's own CRC32C
				// get a wrong checksum from versitygw, and the copy is
				// done again without (TestChecksumsOnEveryPath), which
				// would count its parts twice here.
				rec, sum := cpJSON(t, srv, append(partFlags, "--checksum-algorithm", "CRC64NVME", file, "s3://"+bucket+"/up/"+key)...)
				check(t, rec, sum, "UploadPart", "PutObject")
				checkObject(t, "up/"+key, "the uploaded object differs from the file")
			})
			t.Run("server-side copy", func(t *testing.T) {
				if sz.parts > 0 {
					srv.Require(t, s3test.PartCopy)
				}
				rec, sum := cpJSON(t, srv, append(partFlags, "s3://"+bucket+"/up/"+key, "s3://"+bucket+"/copy/"+key)...)
				check(t, rec, sum, "UploadPartCopy", "CopyObject")
				checkObject(t, "copy/"+key, "the copy differs from the source")
			})
			t.Run("download", func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
				from := "copy/"
				if sz.parts > 0 && !srv.Has(t, s3test.PartCopy) {
					from = "up/" // the copy was skipped
				}
				rec, sum := cpJSON(t, srv, append(partFlags, "s3://"+bucket+"/"+from+key, dir+"/")...)
				// Each part is one ranged GET.
				check(t, rec, sum, "GetObject", "GetObject")
				got, err := os.ReadFile(filepath.Join(dir, key))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, body) {
					t.Errorf("the downloaded file differs from the object (%d bytes, want %d)", len(got), len(body))
				}
				if diff := cmp.Diff(map[string]string{key: string(body)}, testfs.Read(t, dir)); diff != "" && len(diff) < 1000 {
					t.Errorf("files in the destination (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestMultipartCopyLooksExactlyLikeASmallCopy(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.PartCopy, s3test.MultipartETag)
	body := stamped(12*mib + 3)
	_, err := srv.Client(t).PutObject(t.Context(), &s3.PutObjectInput{
		Bucket:             aws.String(bucket),
		Key:                aws.String("src/report.bin"),
		Body:               bytes.NewReader(body),
		ContentType:        aws.String("application/x-report"),
		CacheControl:       aws.String("max-age=3600, private"),
		ContentDisposition: aws.String(`attachment; filename="report 3.bin"`),
		ContentEncoding:    aws.String("identity"),
		ContentLanguage:    aws.String("en-GB"),
		Metadata:           map[string]string{"origin": "report-3", "checked-by": "s3bulk tests"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Without flags, 12 MiB is below the copy threshold: one CopyObject,
	// which keeps the metadata server-side. With the lowered threshold the
	// same object goes through UploadPartCopy, as every object above
	// 5 GiB must, and the metadata has to be carried over by s3bulk.
	_, small := cpJSON(t, srv, "s3://"+bucket+"/src/report.bin", "s3://"+bucket+"/small/report.bin")
	rec, big := cpJSON(t, srv, append(partFlags, "s3://"+bucket+"/src/report.bin", "s3://"+bucket+"/big/report.bin")...)
	if small.Requests["CopyObject"] != 1 || small.Requests["UploadPartCopy"] != 0 {
		t.Errorf("the small copy's requests: %v; want one CopyObject", small.Requests)
	}
	if big.Requests["UploadPartCopy"] != 3 || big.Requests["CopyObject"] != 0 || rec["parts"] != float64(3) {
		t.Errorf("the multipart copy: %v parts, requests %v; want 3 UploadPartCopy and no CopyObject", rec["parts"], big.Requests)
	}

	head := func(key string) *s3.HeadObjectOutput {
		out, err := srv.Client(t).HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("head %s: %v", key, err)
		}
		return out
	}
	type attrs struct {
		ContentType, CacheControl, ContentDisposition, ContentEncoding, ContentLanguage string
		Metadata                                                                        map[string]string
		Size                                                                            int64
	}
	attrsOf := func(o *s3.HeadObjectOutput) attrs {
		return attrs{aws.ToString(o.ContentType), aws.ToString(o.CacheControl), aws.ToString(o.ContentDisposition),
			aws.ToString(o.ContentEncoding), aws.ToString(o.ContentLanguage), o.Metadata, aws.ToInt64(o.ContentLength)}
	}
	src := attrsOf(head("src/report.bin"))
	if src.ContentType != "application/x-report" || src.Metadata["origin"] != "report-3" {
		t.Fatalf("the source did not keep its own metadata: %+v", src)
	}
	for _, key := range []string{"small/report.bin", "big/report.bin"} {
		if diff := cmp.Diff(src, attrsOf(head(key))); diff != "" {
			t.Errorf("%s: attributes differ from the source's (-source +copy):\n%s", key, diff)
		}
	}
	got, etag := objectState(t, srv, bucket, "big/report.bin")
	if !bytes.Equal(got, body) {
		t.Error("the multipart copy differs from its source")
	}
	if want := wantETag(body, 5*mib); etag != want {
		t.Errorf("ETag of the multipart copy %s, want %s", etag, want)
	}
}

// isPartAfterTheFirst selects UploadPart (or, with copy, UploadPartCopy)
// requests for every part but part 1.
func isPartAfterTheFirst(copy bool) func(*http.Request) bool {
	return func(r *http.Request) bool {
		q := r.URL.Query()
		return r.Method == http.MethodPut && q.Has("uploadId") && q.Get("partNumber") != "1" &&
			(r.Header.Get("X-Amz-Copy-Source") != "") == copy
	}
}

// isRangedGetAfterTheFirst selects the ranged GETs of every part but the
// first.
func isRangedGetAfterTheFirst(r *http.Request) bool {
	rg := r.Header.Get("Range")
	return r.Method == http.MethodGet && rg != "" && !strings.HasPrefix(rg, "bytes=0-")
}

func TestAnUploadWhoseUploadIDVanishedIsRestarted(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	srv.Require(t, s3test.AbortUpload)
	body := stamped(15*mib + 1)
	file := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	// Another client aborts the upload (`mpu abort`, a lifecycle rule)
	// just before it completes: the completion finds no upload.
	var once sync.Once
	var aborted atomic.Bool
	endpoint := hookServer(t, srv, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodPost && r.URL.Query().Has("uploadId") {
			once.Do(func() {
				_, err := srv.Client(t).AbortMultipartUpload(context.Background(), &s3.AbortMultipartUploadInput{
					Bucket: aws.String(bucket), Key: aws.String("up/big.bin"), UploadId: aws.String(r.URL.Query().Get("uploadId"))})
				if err != nil {
					t.Errorf("abort the upload: %v", err)
				}
				aborted.Store(true)
			})
		}
		next.ServeHTTP(w, r)
	})
	args := append([]string{"--endpoint-url", endpoint, "cp"}, partFlags...)
	_, errOut, code := runCLI(t, srv, append(args, file, "s3://"+bucket+"/up/big.bin")...)
	if !aborted.Load() {
		t.Fatal("the upload was never aborted: the test tested nothing")
	}
	if code != ExitOK || !strings.Contains(errOut, "0 failed, 0 skipped, 1 restarted") {
		t.Errorf("exit %d, want 0, and a summary that says one object was restarted; stderr:\n%s", code, tail(errOut, 10))
	}
	if got := s3test.GetObject(t, srv.Client(t), bucket, "up/big.bin"); !bytes.Equal(got, body) {
		t.Errorf("up/big.bin: %d bytes, not the file's %d", len(got), len(body))
	}
	if up := s3test.ListUploads(t, srv.Client(t), bucket); len(up) != 0 {
		t.Errorf("multipart uploads left behind: %v", up)
	}
}

func TestAFailedPartLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	body := stamped(15*mib + 1)
	file := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	s3test.PutObject(t, srv.Client(t), bucket, "src/big.bin", body)
	// Two attempts, so that giving up takes milliseconds.
	env := withEnv(srv, "AWS_MAX_ATTEMPTS=2")
	tests := []struct {
		name  string
		match func(*http.Request) bool
		src   string
		dst   func(t *testing.T) string
	}{
		{"an upload whose parts after the first get 500s", isPartAfterTheFirst(false), file,
			func(*testing.T) string { return "s3://" + bucket + "/up/big.bin" }},
		{"a copy whose part copies after the first get 500s", isPartAfterTheFirst(true), "s3://" + bucket + "/src/big.bin",
			func(*testing.T) string { return "s3://" + bucket + "/copy/big.bin" }},
		{"a download whose ranged reads after the first get 500s", isRangedGetAfterTheFirst, "s3://" + bucket + "/src/big.bin",
			func(t *testing.T) string { return t.TempDir() + "/" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.src, "s3://") && strings.HasPrefix(tt.dst(t), "s3://") {
				srv.Require(t, s3test.PartCopy)
			}
			proxy := startFaultProxy(t, srv, faultproxy.Config{Seed: 21, InternalErrorRate: 1, Match: tt.match})
			dst := tt.dst(t)
			args := append([]string{"--endpoint-url", proxy.URL(), "cp"}, partFlags...)
			_, errOut, code := runCLI(t, env, append(args, tt.src, dst)...)
			if code != ExitPartial {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitPartial, tail(errOut, 10))
			}
			// The cause is a 500, or for an upload a reset: the proxy
			// answers before reading the body, which the client may still
			// be sending.
			if !strings.Contains(errOut, "part ") {
				t.Errorf("stderr does not name the part that failed:\n%s", tail(errOut, 10))
			}
			checkLeftNothing(t, srv, bucket, dst, strings.TrimPrefix(dst, "s3://"+bucket+"/"))
		})
	}
}

// hookServer forwards every request to srv after handle has seen it;
// handle may act first (change the source behind s3bulk's back), replace
// the response writer, or answer by itself.
func hookServer(t *testing.T, srv *s3test.Server, handle func(w http.ResponseWriter, r *http.Request, next http.Handler)) string {
	t.Helper()
	return startFaultProxy(t, srv, faultproxy.Config{Hook: handle}).URL()
}

func TestASourceChangedMidTransferFailsThatObjectCleanly(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	body := stamped(15*mib + 1)
	tests := []struct {
		name    string
		trigger func(*http.Request) bool // the request after which the source changes
		dst     func(t *testing.T, prefix string) string
	}{
		{"a multipart copy (If-Match on every part copy)", isPartAfterTheFirst(true),
			func(_ *testing.T, prefix string) string { return "s3://" + bucket + "/" + prefix + "big.bin" }},
		{"a download in parts (If-Match on every ranged read)", isRangedGetAfterTheFirst,
			func(t *testing.T, _ string) string { return t.TempDir() + "/" }},
	}
	// changes is how many attempts at the object see its source change:
	// once, the restart moves the new version; on every attempt (the
	// restarts' bound and one), the object fails after the bound.
	for _, changes := range []int{1, 1 + engine.DefaultRestarts} {
		for i, tt := range tests {
			name := tt.name + ", changed once: restarted, the new version arrives"
			if changes > 1 {
				name = tt.name + ", changed on every attempt: fails after the bound"
			}
			t.Run(name, func(t *testing.T) {
				if strings.HasPrefix(tt.name, "a multipart copy") {
					srv.Require(t, s3test.PartCopy, s3test.ConditionalCopy)
				} else {
					srv.Require(t, s3test.ConditionalGet)
				}
				key := fmt.Sprintf("src/%d-%d.bin", changes, i)
				s3test.PutObject(t, srv.Client(t), bucket, key, body)
				// An attempt is told by the ETag it asks for: the source
				// changes once in each of the first changes attempts.
				var mu sync.Mutex
				seen := map[string]bool{}
				last := body
				endpoint := hookServer(t, srv, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
					if tt.trigger(r) {
						etag := r.Header.Get("If-Match") + r.Header.Get("X-Amz-Copy-Source-If-Match")
						mu.Lock()
						if !seen[etag] && len(seen) < changes {
							seen[etag] = true
							// A new version of the same size: only its ETag tells.
							last = bytes.Repeat([]byte{byte('a' + len(seen))}, len(body))
							s3test.PutObject(t, srv.Client(t), bucket, key, last)
						}
						mu.Unlock()
					}
					next.ServeHTTP(w, r)
				})
				prefix := fmt.Sprintf("copy-%d/", changes)
				dst := tt.dst(t, prefix)
				args := append([]string{"--endpoint-url", endpoint, "--log-level", "debug", "cp"}, partFlags...)
				_, errOut, code := runCLI(t, srv, append(args, "s3://"+bucket+"/"+key, dst)...)
				if changes == 1 {
					if code != ExitOK || !strings.Contains(errOut, "1 restarted") {
						t.Errorf("exit %d, want 0, and a summary that says one object was restarted; stderr:\n%s", code, tail(errOut, 10))
					}
					if !regexp.MustCompile(`(?m)^time=\S+ level=DEBUG msg=restarted .*attempt=2 .*source changed`).MatchString(errOut) {
						t.Errorf("the debug log does not say the object was restarted, and why:\n%s", errOut)
					}
					if got := readDst(t, srv, dst, filepath.Base(key)); !bytes.Equal(got, last) {
						t.Errorf("the destination holds %d bytes that are not the source's new version, whole", len(got))
					}
					if up := s3test.ListUploads(t, srv.Client(t), bucket); len(up) != 0 {
						t.Errorf("multipart uploads left behind: %v", up)
					}
					return
				}
				if code != ExitPartial {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitPartial, tail(errOut, 10))
				}
				if !strings.Contains(errOut, "source changed") || !strings.Contains(errOut, "restarted 2 times, then gave up") ||
					!strings.Contains(errOut, "; the source kept changing while it was read: copy it again once nothing writes to it") {
					t.Errorf("stderr does not say the source changed, that it was restarted 2 times, and what to do:\n%s", tail(errOut, 10))
				}
				checkLeftNothing(t, srv, bucket, dst, prefix)
			})
		}
	}
}

// readDst reads what a copy to dst wrote under name: the object, when
// dst is in S3, or the file in the directory dst.
func readDst(t *testing.T, srv *s3test.Server, dst, name string) []byte {
	t.Helper()
	if loc, err := s3url.Parse(dst); err == nil && !loc.Local {
		return s3test.GetObject(t, srv.Client(t), loc.Bucket, loc.Key)
	}
	b, err := os.ReadFile(filepath.Join(dst, name))
	if err != nil {
		t.Error(err)
	}
	return b
}

// checkLeftNothing checks that a failed copy to dst left no unfinished
// multipart upload in bucket, and no object under prefix when dst is in
// bucket or no file under dst when it is a directory.
func checkLeftNothing(t *testing.T, srv *s3test.Server, bucket, dst, prefix string) {
	t.Helper()
	if up := s3test.ListUploads(t, srv.Client(t), bucket); len(up) != 0 {
		t.Errorf("unfinished multipart uploads left: %v", up)
	}
	if strings.HasPrefix(dst, "s3://") {
		if objs := s3test.ListKeys(t, srv.Client(t), bucket, prefix); len(objs) != 0 {
			t.Errorf("an object was written: %v", objs)
		}
	} else if files := testfs.Read(t, dst); len(files) != 0 {
		t.Errorf("files left in the destination: %v", keys(files))
	}
}

// flipBit passes a response through with one bit of its body flipped, at
// object offset at (a ranged response starts at its range).
type flipBit struct {
	http.ResponseWriter
	at, seen int64
}

func (f *flipBit) Write(p []byte) (int, error) {
	if f.at >= f.seen && f.at < f.seen+int64(len(p)) {
		p = bytes.Clone(p)
		p[f.at-f.seen] ^= 0x01
	}
	f.seen += int64(len(p))
	return f.ResponseWriter.Write(p)
}

func (f *flipBit) Flush() { f.ResponseWriter.(http.Flusher).Flush() }

// corruptingServer flips one bit at object offset at in every object body
// it forwards.
func corruptingServer(t *testing.T, srv *s3test.Server, at int64) string {
	return hookServer(t, srv, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method != http.MethodGet || r.URL.Query().Has("list-type") || r.URL.Query().Has("uploads") {
			next.ServeHTTP(w, r)
			return
		}
		var start int64
		if rg := r.Header.Get("Range"); rg != "" {
			fmt.Sscanf(rg, "bytes=%d-", &start)
		}
		next.ServeHTTP(&flipBit{ResponseWriter: w, at: at - start}, r)
	})
}

func TestAWholeDownloadIsVerifiedAgainstAMultipartETag(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.MultipartETag)
	body := stamped(15*mib + 1)
	// Uploaded in parts by another client, downloaded in one GET (below
	// the download threshold): only the multipart ETag is left to check.
	uploadInParts(t, srv, bucket, "parts.bin", body, 6*mib)
	src := "s3://" + bucket + "/parts.bin"
	isObjectGet := func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/parts.bin")
	}
	env := withEnv(srv, "AWS_MAX_ATTEMPTS=2")
	t.Run("a flipped bit fails the object and leaves no file", func(t *testing.T) {
		proxy := startFaultProxy(t, srv, faultproxy.Config{DropChecksums: true, CorruptRate: 1, Match: isObjectGet})
		dir := t.TempDir()
		_, errOut, code := runCLI(t, env, "--endpoint-url", proxy.URL(), "cp", src, dir+"/")
		failedOnMismatch(t, code, errOut, dir)
		if proxy.Stats().Faults[faultproxy.Corrupt] == 0 {
			t.Error("the proxy corrupted nothing: the test tested nothing")
		}
	})
	t.Run("an intact object arrives, checked", func(t *testing.T) {
		proxy := startFaultProxy(t, srv, faultproxy.Config{DropChecksums: true})
		dir := t.TempDir()
		rec, sum := cpJSON(t, env, "--endpoint-url", proxy.URL(), src, dir+"/")
		if got, _ := os.ReadFile(filepath.Join(dir, "parts.bin")); !bytes.Equal(got, body) {
			t.Error("the downloaded file differs from the object")
		}
		if rec["unverified"] != nil || sum.Unverified != 0 {
			t.Errorf("a download checked against its multipart ETag is reported unverified: record %v, summary %+v", rec, sum)
		}
	})
	t.Run("unchecked, the run says so", func(t *testing.T) {
		dir := t.TempDir()
		_, errOut, code := runCLI(t, env, "--checksum-when-required", "cp", src, dir+"/")
		if code != ExitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, tail(errOut, 10))
		}
		if !strings.Contains(errOut, "WARNING 1 object was read without a check") {
			t.Errorf("stderr does not say the object went unchecked:\n%s", errOut)
		}
	})
}

// failedOnMismatch checks that a download failed that object (exit 1) on a
// checksum mismatch and left nothing in dir.
func failedOnMismatch(t *testing.T, code int, errOut, dir string) {
	t.Helper()
	if code != ExitPartial {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitPartial, tail(errOut, 10))
	}
	if !strings.Contains(errOut, "checksum mismatch") {
		t.Errorf("stderr does not name the mismatch:\n%s", tail(errOut, 10))
	}
	// Damaged every time: the object was restarted, to no avail.
	if !strings.Contains(errOut, "(restarted 2 times, then gave up); its bytes arrived damaged on every attempt") {
		t.Errorf("stderr does not say the object was restarted 2 times, and what to check:\n%s", tail(errOut, 10))
	}
	if files := testfs.Read(t, dir); len(files) != 0 {
		t.Errorf("files left in the destination: %v", keys(files))
	}
}

func TestACorruptedDownloadFailsAndLeavesNoFile(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	body := stamped(3*mib + 5)
	s3test.PutObject(t, srv.Client(t), bucket, "k.bin", body)
	endpoint := corruptingServer(t, srv, 2*mib+1)
	dir := t.TempDir()
	// Below the threshold: one GET, checked against the stored checksum.
	_, errOut, code := runCLI(t, srv, "--endpoint-url", endpoint, "cp", "s3://"+bucket+"/k.bin", dir+"/")
	failedOnMismatch(t, code, errOut, dir)
	// The same download with checksums off goes through, corrupted: the
	// check above is the only thing that stopped it.
	_, errOut, code = runCLI(t, srv, "--endpoint-url", endpoint, "--checksum-when-required", "cp", "s3://"+bucket+"/k.bin", dir+"/")
	if code != ExitOK {
		t.Errorf("with --checksum-when-required: exit %d, want 0; stderr:\n%s", code, tail(errOut, 10))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "k.bin")); bytes.Equal(got, body) || len(got) != len(body) {
		t.Errorf("the unchecked download is not the corrupted body the proxy sent")
	}
}

// uploadInParts writes body to key as a multipart upload of partSize
// parts, with no checksum: its ETag is the MD5 of the parts' MD5s.
func uploadInParts(t *testing.T, srv *s3test.Server, bucket, key string, body []byte, partSize int) {
	t.Helper()
	c := srv.Client(t)
	ctx := t.Context()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	var done []s3types.CompletedPart
	for off, n := 0, int32(1); off < len(body); off, n = off+partSize, n+1 {
		b := body[off:min(off+partSize, len(body))]
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(n), Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b)))})
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, s3types.CompletedPart{PartNumber: aws.Int32(n), ETag: out.ETag})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &s3types.CompletedMultipartUpload{Parts: done}}); err != nil {
		t.Fatal(err)
	}
}

func TestADownloadInPartsIsVerifiedWithoutAStoredChecksum(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	body := stamped(15*mib + 1)
	s3test.PutObject(t, srv.Client(t), bucket, "put.bin", body) // an MD5 ETag
	uploadInParts(t, srv, bucket, "parts.bin", body, 6*mib)     // a multipart ETag, parts unlike the download's
	env := withEnv(srv, "AWS_MAX_ATTEMPTS=2")
	for _, key := range []string{"put.bin", "parts.bin"} {
		src := "s3://" + bucket + "/" + key
		t.Run(key+": a flipped bit in a part fails the object and leaves no file", func(t *testing.T) {
			// The server's checksums hidden: only the ETag is left.
			proxy := startFaultProxy(t, srv, faultproxy.Config{DropChecksums: true, CorruptRate: 1, Match: isRangedGetAfterTheFirst})
			dir := t.TempDir()
			_, errOut, code := runCLI(t, env, append(append([]string{"--endpoint-url", proxy.URL(), "cp"}, partFlags...), src, dir+"/")...)
			failedOnMismatch(t, code, errOut, dir)
			if proxy.Stats().Faults[faultproxy.Corrupt] == 0 {
				t.Error("the proxy corrupted no part: the test tested nothing")
			}
		})
		t.Run(key+": intact parts verify and arrive", func(t *testing.T) {
			proxy := startFaultProxy(t, srv, faultproxy.Config{DropChecksums: true})
			dir := t.TempDir()
			rec, sum := cpJSON(t, env, append(append([]string{"--endpoint-url", proxy.URL()}, partFlags...), src, dir+"/")...)
			if got, _ := os.ReadFile(filepath.Join(dir, key)); !bytes.Equal(got, body) {
				t.Error("the downloaded file differs from the object")
			}
			if rec["unverified"] != nil || sum.Unverified != 0 {
				t.Errorf("a download checked against its ETag is reported unverified: record %v, summary %+v", rec, sum)
			}
		})
	}
	t.Run("with nothing to check against the run says so once", func(t *testing.T) {
		dir := t.TempDir()
		args := append([]string{"--checksum-when-required", "cp", "--recursive"}, partFlags...)
		out, errOut, code := runCLI(t, env, append(args, "s3://"+bucket+"/", dir+"/")...)
		if code != ExitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, tail(errOut, 10))
		}
		if n := strings.Count(errOut, "without a check"); n != 1 {
			t.Errorf("stderr says %d times that objects went unchecked, want once:\n%s%s", n, out, errOut)
		}
		if !strings.Contains(errOut, "2 objects were read without a check") {
			t.Errorf("stderr does not count the unchecked objects:\n%s", errOut)
		}
		out, errOut, code = runCLI(t, env, append(append([]string{"--json"}, args...), "s3://"+bucket+"/", t.TempDir()+"/")...)
		if code != ExitOK {
			t.Fatalf("--json: exit %d; stderr:\n%s", code, tail(errOut, 10))
		}
		if sum := parseSummary(t, errOut); sum.Unverified != 2 {
			t.Errorf("--json summary counts %d unverified objects, want 2:\n%s", sum.Unverified, errOut)
		}
		if n := strings.Count(out, `"unverified":true`); n != 2 {
			t.Errorf("%d records are marked unverified, want 2:\n%s", n, out)
		}
	})
}
