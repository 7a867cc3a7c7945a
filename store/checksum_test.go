package store

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc64"
	"testing"
)

// The catalogued check values of each algorithm over "123456789".
func TestChecksumHashesMatchTheirCheckValues(t *testing.T) {
	tests := []struct{ alg, want string }{
		{"CRC32", "cbf43926"},
		{"CRC32C", "e3069283"},
		{"CRC64NVME", "ae8b14860a799888"},
		{"SHA1", "f7c3bc1d808e04732adf679965ccc34ca7ae3441"},
		{"SHA256", "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225"},
	}
	for _, tt := range tests {
		h := NewChecksumHash(tt.alg)
		if h == nil {
			t.Errorf("NewChecksumHash(%q) = nil", tt.alg)
			continue
		}
		h.Write([]byte("123456789"))
		if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
			t.Errorf("%s(123456789) = %s, want %s", tt.alg, got, tt.want)
		}
	}
	if len(tests) != len(ChecksumAlgorithms) {
		t.Errorf("%d algorithms tested, %d listed", len(tests), len(ChecksumAlgorithms))
	}
	if NewChecksumHash("MD4") != nil {
		t.Error("NewChecksumHash of an unknown algorithm is not nil")
	}
}

// nvmeTable is CRC-64/NVME by hash/crc64's table (the polynomial
// bit-reversed), the reference NewChecksumHash's CRC64NVME must agree with.
var nvmeTable = crc64.MakeTable(0x9a6c9329ac4bc9b5)

// The assembly of the CRC64NVME hash works on 16-byte-aligned runs of 128
// bytes and more: lengths around those sizes, from unaligned starts, and
// writes in pieces must give what the table does.
func TestCRC64NVMEAgreesWithTheTableCRC(t *testing.T) {
	buf := make([]byte, 1<<20+300)
	for i := range buf {
		buf[i] = byte(i*131 + i>>9)
	}
	for _, n := range []int{0, 1, 7, 8, 15, 16, 63, 64, 127, 128, 129, 255, 1000, 1024, 4096 + 3, 8191, 1<<20 + 17} {
		for _, off := range []int{0, 1, 3, 8, 15} {
			b := buf[off : off+n]
			want := crc64.Checksum(b, nvmeTable)
			h := NewChecksumHash("CRC64NVME")
			h.Write(b)
			if got := binary.BigEndian.Uint64(h.Sum(nil)); got != want {
				t.Errorf("%d bytes from offset %d: %#x, want %#x", n, off, got, want)
			}
			h.Reset()
			for rest := b; len(rest) > 0; {
				k := min(len(rest), 1+len(rest)/3)
				h.Write(rest[:k])
				rest = rest[k:]
			}
			if got := binary.BigEndian.Uint64(h.Sum(nil)); got != want {
				t.Errorf("%d bytes from offset %d written in pieces: %#x, want %#x", n, off, got, want)
			}
		}
	}
}

// BenchmarkChecksumHash is what a checksum costs this process per byte
// uploaded or downloaded: each algorithm S3 takes as FULL_OBJECT, and
// CRC64NVME by hash/crc64's table too (docs/design/0013).
//
//	go test -run '^$' -bench ChecksumHash -benchtime 200x -count 3 ./store/
func BenchmarkChecksumHash(b *testing.B) {
	hashes := []struct {
		name string
		new  func() hash.Hash
	}{
		{"CRC32", func() hash.Hash { return NewChecksumHash("CRC32") }},
		{"CRC32C", func() hash.Hash { return NewChecksumHash("CRC32C") }},
		{"CRC64NVME-table", func() hash.Hash { return crc64.New(nvmeTable) }},
		{"CRC64NVME", func() hash.Hash { return NewChecksumHash("CRC64NVME") }},
	}
	for _, size := range []int{1 << 20, 8 << 20} {
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = byte(i)
		}
		for _, h := range hashes {
			b.Run(fmt.Sprintf("%s/%dMiB", h.name, size>>20), func(b *testing.B) {
				hh := h.new()
				b.SetBytes(int64(size))
				for b.Loop() {
					hh.Reset()
					hh.Write(buf)
					hh.Sum(nil)
				}
			})
		}
	}
}
