package store

import "strings"

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
