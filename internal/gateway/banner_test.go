package gateway

import (
	"strings"
	"testing"
)

func TestCheckRefusesWhatServeCannotOrMustNotServe(t *testing.T) {
	// Not parallel: Resolved falls back to the process's environment.
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name       string
		opts       Options
		getenv     func(string) string
		wantErr    string // a part of the message; "" for none
		wantAccess string
	}{
		{"a directory is required", Options{}, env(), "--dir is required", ""},
		{"half a pair of keys is refused", Options{Dir: "d", AccessKey: "me"}, env("AWS_SECRET_ACCESS_KEY", "s"), "give both --access-key and --secret-key", ""},
		{"the environment's pair fills in no keys", Options{Dir: "d"}, env("AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "s"), "", "id"},
		{"half a pair in the environment is the built-in pair", Options{Dir: "d"}, env("AWS_ACCESS_KEY_ID", "id"), "", DefaultAccessKey},
		{"keys given win over the environment's", Options{Dir: "d", AccessKey: "me", SecretKey: "x"}, env("AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "s"), "", "me"},
		{"an address without a port is refused", Options{Dir: "d", Addr: "127.0.0.1"}, env(), "want HOST:PORT", ""},
		{"the built-in keys are refused off loopback", Options{Dir: "d", Addr: "0.0.0.0:9000"}, env(), "built-in credentials are public", ""},
		{"the built-in keys are refused on every interface", Options{Dir: "d", Addr: ":0"}, env(), "built-in credentials are public", ""},
		{"the built-in keys serve localhost", Options{Dir: "d", Addr: "localhost:0"}, env(), "", DefaultAccessKey},
		{"the built-in keys serve ::1", Options{Dir: "d", Addr: "[::1]:0"}, env(), "", DefaultAccessKey},
		{"own keys serve the network", Options{Dir: "d", Addr: "0.0.0.0:0", AccessKey: "me", SecretKey: "x"}, env(), "", "me"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.opts.Check(tt.getenv)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Check: %v, want an error saying %q", err, tt.wantErr)
			case tt.wantErr == "" && got.Resolved().AccessKey != tt.wantAccess:
				t.Errorf("access key %q, want %q", got.Resolved().AccessKey, tt.wantAccess)
			}
		})
	}
}

func TestBannerFollowsTheEndpointLineOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       Options
		secretSeen bool
	}{
		{"the built-in secret is printed", Options{Dir: "/srv", AccessKey: DefaultAccessKey, SecretKey: DefaultSecretKey, Quiet: true}, true},
		{"a secret given is never printed", Options{Dir: "/srv", AccessKey: "me", SecretKey: "very-secret-value"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			w := WithBanner(&out, tt.opts)
			// The endpoint line arrives in pieces, then more output.
			for _, p := range []string{"endp", "oint: http://127.0.0.1:9", "000\n", "later\n", EndpointPrefix + "http://x\n"} {
				if _, err := w.Write([]byte(p)); err != nil {
					t.Fatal(err)
				}
			}
			text := out.String()
			if !strings.HasPrefix(text, "endpoint: http://127.0.0.1:9000\nserving /srv") {
				t.Errorf("the banner does not follow the endpoint line:\n%s", text)
			}
			if n := strings.Count(text, "serving /srv"); n != 1 {
				t.Errorf("banner written %d times, want once", n)
			}
			for _, want := range []string{"export AWS_ENDPOINT_URL=http://127.0.0.1:9000", "export AWS_ACCESS_KEY_ID=" + tt.opts.AccessKey, "--endpoint-url http://127.0.0.1:9000 ls", "later\n"} {
				if !strings.Contains(text, want) {
					t.Errorf("output does not say %q:\n%s", want, text)
				}
			}
			if got := strings.Contains(text, tt.opts.SecretKey); got != tt.secretSeen {
				t.Errorf("secret shown: %t, want %t", got, tt.secretSeen)
			}
			if got := strings.Contains(text, "(--verbose logs every request)"); got != tt.opts.Quiet {
				t.Errorf("--verbose note: %t, want %t", got, tt.opts.Quiet)
			}
		})
	}
}
