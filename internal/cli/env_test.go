package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/s3bulk/s3bulk/store/s3store"
)

// TestS3ConfigTakesTheEnvironmentAsTheSDKWould checks the precedence of the
// AWS_ variables s3bulk reads from its own environment against the SDK's:
// what a flag set wins, a named profile's credentials beat the
// environment's, the first variable of each list wins.
func TestS3ConfigTakesTheEnvironmentAsTheSDKWould(t *testing.T) {
	t.Parallel()
	keys := []string{"AWS_ACCESS_KEY_ID=id", "AWS_SECRET_ACCESS_KEY=secret", "AWS_SESSION_TOKEN=token"}
	tests := []struct {
		name string
		env  []string
		cfg  s3store.Config // what the flags set
		want s3store.Config
	}{
		{"nothing set is nothing", []string{}, s3store.Config{}, s3store.Config{}},
		{"keys become static credentials", keys, s3store.Config{},
			s3store.Config{AccessKey: "id", SecretKey: "secret", SessionToken: "token"}},
		{"a key without its secret is no credential", []string{"AWS_ACCESS_KEY_ID=id"}, s3store.Config{}, s3store.Config{}},
		{"the old names of the keys count", []string{"AWS_ACCESS_KEY=id", "AWS_SECRET_KEY=secret"}, s3store.Config{},
			s3store.Config{AccessKey: "id", SecretKey: "secret"}},
		{"a profile flag wins over the keys", keys, s3store.Config{Profile: "p"}, s3store.Config{Profile: "p"}},
		{"the keys win over AWS_PROFILE, which still names the profile", append([]string{"AWS_PROFILE=p"}, keys...), s3store.Config{},
			s3store.Config{Profile: "p", AccessKey: "id", SecretKey: "secret", SessionToken: "token"}},
		{"AWS_PROFILE before AWS_DEFAULT_PROFILE", []string{"AWS_DEFAULT_PROFILE=d", "AWS_PROFILE=p"}, s3store.Config{}, s3store.Config{Profile: "p"}},
		{"AWS_DEFAULT_PROFILE alone", []string{"AWS_DEFAULT_PROFILE=d", "AWS_PROFILE="}, s3store.Config{}, s3store.Config{Profile: "d"}},
		{"AWS_REGION before AWS_DEFAULT_REGION", []string{"AWS_DEFAULT_REGION=d", "AWS_REGION=r"}, s3store.Config{}, s3store.Config{Region: "r"}},
		{"--region wins", []string{"AWS_REGION=r"}, s3store.Config{Region: "flag"}, s3store.Config{Region: "flag"}},
		{"the S3 endpoint before the global one", []string{"AWS_ENDPOINT_URL=http://g", "AWS_ENDPOINT_URL_S3=http://s3"}, s3store.Config{},
			s3store.Config{EndpointURL: "http://s3"}},
		{"the global endpoint alone", []string{"AWS_ENDPOINT_URL=http://g"}, s3store.Config{}, s3store.Config{EndpointURL: "http://g"}},
		{"endpoints ignored when asked", []string{"AWS_ENDPOINT_URL=http://g", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true"}, s3store.Config{}, s3store.Config{}},
		{"--endpoint-url wins", []string{"AWS_ENDPOINT_URL=http://g"}, s3store.Config{EndpointURL: "http://flag"}, s3store.Config{EndpointURL: "http://flag"}},
		{"config and credentials files", []string{"AWS_CONFIG_FILE=/c", "AWS_SHARED_CREDENTIALS_FILE=/k"}, s3store.Config{},
			s3store.Config{ConfigFiles: []string{"/c"}, CredentialsFiles: []string{"/k"}}},
		{"attempts", []string{"AWS_MAX_ATTEMPTS=3"}, s3store.Config{}, s3store.Config{MaxAttempts: 3}},
		{"attempts that are no number are the default", []string{"AWS_MAX_ATTEMPTS=many"}, s3store.Config{}, s3store.Config{}},
		{"the last of a repeated variable wins", []string{"AWS_REGION=first", "AWS_REGION=last"}, s3store.Config{}, s3store.Config{Region: "last"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newEnviron(tt.env).s3Config(tt.cfg)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(s3store.Config{})); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnEmptyEnvironmentIsNotTheProcesss(t *testing.T) {
	t.Parallel()
	if got := newEnviron([]string{}).get("PATH"); got != "" {
		t.Errorf("an empty environment has PATH=%q", got)
	}
	if newEnviron(nil).get(hermeticEnv) == "" {
		t.Errorf("a nil environment does not read the process's (no %s)", hermeticEnv)
	}
}
