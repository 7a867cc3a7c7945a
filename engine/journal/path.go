package journal

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
)

// Fingerprint identifies a job from the fields that change its plan: the
// source, the destination and every option that changes which objects go
// where (recursive, filters, part size, ...). Fields are length-prefixed
// before hashing, so ("ab", "c") and ("a", "bc") differ. The order of
// fields is the caller's to keep stable across versions.
func Fingerprint(fields ...string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, f := range fields {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
		h.Write([]byte(f))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// DefaultPath is where the journal of a job lives when the user names none:
// <user cache dir>/s3bulk/journals/<hash of fingerprint>.journal, so that
// rerunning the same command finds it. Without a user cache directory
// (no HOME), the system's temporary directory stands in.
func DefaultPath(fingerprint string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	sum := sha256.Sum256([]byte(fingerprint))
	return filepath.Join(dir, "s3bulk", "journals", hex.EncodeToString(sum[:16])+".journal")
}
