package batchops

import (
	"fmt"

	"github.com/s3bulk/s3bulk/s3url"
)

// DestKey is where a copy job writes srcKey: the destination prefix
// (TargetKeyPrefix) followed by the whole source key. Batch Operations has
// no way to drop a source prefix, unlike cp.
func DestKey(dstPrefix, srcKey string) string { return dstPrefix + srcKey }

// SourceBase is the part of src's keys that cp drops when naming
// destinations: the prefix of a recursive copy, or the key up to the last
// '/' before a wildcard.
func SourceBase(src s3url.Location) string {
	if src.HasWildcard() {
		return src.Base()
	}
	return src.AsDir().Key
}

// Blockers lists why a copy job cannot do what `cp SRC DST` (recursive, or
// with a wildcard) does; none means it can. `cp --engine auto` passes them
// to Choose as Workload.BatchBlocked.
func Blockers(src, dst s3url.Location) []string {
	var out []string
	if !src.IsS3() {
		out = append(out, "the source is local: a job copies between buckets only")
	}
	if !dst.IsS3() {
		out = append(out, "the destination is local: a job copies between buckets only")
	}
	if src.IsS3() && dst.IsS3() {
		if base := SourceBase(src); base != "" {
			out = append(out, fmt.Sprintf("a job keeps whole source keys (%s would land at %s) while cp drops %q; use `s3bulk batch cp` to copy that way",
				src.String(), "s3://"+dst.Bucket+"/"+DestKey(dst.AsDir().Key, base+"..."), base))
		}
	}
	return out
}
