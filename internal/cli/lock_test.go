package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

// lockOf is an object's Object Lock settings as the server answers
// GetObjectRetention and GetObjectLegalHold (not HEAD: what a copy is
// checked by must not be what it read its source by).
type lockState struct {
	Mode, Until, Hold string
}

func lockOf(t *testing.T, c *s3.Client, bucket, key string) lockState {
	t.Helper()
	ctx := context.Background()
	var l lockState
	r, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	switch {
	case err == nil && r.Retention != nil:
		l.Mode = string(r.Retention.Mode)
		if r.Retention.RetainUntilDate != nil {
			l.Until = r.Retention.RetainUntilDate.UTC().Format(time.RFC3339)
		}
	case err != nil && !noLockSetting(err):
		t.Fatalf("get retention of s3://%s/%s: %v", bucket, key, err)
	}
	h, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	switch {
	case err == nil && h.LegalHold != nil:
		l.Hold = string(h.LegalHold.Status)
	case err != nil && !noLockSetting(err):
		t.Fatalf("get legal hold of s3://%s/%s: %v", bucket, key, err)
	}
	return l
}

// noLockSetting reports the answer for an object without that setting.
func noLockSetting(err error) bool {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.ErrorCode() {
	case "NoSuchObjectLockConfiguration", "ObjectLockConfigurationNotFoundError":
		return true
	}
	return false
}

func putLocked(t *testing.T, c *s3.Client, bucket, key, body string, l lockState) {
	t.Helper()
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body),
		ContentLength: aws.Int64(int64(len(body)))}
	if l.Mode != "" {
		until, err := time.Parse(time.RFC3339, l.Until)
		if err != nil {
			t.Fatal(err)
		}
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = types.ObjectLockMode(l.Mode), &until
	}
	in.ObjectLockLegalHoldStatus = types.ObjectLockLegalHoldStatus(l.Hold)
	if _, err := c.PutObject(context.Background(), in); err != nil {
		t.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
}

// TestObjectLockCarried is the table of Object Lock x path: each cell
// writes one object into a bucket with Object Lock and reads back what it
// got with GetObjectRetention and GetObjectLegalHold of its own. Tests use
// GOVERNANCE mode only, which the cleanup bypasses.
func TestObjectLockCarried(t *testing.T) {
	t.Parallel()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	other := s3test.Start(t) // a second endpoint: objects stream between the two
	oc := other.Client(t)
	src := srv.NewVersionedBucket(t, s3test.BucketOptions{ObjectLock: true})
	dst := srv.NewVersionedBucket(t, s3test.BucketOptions{ObjectLock: true})
	far := other.NewBucket(t)

	until := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Second)
	srcLock := lockState{Mode: "GOVERNANCE", Until: until.Format(time.RFC3339), Hold: "ON"}
	putLocked(t, c, src, "small", "small body", srcLock)
	big := strings.Repeat("b", 6<<20)
	putLocked(t, c, src, "big", big, srcLock)
	s3test.PutObject(t, oc, far, "far", []byte("from another endpoint"))
	local := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(local, []byte("upload"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(3 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	fixed := []string{"--object-lock-mode", "GOVERNANCE", "--object-lock-retain-until-date", later, "--object-lock-legal-hold", "ON"}
	copyAll := []string{"--object-lock-mode", "copy", "--object-lock-retain-until-date", "copy", "--object-lock-legal-hold", "copy"}
	parts := []string{"--multipart-threshold", "5MiB", "--part-size", "5MiB"}
	fixedLock := lockState{Mode: "GOVERNANCE", Until: later, Hold: "ON"}

	cat := func(a ...[]string) []string {
		var out []string
		for _, x := range a {
			out = append(out, x...)
		}
		return out
	}
	tests := []struct {
		name string
		args []string
		key  string
		want lockState
	}{
		{"server-side copy, copy: the source's settings", cat([]string{"cp"}, copyAll, []string{"s3://" + src + "/small", "s3://" + dst + "/copy"}), "copy", srcLock},
		{"server-side copy, no flags: none (as CopyObject)", []string{"cp", "s3://" + src + "/small", "s3://" + dst + "/plain"}, "plain", lockState{}},
		{"server-side copy, fixed values", cat([]string{"cp"}, fixed, []string{"s3://" + src + "/small", "s3://" + dst + "/fixed"}), "fixed", fixedLock},
		{"multipart copy, copy: the source's settings", cat([]string{"cp"}, copyAll, parts, []string{"s3://" + src + "/big", "s3://" + dst + "/parts"}), "parts", srcLock},
		{"multipart copy, fixed values", cat([]string{"cp"}, fixed, parts, []string{"s3://" + src + "/big", "s3://" + dst + "/parts-fixed"}), "parts-fixed", fixedLock},
		{"server-side copy, copy with --copy-props none: the source's settings", cat([]string{"cp", "--copy-props", "none"}, copyAll, []string{"s3://" + src + "/small", "s3://" + dst + "/none"}), "none", srcLock},
		{"multipart copy, copy with --copy-props none: the source's settings", cat([]string{"cp", "--copy-props", "none"}, copyAll, parts, []string{"s3://" + src + "/big", "s3://" + dst + "/parts-none"}), "parts-none", srcLock},
		{"legal hold alone, copied", []string{"cp", "--object-lock-legal-hold", "copy", "s3://" + src + "/small", "s3://" + dst + "/hold"}, "hold", lockState{Hold: "ON"}},
		{"stream from another endpoint, fixed values", cat([]string{"cp", "--source-endpoint-url", other.Endpoint}, fixed, []string{"s3://" + far + "/far", "s3://" + dst + "/far"}), "far", fixedLock},
		{"upload, fixed values", cat([]string{"cp"}, fixed, []string{local, "s3://" + dst + "/up"}), "up", fixedLock},
		{"move, copy: the source's settings", cat([]string{"mv"}, copyAll, []string{"s3://" + dst + "/copy", "s3://" + dst + "/moved"}), "moved", srcLock},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustRun(t, srv, tt.args...)
			if diff := cmp.Diff(tt.want, lockOf(t, c, dst, tt.key)); diff != "" {
				t.Errorf("Object Lock of s3://%s/%s (-want +got):\n%s", dst, tt.key, diff)
			}
		})
	}
}

func TestObjectLockBadInput(t *testing.T) {
	t.Parallel()
	srv := s3test.StartVersioned(t)
	c := srv.Client(t)
	src := srv.NewVersionedBucket(t, s3test.BucketOptions{Versioning: types.BucketVersioningStatusEnabled})
	plain := srv.NewBucket(t)
	s3test.PutObject(t, c, src, "k", []byte("v"))
	later := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a bucket without Object Lock", []string{"cp", "--object-lock-legal-hold", "ON", "--recursive", "s3://" + src + "/", "s3://" + plain + "/"}, "has no Object Lock"},
		{"a mode without a date", []string{"cp", "--object-lock-mode", "GOVERNANCE", "s3://" + src + "/k", "s3://" + plain + "/k"}, "a retention needs both"},
		{"a mode copied, a date given", []string{"cp", "--object-lock-mode", "copy", "--object-lock-retain-until-date", later, "s3://" + src + "/k", "s3://" + plain + "/k"}, "copied whole"},
		{"a date in the past", []string{"cp", "--object-lock-mode", "GOVERNANCE", "--object-lock-retain-until-date", "2020-01-01", "s3://" + src + "/k", "s3://" + plain + "/k"}, "must be in the future"},
		{"a date that is none", []string{"cp", "--object-lock-mode", "GOVERNANCE", "--object-lock-retain-until-date", "tomorrow", "s3://" + src + "/k", "s3://" + plain + "/k"}, "want an RFC 3339 time"},
		{"an unknown mode", []string{"cp", "--object-lock-mode", "forever", "--object-lock-retain-until-date", later, "s3://" + src + "/k", "s3://" + plain + "/k"}, "want GOVERNANCE, COMPLIANCE or copy"},
		{"an unknown legal hold", []string{"cp", "--object-lock-legal-hold", "yes", "s3://" + src + "/k", "s3://" + plain + "/k"}, "want ON, OFF or copy"},
		{"a local destination", []string{"cp", "--object-lock-legal-hold", "ON", "s3://" + src + "/k", t.TempDir() + "/"}, "is local"},
		{"copy from a local source", []string{"cp", "--object-lock-legal-hold", "copy", "go.mod", "s3://" + plain + "/k"}, "is local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, srv, tt.args...)
			lines := errorLines(errOut)
			if code != ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], tt.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and one line saying %q", code, out, errOut, tt.want)
			}
		})
	}
	if keys := s3test.ListKeys(t, c, plain, ""); len(keys) != 0 {
		t.Errorf("bad input wrote %v", keys)
	}
}
