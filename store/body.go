package store

import "bytes"

// BytesReader is a body held whole in memory: an io.Reader, io.Seeker and
// io.ReaderAt over b as bytes.Reader is. A store's Put may take its bytes
// as they are (Bytes) instead of copying them out through Read: S3's
// hashes them for the request's checksum and sends them from where they
// lie, and a retry sends the same bytes again.
type BytesReader struct {
	bytes.Reader
	b []byte
}

// NewBytesReader returns a BytesReader over b, which the caller must not
// change while a store may read it.
func NewBytesReader(b []byte) *BytesReader {
	r := &BytesReader{b: b}
	r.Reset(b)
	return r
}

// Bytes returns the bytes not yet read: all of them before the first Read,
// none at the end. They share b's memory.
func (r *BytesReader) Bytes() []byte { return r.b[len(r.b)-r.Len():] }
