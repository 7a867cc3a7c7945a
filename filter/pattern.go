package filter

import (
	"errors"
	"strings"

	"github.com/s3bulk/s3bulk/s3url"
)

// Pattern is a compiled --include or --exclude pattern: the wildcards of
// Python's fnmatch, which the AWS CLI matches its filters with ('*' and '?'
// cross '/', [seq] and [!seq] classes; see [s3url.NewGlob]).
type Pattern struct {
	glob s3url.Glob
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
	return Pattern{glob: s3url.NewGlob(p, true)}, nil
}

// Match reports whether the whole of s matches the pattern.
func (p Pattern) Match(s string) bool { return p.glob.Match(s) }
