package s3store

import (
	"net/url"
	"strings"
	"testing"
)

func TestCopySource(t *testing.T) {
	tests := []struct {
		name, bucket, key, want string
	}{
		{"a plain key is unchanged", "b", "dir/file.txt", "b/dir/file.txt"},
		{"a space is percent-encoded", "b", "a b", "b/a%20b"},
		{"a plus is encoded so it is not read as a space", "b", "a+b", "b/a%2Bb"},
		{"a percent sign is encoded", "b", "100%", "b/100%25"},
		{"equals and ampersand are encoded", "b", "k=v&x", "b/k%3Dv%26x"},
		{"slashes stay", "b", "a//b/", "b/a//b/"},
		{"unicode is encoded as UTF-8 bytes", "b", "ü/日", "b/%C3%BC/%E6%97%A5"},
		{"question mark and hash are encoded", "b", "q?#", "b/q%3F%23"},
		{"unreserved marks stay", "b", "a-b_c.d~e", "b/a-b_c.d~e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := copySource(tt.bucket, tt.key); got != tt.want {
				t.Errorf("copySource(%q, %q) = %q; want %q", tt.bucket, tt.key, got, tt.want)
			}
		})
	}
}

// FuzzCopySource checks that a server decoding the header either way (as a
// path, or with query rules where '+' is a space) gets the key back.
func FuzzCopySource(f *testing.F) {
	for _, k := range append(oddKeys, "", "a+b c%2B", "\x00\xff") {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got := copySource("bucket", key)
		rest, ok := strings.CutPrefix(got, "bucket/")
		if !ok {
			t.Fatalf("copySource = %q; want it to start with bucket/", got)
		}
		for _, c := range []byte(rest) {
			if !unreserved(c) && c != '/' && c != '%' {
				t.Fatalf("copySource(%q) = %q leaves %q unencoded", key, got, c)
			}
		}
		for name, unescape := range map[string]func(string) (string, error){
			"PathUnescape": url.PathUnescape, "QueryUnescape": url.QueryUnescape,
		} {
			if dec, err := unescape(rest); err != nil || dec != key {
				t.Errorf("%s(%q) = %q, %v; want %q", name, rest, dec, err, key)
			}
		}
	})
}
