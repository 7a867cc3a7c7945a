package batchops

import (
	"strings"
	"testing"
)

func TestEncodeKey(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want string
	}{
		{"a plain key is left alone", "1/100/file-01.json", "1/100/file-01.json"},
		{"a space becomes %20, never +", "my file.txt", "my%20file.txt"},
		{"a plus is escaped so form decoding keeps it", "a+b", "a%2Bb"},
		{"a percent sign is escaped", "100%", "100%25"},
		{"commas cannot split the CSV line", "a,b", "a%2Cb"},
		{"quotes and newlines are escaped", "a\"b\nc", "a%22b%0Ac"},
		{"an equals sign is escaped", "k=v", "k%3Dv"},
		{"unicode is escaped byte by byte as UTF-8", "日本/é", "%E6%97%A5%E6%9C%AC/%C3%A9"},
		{"slashes stay readable", "a//b/", "a//b/"},
		{"unreserved marks stay", "a-b_c.d~e", "a-b_c.d~e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EncodeKey(tt.key)
			if got != tt.want {
				t.Errorf("EncodeKey(%q) = %q, want %q", tt.key, got, tt.want)
			}
			back, err := DecodeKey(got)
			if err != nil || back != tt.key {
				t.Errorf("DecodeKey(%q) = %q, %v; want %q", got, back, err, tt.key)
			}
		})
	}
}

func TestDecodeKeyReadsAWSFormEncoding(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a plus written by AWS is a space", "my+file.txt", "my file.txt"},
		{"an escaped plus is a plus", "a%2Bb", "a+b"},
		{"%20 is a space too", "my%20file", "my file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeKey(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("DecodeKey(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
	if _, err := DecodeKey("bad%zz"); err == nil {
		t.Error("DecodeKey(bad%zz) succeeded, want an error")
	}
}

func FuzzEncodeKey(f *testing.F) {
	for _, s := range []string{"", "a b", "a+b", "%", "日本", "a,b\"c\n", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		enc := EncodeKey(key)
		if strings.ContainsAny(enc, ", \"\n\r+") {
			t.Fatalf("EncodeKey(%q) = %q holds a byte that breaks the CSV or form decoding", key, enc)
		}
		back, err := DecodeKey(enc)
		if err != nil || back != key {
			t.Fatalf("DecodeKey(EncodeKey(%q)) = %q, %v", key, back, err)
		}
	})
}
