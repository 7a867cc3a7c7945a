package s3url

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoName is returned by DestKey and RelKey when a source key leaves
// nothing to name the destination with: a "directory marker" object such as
// "logs/" found by a recursive copy of "logs/". Callers skip such keys.
var ErrNoName = errors.New("source key has no name below the source base")

// DestKey returns the key that srcKey, one object found at src, gets at dst.
// For a local destination the result is a '/'-separated path (convert it with
// filepath.FromSlash). srcKey is spelled in src's namespace: the full S3 key,
// or for a local source the path as the user's path would spell it
// ("photos/2026/a.jpg" under "photos/").
//
// single is true when src names exactly one object: no wildcard and no
// --recursive. Then the object goes to dst.Key exactly, unless dst is
// dir-like (a bucket root, a key ending in '/', local "."), in which case it
// keeps its base name under dst:
//
//	cp s3://src/logs/a.json s3://dst/b.json    -> b.json
//	cp s3://src/logs/a.json s3://dst/archive/  -> archive/a.json
//	cp s3://src/logs/a.json s3://dst           -> a.json
//	cp photos/a.jpg s3://dst/p/                -> p/a.jpg
//	cp s3://src/logs/a.json .                  -> ./a.json
//
// Otherwise (a wildcard or a recursive copy) dst is always a directory, a '/'
// being appended when missing as aws s3 does, and the part of srcKey after
// the source's base is appended to it with JoinKey. For a recursive copy
// without wildcards the base is src.AsDir().Key, so trailing slashes on
// either side do not matter:
//
//	cp --recursive s3://src/logs/ s3://dst/archive/  logs/2026/a.json -> archive/2026/a.json
//	cp --recursive s3://src/logs  s3://dst/archive   logs/2026/a.json -> archive/2026/a.json
//	cp --recursive s3://src       s3://dst/archive   logs/a.json      -> archive/logs/a.json
//	cp --recursive photos         s3://dst           photos/2026/a.jpg -> 2026/a.jpg
//
// For a wildcard source the base is src.Base(), the key up to the last '/'
// before the first wildcard, so the directories the wildcards matched are
// kept (s5cmd without --flatten):
//
//	cp 's3://src/logs/2026-*/*.json' s3://dst/archive/  logs/2026-01/a.json -> archive/2026-01/a.json
//	cp 's3://src/logs/*.json'        s3://dst/archive   logs/a.json         -> archive/a.json
//	cp 's3://src/**/a.json'          out/               x/y/a.json          -> out/x/y/a.json
//
// The relative part is kept verbatim: a source key "logs//x" under "logs/"
// becomes "archive//x". DestKey fails when dst has a wildcard, when single is
// set for a wildcard source, when srcKey is not below the source base, and
// with ErrNoName when nothing is left to name the object with.
func DestKey(src Location, srcKey string, dst Location, single bool) (string, error) {
	if dst.HasWildcard() {
		return "", fmt.Errorf("name destination in %s: destination cannot contain wildcards", dst)
	}
	rel, err := RelKey(src, srcKey, single)
	if err != nil {
		return "", err
	}
	if single && !dst.IsDirLike() {
		return dst.Key, nil
	}
	if !single {
		dst = dst.AsDir()
	}
	return JoinKey(dst.Key, rel), nil
}

// RelKey returns the part of srcKey that DestKey appends to the destination:
// the base name for a single object, else what follows the source's base
// (see DestKey).
func RelKey(src Location, srcKey string, single bool) (string, error) {
	var rel string
	switch {
	case single && src.HasWildcard():
		return "", fmt.Errorf("name destination of %s: a wildcard source is never a single object", src)
	case single:
		rel = srcKey[strings.LastIndexByte(srcKey, '/')+1:]
	default:
		base := src.Base()
		if !src.HasWildcard() {
			base = src.AsDir().Key
		}
		r, ok := strings.CutPrefix(srcKey, base)
		if !ok {
			return "", fmt.Errorf("name destination of %q: key is not below %q of %s", srcKey, base, src)
		}
		rel = r
	}
	if rel == "" {
		return "", fmt.Errorf("name destination of %q: %w", srcKey, ErrNoName)
	}
	return rel, nil
}

// JoinKey appends rel to prefix, putting one '/' between them when prefix
// is neither empty nor already ends in '/'. It never cleans either part:
// S3 keys are opaque, and "a//b" or "./x" are keys in their own right.
func JoinKey(prefix, rel string) string {
	switch {
	case rel == "":
		return prefix
	case prefix == "" || strings.HasSuffix(prefix, "/"):
		return prefix + rel
	default:
		return prefix + "/" + rel
	}
}

// CheckDest refuses a destination that DestKey could not name a copy's
// objects in, before anything is listed: one with a wildcard, and, for a
// wildcard source, an S3 destination that is neither a bucket nor a prefix
// ending in '/', as s5cmd does ("s3://d/p" could mean "p/" or a key "p"
// that every match would overwrite).
func CheckDest(src, dst Location) error {
	if dst.HasWildcard() {
		return fmt.Errorf("destination %s: wildcards are only allowed in the source", dst)
	}
	if src.HasWildcard() && dst.IsS3() && !dst.IsDirLike() {
		return fmt.Errorf("destination %s: a wildcard source needs a bucket, a prefix ending in '/' or a directory (%s/)", dst, dst)
	}
	return nil
}
