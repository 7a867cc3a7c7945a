package s3url

import (
	"math/bits"
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
	// before the NFA runs.
	lit := l.Prefix()
	end := strings.LastIndexAny(l.Key, "*?") + 1
	if end >= 2 {
		if kind, width := token(l.Key, end-2); kind == tokSegments {
			end += width - 2 // the '/' of "**/" may match nothing
		}
	}
	suffix := l.Key[end:]
	if !strings.HasPrefix(key, lit) || !strings.HasSuffix(key, suffix) || len(key) < len(lit)+len(suffix) {
		return false
	}
	return matchFrom(l.Key, len(lit), key)
}

// matchFrom runs the pattern p from byte offset start over key[start:] as a
// Thompson NFA: one bit per pattern offset, so time is O(len(p)*len(key))
// in the worst case and no pattern can make it backtrack exponentially.
// State i means "the rest of the key must match p[i:]".
func matchFrom(p string, start int, key string) bool {
	words := (len(p) + 1 + 63) / 64
	var bufA, bufB [4]uint64 // patterns up to 255 bytes stay off the heap
	cur, next := bufA[:], bufB[:]
	if words > len(bufA) {
		cur, next = make([]uint64, words), make([]uint64, words)
	} else {
		cur, next = cur[:words], next[:words]
	}
	addState(p, cur, start)
	for ki := start; ki < len(key); {
		r, kw := utf8.DecodeRuneInString(key[ki:])
		ch := key[ki : ki+kw]
		clear(next)
		alive := false
		for w, word := range cur {
			for word != 0 {
				i := w*64 + trailingZeros(word)
				word &= word - 1
				if i >= len(p) {
					continue // accepting state consumes nothing
				}
				switch kind, width := token(p, i); kind {
				case tokStar:
					if r != '/' {
						addState(p, next, i)
						alive = true
					}
				case tokDoubleStar, tokInner:
					addState(p, next, i)
					alive = true
				case tokSegments:
					// Consumes nothing itself: its inner state does.
				case tokOne:
					if r != '/' {
						addState(p, next, i+width)
						alive = true
					}
				default:
					if p[i:i+width] == ch {
						addState(p, next, i+width)
						alive = true
					}
				}
			}
		}
		if !alive {
			return false
		}
		cur, next = next, cur
		ki += kw
	}
	return cur[len(p)/64]&(1<<(len(p)%64)) != 0
}

const (
	tokLiteral    = iota
	tokStar       // '*': any run of non-'/' characters
	tokOne        // '?': one non-'/' character
	tokDoubleStar // '**' inside a segment: any run of characters
	// tokSegments is "**/" starting a segment, "(.*/)?" as a regexp: it
	// either matches nothing or enters tokInner, the ".*" that loops on
	// every character until the '/' that follows it is matched.
	tokSegments
	tokInner
)

// token classifies the pattern element at p[i] and returns its width in
// bytes. Patterns were validated: there is no "***", so a '*' preceded by
// '*' is always the second star of a "**", and states land there only as
// the inner state of tokSegments.
func token(p string, i int) (kind, width int) {
	switch p[i] {
	case '?':
		return tokOne, 1
	case '*':
		switch {
		case i > 0 && p[i-1] == '*':
			return tokInner, 1
		case i+1 < len(p) && p[i+1] == '*':
			if (i == 0 || p[i-1] == '/') && i+2 < len(p) && p[i+2] == '/' {
				return tokSegments, 3
			}
			return tokDoubleStar, 2
		}
		return tokStar, 1
	}
	_, w := utf8.DecodeRuneInString(p[i:])
	return tokLiteral, w
}

// addState sets state i and every state reachable from it without consuming
// a character.
func addState(p string, set []uint64, i int) {
	for {
		if set[i/64]&(1<<(i%64)) != 0 {
			return
		}
		set[i/64] |= 1 << (i % 64)
		if i >= len(p) {
			return
		}
		switch kind, width := token(p, i); kind {
		case tokStar, tokDoubleStar:
			i += width
		case tokSegments:
			addState(p, set, i+width) // the empty alternative
			i++                       // the inner loop
		case tokInner:
			i++ // on to the '/' that ends the skipped segments
		default:
			return
		}
	}
}

func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }
