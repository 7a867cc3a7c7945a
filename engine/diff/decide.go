package diff

import (
	"fmt"
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
	// equal contents, but two different ones prove nothing unless the size
	// leaves one part size only for their number of parts (Compare, the
	// rule verify reports by too). When no comparable
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
		return decideChecksum(src, dst)
	}
	s, d := src.ModTime.Truncate(time.Second), dst.ModTime.Truncate(time.Second)
	if s.After(d) {
		return true, fmt.Sprintf("source is newer (%s, destination %s)", s.UTC().Format(time.RFC3339), d.UTC().Format(time.RFC3339))
	}
	return false, "same size, destination not older"
}

func decideChecksum(src, dst *store.Object) (bool, string) {
	c := Compare(*src, *dst)
	multipart := c.Src.Kind == MultipartETag
	switch c.Verdict {
	case Same:
		if multipart {
			return false, "same multipart ETag"
		}
		return false, "same MD5"
	case Differs:
		if multipart {
			return true, fmt.Sprintf("multipart ETag differs (both %d parts of %d bytes)", c.Src.Parts, c.PartLo)
		}
		return true, "MD5 differs"
	}
	var why string
	switch {
	case c.Src.Kind == NoETag:
		why = "no ETag at the source"
	case c.Dst.Kind == NoETag:
		why = "no ETag at the destination"
	case multipart && c.Dst.Kind == MultipartETag:
		why = "different multipart ETags, part sizes unknown"
	case multipart || c.Dst.Kind == MultipartETag:
		why = "one ETag is multipart and the other is not"
	default:
		why = "an ETag is not an MD5"
	}
	return false, "cannot compare checksums: " + why + "; same size"
}
