package localstore

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/store"
)

func TestSafeJoin(t *testing.T) {
	root := filepath.FromSlash("/srv/dest")
	accepted := []struct {
		name, key, want string
	}{
		{"a plain name joins under the root", "a", "/srv/dest/a"},
		{"nested keys become nested paths", "a/b/c.txt", "/srv/dest/a/b/c.txt"},
		{"dots inside a name are just characters", "a..b/..c/c..", "/srv/dest/a..b/..c/c.."},
		{"three dots are a name, not a parent", "...", "/srv/dest/..."},
		{"a hidden file is allowed", ".hidden/.x", "/srv/dest/.hidden/.x"},
		{"spaces and unicode are kept", " a b /ü€🚀", "/srv/dest/ a b /ü€🚀"},
		{"a colon after the first character is no drive letter", "ab:c/d:", "/srv/dest/ab:c/d:"},
		{"a leading digit and colon is no drive letter", "1:/x", "/srv/dest/1:/x"},
	}
	for _, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SafeJoin(root, tc.key)
			if err != nil {
				t.Fatalf("SafeJoin(%q): %v", tc.key, err)
			}
			if want := filepath.FromSlash(tc.want); got != want {
				t.Errorf("SafeJoin(%q) = %q; want %q", tc.key, got, want)
			}
		})
	}
	refused := []struct {
		name, key, reason string
	}{
		{"an empty key is refused", "", "empty"},
		{"a parent segment alone is refused", "..", "'..'"},
		{"a leading parent segment is refused", "../etc/passwd", "'..'"},
		{"a parent segment deep inside is refused", "a/b/../../../x", "'..'"},
		{"a trailing parent segment is refused", "a/..", "'..'"},
		{"an absolute key is refused", "/etc/passwd", "absolute"},
		{"a UNC-like key is refused", "//server/share/x", "absolute"},
		{"a drive letter with a slash is refused", "C:/Windows/x", "drive letter"},
		{"a drive-relative key is refused", "c:x", "drive letter"},
		{"a lone drive letter is refused", "Z:", "drive letter"},
		{"a backslash is refused", `a\b`, "backslash"},
		{"a backslash traversal is refused", `..\..\x`, "backslash"},
		{"NUL is refused", "a\x00b", "NUL"},
		{"a directory marker is refused", "dir/", "directory marker"},
		{"a lone dot is refused", ".", "'.'"},
		{"a leading dot segment is refused", "./a", "'.'"},
		{"a dot segment inside is refused", "a/./b", "'.'"},
		{"an empty segment is refused", "a//b", "empty segment"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SafeJoin(root, tc.key)
			if err == nil {
				t.Fatalf("SafeJoin(%q) = %q; want an error", tc.key, got)
			}
			if !errors.Is(err, store.ErrUnsafeKey) {
				t.Errorf("SafeJoin(%q) error %v does not wrap store.ErrUnsafeKey", tc.key, err)
			}
			if !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("SafeJoin(%q) error %q does not give the reason %q", tc.key, err, tc.reason)
			}
		})
	}
}

func TestSafeJoinWithRelativeAndSystemRoots(t *testing.T) {
	tests := []struct {
		name, root, key, want string
	}{
		{"a relative root stays relative", "out", "a/b", "out/a/b"},
		{"the current directory as root", ".", "a", "a"},
		{"an unclean root is cleaned", "out/./x/../", "a", "out/a"},
		{"the filesystem root", "/", "etc/x", "/etc/x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SafeJoin(filepath.FromSlash(tc.root), tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.FromSlash(tc.want); got != want {
				t.Errorf("SafeJoin(%q, %q) = %q; want %q", tc.root, tc.key, got, want)
			}
		})
	}
}

// FuzzSafeJoin checks, for any key, that an accepted key becomes exactly
// root + separator + key (so the mapping is one-to-one and no segment can
// climb), and that a refused one wraps store.ErrUnsafeKey.
func FuzzSafeJoin(f *testing.F) {
	for _, k := range []string{
		"a", "a/b", "../x", "a/../../x", "/abs", "C:/x", `a\..\b`, "a\x00", "dir/",
		"./a", "a//b", "...", "..a/b..", "ü/€", "a/./b", "c:", " ", "%2e%2e/x",
	} {
		f.Add(k)
	}
	roots := []string{filepath.FromSlash("/srv/dest"), "rel", filepath.FromSlash("/")}
	f.Fuzz(func(t *testing.T, key string) {
		for _, root := range roots {
			p, err := SafeJoin(root, key)
			if err != nil {
				if !errors.Is(err, store.ErrUnsafeKey) {
					t.Fatalf("SafeJoin(%q, %q) error %v does not wrap store.ErrUnsafeKey", root, key, err)
				}
				continue
			}
			prefix := root
			if !strings.HasSuffix(prefix, string(filepath.Separator)) {
				prefix += string(filepath.Separator)
			}
			if p != prefix+filepath.FromSlash(key) {
				t.Fatalf("SafeJoin(%q, %q) = %q; want root, separator and key verbatim", root, key, p)
			}
			for _, seg := range strings.Split(key, "/") {
				if seg == ".." || seg == "." || seg == "" {
					t.Fatalf("SafeJoin(%q, %q) = %q accepted a %q segment", root, key, p, seg)
				}
			}
			if !inside(root, p) {
				t.Fatalf("SafeJoin(%q, %q) = %q is not strictly inside the root", root, key, p)
			}
		}
	})
}
