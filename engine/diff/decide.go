package diff

import (
	"fmt"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/store"
)

// Mode is how Decide compares a source object with its destination.
type Mode int

const (
	// SizeAndTime copies when the sizes differ or the source was modified
	// after the destination, as aws s3 sync does. Times are compared to the
	// second, S3's precision, so that a local file with a sub-second
	// modification time is not copied again on every run.
	SizeAndTime Mode = iota
	// SizeOnly copies when the sizes differ.
	SizeOnly
	// Checksum copies when the sizes differ or the contents' checksums
	// differ. From a listing that means ETags: two single-part MD5 ETags
	// (32 hex digits) are compared; two equal multipart ETags ("hex-N") mean
	// equal contents, but two different ones prove nothing unless both used
	// the same part size, which a listing does not tell. When no comparable
	// checksum exists, Decide says "cannot compare checksums" and why, and
	// falls back to comparing sizes, as rclone --checksum does.
	//
	// The ETag of an object encrypted with SSE-KMS or SSE-C is not the MD5
	// of its content though it looks like one: such pairs compare as
	// different and are copied, which costs a copy but never skips one.
	// A caller that knows a better checksum (a local file's MD5, or the
	// multipart ETag a local file would get with the destination's known
	// part size) puts it in the object's ETag before calling Decide.
	Checksum
)

func (m Mode) String() string {
	switch m {
	case SizeAndTime:
		return "size-and-time"
	case SizeOnly:
		return "size-only"
	case Checksum:
		return "checksum"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Decide says whether src must be copied over dst, and why, in a few words
// fit for a plan or a log. A nil dst means the destination has no such
// object; a nil src, that only the destination has it (Decide never asks for
// a copy then; deleting is the caller's choice).
func Decide(src, dst *store.Object, mode Mode) (copy bool, reason string) {
	switch {
	case src == nil && dst == nil:
		return false, "nothing to compare"
	case src == nil:
		return false, "only at the destination"
	case dst == nil:
		return true, "missing at the destination"
	case src.Size != dst.Size:
		return true, fmt.Sprintf("size differs (source %d bytes, destination %d)", src.Size, dst.Size)
	}
	switch mode {
	case SizeOnly:
		return false, "same size"
	case Checksum:
		return decideChecksum(src.ETag, dst.ETag)
	}
	s, d := src.ModTime.Truncate(time.Second), dst.ModTime.Truncate(time.Second)
	if s.After(d) {
		return true, fmt.Sprintf("source is newer (%s, destination %s)", s.UTC().Format(time.RFC3339), d.UTC().Format(time.RFC3339))
	}
	return false, "same size, destination not older"
}

func decideChecksum(srcTag, dstTag string) (bool, string) {
	s, d := normETag(srcTag), normETag(dstTag)
	sk, dk := etagKind(s), etagKind(d)
	switch {
	case sk == md5ETag && dk == md5ETag:
		if s == d {
			return false, "same MD5"
		}
		return true, "MD5 differs"
	case sk == multipartETag && dk == multipartETag && s == d:
		return false, "same multipart ETag"
	}
	var why string
	switch {
	case sk == noETag:
		why = "no ETag at the source"
	case dk == noETag:
		why = "no ETag at the destination"
	case sk == multipartETag && dk == multipartETag:
		why = "different multipart ETags, part sizes unknown"
	case sk == multipartETag || dk == multipartETag:
		why = "one ETag is multipart and the other is not"
	default:
		why = "an ETag is not an MD5"
	}
	return false, "cannot compare checksums: " + why + "; same size"
}

type etagKindT int

const (
	noETag etagKindT = iota
	md5ETag
	multipartETag
	otherETag
)

// normETag drops the quotes S3 puts around ETags (stores should have, but
// one that did not must not make every object look changed) and folds case.
func normETag(e string) string {
	return strings.ToLower(strings.Trim(e, `"`))
}

func etagKind(e string) etagKindT {
	switch {
	case e == "":
		return noETag
	case len(e) == 32 && isHex(e):
		return md5ETag
	}
	h, n, ok := strings.Cut(e, "-")
	if ok && len(h) == 32 && isHex(h) && n != "" && strings.Trim(n, "0123456789") == "" {
		return multipartETag
	}
	return otherETag
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
