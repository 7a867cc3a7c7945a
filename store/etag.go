package store

import (
	"strconv"
	"strings"
)

// TrimETag removes the quotes S3 puts around ETags; an Object holds them
// bare.
func TrimETag(etag string) string {
	return strings.Trim(etag, `"`)
}

// QuoteETag puts back the quotes S3 wants around an ETag in a request's
// header (If-Match, x-amz-copy-source-if-match); one already quoted, or
// weak, is left as it is.
func QuoteETag(etag string) string {
	if etag == "" || strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, `W/"`) {
		return etag
	}
	return `"` + etag + `"`
}

// ETagKind is what an ETag's form says about the bytes it was made from.
type ETagKind int

const (
	// NoETag: the side has none (a local file).
	NoETag ETagKind = iota
	// MD5ETag: 32 hex digits, the MD5 of the object (a single-part upload
	// without SSE-KMS or SSE-C).
	MD5ETag
	// MultipartETag: "digest-N", the MD5 of the parts' MD5s and the number
	// of parts, from 1 to 10,000.
	MultipartETag
	// OtherETag: anything else, which says nothing about the bytes.
	OtherETag
)

// ETag is a parsed ETag.
type ETag struct {
	// Value is the ETag without quotes, in lower case: stores should drop
	// the quotes S3 puts around ETags, but one that did not must not make
	// every object look changed.
	Value string
	Kind  ETagKind
	// Parts is N of a MultipartETag.
	Parts int64
}

// ParseETag reads an ETag as a listing or a HEAD gives it.
func ParseETag(s string) ETag {
	e := ETag{Value: strings.ToLower(strings.Trim(s, `"`))}
	switch {
	case e.Value == "":
		e.Kind = NoETag
	case isMD5(e.Value):
		e.Kind = MD5ETag
	default:
		e.Kind = OtherETag
		digest, n, ok := strings.Cut(e.Value, "-")
		if !ok || !isMD5(digest) || n == "" || strings.Trim(n, "0123456789") != "" {
			break
		}
		if parts, err := strconv.ParseInt(n, 10, 64); err == nil && parts >= 1 && parts <= MaxETagParts {
			e.Kind, e.Parts = MultipartETag, parts
		}
	}
	return e
}

func isMD5(e string) bool {
	if len(e) != 32 {
		return false
	}
	for i := 0; i < len(e); i++ {
		if c := e[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// MaxETagParts is S3's largest number of parts of a multipart upload, the
// largest N of a multipart ETag.
const MaxETagParts = 10000
