package parts

import (
	"errors"
	"fmt"
	"iter"
)

const mib = 1 << 20

// S3's limits, which every layout respects.
const (
	MinPartSize   int64 = 5 << 20 // every part but the last
	MaxPartSize   int64 = 5 << 30
	MaxParts            = 10000
	MaxObjectSize       = MaxParts * MaxPartSize // 48.8 TiB: the most 10,000 parts can hold
	MaxSinglePut  int64 = 5 << 30                // PutObject
	MaxCopyObject int64 = 5 << 30                // CopyObject
)

// Sentinel errors of [NewLayout] and [Plan].
var (
	ErrObjectSize = errors.New("object size out of range")
	ErrPartSize   = errors.New("part size out of range")
)

// Kind is the kind of transfer a part size is chosen for. The zero Kind is
// [Upload], whose sizes are safe for every kind.
type Kind uint8

const (
	Upload   Kind = iota // multipart upload from a local file
	Copy                 // multipart server-side copy (UploadPartCopy)
	Download             // parallel ranged GETs into a local file
)

func (k Kind) String() string {
	switch k {
	case Upload:
		return "upload"
	case Copy:
		return "copy"
	case Download:
		return "download"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Part is one numbered byte range of an object.
type Part struct {
	Number int32 // 1-based, as S3 numbers parts
	Offset int64
	Size   int64
}

// Last is the offset of the part's last byte, the end of an inclusive HTTP
// range (UploadPartCopy's x-amz-copy-source-range, a ranged GET). It is
// Offset-1 for an empty part, which has no valid range.
func (p Part) Last() int64 { return p.Offset + p.Size - 1 }

// Layout is an object cut into parts, in constant space: parts are computed
// on demand, so a 10,000-part object costs nothing until its parts are
// scheduled.
type Layout struct {
	Size     int64 // object size
	PartSize int64 // size of every part but the last; may be above the size asked for
	Count    int32 // number of parts, at least 1
}

// NewLayout cuts an object of size bytes into parts of partSize bytes.
// partSize 0 means Auto(size, Upload). A part size that would need more than
// MaxParts parts is raised to the smallest whole number of MiB that does not;
// Layout.PartSize tells the size used.
func NewLayout(size, partSize int64) (Layout, error) {
	switch {
	case size < 0:
		return Layout{}, fmt.Errorf("plan parts for %d bytes: %w: negative", size, ErrObjectSize)
	case size > MaxObjectSize:
		return Layout{}, fmt.Errorf("plan parts for %d bytes: %w: above the maximum of %d bytes (%d parts of 5 GiB)",
			size, ErrObjectSize, MaxObjectSize, MaxParts)
	case partSize == 0:
		partSize = Auto(size, Upload)
	case partSize < MinPartSize || partSize > MaxPartSize:
		return Layout{}, fmt.Errorf("plan parts for %d bytes: %w: %d bytes is not within 5 MiB to 5 GiB",
			size, ErrPartSize, partSize)
	}
	if ceilDiv(size, partSize) > MaxParts {
		partSize = minFor(size)
	}
	count := max(1, ceilDiv(size, partSize))
	return Layout{Size: size, PartSize: partSize, Count: int32(count)}, nil
}

// Part returns part n, counting from 1. It panics when n is not within
// 1..Count, like an index out of range.
func (l Layout) Part(n int32) Part {
	if n < 1 || n > l.Count {
		panic(fmt.Sprintf("parts: part %d of a %d-part layout", n, l.Count))
	}
	off := int64(n-1) * l.PartSize
	return Part{Number: n, Offset: off, Size: min(l.PartSize, l.Size-off)}
}

// All yields the parts in order.
func (l Layout) All() iter.Seq[Part] {
	return func(yield func(Part) bool) {
		for n := int32(1); n <= l.Count; n++ {
			if !yield(l.Part(n)) {
				return
			}
		}
	}
}

// Plan returns the parts of an object of size bytes, as [NewLayout] cuts it.
func Plan(size, partSize int64) ([]Part, error) {
	l, err := NewLayout(size, partSize)
	if err != nil {
		return nil, err
	}
	ps := make([]Part, 0, l.Count)
	for p := range l.All() {
		ps = append(ps, p)
	}
	return ps, nil
}

// Auto chooses the part size for moving an object of size bytes; doc.go
// gives the evidence behind the numbers. The result always fits the object in
// MaxParts parts (for sizes up to MaxObjectSize).
func Auto(size int64, kind Kind) int64 {
	var ps int64
	switch kind {
	case Copy:
		// Requests cost ~0.4 s each and no memory: few, large parts.
		ps = fit(size, 32, 64*mib, 512*mib)
	case Download:
		// Ranged GETs stream into the file: a part costs no memory, so
		// fewer, larger parts (measured: 128 MiB parts cut the wall time
		// of 1 GiB downloads by 8% against 16 MiB; 5 x 256 MiB took 0.68 s
		// in 32 MiB parts against 0.74 s in 16 MiB, s5cmd 0.64 s).
		ps = fit(size, 8, 32*mib, 128*mib)
	default:
		// Bytes pass through memory, one part per request in flight.
		ps = fit(size, 64, 8*mib, 64*mib)
	}
	return min(max(ps, minFor(size)), MaxPartSize)
}

// Threshold is the default size from which an object of the given kind moves
// in parts; doc.go gives the reasons.
func Threshold(kind Kind) int64 {
	if kind == Copy {
		return 256 * mib
	}
	return 64 * mib
}

// Split reports whether an object of size bytes moves in parts: when it is at
// least threshold bytes (threshold <= 0 means Threshold(kind)), and always
// when one PutObject or CopyObject cannot carry it. Empty objects never
// split.
func Split(kind Kind, size, threshold int64) bool {
	if threshold <= 0 {
		threshold = Threshold(kind)
	}
	switch {
	case size <= 0:
		return false
	case kind == Upload && size > MaxSinglePut, kind == Copy && size > MaxCopyObject:
		return true
	}
	return size >= threshold
}

// fit is the smallest of lo, 2*lo, 4*lo ... hi that cuts size into at most
// target parts, or hi.
func fit(size, target, lo, hi int64) int64 {
	ps := lo
	for ps < hi && ceilDiv(size, ps) > target {
		ps *= 2
	}
	return min(ps, hi)
}

// minFor is the smallest part size, a whole number of MiB, that fits size
// bytes into MaxParts parts. For sizes up to MaxObjectSize it is at most
// MaxPartSize, itself a whole number of MiB.
func minFor(size int64) int64 {
	if size <= MaxParts*MinPartSize {
		return MinPartSize
	}
	return ceilDiv(ceilDiv(size, MaxParts), mib) * mib
}

// ceilDiv divides rounding up, without the overflow of (a+b-1)/b near the
// top of int64 (Auto accepts any size).
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b > 0 {
		q++
	}
	return q
}
