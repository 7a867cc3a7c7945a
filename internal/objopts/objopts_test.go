package objopts

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

func loc(t *testing.T, s string) s3url.Location {
	t.Helper()
	l, err := s3url.Options{}.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRequestStoresCheckEveryValueAgainstTheDirection(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{'k'}, s3store.SSECustomerKeySize)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.bin")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	shortFile := filepath.Join(dir, "short.bin")
	if err := os.WriteFile(shortFile, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KEY": base64.StdEncoding.EncodeToString(key), "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name          string
		req           Request
		src, dst      string
		wantSrc, want s3store.Options
		wantErr       string
	}{
		{name: "no options change nothing", src: "s3://src/k", dst: "s3://dst/k"},
		{name: "SSE names are case-insensitive", req: Request{SSE: "aes256"}, src: "./d/", dst: "s3://dst/", want: s3store.Options{SSE: "AES256"}},
		{name: "a KMS key implies aws:kms", req: Request{SSEKMSKeyID: "alias/k"}, src: "s3://src/", dst: "s3://dst/", want: s3store.Options{SSE: "aws:kms", SSEKMSKeyID: "alias/k"}},
		{name: "a KMS key with AES256 is refused", req: Request{SSE: "AES256", SSEKMSKeyID: "k"}, src: "s3://src/", dst: "s3://dst/", wantErr: "--sse-kms-key-id: needs --sse aws:kms, not --sse AES256"},
		{name: "an unknown SSE is refused", req: Request{SSE: "rot13"}, src: "s3://src/", dst: "s3://dst/", wantErr: `--sse "rot13": want AES256 or aws:kms`},
		{name: "SSE for a download is refused", req: Request{SSE: "AES256"}, src: "s3://src/k", dst: "./k", wantErr: "--sse: only for objects written to S3, and the destination ./k is local"},
		{name: "an ACL is lowercased", req: Request{ACL: "Public-Read"}, src: "s3://src/", dst: "s3://dst/", want: s3store.Options{ACL: "public-read"}},
		{name: "an unknown ACL is refused", req: Request{ACL: "everyone"}, src: "s3://src/", dst: "s3://dst/", wantErr: `--acl "everyone": want one of`},
		{name: "an ACL for a download is refused", req: Request{ACL: "private"}, src: "s3://src/k", dst: "./k", wantErr: "--acl: only for objects written to S3"},
		{name: "requester pays goes to each S3 side", req: Request{RequestPayer: "Requester"}, src: "s3://src/k", dst: "./k", wantSrc: s3store.Options{RequestPayer: true}},
		{name: "another payer is refused", req: Request{RequestPayer: "owner"}, src: "s3://src/k", dst: "s3://dst/k", wantErr: `--request-payer "owner": want requester`},
		{name: "the source region is the source's", req: Request{SourceRegion: "eu-west-1"}, src: "s3://src/k", dst: "s3://dst/k", wantSrc: s3store.Options{Region: "eu-west-1"}},
		{name: "a source region for a local source is refused", req: Request{SourceRegion: "eu-west-1"}, src: "./k", dst: "s3://dst/k", wantErr: "--source-region: only for an S3 source, and the source ./k is local"},
		{name: "an SSE-C key from a file is the copies' key", req: Request{SSEC: "AES256", SSECKey: "file://" + keyFile}, src: "s3://src/k", dst: "s3://dst/k", want: s3store.Options{SSECustomerKey: key}},
		{name: "an SSE-C key of a download is the source's", req: Request{SSEC: "AES256", SSECKey: "env://KEY"}, src: "s3://src/k", dst: "./k", wantSrc: s3store.Options{SSECustomerKey: key}},
		{name: "the copy source's key goes to both sides", req: Request{SSECCopySource: "AES256", SSECCopySourceKey: "env://KEY"}, src: "s3://src/k", dst: "s3://dst/k", wantSrc: s3store.Options{SSECustomerKey: key}, want: s3store.Options{CopySourceSSECustomerKey: key}},
		{name: "a copy source key for a download is refused", req: Request{SSECCopySource: "AES256", SSECCopySourceKey: "env://KEY"}, src: "s3://src/k", dst: "./k", wantErr: "--sse-c-copy-source: only for S3 to S3 copies"},
		{name: "SSE-C and SSE are refused together", req: Request{SSE: "AES256", SSEC: "AES256", SSECKey: "env://KEY"}, src: "./k", dst: "s3://dst/k", wantErr: "--sse-c and --sse"},
		{name: "a key without its algorithm is refused", req: Request{SSECKey: "env://KEY"}, src: "./k", dst: "s3://dst/k", wantErr: "--sse-c-key needs --sse-c AES256"},
		{name: "another algorithm is refused", req: Request{SSEC: "AES128", SSECKey: "env://KEY"}, src: "./k", dst: "s3://dst/k", wantErr: `--sse-c "AES128": want AES256`},
		{name: "an algorithm without its key is refused", req: Request{SSEC: "AES256"}, src: "./k", dst: "s3://dst/k", wantErr: "--sse-c AES256 needs --sse-c-key file://PATH or env://VAR"},
		{name: "a key on the command line is refused unrepeated", req: Request{SSEC: "AES256", SSECKey: string(key)}, src: "./k", dst: "s3://dst/k", wantErr: "--sse-c-key: give the key as file://PATH or env://VAR"},
		{name: "a missing key file is named", req: Request{SSEC: "AES256", SSECKey: "file://" + filepath.Join(dir, "none")}, src: "./k", dst: "s3://dst/k", wantErr: "none: no such file"},
		{name: "an unset variable is named", req: Request{SSEC: "AES256", SSECKey: "env://EMPTY"}, src: "./k", dst: "s3://dst/k", wantErr: "the environment variable EMPTY is not set"},
		{name: "a key of the wrong size is refused", req: Request{SSEC: "AES256", SSECKey: "file://" + shortFile}, src: "./k", dst: "s3://dst/k", wantErr: "the key has 5 bytes, want 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, dst, err := tt.req.Stores(loc(t, tt.src), loc(t, tt.dst), lookup)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), string(key)) || strings.Contains(err.Error(), env["KEY"]) {
					t.Errorf("the error repeats the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.wantSrc, src); d != "" {
				t.Errorf("source options (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.want, dst); d != "" {
				t.Errorf("destination options (-want +got):\n%s", d)
			}
			if got := tt.req.Active(); got != (tt.req != Request{}) {
				t.Errorf("Active %t", got)
			}
		})
	}
}

func TestMetadataOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		m       Metadata
		want    *engine.MetadataOptions
		wantErr string
	}{
		{name: "COPY with nothing set changes nothing", m: Metadata{Directive: "COPY"}},
		{name: "REPLACE alone replaces", m: Metadata{Directive: "replace"}, want: &engine.MetadataOptions{Replace: true}},
		{name: "a storage class is uppercased", m: Metadata{Directive: "COPY", Set: store.Metadata{StorageClass: "standard_ia"}}, want: &engine.MetadataOptions{Set: store.Metadata{StorageClass: "STANDARD_IA"}}},
		{name: "user metadata is set", m: Metadata{Directive: "COPY", User: UserMetadata{"a": "1"}}, want: &engine.MetadataOptions{Set: store.Metadata{User: map[string]string{"a": "1"}}}},
		{name: "headers are set as given", m: Metadata{Directive: "COPY", Set: store.Metadata{ContentType: "text/plain", CacheControl: "no-cache"}}, want: &engine.MetadataOptions{Set: store.Metadata{ContentType: "text/plain", CacheControl: "no-cache"}}},
		{name: "an unknown directive is refused", m: Metadata{Directive: "MERGE"}, wantErr: `--metadata-directive "MERGE": want COPY or REPLACE`},
		{name: "no directive is refused", m: Metadata{}, wantErr: `--metadata-directive "": want COPY or REPLACE`},
		{name: "an unknown storage class is refused", m: Metadata{Directive: "COPY", Set: store.Metadata{StorageClass: "COLD"}}, wantErr: `--storage-class "COLD": want one of STANDARD,`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.m.Options()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

func TestUserMetadataIsRepeatableKeyValue(t *testing.T) {
	t.Parallel()
	var m UserMetadata
	for _, v := range []string{"B=2", "a=1=x", "c="} {
		if err := m.Set(v); err != nil {
			t.Fatalf("Set(%q): %v", v, err)
		}
	}
	if got, want := m.String(), "a=1=x,b=2,c="; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	for _, bad := range []string{"novalue", "=v"} {
		if err := m.Set(bad); err == nil {
			t.Errorf("Set(%q) took it", bad)
		}
	}
}

// FuzzCustomerKey: a key from a variable is 32 bytes or an error, and the
// error never repeats what the variable holds.
func FuzzCustomerKey(f *testing.F) {
	f.Add("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk")
	f.Add(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32)))
	f.Add("  " + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32)) + "\n")
	f.Add("short-secret-value")
	f.Fuzz(func(t *testing.T, v string) {
		key, err := customerKey("--sse-c", "AES256", "--sse-c-key", "env://K", func(string) (string, bool) { return v, true })
		switch {
		case err == nil && len(key) != s3store.SSECustomerKeySize:
			t.Fatalf("key of %d bytes", len(key))
		case err != nil && len(v) >= 8 && strings.Contains(err.Error(), v):
			t.Fatalf("the error repeats the value: %v", err)
		}
	})
}
