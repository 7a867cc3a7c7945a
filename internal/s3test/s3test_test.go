package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/gateway"
)

func TestMain(m *testing.M) { Main(m) }

func TestObjectsRoundTrip(t *testing.T) {
	srv := Start(t)
	client := srv.Client(t)
	bucket := srv.NewBucket(t)

	keys := []string{
		"plain",
		"dir/nested/file.txt",
		"with space",
		"unicode/żółć/日本語",
		"plus+sign",
		"percent%20literal",
		"equals=sign&amp",
		"tilde~star*paren(1)",
		"question?hash#",
	}
	for i, key := range keys {
		PutObject(t, client, bucket, key, []byte(fmt.Sprintf("body %d", i)))
	}
	for i, key := range keys {
		t.Run("get returns what was put under "+key, func(t *testing.T) {
			got := GetObject(t, client, bucket, key)
			if want := fmt.Sprintf("body %d", i); string(got) != want {
				t.Errorf("body = %q, want %q", got, want)
			}
		})
	}

	t.Run("list returns every key in byte order", func(t *testing.T) {
		want := slices.Sorted(slices.Values(keys))
		if diff := cmp.Diff(want, ListKeys(t, client, bucket, "")); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
	})
	t.Run("list with a prefix returns only keys under it", func(t *testing.T) {
		want := []string{"unicode/żółć/日本語"}
		if diff := cmp.Diff(want, ListKeys(t, client, bucket, "unicode/")); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
	})
}

func TestCopyObjectWorks(t *testing.T) {
	srv := Start(t)
	client := srv.Client(t)
	bucket := srv.NewBucket(t)
	other := srv.NewBucket(t)
	PutObject(t, client, bucket, "src key+1", []byte("copied bytes"))

	_, err := client.CopyObject(context.Background(), &s3.CopyObjectInput{
		Bucket:     aws.String(other),
		Key:        aws.String("dst/key"),
		CopySource: aws.String(bucket + "/src%20key%2B1"),
	})
	if err != nil {
		t.Fatalf("copy: %v", err)
	}
	if got := GetObject(t, client, other, "dst/key"); string(got) != "copied bytes" {
		t.Errorf("copy = %q, want %q", got, "copied bytes")
	}
}

func TestMultipartUploadWorks(t *testing.T) {
	srv := Start(t)
	srv.Require(t, MultipartUploadListing, PartCopy)
	client := srv.Client(t)
	bucket := srv.NewBucket(t)
	ctx := context.Background()

	create, err := client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String("big"),
	})
	if err != nil {
		t.Fatalf("create upload: %v", err)
	}
	if diff := cmp.Diff([]string{"big"}, ListUploads(t, client, bucket)); diff != "" {
		t.Errorf("uploads (-want +got):\n%s", diff)
	}
	part1 := bytes.Repeat([]byte("a"), 5<<20)
	part2 := []byte("tail")
	var parts []types.CompletedPart
	for i, body := range [][]byte{part1, part2} {
		n := int32(i + 1)
		out, err := client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: aws.String(bucket), Key: aws.String("big"), UploadId: create.UploadId,
			PartNumber: aws.Int32(n), Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
		})
		if err != nil {
			t.Fatalf("upload part %d: %v", n, err)
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
	}
	// A part copied server-side exercises UploadPartCopy's size threshold.
	PutObject(t, client, bucket, "src", part1)
	copyOut, err := client.UploadPartCopy(ctx, &s3.UploadPartCopyInput{
		Bucket: aws.String(bucket), Key: aws.String("big"), UploadId: create.UploadId,
		PartNumber: aws.Int32(3), CopySource: aws.String(bucket + "/src"), CopySourceRange: aws.String("bytes=0-9"),
	})
	if err != nil {
		t.Fatalf("upload part copy: %v", err)
	}
	// Part 2 is not the last part any more and is smaller than 5 MiB, so
	// complete with parts 1 and 3 only, which S3 allows.
	parts = []types.CompletedPart{parts[0], {ETag: copyOut.CopyPartResult.ETag, PartNumber: aws.Int32(3)}}
	_, err = client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String("big"), UploadId: create.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	})
	if err != nil {
		t.Fatalf("complete upload: %v", err)
	}
	want := append(append([]byte(nil), part1...), part1[:10]...)
	if got := GetObject(t, client, bucket, "big"); !bytes.Equal(got, want) {
		t.Errorf("assembled object is %d bytes, want %d", len(got), len(want))
	}
	if got := ListUploads(t, client, bucket); len(got) != 0 {
		t.Errorf("uploads after complete = %q, want none", got)
	}
}

func TestBucketCleanupRemovesObjectsAndUploads(t *testing.T) {
	srv := Start(t)
	client := srv.Client(t)
	var bucket string
	t.Run("a test leaves objects and an upload behind", func(t *testing.T) {
		bucket = srv.NewBucket(t)
		PutObject(t, client, bucket, "a/b", []byte("x"))
		PutObject(t, client, bucket, "c", []byte("y"))
		_, err := client.CreateMultipartUpload(context.Background(), &s3.CreateMultipartUploadInput{
			Bucket: aws.String(bucket), Key: aws.String("abandoned"),
		})
		if err != nil {
			t.Fatalf("create upload: %v", err)
		}
	})
	_, err := client.HeadBucket(context.Background(), &s3.HeadBucketInput{Bucket: aws.String(bucket)})
	var nf *types.NotFound
	if !errors.As(err, &nf) {
		t.Errorf("head bucket after cleanup: err = %v, want NotFound", err)
	}
}

func TestRequestsAreAuthenticated(t *testing.T) {
	srv := Start(t)
	bucket := srv.NewBucket(t)
	// versitygw answers an unknown access key with 404 XAdminUserNotFound
	// where AWS answers 403 InvalidAccessKeyId.
	tests := []struct {
		name       string
		needs      Capability
		modify     func(*s3.Options)
		wantCode   []string
		wantStatus []int
	}{
		{"a wrong secret key is refused", Auth, func(o *s3.Options) {
			o.Credentials = credentials.NewStaticCredentialsProvider(srv.AccessKey, "wrong", "")
		}, []string{"SignatureDoesNotMatch"}, []int{403}},
		{"an unknown access key is refused", Auth, func(o *s3.Options) {
			o.Credentials = credentials.NewStaticCredentialsProvider("nobody", srv.SecretKey, "")
		}, []string{"InvalidAccessKeyId", "XAdminUserNotFound"}, []int{403, 404}},
		{"a signature for another region is refused", SigningScope, func(o *s3.Options) {
			o.Region = "eu-west-1"
		}, []string{"AuthorizationHeaderMalformed"}, []int{400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Require(t, tt.needs)
			client := s3.New(srv.Client(t).Options(), tt.modify)
			_, err := client.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("list: err = %v, want an API error", err)
			}
			if !slices.Contains(tt.wantCode, apiErr.ErrorCode()) {
				t.Errorf("error code = %s, want one of %q", apiErr.ErrorCode(), tt.wantCode)
			}
			var respErr *smithyhttp.ResponseError
			if !errors.As(err, &respErr) {
				t.Fatalf("list: err = %v, want an HTTP response error", err)
			}
			if !slices.Contains(tt.wantStatus, respErr.HTTPStatusCode()) {
				t.Errorf("status = %d, want one of %v", respErr.HTTPStatusCode(), tt.wantStatus)
			}
		})
	}
}

func TestHealthPathNeedsNoCredentials(t *testing.T) {
	srv := Start(t)
	srv.Require(t, HealthPath)
	resp, err := http.Get(srv.Endpoint + gateway.HealthPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status = %s, want 200", resp.Status)
	}
}

func TestPrivateServerCanBeStopped(t *testing.T) {
	srv := StartPrivate(t)
	client := srv.Client(t)
	bucket := srv.NewBucket(t)
	PutObject(t, client, bucket, "k", []byte("v"))
	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	_, err := client.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)},
		func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("list after stop: err = %v, want connection refused", err)
	}
}

func TestSharedServerCannotBeStopped(t *testing.T) {
	if err := Start(t).Stop(); err == nil {
		t.Error("stopping the shared server succeeded, want an error")
	}
}

func TestEnvPointsOnlyAtTheServer(t *testing.T) {
	srv := Start(t)
	env := map[string]string{}
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	want := map[string]string{
		"AWS_ACCESS_KEY_ID":     srv.AccessKey,
		"AWS_SECRET_ACCESS_KEY": srv.SecretKey,
		"AWS_REGION":            srv.Region,
		"AWS_ENDPOINT_URL":      srv.Endpoint,
		"AWS_PROFILE":           "",
		"AWS_SESSION_TOKEN":     "",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	for _, k := range []string{"AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"} {
		b, err := os.ReadFile(env[k])
		if err != nil || len(b) != 0 {
			t.Errorf("%s = %q: content %q, err %v; want an empty file", k, env[k], b, err)
		}
	}
}

func TestBucketNameIsValidAndUnique(t *testing.T) {
	tests := []struct {
		name     string
		testName string
	}{
		{"a subtest name with spaces and slashes", "TestX/copies_a file/with spaces"},
		{"a very long name is cut to 63 characters", strings.Repeat("TestLong", 20)},
		{"a name with no letters still works", "///"},
		{"a name ending in punctuation has no trailing dash", "Test!!!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := BucketName(tt.testName, 1), BucketName(tt.testName, 2)
			for _, n := range []string{a, b} {
				if !validBucketName(n) {
					t.Errorf("BucketName(%q) = %q, not a valid bucket name", tt.testName, n)
				}
			}
			if a == b {
				t.Errorf("two sequence numbers gave the same name %q", a)
			}
		})
	}
}

func validBucketName(n string) bool {
	if len(n) < 3 || len(n) > 63 || strings.HasPrefix(n, "-") || strings.HasSuffix(n, "-") || strings.Contains(n, "--") {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func TestTwoPrivateServersAreTwoAccounts(t *testing.T) {
	a := StartPrivate(t, WithCredentials("account-a", "secret-of-a"))
	b := StartPrivate(t, WithCredentials("account-b", "secret-of-b"))
	if a.Endpoint == b.Endpoint {
		t.Fatalf("both servers listen on %s", a.Endpoint)
	}
	bucket := a.NewBucket(t)
	PutObject(t, a.Client(t), bucket, "k", []byte("v"))
	if got := ListKeys(t, a.Client(t), bucket, ""); !slices.Equal(got, []string{"k"}) {
		t.Errorf("server a lists %v, want [k]", got)
	}
	// b has its own data directory: a's bucket is not there.
	_, err := b.Client(t).HeadBucket(context.Background(), &s3.HeadBucketInput{Bucket: aws.String(bucket)})
	if err == nil {
		t.Errorf("server b has server a's bucket %s", bucket)
	}
	// And its own credentials: a's are refused.
	wrong := *b
	wrong.AccessKey, wrong.SecretKey = a.AccessKey, a.SecretKey
	_, err = wrong.Client(t).ListBuckets(context.Background(), &s3.ListBucketsInput{},
		func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	// versitygw answers an unknown access key with 404 XAdminUserNotFound
	// where S3 says 403 InvalidAccessKeyId.
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || !slices.Contains([]string{"XAdminUserNotFound", "InvalidAccessKeyId"}, apiErr.ErrorCode()) {
		t.Errorf("server b with server a's credentials: err = %v, want an unknown access key", err)
	}
}

// TestCapabilities probes every capability: against an external endpoint
// it lists what the server lacks (go test -v); the embedded gateway has
// them all.
func TestCapabilities(t *testing.T) {
	srv := Start(t)
	caps := make([]Capability, 0, len(probes))
	for c := range probes {
		caps = append(caps, c)
	}
	slices.Sort(caps)
	for _, c := range caps {
		t.Run(string(c), func(t *testing.T) {
			if srv.child != nil {
				// Probed here only, so that the probes themselves are
				// known to pass on a server that has everything.
				if err := srv.probe(t, c); err != nil {
					t.Errorf("the embedded gateway fails the probe for %s: %v", c, err)
				}
				return
			}
			srv.Require(t, c)
		})
	}
}
