package s3url

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		raw     bool
		key     string
		want    bool
	}{
		{"a star matches within a segment", "s3://b12/logs/*.json", false, "logs/a.json", true},
		{"a star crosses a slash", "s3://b12/logs/*.json", false, "logs/x/a.json", true},
		{"a star crosses many slashes", "s3://b12/dir/*", false, "dir/sub/deep/h.tmp", true},
		{"a star at the top matches keys that all contain a slash", "s3://b12/*", false, "a/b/c", true},
		{"a match is on the whole key", "s3://b12/logs/*.json", false, "logs/a.json.gz", false},
		{"a star matches the empty string", "s3://b12/logs/*.json", false, "logs/.json", true},
		{"a question mark matches one character", "s3://b12/a?c", false, "abc", true},
		{"a question mark needs a character", "s3://b12/a?c", false, "ac", false},
		{"a question mark matches a slash", "s3://b12/a?c", false, "a/c", true},
		{"a question mark matches one multibyte character", "s3://b12/a?c", false, "aéc", true},
		{"a question mark does not match two characters", "s3://b12/a?c", false, "abbc", false},
		{"two wildcards in two segments match", "s3://b12/logs/2026-*/*.json", false, "logs/2026-01/a.json", true},
		{"two wildcards match across extra segments", "s3://b12/logs/2026-*/*.json", false, "logs/2026-01/x/a.json", true},
		{"two wildcards reject another year", "s3://b12/logs/2026-*/*.json", false, "logs/2025-01/a.json", false},
		{"a double star is a star: it needs both slashes around it", "s3://b12/a/**/b", false, "a/b", false},
		{"a double star segment matches one segment", "s3://b12/a/**/b", false, "a/x/b", true},
		{"a double star segment matches many segments", "s3://b12/a/**/b", false, "a/x/y/z/b", true},
		{"a double star segment needs the slash before b", "s3://b12/a/**/b", false, "a/xb", false},
		{"a leading double star and slash need a slash in the key", "s3://b12/**/x.json", false, "x.json", false},
		{"a leading double star matches deep keys", "s3://b12/**/x.json", false, "p/q/x.json", true},
		{"a leading double star matches a longer name before the slash", "s3://b12/**/x.json", false, "p/a/x.json", true},
		{"a leading double star does not match a longer last name", "s3://b12/**/x.json", false, "p/ax.json", false},
		{"a trailing double star matches everything below", "s3://b12/logs/**", false, "logs/a/b/c", true},
		{"a trailing double star matches the prefix itself", "s3://b12/logs/**", false, "logs/", true},
		{"a trailing double star needs the slash", "s3://b12/logs/**", false, "logs", false},
		{"a double star inside a segment crosses slashes", "s3://b12/**.json", false, "a/b/c.json", true},
		{"a star after a double star backtracks", "s3://b12/**a*", false, "xa/ya", true},
		{"three stars are one star", "s3://b12/a***b", false, "a/x/b", true},
		{"a star backtracks over a repeated literal", "s3://b12/*ab*ab", false, "xabyabab", true},
		{"a star cannot make up a missing suffix", "s3://b12/*ab*ab", false, "xabyab_", false},
		{"brackets are literal", "s3://b12/a[1]*", false, "a[1]x", true},
		{"brackets are not a class", "s3://b12/a[1]*", false, "a1x", false},
		{"a key without wildcards matches only itself", "s3://b12/logs/", false, "logs/a", false},
		{"a raw star is literal", "s3://b12/a*b", true, "a*b", true},
		{"a raw star does not match other characters", "s3://b12/a*b", true, "axb", false},
		{"a local glob matches a local path", "photos/*.jpg", false, "photos/a.jpg", true},
		{"a local star stays in its directory, as s5cmd's", "photos/*.jpg", false, "photos/2026/a.jpg", false},
		{"a local star matches a directory, taken whole", "photos/*", false, "photos/2026/a.jpg", true},
		{"a local directory a star names is taken whole", "photos/20*", false, "photos/2026/x/a.jpg", true},
		{"a local directory named like the files is taken whole", "photos/*.jpg", false, "photos/old.jpg/a.png", true},
		{"a local star mid path matches one level", "dir/*/c.json", false, "dir/sub/c.json", true},
		{"a local star mid path does not cross levels", "dir/*/c.json", false, "dir/sub/deep/c.json", false},
		{"a local question mark is not a slash", "a?c", false, "a/c", false},
		{"a local question mark is one character", "a?c", false, "abc", true},
		{"a local double star crosses levels", "photos/**.jpg", false, "photos/2026/01/a.jpg", true},
		{"a local double star segment needs its slashes", "a/**/b", false, "a/b", false},
		{"a local star then a double star cross levels", "a*/**", false, "ab/c/d", true},
		{"a local match is on the whole name", "photos/*.jpg", false, "photos/a.jpg.gz", false},
		{"a bucket root pattern matches nothing but the empty key", "s3://b12", false, "a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Options{Raw: tt.raw}.Parse(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Match(tt.key); got != tt.want {
				t.Errorf("Parse(%q).Match(%q) = %v, want %v", tt.pattern, tt.key, got, tt.want)
			}
			if !tt.raw {
				ref := refMatch
				if l.Local {
					ref = refPathMatch
				}
				if ref := ref(t, l.Key, tt.key); ref != tt.want {
					t.Errorf("reference matcher disagrees with the table for %q on %q", tt.pattern, tt.key)
				}
			}
		})
	}
}

func TestMatchLongPattern(t *testing.T) {
	// A long literal prefix and several wildcards after it.
	p := strings.Repeat("ab/", 100) + "*/**/z?"
	l, err := Parse("s3://b12/" + p)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("ab/", 100) + "q/r/s/zz"
	if !l.Match(key) {
		t.Errorf("Match(%q) = false, want true", key)
	}
	if l.Match(key + "z") {
		t.Errorf("Match(%q) = true, want false", key+"z")
	}
}

// refMatch is the reference semantics, s5cmd's: the pattern quoted as a
// regular expression, then "?" made "." and "*" made ".*", anchored at both
// ends, with "." matching a newline too.
func refMatch(t testing.TB, pattern, key string) bool {
	q := regexp.QuoteMeta(pattern)
	q = strings.ReplaceAll(q, `\?`, ".")
	q = strings.ReplaceAll(q, `\*`, ".*")
	re, err := regexp.Compile(`(?s)^` + q + `$`)
	if err != nil {
		t.Fatalf("reference regexp for %q: %v", pattern, err)
	}
	return re.MatchString(key)
}

// refPathMatch is the reference semantics of a local pattern, s5cmd's
// (filepath.Glob, each directory found walked whole) with "**" crossing
// levels: "**" (or more stars) made ".*", "*" made "[^/]*", "?" made
// "[^/]"; the path or one of its directories matches.
func refPathMatch(t testing.TB, pattern, key string) bool {
	var b strings.Builder
	for i := 0; i < len(pattern); {
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i += len(pattern[i:]) - len(strings.TrimLeft(pattern[i:], "*"))
			continue
		case pattern[i] == '*':
			b.WriteString("[^/]*")
		case pattern[i] == '?':
			b.WriteString("[^/]")
		default:
			_, w := utf8.DecodeRuneInString(pattern[i:])
			b.WriteString(regexp.QuoteMeta(pattern[i : i+w]))
			i += w
			continue
		}
		i++
	}
	re, err := regexp.Compile(`(?s)^` + b.String() + `(/.*)?$`)
	if err != nil {
		t.Fatalf("reference regexp for %q: %v", pattern, err)
	}
	return re.MatchString(key)
}

func FuzzMatchLocal(f *testing.F) {
	for _, s := range [][2]string{
		{"dir/*.json", "dir/sub/x.json"},
		{"dir/*", "dir/sub/x.json"},
		{"a*/**", "ab/c/d"},
		{"a?c", "a/c"},
		{"*/*/*", "a/b/c/d"},
		{"x**/y*", "xq/r/yz"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, key string) {
		l, err := Parse(pattern)
		if err != nil || !l.Local || !l.HasWildcard() || !utf8.ValidString(key) || !utf8.ValidString(l.Key) {
			return
		}
		got := l.Match(key)
		if want := refPathMatch(t, l.Key, key); got != want {
			t.Errorf("Match(%q, %q) = %v, reference says %v", l.Key, key, got, want)
		}
	})
}

func FuzzMatch(f *testing.F) {
	seeds := [][2]string{
		{"logs/*.json", "logs/a.json"},
		{"a/**/b", "a/b"},
		{"**/x.json", "p/q/x.json"},
		{"**a*", "xa/ya"},
		{"a?c", "aéc"},
		{"*/*/*", "a/b/c"},
		{"a/**", "a/"},
		{"**/**/b", "b"},
		{"*ab*ab", "xabyabab"},
		{"a***b", "a/b"},
		{"?/?", "é/\n"},
		{"x**/y", "xq/r/y"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, key string) {
		l, err := Parse("s3://fuzz/" + pattern)
		if err != nil {
			return
		}
		got := l.Match(key)
		if !utf8.ValidString(key) {
			// The reference regexp reads invalid bytes as U+FFFD; Match
			// compares bytes. Only check that Match does not panic.
			return
		}
		if want := refMatch(t, l.Key, key); got != want {
			t.Errorf("Match(%q, %q) = %v, reference says %v", pattern, key, got, want)
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	const n = 1 << 20
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("logs/%04d-%02d/host-%03d/part-%06d.json", 2020+i%8, 1+i%12, i%97, i)
	}
	for _, pattern := range []string{
		"logs/2026-*/*/*.json",
		"logs/**/part-0000??.json",
		"**/host-042/**",
		"logs/2026-01/host-001/part-000000.json",
	} {
		l, err := Parse("s3://bench/" + pattern)
		if err != nil {
			b.Fatal(err)
		}
		match := l.Matcher() // as a listing's callers do
		b.Run(pattern, func(b *testing.B) {
			i := 0
			for b.Loop() {
				match(keys[i%n])
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*n/1e6, "ms/1Mkeys")
		})
	}
}
