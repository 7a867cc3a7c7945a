package simregion

import (
	"bytes"
	"crypto/md5"
	"hash/crc32"
	"testing"
)

// BenchmarkDigest is what a PutObject of 100 KiB costs the fixture to
// hash (its MD5 and CRC32), many at once as a benchmark's uploads arrive:
// by the SIMD server, as put does, and by crypto/md5 alone, as it did.
// Compare their CPU with -cpuprofile or /usr/bin/time as well as ns/op:
// on two cores both are bound by the CPU.
func BenchmarkDigest(b *testing.B) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 100<<10/16)
	b.Run("md5-simd", func(b *testing.B) {
		h := newHandler(Config{})
		defer h.closeHashers()
		b.SetBytes(int64(len(body)))
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			buf := new([readBuffer]byte)
			for pb.Next() {
				if _, _, _, _, err := h.digest(bytes.NewReader(body), buf[:]); err != nil {
					b.Error(err)
				}
			}
		})
	})
	b.Run("crypto-md5", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_ = md5.Sum(body)
				_ = crc32.ChecksumIEEE(body)
			}
		})
	})
}
