package s3url

import "strings"

// Match reports whether key is selected by l: the whole key matches l's
// pattern (see the package documentation for the wildcards), or equals l.Key
// when l has no wildcard. key is in l's namespace: an S3 key, or for a local
// location a '/'-separated path spelled like l.Key. A caller matching many
// keys compiles the pattern once with [Location.Matcher].
func (l Location) Match(key string) bool { return l.Matcher()(key) }

// Matcher returns l.Match with the pattern compiled once, for the keys of a
// listing.
func (l Location) Matcher() func(key string) bool {
	if !l.HasWildcard() {
		exact := l.Key
		return func(key string) bool { return key == exact }
	}
	if l.Local {
		return l.pathMatcher()
	}
	// The literal ends of the pattern rule out most keys of a listing
	// before the glob runs.
	lit := l.Prefix()
	suffix := l.Key[strings.LastIndexAny(l.Key, "*?")+1:]
	g := NewGlob(l.Key[len(lit):len(l.Key)-len(suffix)], false)
	return func(key string) bool {
		if len(key) < len(lit)+len(suffix) || !strings.HasPrefix(key, lit) || !strings.HasSuffix(key, suffix) {
			return false
		}
		return g.Match(key[len(lit) : len(key)-len(suffix)])
	}
}

// pathMatcher is Matcher for a local pattern, which selects as s5cmd's
// (Go's filepath.Glob, then each directory found walked whole): a path
// whose name, or the name of a directory it is in, matches the pattern,
// where '*' and '?' stay within one directory level and "**" crosses
// them.
func (l Location) pathMatcher() func(key string) bool {
	lit := l.Prefix()
	g := newPathGlob(l.Key[len(lit):])
	return func(key string) bool {
		rest, ok := strings.CutPrefix(key, lit)
		if !ok {
			return false
		}
		if g.Match(rest) {
			return true
		}
		for i := 0; i < len(rest); i++ {
			if rest[i] == '/' && g.Match(rest[:i]) {
				return true
			}
		}
		return false
	}
}
