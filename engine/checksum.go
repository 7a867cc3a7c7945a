package engine

import (
	"errors"

	"github.com/s3bulk/s3bulk/store"
)

// checksumToWrite is the checksum an object written from a source whose
// checksum is src (zero for a local file, or a source without one) gets:
// Options.ChecksumAlgorithm's, computed afresh, unless the source's has
// that algorithm; else the source's, whose value the destination's server
// then checks the bytes against where they pass through this process.
func (e *executor) checksumToWrite(src store.Checksum) store.Checksum {
	alg := e.opts.ChecksumAlgorithm
	if alg == "" || alg == src.Algorithm {
		return src
	}
	return store.Checksum{Algorithm: alg}
}

// ChecksumError is the failure of a write that asked for a checksum
// algorithm (Options.ChecksumAlgorithm) on a server that said it does not
// implement something: some S3-compatible servers know no
// x-amz-checksum-* headers, or not every algorithm.
type ChecksumError struct {
	Algorithm string
	Err       error
}

func (e *ChecksumError) Error() string {
	return prefixOnce("write with a "+e.Algorithm+" checksum", e.Err)
}
func (e *ChecksumError) Unwrap() error { return e.Err }

// checksummedWrite marks the failure err of a task of a run that asked for
// a checksum algorithm as a ChecksumError when the server said it does not
// implement something (and it is not the tags it refused).
func (e *executor) checksummedWrite(err error) error {
	var te *TagsError
	if err == nil || e.opts.ChecksumAlgorithm == "" || !errors.Is(err, store.ErrNotImplemented) || errors.As(err, &te) {
		return err
	}
	return &ChecksumError{Algorithm: e.opts.ChecksumAlgorithm, Err: err}
}
