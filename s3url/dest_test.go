package s3url

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDestKey(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		srcKey string
		dst    string
		single bool
		want   string
	}{
		// aws s3 cp: one object.
		{"a single object to an exact key takes that key", "s3://src/logs/a.json", "logs/a.json", "s3://dst/b.json", true, "b.json"},
		{"a single object into a prefix keeps its name", "s3://src/logs/a.json", "logs/a.json", "s3://dst/archive/", true, "archive/a.json"},
		{"a single object into a bucket root keeps its name", "s3://src/logs/a.json", "logs/a.json", "s3://dst", true, "a.json"},
		{"a single object without a trailing slash is an exact key", "s3://src/logs/a.json", "logs/a.json", "s3://dst/archive", true, "archive"},
		{"a single object into local dot keeps its name", "s3://src/logs/a.json", "logs/a.json", ".", true, "./a.json"},
		{"a single object into a local directory keeps its name", "s3://src/logs/a.json", "logs/a.json", "out/", true, "out/a.json"},
		{"a single object to a local file takes that name", "s3://src/logs/a.json", "logs/a.json", "out/b.json", true, "out/b.json"},
		{"a single local file into a prefix keeps its name", "photos/a.jpg", "photos/a.jpg", "s3://dst/p/", true, "p/a.jpg"},
		{"a single top level object keeps its name", "s3://src/a.json", "a.json", "s3://dst/x/", true, "x/a.json"},
		// aws s3 cp --recursive.
		{"a recursive copy between prefixes keeps the rest", "s3://src/logs/", "logs/2026/a.json", "s3://dst/archive/", false, "archive/2026/a.json"},
		{"a recursive copy without trailing slashes behaves the same", "s3://src/logs", "logs/2026/a.json", "s3://dst/archive", false, "archive/2026/a.json"},
		{"a recursive copy of a bucket keeps whole keys", "s3://src", "logs/a.json", "s3://dst/archive", false, "archive/logs/a.json"},
		{"a recursive copy into a bucket root keeps the rest", "s3://src/logs/", "logs/a.json", "s3://dst", false, "a.json"},
		{"a recursive upload of a local directory keeps the rest", "photos", "photos/2026/a.jpg", "s3://dst", false, "2026/a.jpg"},
		{"a recursive upload of local dot keeps the rest", ".", "./2026/a.jpg", "s3://dst/up/", false, "up/2026/a.jpg"},
		{"a recursive download into a local directory keeps the rest", "s3://src/logs/", "logs/2026/a.json", "out", false, "out/2026/a.json"},
		{"a recursive copy keeps a double slash verbatim", "s3://src/logs/", "logs//x", "s3://dst/archive/", false, "archive//x"},
		// s5cmd wildcards.
		{"a wildcard copy keeps the directories it matched", "s3://src/logs/2026-*/*.json", "logs/2026-01/a.json", "s3://dst/archive/", false, "archive/2026-01/a.json"},
		{"a wildcard copy into a prefix without a slash treats it as a directory", "s3://src/logs/*.json", "logs/a.json", "s3://dst/archive", false, "archive/a.json"},
		{"a double star copy keeps the whole matched path", "s3://src/**/a.json", "x/y/a.json", "out/", false, "out/x/y/a.json"},
		{"a wildcard in the first segment keeps that segment", "s3://src/lo*/a.json", "logs/a.json", "s3://dst/", false, "logs/a.json"},
		{"a star at the end keeps the whole tree below the base", "s3://src/dir/*", "dir/sub/deep/h.tmp", "s3://dst/p/", false, "p/sub/deep/h.tmp"},
		{"a star at the bucket root keeps whole keys", "s3://src/*", "a/b/c", "s3://dst/p/", false, "p/a/b/c"},
		{"a local wildcard upload keeps the rest", "photos/*.jpg", "photos/a.jpg", "s3://dst/p", false, "p/a.jpg"},
		{"a raw source with a star is a plain prefix", "s3://src/a*/", "a*/x", "s3://dst/", false, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, dst := parsePair(t, Options{Raw: strings.Contains(tt.name, "raw")}, tt.src, tt.dst)
			got, err := DestKey(src, tt.srcKey, dst, tt.single)
			if err != nil {
				t.Fatalf("DestKey(%s, %q, %s, %v): %v", tt.src, tt.srcKey, tt.dst, tt.single, err)
			}
			if got != tt.want {
				t.Errorf("DestKey(%s, %q, %s, %v) = %q, want %q", tt.src, tt.srcKey, tt.dst, tt.single, got, tt.want)
			}
		})
	}
}

func TestDestKeyRejects(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		srcKey string
		dst    string
		single bool
		want   string
		is     error
	}{
		{"a wildcard destination is rejected", "s3://src/a", "a", "s3://dst/*", true, "destination cannot contain wildcards", nil},
		{"a single wildcard source is rejected", "s3://src/*", "a", "s3://dst/", true, "never a single object", nil},
		{"a key outside the source is rejected", "s3://src/logs/", "other/a", "s3://dst/", false, `key is not below "logs/"`, nil},
		{"a key outside a prefix without a slash is rejected", "s3://src/logs", "logs2/a", "s3://dst/", false, `key is not below "logs/"`, nil},
		{"a directory marker has no name", "s3://src/logs/", "logs/", "s3://dst/", false, "no name", ErrNoName},
		{"a single key ending in a slash has no name", "s3://src/logs/", "logs/", "s3://dst/", true, "no name", ErrNoName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, dst := parsePair(t, Options{}, tt.src, tt.dst)
			got, err := DestKey(src, tt.srcKey, dst, tt.single)
			if err == nil {
				t.Fatalf("DestKey = %q, want an error containing %q", got, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "name destination ") {
				t.Errorf("error %q, want it to start with the operation and contain %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q does not wrap %v", err, tt.is)
			}
		})
	}
}

func TestJoinKey(t *testing.T) {
	tests := []struct{ name, prefix, rel, want string }{
		{"an empty prefix leaves the key", "", "a/b", "a/b"},
		{"a prefix with a slash is concatenated", "archive/", "a", "archive/a"},
		{"a prefix without a slash gets one", "archive", "a", "archive/a"},
		{"an empty rel leaves the prefix", "archive/", "", "archive/"},
		{"a leading slash in rel is kept verbatim", "archive/", "/a", "archive//a"},
		{"a double slash inside the prefix is kept", "a//b/", "c", "a//b/c"},
		{"dot segments are not cleaned", "./", "../x", "./../x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JoinKey(tt.prefix, tt.rel); got != tt.want {
				t.Errorf("JoinKey(%q, %q) = %q, want %q", tt.prefix, tt.rel, got, tt.want)
			}
		})
	}
}

func FuzzDestKey(f *testing.F) {
	f.Add("s3://src/logs/", "logs/2026/a.json", "s3://dst/archive/", false)
	f.Add("s3://src/logs", "logs/a", "s3://dst/archive", false)
	f.Add("s3://src/logs/2026-*/*.json", "logs/2026-01/a.json", "s3://dst/archive", false)
	f.Add("s3://src/a.json", "a.json", "s3://dst", true)
	f.Add("photos", "photos/a", ".", false)
	f.Fuzz(func(t *testing.T, srcS, srcKey, dstS string, single bool) {
		src, err := Parse(srcS)
		if err != nil {
			return
		}
		dst, err := Parse(dstS)
		if err != nil {
			return
		}
		got, err := DestKey(src, srcKey, dst, single)
		if err != nil {
			return
		}
		if got == "" {
			t.Fatalf("DestKey(%s, %q, %s, %v) is empty", src, srcKey, dst, single)
		}
		if !strings.HasPrefix(got, dst.Key) {
			t.Errorf("DestKey(%s, %q, %s, %v) = %q does not start with %q", src, srcKey, dst, single, got, dst.Key)
		}
		rel, err := RelKey(src, srcKey, single)
		if err != nil {
			t.Fatalf("DestKey succeeded but RelKey failed: %v", err)
		}
		if (!single || dst.IsDirLike()) && !strings.HasSuffix(got, rel) {
			t.Errorf("DestKey(%s, %q, %s, %v) = %q does not end with the relative part %q", src, srcKey, dst, single, got, rel)
		}
		if single && !dst.IsDirLike() && got != dst.Key {
			t.Errorf("DestKey(%s, %q, %s, true) = %q, want the exact key %q", src, srcKey, dst, got, dst.Key)
		}
	})
}

func TestCheckDest(t *testing.T) {
	tests := []struct{ name, src, dst, want string }{
		{"a prefix to a prefix", "s3://src/logs/", "s3://dst/p/", "<nil>"},
		{"a key to a key", "s3://src/a", "s3://dst/b", "<nil>"},
		{"a wildcard to a bucket", "s3://src/*.json", "s3://dst", "<nil>"},
		{"a wildcard to a directory", "s3://src/*.json", "out", "<nil>"},
		{"a wildcard destination", "s3://src/a", "s3://dst/*", "destination s3://dst/*: wildcards are only allowed in the source"},
		{"a wildcard to a key", "s3://src/*.json", "s3://dst/p", "destination s3://dst/p: a wildcard source needs a bucket, a prefix ending in '/' or a directory (s3://dst/p/)"},
	}
	for _, tt := range tests {
		src, dst := parsePair(t, Options{}, tt.src, tt.dst)
		if got := fmt.Sprint(CheckDest(src, dst)); got != tt.want {
			t.Errorf("%s: CheckDest = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// parsePair parses a source with o and a destination as typed.
func parsePair(t *testing.T, o Options, src, dst string) (Location, Location) {
	t.Helper()
	s, err := o.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(dst)
	if err != nil {
		t.Fatal(err)
	}
	return s, d
}
