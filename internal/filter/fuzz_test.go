package filter

import (
	"path"
	"strings"
	"testing"
)

// FuzzPattern compiles any pattern and checks it against the standard
// library's path.Match where their wildcards agree (no "**", no '[' or '\',
// which path.Match treats specially).
func FuzzPattern(f *testing.F) {
	for _, s := range [][2]string{
		{"*.tmp", "x/a.tmp"}, {"logs/*", "logs/a"}, {"/a?c", "abc"}, {".git/", ".git/HEAD"},
		{"**/", "a"}, {"/**/", "a/b"}, {"a/***", "a/b"}, {"", ""}, {"/", "/"}, {"//", "/"},
		{"a/**/b", "a/x/y/b"}, {"?*?", "é"}, {"*\xff", "a\xff"}, {"x**", "x/y"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, p, key string) {
		ex, err := New(Options{Exclude: []string{p}})
		_, ierr := New(Options{Include: []string{p}})
		if (err == nil) != (ierr == nil) {
			t.Fatalf("pattern %q: exclude error %v but include error %v", p, err, ierr)
		}
		if err != nil {
			return
		}
		in, _ := New(Options{Include: []string{p}})
		both, err := New(Options{Include: []string{p}, Exclude: []string{p}})
		if err != nil {
			t.Fatal(err)
		}
		matched := in.KeepKey(key)
		if ex.KeepKey(key) == matched {
			t.Fatalf("pattern %q on %q: include keeps %v and exclude keeps %v", p, key, matched, ex.KeepKey(key))
		}
		if both.KeepKey(key) {
			t.Fatalf("pattern %q both included and excluded kept %q: exclude must win", p, key)
		}

		if strings.Contains(p, "**") || strings.ContainsAny(p, `[\`) || strings.HasSuffix(p, "/") {
			return
		}
		rel, anchored := strings.CutPrefix(p, "/")
		var want bool
		switch {
		case rel == "":
			return
		case anchored || strings.Contains(rel, "/"):
			want, _ = path.Match(rel, key)
		default:
			want, _ = path.Match(rel, key[strings.LastIndexByte(key, '/')+1:])
		}
		if matched != want {
			t.Fatalf("pattern %q on %q: matched %v, path.Match says %v", p, key, matched, want)
		}
	})
}
