package s3url

import (
	"strings"
	"unicode/utf8"
)

// Glob is a compiled wildcard pattern: the one matcher behind locations
// (s5cmd's wildcards, [NewGlob] with classes false) and the --include and
// --exclude filters (Python fnmatch's, as the AWS CLI uses, classes true).
// The zero Glob matches only the empty string.
type Glob struct {
	tokens []token
	// path: a local path's glob ([newPathGlob]), whose stars may stop at '/'.
	path bool
}

// newPathGlob compiles the pattern of a local path, as s5cmd globs one
// (Go's filepath.Glob): '*' is any run of characters but '/', '?' one
// character but '/'; and, s3bulk's own, "**" (or more stars) is any run of
// characters, '/' included. '[' is an ordinary character, as in an S3
// pattern.
func newPathGlob(p string) Glob {
	var out []token
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == '*':
			n := len(p[i:]) - len(strings.TrimLeft(p[i:], "*"))
			k := tokSegStar
			if n > 1 {
				k = tokStar
			}
			// A star next to a double star adds nothing to it.
			if len(out) > 0 && (out[len(out)-1].kind == tokStar || out[len(out)-1].kind == tokSegStar) {
				if k == tokStar {
					out[len(out)-1].kind = tokStar
				}
			} else {
				out = append(out, token{kind: k})
			}
			i += n
			continue
		case r == '?':
			out = append(out, token{kind: tokSegOne})
		default:
			out = append(out, token{kind: tokLiteral, r: r})
		}
		i += w
	}
	return Glob{tokens: out, path: true}
}

// NewGlob compiles p. In both dialects a run of '*' is any run of
// characters, '/' included, '?' is exactly one character, '/' included,
// and no character escapes another. With classes, '[' opens a class as in
// fnmatch.translate: "[seq]" is one character of seq, "[!seq]" one not in
// it, "a-z" in seq a range (a reversed one matches nothing), '-' first,
// last or right after a range is itself, a ']' right after "[" or "[!" is
// a member, and a '[' that no ']' closes is an ordinary character. Without
// classes '[' is always ordinary (s5cmd). A character is a UTF-8 sequence;
// a byte that is not valid UTF-8 is one character.
func NewGlob(p string, classes bool) Glob {
	var out []token
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == '*':
			if len(out) == 0 || out[len(out)-1].kind != tokStar {
				out = append(out, token{kind: tokStar})
			}
			i += w
			continue
		case r == '?':
			out = append(out, token{kind: tokOne})
			i += w
			continue
		case r == '[' && classes:
			if t, n, ok := parseClass(p[i+1:]); ok {
				out = append(out, t)
				i += 1 + n
				continue
			}
		}
		out = append(out, token{kind: tokLiteral, r: r})
		i += w
	}
	return Glob{tokens: out}
}

type tokenKind uint8

const (
	tokLiteral tokenKind = iota // one given character
	tokStar                     // any run of characters, '/' included
	tokOne                      // exactly one character, '/' included
	tokClass                    // one character of a [...] set, or not of a [!...] one
	tokSegStar                  // a path's '*': any run of characters but '/'
	tokSegOne                   // a path's '?': one character but '/'
)

type token struct {
	kind   tokenKind
	r      rune      // tokLiteral
	negate bool      // tokClass
	ranges [][2]rune // tokClass: inclusive ranges; a single character is [c, c]
}

// parseClass reads a class after its '[': the token and the bytes it took,
// its closing ']' included; ok is false when no ']' closes it.
func parseClass(s string) (token, int, bool) {
	t := token{kind: tokClass}
	j := 0
	if j < len(s) && s[j] == '!' {
		t.negate = true
		j++
	}
	start := j
	if j < len(s) && s[j] == ']' {
		j++
	}
	end := strings.IndexByte(s[j:], ']')
	if end < 0 {
		return token{}, 0, false
	}
	end += j
	members := []rune(s[start:end])
	for k := 0; k < len(members); {
		if k+2 < len(members) && members[k+1] == '-' {
			if members[k] <= members[k+2] {
				t.ranges = append(t.ranges, [2]rune{members[k], members[k+2]})
			}
			k += 3
			continue
		}
		t.ranges = append(t.ranges, [2]rune{members[k], members[k]})
		k++
	}
	return t, end + 1, true
}

func (t token) matches(r rune) bool {
	switch t.kind {
	case tokLiteral:
		return r == t.r
	case tokOne:
		return true
	case tokSegOne:
		return r != '/'
	case tokClass:
		in := false
		for _, rg := range t.ranges {
			if rg[0] <= r && r <= rg[1] {
				in = true
				break
			}
		}
		return in != t.negate
	}
	return false
}

// Match reports whether the whole of s matches g. It keeps only the last
// star to go back to, which is enough when every other token takes exactly
// one character: time is O(len(pattern)*len(s)) at worst, and no pattern
// makes it backtrack exponentially.
func (g Glob) Match(s string) bool {
	if g.path {
		return g.matchPath(s)
	}
	p := g.tokens
	pi, si := 0, 0
	starP, starS := -1, -1 // where to resume after the last star
	for si < len(s) {
		if pi < len(p) {
			if p[pi].kind == tokStar {
				pi++
				if pi == len(p) {
					return true // a trailing star takes the rest
				}
				starP, starS = pi, si
				continue
			}
			r, w := utf8.DecodeRuneInString(s[si:])
			if p[pi].matches(r) {
				pi, si = pi+1, si+w
				continue
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last star take one more character and try again.
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		pi, si = starP, starS
	}
	for pi < len(p) && p[pi].kind == tokStar {
		pi++
	}
	return pi == len(p)
}

// matchPath is Match for a path's glob, where a star may or may not cross
// '/': the table of which suffixes of s match which suffixes of the
// pattern, one row at a time, O(len(pattern)*len(s)) time. A character
// is a UTF-8 sequence; a byte that is not valid UTF-8 is one character.
func (g Glob) matchPath(s string) bool {
	var pos []int // the byte offsets of s's characters, then len(s)
	for i := 0; i < len(s); {
		pos = append(pos, i)
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	n := len(pos)
	pos = append(pos, len(s))
	// next[j]: the tokens after the current one match s from character j.
	next, cur := make([]bool, n+1), make([]bool, n+1)
	next[n] = true
	for i := len(g.tokens) - 1; i >= 0; i-- {
		t := g.tokens[i]
		for j := n; j >= 0; j-- {
			switch {
			case t.kind == tokStar:
				cur[j] = next[j] || j < n && cur[j+1]
			case t.kind == tokSegStar:
				cur[j] = next[j] || j < n && s[pos[j]] != '/' && cur[j+1]
			default:
				if j == n {
					cur[j] = false
					continue
				}
				r, _ := utf8.DecodeRuneInString(s[pos[j]:pos[j+1]])
				cur[j] = next[j+1] && t.matches(r)
			}
		}
		next, cur = cur, next
	}
	return next[0]
}
