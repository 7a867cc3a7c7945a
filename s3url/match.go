package s3url

import (
	"strings"
	"unicode/utf8"
)

// Match reports whether key is selected by l: the whole key matches l's
// pattern (see the package documentation for the wildcards), or equals l.Key
// when l has no wildcard. key is in l's namespace: an S3 key, or for a local
// location a '/'-separated path spelled like l.Key.
func (l Location) Match(key string) bool {
	if !l.HasWildcard() {
		return key == l.Key
	}
	// The literal ends of the pattern rule out most keys of a listing
	// before the matcher runs.
	lit := l.Prefix()
	suffix := l.Key[strings.LastIndexAny(l.Key, "*?")+1:]
	if len(key) < len(lit)+len(suffix) || !strings.HasPrefix(key, lit) || !strings.HasSuffix(key, suffix) {
		return false
	}
	return glob(l.Key[len(lit):len(l.Key)-len(suffix)], key[len(lit):len(key)-len(suffix)])
}

// glob reports whether the whole of s matches pattern p, in which '*' (and
// any run of '*', so "**" too) is any run of characters, '/' included, '?'
// is exactly one character, '/' included, and every other character stands
// for itself. These are s5cmd's wildcards. A character is a UTF-8 sequence;
// a byte that is not valid UTF-8 is one character.
//
// It keeps only the last '*' to go back to, which is enough when '*' and
// '?' are the only wildcards: time is O(len(p)*len(s)) in the worst case
// and no pattern makes it backtrack exponentially.
func glob(p, s string) bool {
	pi, si := 0, 0
	starP, starS := -1, -1 // where to resume after the last '*'
	for si < len(s) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				if pi == len(p) {
					return true // a trailing '*' takes the rest
				}
				starP, starS = pi, si
				continue
			case '?':
				_, w := utf8.DecodeRuneInString(s[si:])
				pi, si = pi+1, si+w
				continue
			default:
				if p[pi] == s[si] {
					pi, si = pi+1, si+1
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last '*' take one more character and try again.
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		pi, si = starP, starS
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
