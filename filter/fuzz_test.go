package filter

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMatchAgreesWithFnmatch checks patterns against what Python's
// fnmatch, the AWS CLI's matcher, answered for them: testdata/fnmatch.txt,
// written by testdata/fnmatch.py.
func TestMatchAgreesWithFnmatch(t *testing.T) {
	f, err := os.Open("testdata/fnmatch.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			t.Fatalf("line %q: want pattern, key and answer", sc.Text())
		}
		pattern, key, want := fields[0], fields[1], fields[2] == "1"
		p, err := Compile(pattern)
		if err != nil {
			t.Fatalf("Compile(%q): %v", pattern, err)
		}
		if got := p.Match(key); got != want {
			t.Errorf("pattern %q on %q: matched %v, fnmatch says %v", pattern, key, got, want)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 2000 {
		t.Fatalf("only %d cases read", n)
	}
}

// FuzzPattern compiles any pattern and checks the rules that hold for all:
// an include and an exclude of it split keys in two, the last of the two
// decides, and where the pattern has no class its meaning is fnmatch's
// ("*" is ".*", "?" is ".", everything else literal).
func FuzzPattern(f *testing.F) {
	for _, s := range [][2]string{
		{"*.tmp", "x/a.tmp"}, {"logs/*", "logs/a/b"}, {"a?c", "a/c"}, {".git/", ".git/HEAD"},
		{"[ab].json", "a.json"}, {"x[!0-9]y", "x/y"}, {"a/***", "a/b"}, {"", ""}, {"/", "/"},
		{"[z-a]", "m"}, {"[]a]", "]"}, {"a[b", "a[b"}, {"?*?", "é"}, {"*\xff", "a\xff"},
		{"*ab*ab", "xabyabab"}, {"[a-c-e]", "-"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, p, key string) {
		ex, err := New(Options{Rules: []Rule{Exclude(p)}})
		in, ierr := New(Options{Rules: []Rule{Include(p)}})
		if (err == nil) != (ierr == nil) {
			t.Fatalf("pattern %q: exclude error %v but include error %v", p, err, ierr)
		}
		if err != nil {
			return
		}
		matched := in.KeepKey(key)
		if ex.KeepKey(key) == matched {
			t.Fatalf("pattern %q on %q: include keeps %v and exclude keeps %v", p, key, matched, ex.KeepKey(key))
		}
		last, _ := New(Options{Rules: []Rule{Include(p), Exclude(p)}})
		first, _ := New(Options{Rules: []Rule{Exclude(p), Include(p)}})
		if last.KeepKey(key) {
			t.Fatalf("pattern %q included then excluded kept %q: the last must decide", p, key)
		}
		if first.KeepKey(key) != true {
			t.Fatalf("pattern %q excluded then included dropped %q: the last must decide", p, key)
		}
		if strings.Contains(p, "[") || !utf8.ValidString(p) || !utf8.ValidString(key) {
			return
		}
		q := regexp.QuoteMeta(p)
		q = strings.ReplaceAll(q, `\*`, ".*")
		q = strings.ReplaceAll(q, `\?`, ".")
		if want := regexp.MustCompile(`(?s)^` + q + `$`).MatchString(key); matched != want {
			t.Fatalf("pattern %q on %q: matched %v, the reference says %v", p, key, matched, want)
		}
	})
}
