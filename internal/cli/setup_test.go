package cli

import (
	"crypto/sha256"
	"fmt"
	"io"
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

// newBucket starts (or joins) the test server, skips t unless the server
// has every capability in needs, and makes t a fresh bucket on it.
func newBucket(t *testing.T, needs ...s3test.Capability) (*s3test.Server, string) {
	t.Helper()
	srv := s3test.Start(t)
	srv.Require(t, needs...)
	return srv, srv.NewBucket(t)
}

// newBucketPair is newBucket with two buckets: a source and a destination.
func newBucketPair(t *testing.T, needs ...s3test.Capability) (srv *s3test.Server, src, dst string) {
	t.Helper()
	srv, src = newBucket(t, needs...)
	return srv, src, srv.NewBucket(t)
}

// sha256Of reads r to its end and returns the SHA-256 of what it read,
// failing t unless that was size bytes.
func sha256Of(t *testing.T, r io.Reader, size int64) []byte {
	t.Helper()
	h := sha256.New()
	if n, err := io.Copy(h, r); err != nil || n != size {
		t.Fatalf("read back %d bytes (%v), want %d", n, err, size)
	}
	return h.Sum(nil)
}

// seedEmpty puts n empty objects, named fmt.Sprintf(format, i), in bucket
// with one recursive cp: quicker than n requests from the test.
func seedEmpty(t *testing.T, srv *s3test.Server, bucket, format string, n int) {
	t.Helper()
	local := t.TempDir()
	files := make(map[string]string, n)
	for i := range n {
		files[fmt.Sprintf(format, i)] = ""
	}
	testfs.Write(t, local, files)
	mustRun(t, srv, "--quiet", "cp", "--recursive", local+"/", "s3://"+bucket+"/")
}
