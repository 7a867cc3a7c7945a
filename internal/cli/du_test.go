package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/internal/testfs"
)

func TestDu(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	c := srv.Client(t)
	s3test.PutObject(t, c, bucket, "logs/a.json", make([]byte, 1000))
	s3test.PutObject(t, c, bucket, "logs/sub/b.json", make([]byte, 2000))
	s3test.PutObject(t, c, bucket, "logs/c.txt", make([]byte, 3000))
	s3test.PutObject(t, c, bucket, "logs2/d.json", make([]byte, 4000))
	local := t.TempDir()
	testfs.Write(t, local, map[string]string{"x/1": "12345", "x/2": "123", "y": "1"})

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a prefix counts everything below it, not its siblings", []string{"du", "s3://" + bucket + "/logs"}, "6000 bytes in 3 objects: s3://" + bucket + "/logs\n"},
		{"a wildcard counts its matches", []string{"du", "s3://" + bucket + "/**.json"}, "7000 bytes in 3 objects: s3://" + bucket + "/**.json\n"},
		{"filters apply", []string{"du", "--min-size", "2000", "--exclude", "*.txt", "s3://" + bucket}, "6000 bytes in 2 objects: s3://" + bucket + "\n"},
		{"human sizes", []string{"du", "-H", "s3://" + bucket}, "9.8 KiB in 4 objects: s3://" + bucket + "\n"},
		{"by storage class", []string{"du", "--group", "s3://" + bucket + "/logs/"}, "6000 bytes in 3 objects STANDARD: s3://" + bucket + "/logs/\n"},
		{"nothing there is zero", []string{"du", "s3://" + bucket + "/none/"}, "0 bytes in 0 objects: s3://" + bucket + "/none/\n"},
		{"a local directory", []string{"du", local}, "9 bytes in 3 objects: " + local + "\n"},
		{"a local file", []string{"du", local + "/x/1"}, "5 bytes in 1 object: " + local + "/x/1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, mustRun(t, srv, tt.args...)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		out := mustRun(t, srv, "--json", "du", "s3://"+bucket+"/logs/")
		want := `{"url":"s3://` + bucket + `/logs/","objects":3,"bytes":6000}` + "\n"
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("output (-want +got):\n%s", diff)
		}
	})
	t.Run("a missing bucket is fatal", func(t *testing.T) {
		_, errOut, code := runCLI(t, srv, "du", "s3://"+missing(t, 53)+"/")
		if code != ExitFatal || !strings.Contains(errOut, missing(t, 53)) {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}
