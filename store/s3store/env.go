package s3store

import "strconv"

// EnvEndpointURL is the S3 endpoint an environment names, by the SDK's
// rule: AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, neither when
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true. getenv reads the
// environment ("" for unset).
func EnvEndpointURL(getenv func(string) string) string {
	if ignore, _ := strconv.ParseBool(getenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")); ignore {
		return ""
	}
	return firstEnv(getenv, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
}

// WithEnv fills what c leaves empty from the AWS_ variables that pick an
// account and an endpoint, read with getenv, with the precedence the SDK
// gives them, so that a client depends on that environment and not the
// process's (a program that runs commands for others, or tests in
// parallel):
//
//   - credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with
//     AWS_SESSION_TOKEN), unless c names a profile, whose credentials win;
//   - profile: AWS_PROFILE, AWS_DEFAULT_PROFILE;
//   - region: AWS_REGION, AWS_DEFAULT_REGION (over the profile's);
//   - endpoint: see EnvEndpointURL;
//   - files: AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE;
//   - attempts: AWS_MAX_ATTEMPTS.
//
// The SDK still reads the rest (CA bundle, IMDS, web identity, container
// credentials) from the process.
func (c Config) WithEnv(getenv func(string) string) Config {
	if c.AccessKey == "" && c.SecretKey == "" && c.Profile == "" {
		id, secret := firstEnv(getenv, "AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY"), firstEnv(getenv, "AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY")
		if id != "" && secret != "" {
			c.AccessKey, c.SecretKey, c.SessionToken = id, secret, getenv("AWS_SESSION_TOKEN")
		}
	}
	if c.Profile == "" {
		c.Profile = firstEnv(getenv, "AWS_PROFILE", "AWS_DEFAULT_PROFILE")
	}
	if c.Region == "" {
		c.Region = firstEnv(getenv, "AWS_REGION", "AWS_DEFAULT_REGION")
	}
	if c.EndpointURL == "" {
		c.EndpointURL = EnvEndpointURL(getenv)
	}
	if f := getenv("AWS_CONFIG_FILE"); f != "" && c.ConfigFiles == nil {
		c.ConfigFiles = []string{f}
	}
	if f := getenv("AWS_SHARED_CREDENTIALS_FILE"); f != "" && c.CredentialsFiles == nil {
		c.CredentialsFiles = []string{f}
	}
	if n, err := strconv.Atoi(getenv("AWS_MAX_ATTEMPTS")); err == nil && n > 0 && c.MaxAttempts == 0 {
		c.MaxAttempts = n
	}
	return c
}

// firstEnv is the first of keys set to a non-empty value, as the SDK reads
// its lists of variables (AWS_REGION, then AWS_DEFAULT_REGION).
func firstEnv(getenv func(string) string, keys ...string) string {
	for _, k := range keys {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return ""
}
