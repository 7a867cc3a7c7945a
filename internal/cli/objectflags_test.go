package cli

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// recordedRequest is what a recording proxy saw of one request.
type recordedRequest struct {
	op     string
	header http.Header
}

// requestRecorder keeps every request that went through a proxy.
type requestRecorder struct {
	mu   sync.Mutex
	reqs []recordedRequest
}

// startRecorder starts a proxy in front of srv that forwards every request
// untouched and records its operation and headers.
func startRecorder(t *testing.T, srv *s3test.Server) (*faultproxy.Proxy, *requestRecorder) {
	t.Helper()
	rec := &requestRecorder{}
	p := startFaultProxy(t, srv, faultproxy.Config{Match: func(r *http.Request) bool {
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recordedRequest{op: s3Operation(r), header: r.Header.Clone()})
		rec.mu.Unlock()
		return false
	}})
	return p, rec
}

// take returns the requests recorded since the last take and forgets them.
func (r *requestRecorder) take() []recordedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

// s3Operation names the S3 operation of a request from its method, query
// and headers, as a server routes it.
func s3Operation(r *http.Request) string {
	q := r.URL.Query()
	if id := q.Get("x-id"); id != "" {
		return id
	}
	_, hasUploads := q["uploads"]
	_, hasDelete := q["delete"]
	key := strings.Count(strings.Trim(r.URL.Path, "/"), "/") > 0
	switch r.Method {
	case http.MethodHead:
		if key {
			return "HeadObject"
		}
		return "HeadBucket"
	case http.MethodGet:
		switch {
		case q.Get("list-type") == "2":
			return "ListObjectsV2"
		case hasUploads:
			return "ListMultipartUploads"
		case q.Get("uploadId") != "":
			return "ListParts"
		case key:
			return "GetObject"
		}
		return "ListObjects"
	case http.MethodPost:
		switch {
		case hasUploads:
			return "CreateMultipartUpload"
		case q.Get("uploadId") != "":
			return "CompleteMultipartUpload"
		case hasDelete:
			return "DeleteObjects"
		}
	case http.MethodPut:
		copied := r.Header.Get("X-Amz-Copy-Source") != ""
		switch {
		case q.Get("uploadId") != "" && copied:
			return "UploadPartCopy"
		case q.Get("uploadId") != "":
			return "UploadPart"
		case copied:
			return "CopyObject"
		}
		return "PutObject"
	case http.MethodDelete:
		if q.Get("uploadId") != "" {
			return "AbortMultipartUpload"
		}
		return "DeleteObject"
	}
	return r.Method + " " + r.URL.RawQuery
}

// The SSE-C headers, for the object and for a copy's source.
const (
	hSSECAlg     = "X-Amz-Server-Side-Encryption-Customer-Algorithm"
	hSSECKey     = "X-Amz-Server-Side-Encryption-Customer-Key"
	hSSECMD5     = "X-Amz-Server-Side-Encryption-Customer-Key-Md5"
	hSrcSSECAlg  = "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Algorithm"
	hSrcSSECKey  = "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key"
	hSrcSSECMD5  = "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key-Md5"
	hSSE         = "X-Amz-Server-Side-Encryption"
	hSSEKMSKeyID = "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"
	hACL         = "X-Amz-Acl"
	hPayer       = "X-Amz-Request-Payer"
)

// ssecHeaders are the headers that carry key as an object's key (src
// false) or as a copy source's; nil key: headers that must be absent.
func ssecHeaders(key []byte, src bool) map[string]string {
	alg, k, m := hSSECAlg, hSSECKey, hSSECMD5
	if src {
		alg, k, m = hSrcSSECAlg, hSrcSSECKey, hSrcSSECMD5
	}
	if key == nil {
		return map[string]string{alg: "", k: "", m: ""}
	}
	sum := md5.Sum(key)
	return map[string]string{alg: "AES256", k: base64.StdEncoding.EncodeToString(key), m: base64.StdEncoding.EncodeToString(sum[:])}
}

func merged(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// checkRequests checks that every request of each operation in want was
// seen at least once and carries exactly the header values in want ("" for
// a header that must be absent).
func checkRequests(t *testing.T, reqs []recordedRequest, want map[string]map[string]string) {
	t.Helper()
	seen := map[string]int{}
	for _, r := range reqs {
		headers, ok := want[r.op]
		if !ok {
			continue
		}
		seen[r.op]++
		for h, v := range headers {
			if got := r.header.Get(h); got != v {
				t.Errorf("%s #%d: %s = %q, want %q", r.op, seen[r.op], h, got, v)
			}
		}
	}
	for op := range want {
		if seen[op] == 0 {
			var ops []string
			for _, r := range reqs {
				ops = append(ops, r.op)
			}
			t.Errorf("no %s request was sent; requests: %v", op, ops)
		}
	}
}

// rawCopies counts the CopyObject requests built by hand (rawcopy.go)
// rather than by the SDK: they are told apart by their User-Agent.
func rawCopies(reqs []recordedRequest) (raw, sdk int) {
	for _, r := range reqs {
		if r.op != "CopyObject" {
			continue
		}
		if r.header.Get("User-Agent") == "s3bulk" {
			raw++
		} else {
			sdk++
		}
	}
	return raw, sdk
}

func TestSSECustomerKeysGoOnEveryRequestThatNeedsThem(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.SSEC)
	proxy, rec := startRecorder(t, srv)

	// Two keys: one raw in a file, one base64 in the environment.
	key1 := []byte("s3bulk-test-SSE-C-key-number-one")
	key2 := bytes.Repeat([]byte{0xA5, 0x5A, 0x01, 0xFE}, 8)
	keyDir := t.TempDir()
	keyFile := filepath.Join(keyDir, "key1")
	if err := os.WriteFile(keyFile, key1, 0o600); err != nil {
		t.Fatal(err)
	}
	env := withEnv(srv, "S3BULK_TEST_SSEC_KEY2="+base64.StdEncoding.EncodeToString(key2))
	k1 := []string{"--sse-c", "AES256", "--sse-c-key", "file://" + keyFile}
	k2 := []string{"--sse-c", "AES256", "--sse-c-key", "env://S3BULK_TEST_SSEC_KEY2"}
	k1src := []string{"--sse-c-copy-source", "AES256", "--sse-c-copy-source-key", "file://" + keyFile}

	local, down := t.TempDir(), t.TempDir()
	testfs.Write(t, local, map[string]string{"small.txt": "small"})
	if err := os.WriteFile(filepath.Join(local, "big.bin"), bodyFor(7, 11<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	parts := []string{"--part-size", "5MiB", "--multipart-threshold", "5MiB"}
	S := "s3://" + bucket

	none, obj1, obj2, src1 := ssecHeaders(nil, true), ssecHeaders(key1, false), ssecHeaders(key2, false), ssecHeaders(key1, true)
	tests := []struct {
		name string
		args []string
		want map[string]map[string]string
		// raw and sdk are the CopyObject requests expected by hand and
		// through the SDK.
		raw, sdk int
	}{
		{
			"an upload sends the key with the object, its parts and their completion",
			slices.Concat([]string{"cp", "--recursive"}, k1, parts, []string{local + "/", S + "/enc/"}),
			map[string]map[string]string{
				"PutObject":               merged(obj1, none),
				"CreateMultipartUpload":   merged(obj1, none),
				"UploadPart":              merged(obj1, none),
				"CompleteMultipartUpload": merged(obj1, none),
			}, 0, 0,
		},
		{
			"a copy sends the source's key as the copy source's and the new key as the object's",
			slices.Concat([]string{"cp", "--recursive"}, k2, k1src, parts, []string{S + "/enc/", S + "/copy/"}),
			map[string]map[string]string{
				"HeadObject":              merged(obj1, none), // the source's metadata, before a copy in parts
				"CopyObject":              merged(obj2, src1),
				"CreateMultipartUpload":   merged(obj2, none),
				"UploadPartCopy":          merged(obj2, src1),
				"CompleteMultipartUpload": merged(obj2, none),
			}, 1, 0,
		},
		{
			"a copy that sets metadata goes through the SDK with the same headers",
			slices.Concat([]string{"cp", "--recursive", "--metadata", "stage=2"}, k2, k1src, parts, []string{S + "/enc/", S + "/copy-meta/"}),
			map[string]map[string]string{
				"HeadObject": merged(obj1, none),
				"CopyObject": merged(obj2, src1),
			}, 0, 1,
		},
		{
			"a download sends the key with every read",
			slices.Concat([]string{"cp", "--recursive"}, k2, parts, []string{S + "/copy/", down + "/"}),
			map[string]map[string]string{
				"HeadObject": merged(obj2, none), // the stored checksum, before a download in parts
				"GetObject":  merged(obj2, none),
			}, 0, 0,
		},
		{
			"sync sends the key with what it copies",
			slices.Concat([]string{"sync"}, k1, parts, []string{local + "/", S + "/synced/"}),
			map[string]map[string]string{
				"PutObject":             merged(obj1, none),
				"CreateMultipartUpload": merged(obj1, none),
				"UploadPart":            merged(obj1, none),
			}, 0, 0,
		},
	}
	secrets := []string{string(key1), string(key2), obj1[hSSECKey], obj1[hSSECMD5], obj2[hSSECKey], obj2[hSSECMD5]}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.name, "a copy") || strings.HasPrefix(tt.name, "a download") {
				// The requests of a multipart copy are checked; the
				// download reads what the copy wrote.
				srv.Require(t, s3test.SSECPartCopy)
			}
			rec.take()
			args := slices.Concat([]string{"--endpoint-url", proxy.URL(), "--log-level", "debug"}, tt.args)
			out, errOut, code := runCLI(t, env, args...)
			if code != ExitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.Contains(errOut, "level=DEBUG") {
				t.Errorf("no debug lines on stderr: the check below means nothing\n%s", errOut)
			}
			for _, secret := range secrets {
				if strings.Contains(out+errOut, secret) {
					t.Errorf("the key or its MD5 was printed: %q\nstdout:\n%s\nstderr:\n%s", secret, out, errOut)
				}
			}
			reqs := rec.take()
			checkRequests(t, reqs, tt.want)
			if raw, sdk := rawCopies(reqs); raw != tt.raw || sdk != tt.sdk {
				t.Errorf("CopyObject: %d by hand and %d through the SDK, want %d and %d", raw, sdk, tt.raw, tt.sdk)
			}
		})
	}
	t.Run("the downloads are the uploads", func(t *testing.T) {
		srv.Require(t, s3test.SSECPartCopy) // see above
		want := testfs.Read(t, local)
		if diff := cmp.Diff(want, testfs.Read(t, down)); diff != "" {
			t.Errorf("downloaded (-want +got):\n%s", diff)
		}
	})
}

func TestEncryptionACLAndRequestPayerGoOnEveryRequestThatNeedsThem(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	// PartCopy: the later steps read what the multipart copy wrote.
	srv.Require(t, s3test.SSES3, s3test.SSEKMS, s3test.PartCopy)
	bucket := srv.NewBucket(t)
	proxy, rec := startRecorder(t, srv)
	local, down, fewer := t.TempDir(), t.TempDir(), t.TempDir()
	testfs.Write(t, local, map[string]string{"small.txt": "small", "old.txt": "old"})
	testfs.Write(t, fewer, map[string]string{"small.txt": "small"})
	if err := os.WriteFile(filepath.Join(local, "big.bin"), bodyFor(3, 11<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	parts := []string{"--part-size", "5MiB", "--multipart-threshold", "5MiB"}
	payer := []string{"--request-payer", "requester"}
	S := "s3://" + bucket

	kms := map[string]string{hSSE: "aws:kms", hSSEKMSKeyID: "alias/s3bulk-test", hACL: "bucket-owner-full-control", hPayer: "requester"}
	sses3 := map[string]string{hSSE: "AES256", hSSEKMSKeyID: "", hACL: "private", hPayer: "requester"}
	// Requests that write no object's attributes carry only the payer.
	only := map[string]string{hSSE: "", hSSEKMSKeyID: "", hACL: "", hPayer: "requester"}
	tests := []struct {
		name     string
		args     []string
		want     map[string]map[string]string
		raw, sdk int
	}{
		{
			"an upload with SSE-KMS and an ACL",
			slices.Concat([]string{"cp", "--recursive", "--sse-kms-key-id", "alias/s3bulk-test", "--acl", "bucket-owner-full-control"}, payer, parts, []string{local + "/", S + "/kms/"}),
			map[string]map[string]string{
				"PutObject":               kms,
				"CreateMultipartUpload":   kms,
				"UploadPart":              only,
				"CompleteMultipartUpload": only,
			}, 0, 0,
		},
		{
			"a copy with SSE-S3 and an ACL, by hand",
			slices.Concat([]string{"cp", "--recursive", "--sse", "AES256", "--acl", "private"}, payer, parts, []string{S + "/kms/", S + "/sse/"}),
			map[string]map[string]string{
				"ListObjectsV2":           only,
				"HeadObject":              only,
				"CopyObject":              sses3,
				"CreateMultipartUpload":   sses3,
				"UploadPartCopy":          only,
				"CompleteMultipartUpload": only,
			}, 2, 0,
		},
		{
			"a copy with SSE-S3 and an ACL, through the SDK",
			slices.Concat([]string{"cp", "--recursive", "--sse", "aes256", "--acl", "PRIVATE", "--metadata", "stage=2", "--exclude", "big.bin"}, payer, []string{S + "/kms/", S + "/sse-meta/"}),
			map[string]map[string]string{
				"ListObjectsV2": only,
				"HeadObject":    only,
				"CopyObject":    sses3,
			}, 0, 2,
		},
		{
			"a download",
			slices.Concat([]string{"cp", "--recursive"}, payer, parts, []string{S + "/sse/", down + "/"}),
			map[string]map[string]string{
				"ListObjectsV2": only,
				"HeadObject":    only,
				"GetObject":     only,
			}, 0, 0,
		},
		{
			"a move deletes with the payer",
			slices.Concat([]string{"mv", "--recursive"}, payer, []string{S + "/sse-meta/", S + "/moved/"}),
			map[string]map[string]string{
				"ListObjectsV2": only,
				"CopyObject":    only,
				"DeleteObjects": only, // sources go in batches
			}, 2, 0,
		},
		{
			"sync lists and deletes with the payer",
			slices.Concat([]string{"sync", "--delete", "--exclude", "big.bin"}, payer, []string{fewer, S + "/sse/"}),
			map[string]map[string]string{
				"ListObjectsV2": only,
				"DeleteObjects": only,
			}, 0, 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.take()
			out, errOut, code := runCLI(t, srv, slices.Concat([]string{"--endpoint-url", proxy.URL()}, tt.args)...)
			if code != ExitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			reqs := rec.take()
			checkRequests(t, reqs, tt.want)
			if raw, sdk := rawCopies(reqs); raw != tt.raw || sdk != tt.sdk {
				t.Errorf("CopyObject: %d by hand and %d through the SDK, want %d and %d", raw, sdk, tt.raw, tt.sdk)
			}
		})
	}
	// The server does not encrypt, but it takes the ACL and the headers:
	// what was written with them is all there.
	t.Run("the objects written with the flags are whole", func(t *testing.T) {
		want := map[string]string{}
		for k, v := range testfs.Read(t, local) {
			want["kms/"+k] = v
		}
		if diff := cmp.Diff(want, bucketContents(t, srv, bucket, "kms/")); diff != "" {
			t.Errorf("uploaded (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(testfs.Read(t, local), testfs.Read(t, down)); diff != "" {
			t.Errorf("downloaded (-want +got):\n%s", diff)
		}
	})
}

// signedRegion is the region in a request's SigV4 credential scope.
var signedRegion = regexp.MustCompile(`Credential=[^/]+/\d{8}/([^/]+)/s3/aws4_request`)

func TestSourceRegionSignsTheSourcesRequestsAndNotTheCopies(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t, s3test.SigningScope)
	c := srv.Client(t)
	s3test.PutObject(t, c, bucket, "src/small.txt", []byte("small"))
	s3test.PutObject(t, c, bucket, "src/big.bin", bodyFor(5, 6<<20))
	proxy, rec := startRecorder(t, srv)
	parts := []string{"--part-size", "5MiB", "--multipart-threshold", "5MiB"}
	S := "s3://" + bucket
	const elsewhere = "ap-elsewhere-7" // a region the server is not in: its requests fail
	right := srv.Region

	// The server knows one region only, so one side of each copy fails;
	// what matters is which region each request was signed for.
	tests := []struct {
		name string
		args []string
		code int
		want map[string]string // operation: region
	}{
		// A copy signed for a region the server is not in fails, and a
		// wrong region is a failure every object shares: it stops the run
		// at once, so each kind of copy gets its own run.
		{
			"the source's listing uses --source-region; a copy goes to the destination's region",
			slices.Concat([]string{"--region", elsewhere, "cp", "--source-region", right}, parts, []string{S + "/src/small*", S + "/dst/"}),
			ExitFatal,
			map[string]string{"ListObjectsV2": right, "CopyObject": elsewhere},
		},
		{
			"the source's listing and metadata read use --source-region; a multipart copy goes to the destination's region",
			slices.Concat([]string{"--region", elsewhere, "cp", "--source-region", right}, parts, []string{S + "/src/big*", S + "/dst/"}),
			ExitFatal,
			map[string]string{"ListObjectsV2": right, "HeadObject": right, "CreateMultipartUpload": elsewhere},
		},
		{
			"a source in another region than --source-region is not found there",
			[]string{"cp", "--recursive", "--source-region", elsewhere, S + "/src/", S + "/dst/"},
			ExitFatal,
			map[string]string{"ListObjectsV2": elsewhere},
		},
		{
			"a download reads from --source-region",
			slices.Concat([]string{"--region", elsewhere, "cp", "--recursive", "--source-region", right}, parts, []string{S + "/src/", t.TempDir() + "/"}),
			ExitOK,
			map[string]string{"ListObjectsV2": right, "HeadObject": right, "GetObject": right},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.take()
			out, errOut, code := runCLI(t, srv, slices.Concat([]string{"--endpoint-url", proxy.URL()}, tt.args)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			got := map[string]string{}
			for _, r := range rec.take() {
				m := signedRegion.FindStringSubmatch(r.header.Get("Authorization"))
				if m == nil {
					t.Errorf("%s: no SigV4 credential scope in %q", r.op, r.header.Get("Authorization"))
					continue
				}
				if prev, ok := got[r.op]; ok && prev != m[1] {
					t.Errorf("%s requests signed for %s and %s", r.op, prev, m[1])
				}
				got[r.op] = m[1]
			}
			for op, region := range tt.want {
				if got[op] != region {
					t.Errorf("%s signed for %q, want %q (all: %v)", op, got[op], region, got)
				}
			}
		})
	}
}
