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
// The wildcards are s5cmd's, so that a pattern selects what it selects there:
//
//	"*"   any run of characters, '/' included ("**", "***" are the same)
//	"?"   exactly one character, '/' included
//
// "s3://b/dir/*" is everything below dir/, at any depth, and
// "s3://b/logs/*.json" matches "logs/a.json" and "logs/2026/01/a.json".
// A local path globs as s5cmd globs one (Go's filepath.Glob), one
// directory level at a time, and a directory the pattern names is taken
// whole: in a local pattern "*" is any run of characters but '/', "?" one
// character but '/', and "**" (s3bulk's own) any run of characters, '/'
// included. "dir/*.json" takes "dir/a.json", not "dir/sub/x.json";
// "dir/s*" takes all of "dir/sub/"; "dir/**.json" takes both.
// Character classes ("[abc]") are not wildcards here: '[' and ']' are
// ordinary characters, because they are common in real keys (the
// --include and --exclude filters do read classes, as the AWS CLI does).
// A key that contains a literal '*' or '?' is addressed with [ParseRaw],
// where no character is special (like s5cmd --raw).
//
// Matching is on the whole key: "logs/*.json" does not match
// "logs/a.json.gz". The listing of a pattern starts at its literal prefix,
// everything before the first wildcard ([Location.Prefix]), and
// destination keys keep what follows the last '/' before the first
// wildcard ([Location.Base]).
package s3url
