package s3store

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestWithEnvTakesTheEnvironmentAsTheSDKWould checks the precedence of the
// AWS_ variables a Config reads from an environment of its own against the SDK's:
// what a flag set wins, a named profile's credentials beat the
// environment's, the first variable of each list wins.
func TestWithEnvTakesTheEnvironmentAsTheSDKWould(t *testing.T) {
	t.Parallel()
	keys := []string{"AWS_ACCESS_KEY_ID=id", "AWS_SECRET_ACCESS_KEY=secret", "AWS_SESSION_TOKEN=token"}
	tests := []struct {
		name string
		env  []string
		cfg  Config // what the flags set
		want Config
	}{
		{"nothing set is nothing", []string{}, Config{}, Config{}},
		{"keys become static credentials", keys, Config{},
			Config{AccessKey: "id", SecretKey: "secret", SessionToken: "token"}},
		{"a key without its secret is no credential", []string{"AWS_ACCESS_KEY_ID=id"}, Config{}, Config{}},
		{"the old names of the keys count", []string{"AWS_ACCESS_KEY=id", "AWS_SECRET_KEY=secret"}, Config{},
			Config{AccessKey: "id", SecretKey: "secret"}},
		{"a profile flag wins over the keys", keys, Config{Profile: "p"}, Config{Profile: "p"}},
		{"the keys win over AWS_PROFILE, which still names the profile", append([]string{"AWS_PROFILE=p"}, keys...), Config{},
			Config{Profile: "p", AccessKey: "id", SecretKey: "secret", SessionToken: "token"}},
		{"AWS_PROFILE before AWS_DEFAULT_PROFILE", []string{"AWS_DEFAULT_PROFILE=d", "AWS_PROFILE=p"}, Config{}, Config{Profile: "p"}},
		{"AWS_DEFAULT_PROFILE alone", []string{"AWS_DEFAULT_PROFILE=d", "AWS_PROFILE="}, Config{}, Config{Profile: "d"}},
		{"AWS_REGION before AWS_DEFAULT_REGION", []string{"AWS_DEFAULT_REGION=d", "AWS_REGION=r"}, Config{}, Config{Region: "r"}},
		{"--region wins", []string{"AWS_REGION=r"}, Config{Region: "flag"}, Config{Region: "flag"}},
		{"the S3 endpoint before the global one", []string{"AWS_ENDPOINT_URL=http://g", "AWS_ENDPOINT_URL_S3=http://s3"}, Config{},
			Config{EndpointURL: "http://s3"}},
		{"the global endpoint alone", []string{"AWS_ENDPOINT_URL=http://g"}, Config{}, Config{EndpointURL: "http://g"}},
		{"endpoints ignored when asked", []string{"AWS_ENDPOINT_URL=http://g", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true"}, Config{}, Config{}},
		{"--endpoint-url wins", []string{"AWS_ENDPOINT_URL=http://g"}, Config{EndpointURL: "http://flag"}, Config{EndpointURL: "http://flag"}},
		{"config and credentials files", []string{"AWS_CONFIG_FILE=/c", "AWS_SHARED_CREDENTIALS_FILE=/k"}, Config{},
			Config{ConfigFiles: []string{"/c"}, CredentialsFiles: []string{"/k"}}},
		{"attempts", []string{"AWS_MAX_ATTEMPTS=3"}, Config{}, Config{MaxAttempts: 3}},
		{"attempts that are no number are the default", []string{"AWS_MAX_ATTEMPTS=many"}, Config{}, Config{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for _, kv := range tt.env {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			got := tt.cfg.WithEnv(func(k string) string { return env[k] })
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(Config{})); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}
