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
