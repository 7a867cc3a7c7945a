package batchops

import (
	"fmt"
	"net/url"

	"github.com/s3bulk/s3bulk/store/s3store"
)

// EncodeKey URL-encodes an object key for a CSV manifest.
//
// AWS asks for URL-encoded keys in manifests and writes its own lists
// (inventory reports, completion reports) in form encoding, where '+' means
// a space. Encoding every byte outside RFC 3986's unreserved set, except '/',
// gives text that both form and path decoding read back as the same key: a
// space becomes %20, '+' becomes %2B, and ',', '"' and newlines can never
// break the CSV. It is s3store's encoding of keys in x-amz-copy-source.
func EncodeKey(key string) string { return s3store.EscapeKey(key) }

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
