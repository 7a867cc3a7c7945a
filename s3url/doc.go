// Package s3url owns the names of things s3bulk copies: it parses and formats
// s3:// and local locations, matches keys against wildcard patterns, and
// decides the destination key of each source object.
//
// It is a pure leaf: no SDK, no I/O. Whether a local path is an existing
// directory is for the caller to find out; [Location.AsDir] then makes the
// location behave as one.
//
// # Wildcards
//
// Only three wildcards exist, so that patterns stay predictable and fast to
// match against millions of keys:
//
//	"*"   any run of characters within one path segment (never '/')
//	"?"   exactly one character other than '/'
//	"**"  any run of characters, '/' included
//
// When "**/" starts a segment (at the start of the pattern or after '/') it
// matches zero or more whole segments, as in doublestar and git: "a/**/b"
// matches "a/b", "a/x/b" and "a/x/y/b". Three or more '*' in a row are
// rejected. Character classes ("[abc]") are not supported: '[' and ']' are
// ordinary characters, because they are common in real keys. A key that
// contains a literal '*' or '?' is addressed with [ParseRaw], where no
// character is special (like s5cmd --raw).
//
// Matching is on the whole key: "logs/*.json" does not match
// "logs/a.json.gz".
package s3url
