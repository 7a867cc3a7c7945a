package batchops

import (
	"fmt"
	"net/url"
	"strings"
)

// EncodeKey URL-encodes an object key for a CSV manifest.
//
// AWS asks for URL-encoded keys in manifests and writes its own lists
// (inventory reports, completion reports) in form encoding, where '+' means
// a space. Encoding every byte outside RFC 3986's unreserved set, except '/',
// gives text that both form and path decoding read back as the same key: a
// space becomes %20, '+' becomes %2B, and ',', '"' and newlines can never
// break the CSV.
func EncodeKey(key string) string {
	n := 0
	for i := 0; i < len(key); i++ {
		if !keepByte(key[i]) {
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
		if keepByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func keepByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '-', c == '_', c == '.', c == '~', c == '/':
		return true
	}
	return false
}

// DecodeKey reads a key written by AWS in a manifest or completion report.
// AWS uses form encoding ('+' is a space, a real '+' is %2B), so this is the
// form decoder, which also reads EncodeKey's output.
func DecodeKey(s string) (string, error) {
	k, err := url.QueryUnescape(s)
	if err != nil {
		return "", fmt.Errorf("decode key %q: %w", s, err)
	}
	return k, nil
}
