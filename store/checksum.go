package store

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"hash"
	"hash/crc32"

	"github.com/minio/crc64nvme"
)

// Checksum is a checksum of an object's whole content as S3 writes it in
// x-amz-checksum-* headers: an algorithm ("CRC32C", "CRC64NVME", ...) and
// the base64 of its big-endian digest.
type Checksum struct {
	Algorithm string
	Value     string
}

// ChecksumAlgorithms are the full-object checksums S3 keeps: the CRCs
// first, which cost little to compute here, then the SHAs.
var ChecksumAlgorithms = []string{"CRC32C", "CRC32", "CRC64NVME", "SHA1", "SHA256"}

// Checksums of objects written, and why these ones. An object written
// from another keeps the algorithm of the source's checksum (a
// Metadata.Checksum read from it); a server-side CopyObject keeps it by
// itself. An object written from a local file, or from a source without
// one, gets a CRC64NVME of its whole content (FULL_OBJECT in parts),
// computed by this process, which the server checks: the AWS CLI v2's
// default and S3's own. A write in parts of a SHA1 or SHA256 gets a
// COMPOSITE checksum (a checksum of the parts' checksums): S3 takes no
// full-object SHA for a multipart upload. A server-side copy in parts of
// a CRC64NVME is left to the server, whose default it is.

// ChecksumMultipartType is the checksum type a multipart upload of alg
// gets: "FULL_OBJECT" for the CRCs, "COMPOSITE" for the SHAs (S3 allows
// nothing else).
func ChecksumMultipartType(alg string) string {
	switch alg {
	case "SHA1", "SHA256":
		return "COMPOSITE"
	}
	return "FULL_OBJECT"
}

// Full reports whether c is a checksum of the whole content: an
// algorithm and a value that is not composite.
func (c Checksum) Full() bool { return c.Algorithm != "" && c.Value != "" }

// NewChecksumHash returns a hash computing alg (one of ChecksumAlgorithms)
// as S3 does, or nil for another name.
func NewChecksumHash(alg string) hash.Hash {
	switch alg {
	case "CRC32":
		return crc32.NewIEEE()
	case "CRC32C":
		return crc32.New(crc32cTable)
	case "CRC64NVME":
		// minio/crc64nvme folds with carry-less multiplication
		// (PCLMULQDQ, AVX-512 VPCLMULQDQ, arm64 PMULL), some twenty times
		// faster than hash/crc64's table; the same CRC.
		return crc64nvme.New()
	case "SHA1":
		return sha1.New()
	case "SHA256":
		return sha256.New()
	}
	return nil
}

// The table is built once; it is read-only afterwards.
var crc32cTable = crc32.MakeTable(crc32.Castagnoli)

// Checksummer is implemented by stores that keep checksums of whole
// objects (S3's additional checksums).
type Checksummer interface {
	// Checksums returns the full-object checksums the store keeps for key;
	// none when it keeps only composite ones (a checksum of the parts'
	// checksums) or none at all.
	Checksums(ctx context.Context, key string) ([]Checksum, error)
}
