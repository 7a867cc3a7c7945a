package s3store

import (
	"os"
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestMain(m *testing.M) {
	// NewClient reads the shared AWS config like the CLI does; a developer's
	// ~/.aws must not change what these tests see. The empty files are
	// os.DevNull: a temporary file would outlive the binary, since
	// s3test.Main ends it with os.Exit (deferred calls never run).
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE":             os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		os.Setenv(k, v)
	}
	for _, k := range []string{"AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_MAX_ATTEMPTS"} {
		os.Unsetenv(k)
	}
	s3test.Main(m)
}
