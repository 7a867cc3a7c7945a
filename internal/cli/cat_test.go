package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestCat(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	s3test.PutObject(t, srv.Client(t), bucket, "dir/big.bin", big)
	s3test.PutObject(t, srv.Client(t), bucket, "with space.txt", []byte("hello\n"))

	if out := mustRun(t, srv, "cat", "s3://"+bucket+"/dir/big.bin"); out != string(big) {
		t.Errorf("cat wrote %d bytes, want the object's %d", len(out), len(big))
	}
	if out := mustRun(t, srv, "cat", "s3://"+bucket+"/with space.txt"); out != "hello\n" {
		t.Errorf("cat wrote %q", out)
	}
	tests := []struct {
		name, message string
		args          []string
		code          int
	}{
		{"a missing key is fatal", "no such object", []string{"cat", "s3://" + bucket + "/nope"}, ExitFatal},
		{"a prefix is a usage error", "not an object", []string{"cat", "s3://" + bucket + "/dir/"}, ExitUsage},
		{"a wildcard is a usage error", "not a wildcard", []string{"cat", "s3://" + bucket + "/*.txt"}, ExitUsage},
		{"a local path is a usage error", "s3://", []string{"cat", "./x"}, ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, srv, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.message) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d mentioning %q", code, out, errOut, tt.code, tt.message)
			}
		})
	}
}
