package compattest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/cli"
	"github.com/s3bulk/s3bulk/internal/s3test"
)

// props is what the properties cases compare of a destination object:
// its tags (encoded, keys sorted), content headers and user metadata.
type props struct {
	Tags, ContentType, CacheControl, User string
}

// sourceProps is every source object's.
var sourceProps = props{Tags: "cost=42&team=blue", ContentType: "text/x-props", CacheControl: "max-age=60", User: "owner=ann"}

// propsCase is one `cp` of a tagged object with metadata, S3 to S3.
type propsCase struct {
	name string
	size int
	// v2 is what the AWS CLI v2 does, from its documentation: `cp` has
	// --copy-props, whose default copies "tags and properties covered
	// under the metadata-directive value" (content-type, -language,
	// -encoding, -disposition, cache-control, expires, metadata) also for
	// multipart copies, with HeadObject, GetObjectTagging and
	// PutObjectTagging calls. The v1 here has no --copy-props, so v2
	// cannot be run: its documented behaviour is the contract, and
	// s3bulk is held to it.
	v2 props
	// v1 is what the AWS CLI v1 does, checked when it runs live: its
	// CopyObject keeps everything; its multipart copy keeps nothing (no
	// tags, no metadata: the server's default content type), as its
	// documentation of --metadata-directive warns.
	v1 props
}

var propsCases = []propsCase{
	{name: "props/cp-small", size: 1 << 10, v2: sourceProps, v1: sourceProps},
	{name: "props/cp-multipart", size: 9 << 20, v2: sourceProps,
		v1: props{ContentType: "binary/octet-stream"}},
}

// TestCopyKeepsTagsAndMetadata runs each props case through s3bulk, held
// to the AWS CLI v2's documented behaviour, and through the AWS CLI where
// it is installed, held to what that version does. Both multipart copies
// use 8 MiB parts from 8 MiB on, the AWS CLI's default.
func TestCopyKeepsTagsAndMetadata(t *testing.T) {
	srv := s3test.Start(t)
	aws := findAWS()
	for _, c := range propsCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			client := srv.Client(t)
			src := srv.NewBucket(t)
			seedTagged(t, client, src, "k", c.size)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()

			dst := srv.NewBucket(t)
			var out, errOut bytes.Buffer
			args := []string{"--no-progress", "cp", "--multipart-threshold", "8MiB", "--part-size", "8MiB", "s3://" + src + "/k", "s3://" + dst + "/k"}
			if code := cli.Run(ctx, args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut, Env: srv.Env()}); code != 0 {
				t.Fatalf("s3bulk %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
			}
			if d := cmp.Diff(c.v2, propsOf(t, client, dst, "k")); d != "" {
				t.Errorf("s3bulk differs from the AWS CLI v2's documented --copy-props default (-v2 +s3bulk):\n%s", d)
			}

			if !aws.live() {
				t.Logf("aws: not run (%s)", aws.why)
				return
			}
			awsDst := srv.NewBucket(t)
			awsArgs := []string{"s3", "cp", "s3://" + src + "/k", "s3://" + awsDst + "/k", "--endpoint-url", srv.Endpoint}
			stdout, stderr, code, err := runPeer(ctx, srv, aws.path, t.TempDir(), awsArgs)
			if err != nil || code != 0 {
				t.Fatalf("aws %s: exit %d, %v\n%s%s", strings.Join(awsArgs, " "), code, err, stdout, stderr)
			}
			got := propsOf(t, client, awsDst, "k")
			v, _, _, _ := runPeer(ctx, srv, aws.path, t.TempDir(), []string{"--version"})
			want := c.v1
			if !strings.HasPrefix(v, "aws-cli/1.") {
				want = c.v2
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s no longer does what the case says (-case +aws):\n%s", strings.TrimSpace(v), d)
			}
		})
	}
}

// seedTagged puts key, size bytes, with sourceProps.
func seedTagged(t *testing.T, c *s3.Client, bucket, key string, size int) {
	t.Helper()
	_, err := c.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(bytes.Repeat([]byte{'p'}, size)),
		ContentType: aws.String(sourceProps.ContentType), CacheControl: aws.String(sourceProps.CacheControl),
		Metadata: map[string]string{"owner": "ann"}, Tagging: aws.String(sourceProps.Tags),
	})
	if err != nil {
		t.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
}

// propsOf reads key's props with a HeadObject and a GetObjectTagging.
func propsOf(t *testing.T, c *s3.Client, bucket, key string) props {
	t.Helper()
	ctx := context.Background()
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("head s3://%s/%s: %v", bucket, key, err)
	}
	tags, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get tags of s3://%s/%s: %v", bucket, key, err)
	}
	return props{Tags: encode(tags.TagSet), ContentType: aws.ToString(head.ContentType), CacheControl: aws.ToString(head.CacheControl), User: pairs(head.Metadata)}
}

func encode(set []s3types.Tag) string {
	m := map[string]string{}
	for _, t := range set {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return pairs(m)
}

func pairs(m map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, fmt.Sprintf("%s=%s", k, m[k]))
	}
	return strings.Join(kv, "&")
}
