package s3url

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxKeyLen is S3's limit on the length of an object key, in bytes of UTF-8.
const MaxKeyLen = 1024

const scheme = "s3://"

// Location is a parsed s3:// URL or local path, possibly holding a wildcard
// pattern. The zero value is not a valid location; build one with Parse.
type Location struct {
	// Raw is the input exactly as given, kept for messages.
	Raw string
	// Bucket is empty for local locations.
	Bucket string
	// Key is the S3 key or key pattern; empty for a bucket root. For a local
	// location it is the path with the OS separator converted to '/'.
	Key string
	// Local is true for a local path.
	Local bool
	// Literal is true when the location was parsed in raw mode: '*' and '?'
	// are ordinary characters and the location has no wildcard.
	Literal bool
}

// ErrInvalid is wrapped by every parse error so callers can tell a bad
// argument (a usage error) from a failure of the operation.
var ErrInvalid = errors.New("invalid location")

// ParseError reports why an input is not a valid location.
type ParseError struct {
	Input  string
	Reason string
}

func (e *ParseError) Error() string { return fmt.Sprintf("parse %q: %s", e.Input, e.Reason) }

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *ParseError) Unwrap() error { return ErrInvalid }

// Options change how a location is parsed. The zero value is what Parse uses.
type Options struct {
	// Raw makes '*' and '?' ordinary characters (s5cmd --raw), for keys that
	// contain them.
	Raw bool
	// LegacyBucketNames accepts bucket names that S3 no longer allows to be
	// created but that old us-east-1 buckets and some S3-compatible stores
	// still use: 1 to 255 characters of letters (either case), digits, '.',
	// '-' and '_'.
	LegacyBucketNames bool
}

// Parse parses an s3:// URL ("s3://bucket", "s3://bucket/prefix/",
// "s3://bucket/logs/2026-*/*.json") or a local path. Any string that does
// not start with a scheme is a local path; "-" is not special here.
func Parse(s string) (Location, error) { return Options{}.Parse(s) }

// ParseRaw is Parse with wildcards disabled: every character of the key is
// literal.
func ParseRaw(s string) (Location, error) { return Options{Raw: true}.Parse(s) }

// Parse parses s as described at the package-level Parse, under o.
func (o Options) Parse(s string) (Location, error) {
	fail := func(format string, args ...any) (Location, error) {
		return Location{}, &ParseError{Input: s, Reason: fmt.Sprintf(format, args...)}
	}
	if s == "" {
		return fail("empty location")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fail("contains a NUL byte")
	}
	if name, ok := schemeOf(s); ok {
		if name != "s3" {
			if strings.EqualFold(name, "s3") {
				return fail("scheme must be lowercase s3://")
			}
			return fail("unsupported scheme %q: only s3:// URLs and local paths are supported", name)
		}
		return o.parseS3(s, fail)
	}
	if len(s) >= 3 && strings.EqualFold(s[:3], "s3:") {
		// "s3:/bucket" or "s3:bucket" is a typo far more often than a local
		// file name; copying to a directory called "s3:" would surprise.
		return fail("looks like a mistyped s3:// URL")
	}
	return Location{Raw: s, Key: filepath.ToSlash(s), Local: true, Literal: o.Raw}, nil
}

func (o Options) parseS3(s string, fail func(string, ...any) (Location, error)) (Location, error) {
	rest := s[len(scheme):]
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		if key == "" {
			return fail("missing bucket name")
		}
		return fail("missing bucket name before the key")
	}
	if strings.ContainsAny(bucket, "*?") {
		return fail("wildcards are not allowed in bucket names")
	}
	check := ValidateBucketName
	if o.LegacyBucketNames {
		check = validateLegacyBucketName
	}
	if err := check(bucket); err != nil {
		return fail("%v", err)
	}
	if len(key) > MaxKeyLen {
		return fail("key is %d bytes long, S3 allows at most %d", len(key), MaxKeyLen)
	}
	if !utf8.ValidString(key) {
		return fail("key is not valid UTF-8")
	}
	return Location{Raw: s, Bucket: bucket, Key: key, Literal: o.Raw}, nil
}

// schemeOf returns the scheme of a "scheme://..." string (RFC 3986 syntax).
func schemeOf(s string) (string, bool) {
	i := strings.Index(s, "://")
	if i <= 0 {
		return "", false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return "", false
		}
	}
	return s[:i], true
}

// ValidateBucketName checks a bucket name against the rules S3 applies to new
// general purpose buckets: 3 to 63 characters of lowercase letters, digits,
// '.' and '-', starting and ending with a letter or digit, no "..", and not
// shaped like an IPv4 address. Names ending in S3's reserved suffixes
// (access point aliases, directory buckets) pass, because they address real
// buckets.
func ValidateBucketName(name string) error {
	if n := len(name); n < 3 || n > 63 {
		return fmt.Errorf("invalid bucket name %q: must be 3 to 63 characters long", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return fmt.Errorf("invalid bucket name %q: only lowercase letters, digits, '.' and '-' are allowed", name)
		}
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return fmt.Errorf("invalid bucket name %q: must start and end with a letter or digit", name)
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("invalid bucket name %q: must not contain two adjacent periods", name)
	}
	if ip := net.ParseIP(name); ip != nil && ip.To4() != nil {
		return fmt.Errorf("invalid bucket name %q: must not be formatted as an IP address", name)
	}
	return nil
}

func validateLegacyBucketName(name string) error {
	if n := len(name); n < 1 || n > 255 {
		return fmt.Errorf("invalid bucket name %q: must be 1 to 255 characters long", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(isAlnum(c) || 'A' <= c && c <= 'Z' || c == '.' || c == '-' || c == '_') {
			return fmt.Errorf("invalid bucket name %q: only letters, digits, '.', '-' and '_' are allowed", name)
		}
	}
	return nil
}

func isAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// IsS3 reports whether l names S3 rather than a local path.
func (l Location) IsS3() bool { return !l.Local }

// HasWildcard reports whether l's key is a pattern.
func (l Location) HasWildcard() bool {
	return !l.Literal && strings.ContainsAny(l.Key, "*?")
}

// IsDirLike reports whether l names a "directory" by its spelling alone: a
// bucket root, a key or path ending in '/', or a local "." or "..".
func (l Location) IsDirLike() bool {
	if !l.Local {
		return l.Key == "" || strings.HasSuffix(l.Key, "/")
	}
	k := l.Key
	return strings.HasSuffix(k, "/") || k == "." || k == ".." ||
		strings.HasSuffix(k, "/.") || strings.HasSuffix(k, "/..")
}

// AsDir returns l as a directory: a '/' is appended to a key that is neither
// empty (a bucket root) nor already ending in '/'; local "." becomes "./".
// Recursive copies use it on both ends, as aws s3 does, so that "s3://b/logs"
// lists "logs/..." and not "logs2/...". Callers use it too for a local path
// they found to be an existing directory.
func (l Location) AsDir() Location {
	if l.Key == "" || strings.HasSuffix(l.Key, "/") {
		return l
	}
	l.Key += "/"
	l.Raw += "/"
	return l
}

// Prefix is the literal start of the key, everything before the first
// wildcard, to hand to a listing. It is not cut at '/': for
// "logs/2026-*/*.json" it is "logs/2026-".
func (l Location) Prefix() string {
	if l.Literal {
		return l.Key
	}
	if i := strings.IndexAny(l.Key, "*?"); i >= 0 {
		return l.Key[:i]
	}
	return l.Key
}

// Base is the part of the key up to and including the last '/' before the
// first wildcard. Destination keys keep what follows it. For
// "logs/2026-*/*.json" it is "logs/"; for a dir-like "logs/" it is "logs/";
// for a single object "logs/a.json" it is "logs/"; for "a.json" it is "".
func (l Location) Base() string {
	p := l.Prefix()
	return p[:strings.LastIndexByte(p, '/')+1]
}

// String formats l as "s3://bucket/key", "s3://bucket" for a bucket root, or
// the local path with OS separators.
func (l Location) String() string {
	if l.Local {
		return filepath.FromSlash(l.Key)
	}
	if l.Key == "" {
		return scheme + l.Bucket
	}
	return scheme + l.Bucket + "/" + l.Key
}
