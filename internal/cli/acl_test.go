package cli

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

// aclLine is what a run says once when ACL grants may be left behind.
const aclLine = "ACL grants not copied"

// TestACLGrantsNotCopiedAreSaidOncePerRun: a copy between S3 buckets asks
// the source bucket's Object Ownership once per run, whatever the number
// of objects, and says in one line that ACL grants are not copied unless
// the source has ACLs disabled. versitygw keeps Object Ownership
// (Get/Put/DeleteBucketOwnershipControls; a bucket made without a setting
// gets BucketOwnerEnforced), so every answer but "not implemented" is the
// real server's; that one is a proxy's, as some S3-compatible servers give.
func TestACLGrantsNotCopiedAreSaidOncePerRun(t *testing.T) {
	t.Parallel()
	srv, src, dst := newBucketPair(t)
	c := srv.Client(t)
	for i := range 5 {
		s3test.PutObject(t, c, src, fmt.Sprintf("small-%d", i), []byte("small"))
	}
	s3test.PutObject(t, c, src, "big", make([]byte, 6<<20)) // copied in parts
	var asks atomic.Int64
	var unsupported atomic.Bool
	proxy := hookServer(t, srv, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.URL.Query().Has("ownershipControls") {
			asks.Add(1)
			if unsupported.Load() {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusNotImplemented)
				fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>not implemented</Message></Error>`)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
	own := func(o s3types.ObjectOwnership) func(t *testing.T) {
		return func(t *testing.T) {
			_, err := c.PutBucketOwnershipControls(context.Background(), &s3.PutBucketOwnershipControlsInput{
				Bucket:            aws.String(src),
				OwnershipControls: &s3types.OwnershipControls{Rules: []s3types.OwnershipControlsRule{{ObjectOwnership: o}}},
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	none := func(t *testing.T) {
		if _, err := c.DeleteBucketOwnershipControls(context.Background(), &s3.DeleteBucketOwnershipControlsInput{Bucket: aws.String(src)}); err != nil {
			t.Fatal(err)
		}
	}
	copyAll := func(name string) []string {
		return []string{"cp", "--recursive", "--multipart-threshold", "5MiB", "s3://" + src + "/", "s3://" + dst + "/" + name + "/"}
	}
	tests := []struct {
		name        string
		set         func(t *testing.T)
		unsupported bool
		args        []string
		// want is what the line says; "": no line. asks: requests for the
		// source's Object Ownership in the run.
		want string
		asks int64
	}{
		{"ACLs disabled (versitygw's default): no line", func(*testing.T) {}, false, copyAll("enforced"), "", 1},
		{"ObjectWriter: one line", own(s3types.ObjectOwnershipObjectWriter), false, copyAll("writer"), "Object Ownership ObjectWriter", 1},
		{"BucketOwnerPreferred: one line", own(s3types.ObjectOwnershipBucketOwnerPreferred), false, copyAll("preferred"), "Object Ownership BucketOwnerPreferred", 1},
		{"sync, ACLs enabled: one line", own(s3types.ObjectOwnershipObjectWriter), false,
			[]string{"sync", "s3://" + src + "/", "s3://" + dst + "/sync/"}, "ACLs enabled", 1},
		{"no Object Ownership setting (a bucket from before it): one line", none, false, copyAll("unset"), "no Object Ownership setting", 1},
		{"a server without Object Ownership: one line", own(s3types.ObjectOwnershipBucketOwnerEnforced), true, copyAll("unsupported"), "unknown", 1},
		{"BucketOwnerEnforced again: no line", own(s3types.ObjectOwnershipBucketOwnerEnforced), false, copyAll("enforced-again"), "", 1},
		{"a download: nothing asked, no line", own(s3types.ObjectOwnershipObjectWriter), false,
			[]string{"cp", "--recursive", "s3://" + src + "/", t.TempDir() + "/"}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.set(t)
			unsupported.Store(tt.unsupported)
			asks.Store(0)
			out, stderr, code := runCLI(t, srv, append([]string{"--endpoint-url", proxy}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			var lines []string
			for _, l := range strings.Split(stderr, "\n") {
				if strings.Contains(l, aclLine) {
					lines = append(lines, l)
				}
			}
			switch {
			case tt.want == "" && len(lines) != 0:
				t.Errorf("want no line about ACLs, got:\n%s", stderr)
			case tt.want != "" && (len(lines) != 1 || !strings.Contains(lines[0], tt.want) || !strings.Contains(lines[0], "--acl")):
				t.Errorf("want one line saying %q and naming --acl, got:\n%s", tt.want, stderr)
			}
			if got := asks.Load(); got != tt.asks {
				t.Errorf("%d requests for the source's Object Ownership, want %d", got, tt.asks)
			}
		})
	}
}
