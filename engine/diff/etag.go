package diff

import (
	"fmt"

	"github.com/s3bulk/s3bulk/store"
)

// ETag is a parsed ETag; store owns the grammar (store.ParseETag), the
// one every package reads ETags with.
type (
	ETag     = store.ETag
	ETagKind = store.ETagKind
)

// The kinds of ETag (store's).
const (
	NoETag        = store.NoETag
	MD5ETag       = store.MD5ETag
	MultipartETag = store.MultipartETag
	OtherETag     = store.OtherETag
)

// ParseETag reads an ETag as a listing or a HEAD gives it (store.ParseETag).
func ParseETag(s string) ETag { return store.ParseETag(s) }

// S3's limits on multipart uploads, which bound the part sizes that can
// have made a multipart ETag.
const (
	minPartSize = 5 << 20
	maxPartSize = 5 << 30
	maxParts    = store.MaxETagParts
)

// Verdict is what a listing can tell about two objects' bytes.
type Verdict int

const (
	// Same: the same size and ETags that show the same bytes.
	Same Verdict = iota
	// SameSize: the same size, and no ETag on one side to say more.
	SameSize
	// Differs: sizes, or ETags that can be compared, differ.
	Differs
	// NotComparable: the same size, and ETags that prove nothing either
	// way.
	NotComparable
)

// Comparison is what Compare found, with what it was found from.
type Comparison struct {
	Verdict  Verdict
	Size     int64 // the source's
	Src, Dst ETag
	// PartLo and PartHi bound the part size that made two multipart ETags
	// of the same number of parts for Size bytes (PartLo > PartHi: none
	// can).
	PartLo, PartHi int64
	// Reason says why, in words for a report; "" for Same and SameSize.
	Reason string
}

// Compare decides from what a listing says whether src and dst hold the
// same bytes. It is the one ETag comparison of s3bulk: verify reports it,
// Decide's Checksum mode copies on it, sync --checksum goes on to
// full-object checksums when it cannot tell.
//
// Two single-part ETags (MD5 digests) always compare. Two multipart ETags
// compare when equal, or when both have the same number of parts and the
// size allows only one part size for it (otherwise the same bytes
// uploaded with other part sizes have other ETags). Anything else with
// the same size is NotComparable, or SameSize without an ETag on a side.
// The ETag of an object encrypted with SSE-KMS or SSE-C looks like an MD5
// but is not one: two such copies of the same bytes compare as different.
func Compare(src, dst store.Object) Comparison {
	c := Comparison{Size: src.Size, Src: ParseETag(src.ETag), Dst: ParseETag(dst.ETag)}
	s, d := c.Src, c.Dst
	switch {
	case src.Size != dst.Size:
		c.Verdict, c.Reason = Differs, fmt.Sprintf("sizes differ (source %d bytes, destination %d)", src.Size, dst.Size)
		return c
	case s.Kind == NoETag || d.Kind == NoETag:
		c.Verdict = SameSize
		return c
	case (s.Kind == MD5ETag || s.Kind == MultipartETag) && s == d:
		c.Verdict = Same
		return c
	}
	differ := fmt.Sprintf("ETags differ (source %s, destination %s)", s.Value, d.Value)
	c.Verdict = NotComparable
	switch {
	case s.Kind == MD5ETag && d.Kind == MD5ETag:
		c.Verdict, c.Reason = Differs, differ
	case s.Kind == MultipartETag && d.Kind == MultipartETag && s.Parts == d.Parts:
		c.PartLo, c.PartHi = partSizeRange(src.Size, s.Parts)
		switch lo, hi := c.PartLo, c.PartHi; {
		case lo == hi:
			c.Verdict, c.Reason = Differs, differ+fmt.Sprintf(", both from %d parts of %d bytes", s.Parts, lo)
		case lo > hi:
			c.Reason = fmt.Sprintf("ETags not comparable: %d parts cannot make %d bytes within S3's part limits", s.Parts, src.Size)
		default:
			c.Reason = fmt.Sprintf("ETags not comparable: multipart ETags of %d parts, from any part size of %d to %d bytes", s.Parts, lo, hi)
		}
	case s.Kind == MultipartETag && d.Kind == MultipartETag:
		c.Reason = fmt.Sprintf("ETags not comparable: multipart ETags of %d and %d parts", s.Parts, d.Parts)
	case s.Kind == MultipartETag || d.Kind == MultipartETag:
		c.Reason = "ETags not comparable: one single-part, one multipart"
	default:
		c.Reason = fmt.Sprintf("ETags not comparable: not MD5 digests (source %s, destination %s)", s.Value, d.Value)
	}
	return c
}

// partSizeRange returns the part sizes [lo, hi] that cut size bytes into
// exactly parts parts within S3's limits (every part but the last at least
// 5 MiB, none above 5 GiB); lo > hi when there is none. With one part, the
// part is the object.
func partSizeRange(size, parts int64) (lo, hi int64) {
	if parts == 1 {
		return size, size
	}
	// (parts-1)*p < size <= parts*p
	lo = max((size+parts-1)/parts, minPartSize)
	hi = min((size+parts-2)/(parts-1)-1, maxPartSize)
	return lo, hi
}
