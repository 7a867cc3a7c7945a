package cli

import (
	"os"
	"strconv"
	"strings"

	"github.com/s3bulk/s3bulk/store/s3store"
)

// environ is the environment one Run sees: Stdio.Env, else the process's.
// Every variable s3bulk reads goes through it, so that tests can give each
// command line its own environment and run in parallel.
type environ map[string]string

// newEnviron reads "KEY=value" entries; the last of a repeated key wins,
// as for exec.Cmd.Env. nil reads the process's environment.
func newEnviron(kv []string) environ {
	if kv == nil {
		kv = os.Environ()
	}
	e := environ{}
	for _, s := range kv {
		if k, v, ok := strings.Cut(s, "="); ok && k != "" {
			e[k] = v
		}
	}
	return e
}

func (e environ) get(key string) string { return e[key] }

func (e environ) lookup(key string) (string, bool) {
	v, ok := e[key]
	return v, ok
}

// first returns the first of keys set to a non-empty value, as the AWS SDK
// reads its lists of variables (AWS_REGION, then AWS_DEFAULT_REGION).
func (e environ) first(keys ...string) string {
	for _, k := range keys {
		if v := e[k]; v != "" {
			return v
		}
	}
	return ""
}

// list is the environment as os.Environ returns it, for a child process.
func (e environ) list() []string {
	out := make([]string, 0, len(e))
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

// tempDir is os.TempDir for this environment.
func (e environ) tempDir() string {
	if d := e.get("TMPDIR"); d != "" {
		return d
	}
	return os.TempDir()
}

// endpointURL is the S3 endpoint the environment names, by the SDK's rule:
// AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, neither when
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true.
func (e environ) endpointURL() string {
	if ignore, _ := strconv.ParseBool(e.get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")); ignore {
		return ""
	}
	return e.first("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
}

// s3Config fills what cfg leaves empty from the AWS_ variables that pick an
// account and an endpoint, with the precedence the SDK gives them, so that
// an S3 client depends on this environment and not the process's:
//
//   - credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with
//     AWS_SESSION_TOKEN), unless cfg names a profile, whose credentials win;
//   - profile: AWS_PROFILE, AWS_DEFAULT_PROFILE;
//   - region: AWS_REGION, AWS_DEFAULT_REGION (over the profile's);
//   - endpoint: see endpointURL;
//   - files: AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE;
//   - attempts: AWS_MAX_ATTEMPTS.
//
// The SDK still reads the rest (CA bundle, IMDS, web identity, container
// credentials) from the process.
func (e environ) s3Config(cfg s3store.Config) s3store.Config {
	if cfg.AccessKey == "" && cfg.SecretKey == "" && cfg.Profile == "" {
		id, secret := e.first("AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY"), e.first("AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY")
		if id != "" && secret != "" {
			cfg.AccessKey, cfg.SecretKey, cfg.SessionToken = id, secret, e.get("AWS_SESSION_TOKEN")
		}
	}
	if cfg.Profile == "" {
		cfg.Profile = e.first("AWS_PROFILE", "AWS_DEFAULT_PROFILE")
	}
	if cfg.Region == "" {
		cfg.Region = e.first("AWS_REGION", "AWS_DEFAULT_REGION")
	}
	if cfg.EndpointURL == "" {
		cfg.EndpointURL = e.endpointURL()
	}
	if f := e.get("AWS_CONFIG_FILE"); f != "" && cfg.ConfigFiles == nil {
		cfg.ConfigFiles = []string{f}
	}
	if f := e.get("AWS_SHARED_CREDENTIALS_FILE"); f != "" && cfg.CredentialsFiles == nil {
		cfg.CredentialsFiles = []string{f}
	}
	if n, err := strconv.Atoi(e.get("AWS_MAX_ATTEMPTS")); err == nil && n > 0 && cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = n
	}
	return cfg
}
