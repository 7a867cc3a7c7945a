// Package wire is the part of s3store's hand-built S3 client that knows
// bytes on the wire and nothing of a Store: SigV4 header signing that
// produces the SDK's signer's bytes (sigv4.go) and a light decoder of
// ListObjectsV2 answers (listxml.go). s3store's raw client and its list
// middleware use them; everything they cannot handle goes to the SDK.
package wire
