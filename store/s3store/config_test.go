package s3store

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

func TestCredentials(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)

	t.Run("a wrong secret key is invalid credentials and fatal", func(t *testing.T) {
		srv.Require(t, s3test.Auth)
		c := newTestClient(t, srv, func(cfg *Config) { cfg.SecretKey = "not-the-secret" })
		err := c.Bucket(bucket).List(t.Context(), "", "", func(store.Object) error { return nil })
		if !errors.Is(err, store.ErrInvalidCredentials) {
			t.Fatalf("list with a wrong secret: %v; want store.ErrInvalidCredentials", err)
		}
		if got := retry.Classify(err); got != retry.Fatal {
			t.Errorf("retry.Classify = %v; want fatal", got)
		}
	})

	t.Run("an unknown access key is invalid credentials and fatal", func(t *testing.T) {
		srv.Require(t, s3test.Auth)
		c := newTestClient(t, srv, func(cfg *Config) { cfg.AccessKey = "nobody" })
		err := c.Bucket(bucket).Put(t.Context(), "k", strings.NewReader("v"), 1, store.Metadata{})
		if !errors.Is(err, store.ErrInvalidCredentials) {
			t.Fatalf("put with an unknown key: %v; want store.ErrInvalidCredentials", err)
		}
		if got := retry.Classify(err); got != retry.Fatal {
			t.Errorf("retry.Classify = %v; want fatal", got)
		}
	})

	t.Run("no credentials anywhere fails in NewClient", func(t *testing.T) {
		// TestMain emptied the environment and the shared files, and turned
		// off the instance metadata service.
		_, err := NewClient(t.Context(), Config{EndpointURL: srv.Endpoint})
		if !errors.Is(err, store.ErrInvalidCredentials) {
			t.Fatalf("NewClient without credentials: %v; want store.ErrInvalidCredentials", err)
		}
		if !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
			t.Errorf("error %q does not say how to provide credentials", err)
		}
	})

	t.Run("an unknown profile fails in NewClient", func(t *testing.T) {
		_, err := NewClient(t.Context(), Config{Profile: "no-such-profile"})
		if !errors.Is(err, store.ErrInvalidCredentials) || !strings.Contains(err.Error(), "no-such-profile") {
			t.Fatalf("NewClient with an unknown profile: %v; want store.ErrInvalidCredentials naming it", err)
		}
	})

	t.Run("credentials from the environment are used", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
		c, err := NewClient(t.Context(), Config{EndpointURL: srv.Endpoint})
		if err != nil {
			t.Fatal(err)
		}
		mustPut(t, c.Bucket(bucket), "from-env", []byte("v"), store.Metadata{})
	})
}

func TestEndpointAndRegionFromEnvironment(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	for _, env := range []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"} {
		t.Run(env+" is honoured and implies path-style", func(t *testing.T) {
			t.Setenv(env, srv.Endpoint)
			c, err := NewClient(t.Context(), Config{AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
			if err != nil {
				t.Fatal(err)
			}
			if c.Endpoint() != srv.Endpoint {
				t.Errorf("Endpoint() = %q; want %q", c.Endpoint(), srv.Endpoint)
			}
			// Virtual-hosted addressing would ask for bucket.127.0.0.1,
			// which does not resolve; a working request proves path-style.
			mustPut(t, c.Bucket(bucket), "k", []byte("v"), store.Metadata{})
		})
	}
	t.Run("the region defaults to us-east-1", func(t *testing.T) {
		c := newTestClient(t, srv, func(cfg *Config) { cfg.Region = "" })
		if c.Region() != "us-east-1" {
			t.Errorf("Region() = %q; want us-east-1", c.Region())
		}
	})
	t.Run("AWS_REGION sets the region", func(t *testing.T) {
		t.Setenv("AWS_REGION", "eu-west-3")
		c := newTestClient(t, srv, func(cfg *Config) { cfg.Region = "" })
		if c.Region() != "eu-west-3" {
			t.Errorf("Region() = %q; want eu-west-3", c.Region())
		}
	})
}

// The debug line of a request names the status the server answered: a
// ranged GET's 206, a whole one's 200, sent raw or through the SDK alike.
func TestDebugLogNamesTheStatusAnswered(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Ranges)
	bucket := srv.NewBucket(t)
	for _, tt := range []struct {
		name string
		raw  bool
	}{
		{"a raw request", true},
		{"a request through the SDK", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			c := newTestClient(t, srv, func(cfg *Config) { cfg.Logger = logger; cfg.DisableRawRequests = !tt.raw })
			if (c.raw != nil) != tt.raw {
				t.Fatalf("raw requests: %t, want %t", c.raw != nil, tt.raw)
			}
			s := c.Bucket(bucket)
			mustPut(t, s, "ranged", []byte("0123456789"), store.Metadata{})
			for _, r := range []struct {
				off, length int64
				want        string
			}{
				{2, 3, "234"},
				{0, -1, "0123456789"},
			} {
				buf.Reset()
				rc, err := s.Get(t.Context(), "ranged", r.off, r.length, "")
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(rc)
				rc.Close()
				if err != nil || string(body) != r.want {
					t.Fatalf("get [%d, +%d): %q, %v; want %q", r.off, r.length, body, err, r.want)
				}
				want := "status=200"
				if r.length > 0 {
					want = "status=206"
				}
				var lines []string
				for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
					if strings.Contains(l, `msg="s3 request"`) && strings.Contains(l, "op=GetObject") {
						lines = append(lines, l)
					}
				}
				if len(lines) != 1 || !strings.Contains(lines[0], want) {
					t.Errorf("get [%d, +%d) logged %q; want one GetObject line with %s", r.off, r.length, lines, want)
				}
			}
		})
	}
}

func TestDebugLogNeverShowsSecrets(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Auth)
	bucket := srv.NewBucket(t)
	const token = "session-token-that-must-not-leak"
	const wrongSecret = "wrong-secret-that-must-not-leak"
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))

	c := newTestClient(t, srv, func(cfg *Config) { cfg.Logger = logger })
	s := c.Bucket(bucket)
	mustPut(t, s, "dir/logged key", []byte("v"), store.Metadata{})
	mustGet(t, s, "dir/logged key")
	if _, _, err := s.Head(t.Context(), "absent"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	// A failed request logs its error; the server's answer to a bad
	// signature must not bring the secret (or anything signed) along.
	for _, mod := range []func(*Config){
		func(cfg *Config) { cfg.SecretKey = wrongSecret },
		func(cfg *Config) { cfg.SecretKey = wrongSecret; cfg.SessionToken = token },
	} {
		bad := newTestClient(t, srv, func(cfg *Config) { cfg.Logger = logger; mod(cfg) })
		if err := bad.Bucket(bucket).List(t.Context(), "", "", func(store.Object) error { return nil }); err == nil {
			t.Fatal("list with a wrong secret succeeded")
		}
	}

	out := buf.String()
	for _, want := range []string{"op=PutObject", "op=GetObject", "op=HeadObject", "op=ListObjectsV2", "bucket=" + bucket, `key="dir/logged key"`, "status=404", "status=403"} {
		if !strings.Contains(out, want) {
			t.Errorf("debug log lacks %q", want)
		}
	}
	for _, secret := range []string{srv.SecretKey, wrongSecret, token, "Signature=", "X-Amz-Signature", "Authorization"} {
		if strings.Contains(out, secret) {
			t.Errorf("debug log contains %q:\n%s", secret, out)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", out)
	}
}
