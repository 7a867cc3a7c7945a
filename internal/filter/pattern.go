package filter

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Pattern is a compiled --include or --exclude pattern: the wildcards of
// Python's fnmatch, which the AWS CLI matches its filters with.
type Pattern struct {
	tokens []token
}

// Compile reads p. An empty pattern and one with a NUL byte are errors;
// every other string is a pattern ('[' without its ']' is an ordinary
// character, as in fnmatch).
func Compile(p string) (Pattern, error) {
	switch {
	case p == "":
		return Pattern{}, errors.New("empty pattern")
	case strings.IndexByte(p, 0) >= 0:
		return Pattern{}, errors.New("contains a NUL byte")
	}
	return Pattern{tokens: parse(p)}, nil
}

// Match reports whether the whole of s matches the pattern.
func (p Pattern) Match(s string) bool { return match(p.tokens, s) }

type kind uint8

const (
	literal kind = iota // one character
	star                // any run of characters, '/' included
	one                 // exactly one character, '/' included
	class               // one character of a [...] set, or not of a [!...] one
)

type token struct {
	kind   kind
	r      rune      // literal
	negate bool      // class
	ranges [][2]rune // class: inclusive ranges; a single character is [c, c]
}

// parse reads p as fnmatch.translate does: runs of '*' are one star, '['
// opens a class only when a ']' closes it (a ']' right after "[" or "[!"
// is a member), a class member "a-z" is a range (a reversed one matches
// nothing), a '-' first, last or right after a range is itself, and no
// character escapes another.
func parse(p string) []token {
	var out []token
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRuneInString(p[i:])
		switch r {
		case '*':
			if len(out) == 0 || out[len(out)-1].kind != star {
				out = append(out, token{kind: star})
			}
			i += w
			continue
		case '?':
			out = append(out, token{kind: one})
			i += w
			continue
		case '[':
			if t, n, ok := parseClass(p[i+1:]); ok {
				out = append(out, t)
				i += 1 + n
				continue
			}
		}
		out = append(out, token{kind: literal, r: r})
		i += w
	}
	return out
}

// parseClass reads a class after its '[': the token and the bytes it took,
// its closing ']' included; ok is false when no ']' closes it.
func parseClass(s string) (token, int, bool) {
	j := 0
	t := token{kind: class}
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
	var members []rune
	for _, r := range s[start:end] {
		members = append(members, r)
	}
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
	case literal:
		return r == t.r
	case one:
		return true
	case class:
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

// match reports whether the whole of s matches the tokens. It keeps only
// the last star to go back to, which is enough when every other token
// takes exactly one character: time is O(len(p)*len(s)) at worst, never
// exponential. A byte that is not valid UTF-8 is one character.
func match(p []token, s string) bool {
	pi, si := 0, 0
	starP, starS := -1, -1
	for si < len(s) {
		if pi < len(p) {
			if p[pi].kind == star {
				pi++
				if pi == len(p) {
					return true
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
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		pi, si = starP, starS
	}
	for pi < len(p) && p[pi].kind == star {
		pi++
	}
	return pi == len(p)
}
