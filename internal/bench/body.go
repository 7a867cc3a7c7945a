package bench

import (
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
)

// minBodySize is the smallest body that is still JSON: "{}".
const minBodySize = 2

// padLen is the length of the shared filler every body reads from. Bodies
// start at different offsets in it and wrap around, so no body of any size
// needs its own buffer.
const padLen = 64 << 10

// padAlphabet holds only characters that need no escaping in a JSON string.
const padAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// Bodies makes the JSON bodies of a data set: exactly the requested size,
// the same bytes for the same seed, key and index, and no per-object buffer.
// It is safe for concurrent use.
type Bodies struct {
	seed uint64
	pad  []byte
}

// newBodies returns the body generator for seed.
func newBodies(seed int64) *Bodies {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	pad := make([]byte, padLen)
	for i := range pad {
		pad[i] = padAlphabet[rng.IntN(len(padAlphabet))]
	}
	return &Bodies{seed: uint64(seed), pad: pad}
}

// Body returns a reader over the body of object index with the given key.
// Bodies of at least len(`{"key":"...","index":N,"pad":""}`) bytes carry their
// key and index; smaller ones are "{" + spaces + "}".
func (b *Bodies) Body(key string, index int, size int64) *Body {
	body := &Body{pad: b.pad, size: size}
	head := append(body.headBuf[:0], `{"key":"`...)
	head = append(head, key...)
	head = append(head, `","index":`...)
	head = strconv.AppendInt(head, int64(index), 10)
	head = append(head, `,"pad":"`...)
	const tail = `"}`
	if int64(len(head)+len(tail)) <= size && len(head) <= len(body.headBuf) {
		body.head = head
		body.tail = tail
		// A per-object start in the filler keeps equal-sized bodies distinct
		// beyond their header; the mix keeps neighbours far apart.
		body.padStart = int64(mix(b.seed, uint64(index)) % padLen)
		return body
	}
	body.head = append(body.headBuf[:0], '{')
	body.tail = "}"
	body.spaces = true
	if size < minBodySize {
		// Not JSON, but still exactly size bytes: callers validate layouts.
		body.head = body.head[:0]
		body.tail = ""
	}
	return body
}

func mix(seed, i uint64) uint64 {
	x := seed*0x9e3779b97f4a7c15 + i*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	return x ^ x>>29
}

// Body is one object's body: a header, filler and a tail, read without being
// materialised. It implements io.ReadSeeker and io.ReaderAt so the SDK can
// sign, checksum and retry it.
type Body struct {
	headBuf  [96]byte
	head     []byte
	tail     string
	pad      []byte
	padStart int64
	spaces   bool
	size     int64
	off      int64
}

// Size is the body's length in bytes.
func (b *Body) Size() int64 { return b.size }

// Read implements io.Reader.
func (b *Body) Read(p []byte) (int, error) {
	n, err := b.ReadAt(p, b.off)
	b.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// Seek implements io.Seeker.
func (b *Body) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = b.off + offset
	case io.SeekEnd:
		abs = b.size + offset
	default:
		return 0, errors.New("seek body: invalid whence")
	}
	if abs < 0 {
		return 0, errors.New("seek body: negative position")
	}
	b.off = abs
	return abs, nil
}

// ReadAt implements io.ReaderAt.
func (b *Body) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("read body: negative offset")
	}
	if off >= b.size {
		return 0, io.EOF
	}
	if rest := b.size - off; int64(len(p)) > rest {
		p = p[:rest]
	}
	headLen, tailLen := int64(len(b.head)), int64(len(b.tail))
	fillEnd := b.size - tailLen
	n := 0
	for n < len(p) {
		pos := off + int64(n)
		switch {
		case pos < headLen:
			n += copy(p[n:], b.head[pos:])
		case pos < fillEnd:
			want := p[n:min(int64(len(p)), int64(n)+fillEnd-pos)]
			if b.spaces {
				for i := range want {
					want[i] = ' '
				}
				n += len(want)
				break
			}
			start := (b.padStart + pos - headLen) % padLen
			n += copy(want, b.pad[start:])
		default:
			n += copy(p[n:], b.tail[pos-fillEnd:])
		}
	}
	if off+int64(n) == b.size {
		return n, io.EOF
	}
	return n, nil
}
