package s3url

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		raw  bool
		want Location
	}{
		{"a bucket alone is a bucket root", "s3://bucket", false, Location{Raw: "s3://bucket", Bucket: "bucket"}},
		{"a bucket with a slash is a bucket root", "s3://bucket/", false, Location{Raw: "s3://bucket/", Bucket: "bucket"}},
		{"an object key is kept verbatim", "s3://bucket/a/b.txt", false, Location{Raw: "s3://bucket/a/b.txt", Bucket: "bucket", Key: "a/b.txt"}},
		{"a prefix keeps its trailing slash", "s3://bucket/prefix/", false, Location{Raw: "s3://bucket/prefix/", Bucket: "bucket", Key: "prefix/"}},
		{"a wildcard pattern is a key pattern", "s3://b12/logs/2026-*/*.json", false, Location{Raw: "s3://b12/logs/2026-*/*.json", Bucket: "b12", Key: "logs/2026-*/*.json"}},
		{"a double star pattern is accepted", "s3://b12/**/x.json", false, Location{Raw: "s3://b12/**/x.json", Bucket: "b12", Key: "**/x.json"}},
		{"a question mark pattern is accepted", "s3://b12/a?c", false, Location{Raw: "s3://b12/a?c", Bucket: "b12", Key: "a?c"}},
		{"a double slash in a key is kept", "s3://b12//x", false, Location{Raw: "s3://b12//x", Bucket: "b12", Key: "/x"}},
		{"three stars in a key are a wildcard like one", "s3://b12/a***b", false, Location{Raw: "s3://b12/a***b", Bucket: "b12", Key: "a***b"}},
		{"three stars in a local path are a wildcard like one", "dir/***", false, Location{Raw: "dir/***", Key: "dir/***", Local: true}},
		{"raw parsing keeps stars literal", "s3://b12/a***b", true, Location{Raw: "s3://b12/a***b", Bucket: "b12", Key: "a***b", Literal: true}},
		{"brackets are ordinary characters", "s3://b12/a[1].txt", false, Location{Raw: "s3://b12/a[1].txt", Bucket: "b12", Key: "a[1].txt"}},
		{"directory bucket names are accepted", "s3://data--usw2-az1--x-s3/k", false, Location{Raw: "s3://data--usw2-az1--x-s3/k", Bucket: "data--usw2-az1--x-s3", Key: "k"}},
		{"a relative local path is local", "dir/file.txt", false, Location{Raw: "dir/file.txt", Key: "dir/file.txt", Local: true}},
		{"an absolute local directory is local", "/var/data/", false, Location{Raw: "/var/data/", Key: "/var/data/", Local: true}},
		{"a dash is a local file name", "-", false, Location{Raw: "-", Key: "-", Local: true}},
		{"a local glob is a pattern", "logs/*.gz", false, Location{Raw: "logs/*.gz", Key: "logs/*.gz", Local: true}},
		{"a colon later in a local path is not a scheme", "dir/a://b", false, Location{Raw: "dir/a://b", Key: "dir/a://b", Local: true}},
		{"a key of exactly 1024 bytes is accepted", "s3://b12/" + strings.Repeat("k", 1024), false, Location{Raw: "s3://b12/" + strings.Repeat("k", 1024), Bucket: "b12", Key: strings.Repeat("k", 1024)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Options{Raw: tt.raw}.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // substring of the error
	}{
		{"an empty string is rejected", "", `parse "": empty location`},
		{"a scheme without a bucket is rejected", "s3://", "missing bucket name"},
		{"a key without a bucket is rejected", "s3:///key", "missing bucket name before the key"},
		{"gcs urls are rejected", "gs://b/k", `unsupported scheme "gs"`},
		{"http urls are rejected", "http://host/b/k", `unsupported scheme "http"`},
		{"an uppercase scheme is rejected with a hint", "S3://bucket/k", "lowercase s3://"},
		{"a mistyped scheme is rejected", "s3:/bucket/k", "mistyped s3:// URL"},
		{"a two character bucket is rejected", "s3://ab/k", "3 to 63 characters"},
		{"a 64 character bucket is rejected", "s3://" + strings.Repeat("a", 64), "3 to 63 characters"},
		{"an uppercase bucket is rejected", "s3://MyBucket/k", "only lowercase letters"},
		{"an underscore in a bucket is rejected", "s3://my_bucket/k", "only lowercase letters"},
		{"a bucket starting with a dash is rejected", "s3://-bucket/k", "start and end"},
		{"a bucket ending with a dot is rejected", "s3://bucket./k", "start and end"},
		{"adjacent periods in a bucket are rejected", "s3://a..b/k", "adjacent periods"},
		{"an ip address bucket is rejected", "s3://192.168.5.4/k", "IP address"},
		{"a wildcard in the bucket is rejected", "s3://buck*/k", "wildcards are not allowed in bucket names"},
		{"a question mark in the bucket is rejected", "s3://buck?t/k", "wildcards are not allowed in bucket names"},
		{"a nul byte in a key is rejected", "s3://bucket/a\x00b", "NUL byte"},
		{"a nul byte in a local path is rejected", "a\x00b", "NUL byte"},
		{"a key over 1024 bytes is rejected", "s3://bucket/" + strings.Repeat("é", 513), "1026 bytes long"},
		{"invalid utf-8 in a key is rejected", "s3://bucket/a\xffb", "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error containing %q", tt.in, got, tt.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("Parse(%q) error %q, want it to contain %q", tt.in, msg, tt.want)
			}
			if !strings.HasPrefix(msg, "parse ") || strings.Contains(msg, "\n") {
				t.Errorf("Parse(%q) error %q is not one line starting with the operation", tt.in, msg)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Parse(%q) error does not wrap ErrInvalid", tt.in)
			}
		})
	}
}

func TestLegacyBucketNames(t *testing.T) {
	opts := Options{LegacyBucketNames: true}
	for _, in := range []string{"s3://My_Old.Bucket/k", "s3://ab/k", "s3://x"} {
		t.Run("legacy mode accepts "+in, func(t *testing.T) {
			if _, err := opts.Parse(in); err != nil {
				t.Errorf("Parse(%q): %v", in, err)
			}
		})
	}
	for _, in := range []string{"s3://has space/k", "s3://" + strings.Repeat("a", 256)} {
		t.Run("legacy mode still rejects "+in[:min(len(in), 20)], func(t *testing.T) {
			if _, err := opts.Parse(in); err == nil {
				t.Errorf("Parse(%q) succeeded", in)
			}
		})
	}
}

func TestLocationMethods(t *testing.T) {
	type props struct {
		IsS3, HasWildcard, IsDirLike bool
		Prefix, Base, String         string
	}
	tests := []struct {
		name string
		in   string
		raw  bool
		want props
	}{
		{"a bucket root is dir-like with an empty prefix", "s3://bucket/", false, props{true, false, true, "", "", "s3://bucket"}},
		{"a single object has its directory as base", "s3://bucket/logs/a.json", false, props{true, false, false, "logs/a.json", "logs/", "s3://bucket/logs/a.json"}},
		{"a top level object has an empty base", "s3://bucket/a.json", false, props{true, false, false, "a.json", "", "s3://bucket/a.json"}},
		{"a prefix is its own base", "s3://bucket/logs/", false, props{true, false, true, "logs/", "logs/", "s3://bucket/logs/"}},
		{"a pattern prefix is not cut at a slash", "s3://bucket/logs/2026-*/*.json", false, props{true, true, false, "logs/2026-", "logs/", "s3://bucket/logs/2026-*/*.json"}},
		{"a leading double star leaves an empty prefix", "s3://bucket/**/x.json", false, props{true, true, false, "", "", "s3://bucket/**/x.json"}},
		{"a question mark starts the wildcard part", "s3://bucket/a/b?c/d", false, props{true, true, false, "a/b", "a/", "s3://bucket/a/b?c/d"}},
		{"a raw key has no wildcard", "s3://bucket/a/*/b", true, props{true, false, false, "a/*/b", "a/*/", "s3://bucket/a/*/b"}},
		{"a local directory with a slash is dir-like", "photos/", false, props{false, false, true, "photos/", "photos/", "photos/"}},
		{"a local dot is dir-like", ".", false, props{false, false, true, ".", "", "."}},
		{"a local parent path is dir-like", "a/..", false, props{false, false, true, "a/..", "a/", "a/.."}},
		{"a local file is not dir-like", "photos/a.jpg", false, props{false, false, false, "photos/a.jpg", "photos/", "photos/a.jpg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Options{Raw: tt.raw}.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := props{l.IsS3(), l.HasWildcard(), l.IsDirLike(), l.Prefix(), l.Base(), l.String()}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestAsDir(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a bucket root stays the bucket root", "s3://bucket", ""},
		{"a prefix without a slash gets one", "s3://bucket/logs", "logs/"},
		{"a prefix with a slash is unchanged", "s3://bucket/logs/", "logs/"},
		{"a local dot becomes dot slash", ".", "./"},
		{"a local path gets a slash", "photos", "photos/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			d := l.AsDir()
			if d.Key != tt.want || !d.IsDirLike() {
				t.Errorf("Parse(%q).AsDir().Key = %q (dir-like %v), want %q", tt.in, d.Key, d.IsDirLike(), tt.want)
			}
		})
	}
}

func TestValidateBucketName(t *testing.T) {
	for _, name := range []string{"abc", "my.bucket-1", "1bucket9", strings.Repeat("a", 63), "1.2.3", "bucket-s3alias"} {
		t.Run("accepts "+name, func(t *testing.T) {
			if err := ValidateBucketName(name); err != nil {
				t.Error(err)
			}
		})
	}
	for _, name := range []string{"", "ab", "a_b", "Abc", "abc-", ".abc", "10.0.0.1", "a..b", "a/b"} {
		t.Run("rejects "+name, func(t *testing.T) {
			if err := ValidateBucketName(name); err == nil {
				t.Errorf("ValidateBucketName(%q) = nil", name)
			}
		})
	}
}
