package cli

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestPresignedURLsWorkWithAPlainHTTPClient(t *testing.T) {
	t.Parallel()
	srv, bucket := newBucket(t)
	c := srv.Client(t)
	body := stamped(100 << 10)
	s3test.PutObject(t, c, bucket, "odd/with space+plus.bin", body)
	plain := &http.Client{Timeout: time.Minute} // no credentials, no SDK

	t.Run("a presigned GET returns the object", func(t *testing.T) {
		url := strings.TrimSpace(mustRun(t, srv, "presign", "--expires-in", "15m", "s3://"+bucket+"/odd/with space+plus.bin"))
		if !strings.Contains(url, "X-Amz-Expires=900") {
			t.Errorf("URL %q does not expire in 900 s", url)
		}
		resp, err := plain.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(got, body) {
			t.Errorf("GET: %s, %d bytes; want 200 and the %d bytes of the object", resp.Status, len(got), len(body))
		}
	})
	t.Run("a presigned PUT accepts an upload", func(t *testing.T) {
		url := strings.TrimSpace(mustRun(t, srv, "presign", "--put", "s3://"+bucket+"/inbox/new.bin"))
		req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := plain.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("PUT: %s, want 200", resp.Status)
		}
		if got := s3test.GetObject(t, c, bucket, "inbox/new.bin"); !bytes.Equal(got, body) {
			t.Errorf("uploaded object has %d bytes, want %d", len(got), len(body))
		}
	})
	t.Run("the signature covers the key", func(t *testing.T) {
		srv.Require(t, s3test.Auth)
		url := strings.TrimSpace(mustRun(t, srv, "presign", "s3://"+bucket+"/inbox/new.bin"))
		resp, err := plain.Get(strings.Replace(url, "/inbox/new.bin", "/odd/with%20space%2Bplus.bin", 1))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET of another key with the URL's signature: %s, want 403", resp.Status)
		}
	})
	t.Run("bad arguments are usage errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"presign", "--expires-in", "8d", "s3://" + bucket + "/k"},
			{"presign", "--expires-in", "169h", "s3://" + bucket + "/k"},
			{"presign", "--expires-in", "999999999999999", "s3://" + bucket + "/k"},
			{"presign", "--expires-in", "0", "s3://" + bucket + "/k"},
			{"presign", "s3://" + bucket + "/"},
			{"presign", "s3://" + bucket + "/*.bin"},
			{"presign", "./local"},
		} {
			_, errOut, code := runCLI(t, srv, args...)
			if code != ExitUsage || len(errorLines(errOut)) != 1 {
				t.Errorf("%v: exit %d, want %d with one line; stderr:\n%s", args, code, ExitUsage, errOut)
			}
		}
	})
}

func TestParseExpiry(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1h", time.Hour, true},
		{"3600", time.Hour, true},
		{"90s", 90 * time.Second, true},
		{"604800", 7 * 24 * time.Hour, true},
		{"604801", 0, false},
		{"-5m", 0, false},
		{"soon", 0, false},
	} {
		got, err := parseExpiry(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseExpiry(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
