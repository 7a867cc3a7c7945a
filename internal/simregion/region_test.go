package simregion_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/internal/simregion"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

var testAuth = simregion.Auth{AccessKey: "AKSIM", SecretKey: "sim-secret", Region: "ap-northeast-1"}

// startRegion starts a region that checks signatures, with the described
// set in "src" and an empty "dst", and a client signing with testAuth.
func startRegion(t *testing.T, cfg simregion.Config) (*simregion.Server, *s3store.Client) {
	t.Helper()
	cfg.Auth = &testAuth
	if cfg.Bucket == "" {
		cfg.Bucket = "src"
	}
	if cfg.Buckets == nil {
		cfg.Buckets = []string{"dst"}
	}
	srv, err := simregion.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	c, err := s3store.NewClient(t.Context(), s3store.Config{
		EndpointURL: srv.URL(), Region: testAuth.Region, AccessKey: testAuth.AccessKey, SecretKey: testAuth.SecretKey, MaxAttempts: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// signed sends a request signed by the AWS SDK's own signer, with changes
// made to it after signing, and returns the status and the error code.
func signed(t *testing.T, srv *simregion.Server, method, path string, body []byte, creds aws.Credentials, region string, when time.Time, after func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("x-amz-content-sha256", hash)
	if err := v4.NewSigner().SignHTTP(t.Context(), creds, req, hash, "s3", region, when); err != nil {
		t.Fatal(err)
	}
	if after != nil {
		after(req)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	_, code, _ := strings.Cut(string(b), "<Code>")
	code, _, _ = strings.Cut(code, "</Code>")
	return resp.StatusCode, code
}

func TestSignaturesAreCheckedAsS3ChecksThem(t *testing.T) {
	srv, _ := startRegion(t, simregion.Config{Keys: simregion.ReportKeys(4), Size: 10})
	good := aws.Credentials{AccessKeyID: testAuth.AccessKey, SecretAccessKey: testAuth.SecretKey}
	now := time.Now()
	const key = "/src/company-0001/user-0001/file-01.json"
	tests := []struct {
		name, method, path string
		body               []byte
		creds              aws.Credentials
		region             string
		when               time.Time
		after              func(*http.Request)
		status             int
		code               string
	}{
		{"a good signature is accepted", http.MethodHead, key, nil, good, testAuth.Region, now, nil, 200, ""},
		{"a signed body is accepted", http.MethodPut, "/dst/k", []byte("hello"), good, testAuth.Region, now, nil, 200, ""},
		{"a wrong secret is refused", http.MethodGet, "/src?list-type=2", nil,
			aws.Credentials{AccessKeyID: testAuth.AccessKey, SecretAccessKey: "wrong"}, testAuth.Region, now, nil, 403, "SignatureDoesNotMatch"},
		{"an unknown key is refused", http.MethodGet, "/src?list-type=2", nil,
			aws.Credentials{AccessKeyID: "AKOTHER", SecretAccessKey: testAuth.SecretKey}, testAuth.Region, now, nil, 403, "InvalidAccessKeyId"},
		{"another region is refused", http.MethodGet, "/src?list-type=2", nil, good, "us-west-2", now, nil, 400, "AuthorizationHeaderMalformed"},
		{"a request signed an hour ago is refused", http.MethodGet, "/src?list-type=2", nil, good, testAuth.Region, now.Add(-time.Hour), nil, 403, "RequestTimeTooSkewed"},
		{"a signed query changed after signing is refused", http.MethodGet, "/src?list-type=2&prefix=a", nil, good, testAuth.Region, now,
			func(r *http.Request) { r.URL.RawQuery = "list-type=2&prefix=b" }, 403, "SignatureDoesNotMatch"},
		{"a signed header changed after signing is refused", http.MethodPut, "/dst/k", []byte("hello"), good, testAuth.Region, now,
			func(r *http.Request) {
				r.Header.Set("X-Amz-Date", now.Add(time.Second).UTC().Format("20060102T150405Z"))
			}, 403, "SignatureDoesNotMatch"},
		{"a body other than the one signed is refused", http.MethodPut, "/dst/k", []byte("hello"), good, testAuth.Region, now,
			func(r *http.Request) { r.Body = io.NopCloser(strings.NewReader("HELLO")) }, 400, "XAmzContentSHA256Mismatch"},
		{"an unsigned request is refused", http.MethodGet, "/src?list-type=2", nil, good, testAuth.Region, now,
			func(r *http.Request) { r.Header.Del("Authorization") }, 403, "AccessDenied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, code := signed(t, srv, tt.method, tt.path, tt.body, tt.creds, tt.region, tt.when, tt.after)
			if status != tt.status || code != tt.code {
				t.Errorf("%s %s: %d %q, want %d %q", tt.method, tt.path, status, code, tt.status, tt.code)
			}
		})
	}
	t.Run("a presigned URL is accepted until it expires", func(t *testing.T) {
		for _, tc := range []struct {
			signedAt time.Time
			status   int
		}{{now, 200}, {now.Add(-2 * time.Hour), 403}} {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+key+"?X-Amz-Expires=3600", nil)
			u, _, err := v4.NewSigner().PresignHTTP(t.Context(), good, req, "UNSIGNED-PAYLOAD", "s3", testAuth.Region, tc.signedAt)
			if err != nil {
				t.Fatal(err)
			}
			get, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
			if status, code := send(t, get); status != tc.status {
				t.Errorf("presigned at %v: %d %s, want %d", tc.signedAt.Format(time.TimeOnly), status, code, tc.status)
			}
		}
	})
}

func TestChecksumsAreCheckedAsS3ChecksThem(t *testing.T) {
	srv, _ := startRegion(t, simregion.Config{Keys: simregion.ReportKeys(4), Size: 10})
	good := aws.Credentials{AccessKeyID: testAuth.AccessKey, SecretAccessKey: testAuth.SecretKey}
	del := []byte(`<Delete><Object><Key>company-0001/user-0001/file-01.json</Key></Object></Delete>`)
	md5Of := func(b []byte) string { s := md5.Sum(b); return base64.StdEncoding.EncodeToString(s[:]) }
	tests := []struct {
		name, method, path string
		body               []byte
		headers            map[string]string
		status             int
		code               string
	}{
		{"a put whose Content-MD5 matches is stored", http.MethodPut, "/dst/k", []byte("x"), map[string]string{"Content-MD5": md5Of([]byte("x"))}, 200, ""},
		{"a put whose Content-MD5 does not match is refused", http.MethodPut, "/dst/k", []byte("x"), map[string]string{"Content-MD5": md5Of([]byte("y"))}, 400, "BadDigest"},
		{"a put whose CRC32 does not match is refused", http.MethodPut, "/dst/k", []byte("x"), map[string]string{"x-amz-checksum-crc32": "AAAAAA=="}, 400, "BadDigest"},
		{"a put whose CRC64NVME matches is stored", http.MethodPut, "/dst/k", []byte("x"), map[string]string{"x-amz-checksum-crc64nvme": crc64Of([]byte("x"))}, 200, ""},
		{"a put whose CRC64NVME does not match is refused", http.MethodPut, "/dst/k", []byte("x"), map[string]string{"x-amz-checksum-crc64nvme": crc64Of([]byte("y"))}, 400, "BadDigest"},
		{"a DeleteObjects without Content-MD5 or checksum is refused", http.MethodPost, "/src?delete", del, nil, 400, "InvalidRequest"},
		{"a DeleteObjects whose Content-MD5 does not match is refused", http.MethodPost, "/src?delete", del, map[string]string{"Content-MD5": md5Of([]byte("y"))}, 400, "BadDigest"},
		{"a DeleteObjects with its Content-MD5 is done", http.MethodPost, "/src?delete", del, map[string]string{"Content-MD5": md5Of(del)}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The checksum headers are signed, as SDKs sign them.
			req, _ := http.NewRequestWithContext(t.Context(), tt.method, srv.URL()+tt.path, bytes.NewReader(tt.body))
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			sum := sha256.Sum256(tt.body)
			req.Header.Set("x-amz-content-sha256", hex.EncodeToString(sum[:]))
			if err := v4.NewSigner().SignHTTP(t.Context(), good, req, hex.EncodeToString(sum[:]), "s3", testAuth.Region, time.Now()); err != nil {
				t.Fatal(err)
			}
			if status, code := send(t, req); status != tt.status || code != tt.code {
				t.Errorf("%d %q, want %d %q", status, code, tt.status, tt.code)
			}
		})
	}
}

func TestCopiesAreCheckedAndRemembered(t *testing.T) {
	_, c := startRegion(t, simregion.Config{Keys: simregion.ReportKeys(4), Size: 1000})
	ctx := t.Context()
	src, dst := c.Bucket("src"), c.Bucket("dst")
	key := simregion.ReportKeys(1)[0]
	obj, _, err := src.Head(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Copy(ctx, store.CopySource{Bucket: "src", Key: "missing"}, "a", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("copy of a missing source: %v, want ErrNotFound", err)
	}
	if err := dst.Copy(ctx, store.CopySource{Bucket: "nobucket", Key: key}, "a", nil); !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrBucketNotFound) {
		t.Errorf("copy from a missing bucket: %v, want not found", err)
	}
	if err := c.Bucket("nobucket").Copy(ctx, store.CopySource{Bucket: "src", Key: key}, "a", nil); !errors.Is(err, store.ErrBucketNotFound) {
		t.Errorf("copy to a missing bucket: %v, want ErrBucketNotFound", err)
	}
	if err := src.Copy(ctx, store.CopySource{Bucket: "src", Key: key}, key, nil); err == nil {
		t.Error("copy of an object onto itself succeeded, want InvalidRequest")
	}
	if err := dst.Copy(ctx, store.CopySource{Bucket: "src", Key: key, IfMatch: obj.ETag}, "a", nil); err != nil {
		t.Fatalf("copy: %v", err)
	}
	got, _, err := dst.Head(ctx, "a")
	if err != nil || got.ETag != obj.ETag || got.Size != obj.Size {
		t.Errorf("the copy heads as %+v, %v; want the source's ETag %s and size %d", got, err, obj.ETag, obj.Size)
	}
	// A body written is described, not kept: head yes, get no.
	if err := dst.Put(ctx, "w", strings.NewReader("hello"), 5, store.Metadata{}); err != nil {
		t.Fatal(err)
	}
	if w, _, err := dst.Head(ctx, "w"); err != nil || w.ETag != "5d41402abc4b2a76b9719d911017c592" || w.Size != 5 {
		t.Errorf("a put object heads as %+v, %v; want its MD5 and size", w, err)
	}
	if err := dst.Copy(ctx, store.CopySource{Bucket: "dst", Key: "w"}, "w2", nil); err != nil {
		t.Errorf("copy of a written object: %v", err)
	}
	if got := list(t, dst, "", ""); !slices.Equal(got, []string{"a", "w", "w2"}) {
		t.Errorf("the destination lists %q, want the copies and the put", got)
	}
	if err := dst.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := dst.Head(ctx, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("head of a deleted object: %v, want ErrNotFound", err)
	}
}

// TestListingsMergeWritesAndDeletes pages through a bucket whose described
// set has had keys written among it and deleted from it, in pages of 7,
// flat and by delimiter, and compares with the same operations on a sorted
// list.
func TestListingsMergeWritesAndDeletes(t *testing.T) {
	keys := simregion.ReportKeys(120)
	_, c := startRegion(t, simregion.Config{Keys: keys, Size: 10})
	ctx := t.Context()
	src := c.Bucket("src")
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	for i, k := range keys {
		switch i % 5 {
		case 0:
			if err := src.Delete(ctx, k); err != nil {
				t.Fatal(err)
			}
			delete(want, k)
		case 1:
			if err := src.Put(ctx, k+"~", strings.NewReader("x"), 1, store.Metadata{}); err != nil {
				t.Fatal(err)
			}
			want[k+"~"] = true
		}
	}
	if err := src.Put(ctx, "a-first", strings.NewReader("x"), 1, store.Metadata{}); err != nil {
		t.Fatal(err)
	}
	want["a-first"] = true
	var sorted []string
	for k := range want {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	sdk := s3.New(s3.Options{Region: testAuth.Region, BaseEndpoint: aws.String(c.Endpoint()), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(testAuth.AccessKey, testAuth.SecretKey, "")})
	var users []string
	for _, k := range sorted {
		if rest, ok := strings.CutPrefix(k, "company-0001/"); ok {
			u, _, _ := strings.Cut(rest, "/")
			if p := "company-0001/" + u + "/"; len(users) == 0 || users[len(users)-1] != p {
				users = append(users, p)
			}
		}
	}
	for _, v1 := range []bool{false, true} {
		for _, tc := range []struct {
			prefix, delim string
			want          []string
		}{{"", "", sorted}, {"company-0001/", "/", users}} {
			got := listPaged(t, sdk, v1, tc.prefix, tc.delim, 7)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("listing (v1 %t) of %q by %q in pages of 7 (-want +got):\n%s", v1, tc.prefix, tc.delim, diff)
			}
		}
	}
}

// listPaged lists bucket src page by page, by ListObjectsV2 or by
// ListObjects (v1, markers), keys and common prefixes in order.
func listPaged(t *testing.T, sdk *s3.Client, v1 bool, prefix, delim string, pageSize int32) []string {
	t.Helper()
	var got []string
	var token, marker *string
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("listing does not end")
		}
		var contents []s3types.Object
		var prefixes []s3types.CommonPrefix
		var more bool
		if v1 {
			out, err := sdk.ListObjects(t.Context(), &s3.ListObjectsInput{Bucket: aws.String("src"), Prefix: aws.String(prefix),
				Delimiter: aws.String(delim), MaxKeys: aws.Int32(pageSize), Marker: marker})
			if err != nil {
				t.Fatal(err)
			}
			contents, prefixes, more, marker = out.Contents, out.CommonPrefixes, aws.ToBool(out.IsTruncated), out.NextMarker
		} else {
			out, err := sdk.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String("src"), Prefix: aws.String(prefix),
				Delimiter: aws.String(delim), MaxKeys: aws.Int32(pageSize), ContinuationToken: token})
			if err != nil {
				t.Fatal(err)
			}
			contents, prefixes, more, token = out.Contents, out.CommonPrefixes, aws.ToBool(out.IsTruncated), out.NextContinuationToken
		}
		if n := len(contents) + len(prefixes); n > int(pageSize) {
			t.Fatalf("a page of %d entries, want at most %d", n, pageSize)
		}
		var page []string
		for _, o := range contents {
			page = append(page, aws.ToString(o.Key))
		}
		for _, p := range prefixes {
			page = append(page, aws.ToString(p.Prefix))
		}
		sort.Strings(page)
		got = append(got, page...)
		if !more {
			return got
		}
	}
}

func TestEveryRequestCostsTheDelay(t *testing.T) {
	const delay = 100 * time.Millisecond
	_, c := startRegion(t, simregion.Config{Keys: simregion.ReportKeys(16), Size: 10, Delay: delay})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	keys := simregion.ReportKeys(16)
	src := c.Bucket("src")
	// One after another on one kept-alive connection: each waits.
	begin := time.Now()
	for _, k := range keys[:4] {
		if _, _, err := src.Head(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(begin); d < 4*delay {
		t.Errorf("4 heads one after another took %v, want at least 4 x %v", d, delay)
	}
	// At once: the delay is a round trip, not a queue.
	begin = time.Now()
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Go(func() {
			if _, _, err := src.Head(ctx, k); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if d := time.Since(begin); d < delay || d > 8*delay {
		t.Errorf("16 heads at once took %v, want about %v (not 16 x %v)", d, delay, delay)
	}
}

func TestSlowDownAboveTheRatePerPrefix(t *testing.T) {
	srv, c := startRegion(t, simregion.Config{Keys: simregion.ReportKeys(4), Size: 10,
		Throttle: &faultproxy.Throttle{WriteRate: 20, Depth: 1}})
	ctx := t.Context()
	dst := c.Bucket("dst")
	put := func(key string) error { return dst.Put(ctx, key, strings.NewReader("x"), 1, store.Metadata{}) }
	// A burst of 30 writes to one prefix against 20/s (a bucket of 2
	// tokens): most are SlowDown.
	throttled := 0
	for range 30 {
		switch err := put("busy/k"); {
		case err == nil:
		case retry.Classify(err) == retry.Throttled:
			throttled++
		default:
			t.Fatalf("put: %v, want success or SlowDown", err)
		}
	}
	if throttled < 10 || srv.Stats().Throttled != int64(throttled) {
		t.Errorf("%d of 30 puts throttled, the region counted %d; want most, and the same", throttled, srv.Stats().Throttled)
	}
	// Another prefix has a rate of its own.
	if err := put("quiet/k"); err != nil {
		t.Errorf("a put to another prefix right after: %v, want success", err)
	}
}

// A bucket of the region has ACLs disabled, as S3's made since April 2023:
// a copy from it has no grants to leave behind, and says nothing of them.
func TestBucketsHaveACLsDisabled(t *testing.T) {
	_, c := startRegion(t, simregion.Config{Keys: simregion.ReportKeys(4), Size: 1000})
	own, err := c.Bucket("src").ObjectOwnership(t.Context())
	if err != nil || own != store.OwnershipEnforced {
		t.Errorf("Object Ownership %q, %v; want %q", own, err, store.OwnershipEnforced)
	}
}
