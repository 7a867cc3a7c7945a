package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// Conn is how every method reaches S3: the loaded AWS config (credentials,
// region, HTTP client) and the endpoint settings the CLI's global flags set.
// External tools get the same endpoint and credentials through flags and
// environment variables.
type Conn struct {
	AWS aws.Config
	// Endpoint is a custom S3 endpoint URL; empty for AWS.
	Endpoint string
	// PathStyle addresses buckets in the path, as most S3-compatible
	// servers need.
	PathStyle bool
	// ChecksumWhenRequired sends request checksums only where the API
	// requires them, for servers that reject the SDK's default CRC trailers.
	ChecksumWhenRequired bool
	// ToolEnv is added to the environment of external tools, after this
	// process's and before the run's credentials.
	ToolEnv []string
}

// Client builds an SDK client that counts every HTTP attempt in counter
// (when not nil) and makes at most maxAttempts attempts per request (0: the
// SDK's default).
func (c Conn) Client(counter *s3store.RequestCounter, maxAttempts int) *s3.Client {
	return s3.NewFromConfig(c.AWS, func(o *s3.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
		o.UsePathStyle = c.PathStyle
		if c.ChecksumWhenRequired {
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
		if maxAttempts > 0 {
			o.RetryMaxAttempts = maxAttempts
		}
		if counter != nil {
			o.APIOptions = append(o.APIOptions, counter.APIOption)
		}
	})
}

// toolEnv is the environment of an external tool: this process's, with the
// credentials and region of the run put first in line.
func (c Conn) toolEnv(ctx context.Context) ([]string, error) {
	env := append(os.Environ(), c.ToolEnv...)
	if c.AWS.Credentials != nil {
		creds, err := c.AWS.Credentials.Retrieve(ctx)
		if err != nil {
			return nil, fmt.Errorf("retrieve credentials for external tools: %w", err)
		}
		env = append(env,
			"AWS_ACCESS_KEY_ID="+creds.AccessKeyID,
			"AWS_SECRET_ACCESS_KEY="+creds.SecretAccessKey,
			"AWS_SESSION_TOKEN="+creds.SessionToken,
			// A profile would win over the keys above in some tools.
			"AWS_PROFILE=", "AWS_DEFAULT_PROFILE=",
		)
	}
	if c.AWS.Region != "" {
		env = append(env, "AWS_REGION="+c.AWS.Region, "AWS_DEFAULT_REGION="+c.AWS.Region)
	}
	if c.ChecksumWhenRequired {
		env = append(env, "AWS_REQUEST_CHECKSUM_CALCULATION=when_required", "AWS_RESPONSE_CHECKSUM_VALIDATION=when_required")
	}
	return cleanEnv(env), nil
}

// cleanEnv keeps the last value of each variable and drops the AWS ones set
// to "": the AWS CLI reads AWS_PROFILE="" as a profile named "" and fails,
// where unset means the default.
func cleanEnv(env []string) []string {
	last := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	out := make([]string, 0, len(last))
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if last[k] != i || (v == "" && strings.HasPrefix(k, "AWS_")) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// withoutEnv returns env less the variable key, and its value.
func withoutEnv(env []string, key string) ([]string, string) {
	out := env[:0:0]
	var val string
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			val = v
			continue
		}
		out = append(out, kv)
	}
	return out, val
}

// Target is a bucket and a key prefix, "" or ending in "/".
type Target struct {
	Bucket string
	Prefix string
}

// ParseTarget reads s3://bucket/prefix; a prefix gets a trailing slash so
// that "s3://b/p" never matches keys under "p2/".
func ParseTarget(s string) (Target, error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return Target{}, fmt.Errorf("parse %q: want s3://bucket/prefix", s)
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return Target{}, fmt.Errorf("parse %q: no bucket", s)
	}
	if strings.ContainsAny(prefix, "*?[") {
		return Target{}, fmt.Errorf("parse %q: wildcards are not supported here, give a prefix", s)
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return Target{Bucket: bucket, Prefix: prefix}, nil
}

// String formats t as s3://bucket/prefix.
func (t Target) String() string { return "s3://" + t.Bucket + "/" + t.Prefix }

// overlaps reports whether one target contains the other: clearing the
// destination would then delete source objects.
func (t Target) overlaps(u Target) bool {
	return t.Bucket == u.Bucket && (strings.HasPrefix(t.Prefix, u.Prefix) || strings.HasPrefix(u.Prefix, t.Prefix))
}

// ErrNotRun marks a method that cannot run in this environment (Batch
// Operations off AWS): Run reports it as not-run, with its estimated cost.
var ErrNotRun = errors.New("cannot run here")
