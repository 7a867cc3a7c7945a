package s3store

import "strings"

// copySource formats the x-amz-copy-source header: "bucket/key" with the key
// percent-encoded by EscapeKey.
func copySource(bucket, key string) string { return bucket + "/" + EscapeKey(key) }

// EscapeKey percent-encodes every byte of key but RFC 3986's unreserved
// characters and '/', '+' included: servers decode x-amz-copy-source with
// query-string rules (Go's url.QueryUnescape in versitygw, for one), where a
// raw '+' becomes a space, and both path and form decoding read the result
// back as key. A key with nothing to encode is returned as it is.
func EscapeKey(key string) string {
	n := 0
	for i := 0; i < len(key); i++ {
		if !unreserved(key[i]) && key[i] != '/' {
			n++
		}
	}
	if n == 0 {
		return key
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(key) + 2*n)
	for i := 0; i < len(key); i++ {
		c := key[i]
		if unreserved(c) || c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// CopySource is the x-amz-copy-source header this package sends for
// bucket and key, for code that makes its own CopyObject requests with the
// SDK (bench's methods) or answers them (test fakes of AWS services).
func CopySource(bucket, key string) string { return copySource(bucket, key) }

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}
