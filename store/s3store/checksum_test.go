package s3store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/crc64nvme"
)

// crcOf computes the CRC of b directly, as the reference the combiner must
// agree with.
func crcOf(alg algorithm, b []byte) []byte {
	h := alg.newHash()
	h.Write(b)
	return h.Sum(nil)
}

func TestCRCCombineAgreesWithTheCRCOfTheWhole(t *testing.T) {
	body := pattern(3<<20 + 17)
	cuts := []struct {
		name string
		at   []int
	}{
		{"one piece is the whole", nil},
		{"two pieces", []int{1 << 20}},
		{"a one-byte last piece", []int{len(body) - 1}},
		{"a one-byte first piece", []int{1}},
		{"many uneven pieces", []int{5, 4096, 1 << 20, 2<<20 + 3, 3 << 20}},
	}
	for _, alg := range []algorithm{algCRC32, algCRC32C, algCRC64NVME} {
		for _, c := range cuts {
			t.Run(string(alg)+": "+c.name, func(t *testing.T) {
				var pieces []crcPiece
				prev := 0
				for _, at := range append(c.at, len(body)) {
					pieces = append(pieces, crcPiece{sum: crcOf(alg, body[prev:at]), size: int64(at - prev)})
					prev = at
				}
				got, err := alg.combiner().combineDigests(pieces)
				if err != nil {
					t.Fatal(err)
				}
				if want := crcOf(alg, body); !bytes.Equal(got, want) {
					t.Errorf("combined %x, want %x", got, want)
				}
			})
		}
	}
}

// The known answers pin the polynomials: a CRC that is consistent with
// itself but not S3's would pass every other test here.
func TestChecksumsMatchTheirStandardCheckValues(t *testing.T) {
	check := []byte("123456789")
	tests := []struct {
		alg  algorithm
		want uint64
	}{
		{algCRC32, 0xcbf43926},
		{algCRC32C, 0xe3069283},
		{algCRC64NVME, 0xae8b14860a799888},
	}
	for _, tt := range tests {
		t.Run(string(tt.alg), func(t *testing.T) {
			sum := crcOf(tt.alg, check)
			var got uint64
			if len(sum) == 4 {
				got = uint64(binary.BigEndian.Uint32(sum))
			} else {
				got = binary.BigEndian.Uint64(sum)
			}
			if got != tt.want {
				t.Errorf("check value %#x, want %#x", got, tt.want)
			}
		})
	}
}

// The CRC-32C table built here from the polynomial, independently of the
// store's. CRC64NVME is the library's hash the store uses (its agreement
// with hash/crc64's table is store's TestCRC64NVMEAgreesWithTheTableCRC),
// which has no combine of its own.
var tableCRC32C = crc32.MakeTable(polyCRC32C)

func FuzzCRCCombine(f *testing.F) {
	f.Add([]byte("hello, world"), uint16(5))
	f.Add([]byte{}, uint16(0))
	f.Add(bytes.Repeat([]byte{0xff}, 300), uint16(299))
	f.Fuzz(func(t *testing.T, b []byte, cut uint16) {
		at := int(cut)
		if at > len(b) {
			at = len(b)
		}
		a1 := crc32.Checksum(b[:at], tableCRC32C)
		a2 := crc32.Checksum(b[at:], tableCRC32C)
		if got, want := combineCRC32C.combine(uint64(a1), uint64(a2), int64(len(b)-at)), uint64(crc32.Checksum(b, tableCRC32C)); got != want {
			t.Errorf("crc32c: combine at %d of %d = %#x, want %#x", at, len(b), got, want)
		}
		c1 := crc64nvme.Checksum(b[:at])
		c2 := crc64nvme.Checksum(b[at:])
		if got, want := combineCRC64NVME.combine(c1, c2, int64(len(b)-at)), crc64nvme.Checksum(b); got != want {
			t.Errorf("crc64nvme: combine at %d of %d = %#x, want %#x", at, len(b), got, want)
		}
	})
}

func TestAPlainETagIsAnMD5OnlyWhenS3SaysSo(t *testing.T) {
	const md5Hex = "0123456789abcdef0123456789abcdef"
	kms := "aws:kms"
	tests := []struct {
		name   string
		etag   string
		sse    string
		sseC   *string
		wantOK bool
	}{
		{"a plain ETag", `"` + md5Hex + `"`, "", nil, true},
		{"a multipart ETag", `"` + md5Hex + `-3"`, "", nil, false},
		{"an ETag of another length", `"abc"`, "", nil, false},
		{"an ETag that is not hex", `"` + md5Hex[:31] + `z"`, "", nil, false},
		{"an object under SSE-KMS", `"` + md5Hex + `"`, kms, nil, false},
		{"an object under SSE-C", `"` + md5Hex + `"`, "", &kms, false},
		{"an object under SSE-S3", `"` + md5Hex + `"`, "AES256", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok := etagMD5(tt.etag, s3types.ServerSideEncryption(tt.sse), tt.sseC)
			if ok != tt.wantOK {
				t.Errorf("etagMD5(%q) ok = %t, want %t", tt.etag, ok, tt.wantOK)
			}
		})
	}
}

func BenchmarkCRCCombine(b *testing.B) {
	a, c := uint64(0x12345678), uint64(0x9abcdef0)
	for b.Loop() {
		a = combineCRC32C.combine(a, c, 256<<20)
	}
}

// bodyChecksum hashes what a body holds from where it stands, and leaves
// it there for the request to send; a body of another length than the
// request says is an error before anything is sent.
func TestBodyChecksumHashesFromWhereTheBodyStands(t *testing.T) {
	b := pattern(1<<20 + 5)
	tests := []struct {
		name    string
		at      int64
		size    int64
		wantErr bool
	}{
		{"a whole body", 0, int64(len(b)), false},
		{"a body read from its middle", 1000, int64(len(b)) - 1000, false},
		{"an empty body", int64(len(b)), 0, false},
		{"a body shorter than its size", 0, int64(len(b)) + 1, true},
		{"a body longer than its size", 0, int64(len(b)) - 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bytes.NewReader(b)
			r.Seek(tt.at, io.SeekStart)
			got, err := bodyChecksum(algCRC64NVME, r, tt.size)
			if tt.wantErr {
				if !errors.Is(err, errBodyLength) {
					t.Errorf("bodyChecksum = %q, %v; want errBodyLength", got, err)
				}
				return
			}
			if want := algCRC64NVME.format(binary.BigEndian.AppendUint64(nil, crc64nvme.Checksum(b[tt.at:]))); got != want || err != nil {
				t.Errorf("bodyChecksum = %q, %v; want %q", got, err, want)
			}
			if pos, _ := r.Seek(0, io.SeekCurrent); pos != tt.at {
				t.Errorf("the body is left at %d, want %d", pos, tt.at)
			}
		})
	}
}

func TestChecksumFieldsSetAndGetTheAlgorithmsField(t *testing.T) {
	for _, tc := range []struct {
		alg  algorithm
		want func(p *s3types.CompletedPart) *string
	}{
		{algCRC32, func(p *s3types.CompletedPart) *string { return p.ChecksumCRC32 }},
		{algCRC32C, func(p *s3types.CompletedPart) *string { return p.ChecksumCRC32C }},
		{algCRC64NVME, func(p *s3types.CompletedPart) *string { return p.ChecksumCRC64NVME }},
		{algSHA1, func(p *s3types.CompletedPart) *string { return p.ChecksumSHA1 }},
		{algSHA256, func(p *s3types.CompletedPart) *string { return p.ChecksumSHA256 }},
		{algSHA512, func(p *s3types.CompletedPart) *string { return p.ChecksumSHA512 }},
		{algMD5, func(p *s3types.CompletedPart) *string { return p.ChecksumMD5 }},
	} {
		var p s3types.CompletedPart
		f := checksumFields{crc32: &p.ChecksumCRC32, crc32c: &p.ChecksumCRC32C, crc64nvme: &p.ChecksumCRC64NVME,
			sha1: &p.ChecksumSHA1, sha256: &p.ChecksumSHA256, sha512: &p.ChecksumSHA512, md5: &p.ChecksumMD5}
		if f.get(tc.alg) != nil {
			t.Errorf("%s: get of an unset field is %q, want nil", tc.alg, *f.get(tc.alg))
		}
		f.set(tc.alg, "v")
		if got := tc.want(&p); got == nil || *got != "v" {
			t.Errorf("%s: set did not set its field", tc.alg)
		}
		if got := f.get(tc.alg); got == nil || *got != "v" {
			t.Errorf("%s: get does not read the field set", tc.alg)
		}
		set := 0
		for _, v := range []*string{p.ChecksumCRC32, p.ChecksumCRC32C, p.ChecksumCRC64NVME, p.ChecksumSHA1, p.ChecksumSHA256, p.ChecksumSHA512, p.ChecksumMD5} {
			if v != nil {
				set++
			}
		}
		if set != 1 {
			t.Errorf("%s: set set %d fields, want 1", tc.alg, set)
		}
	}
	// An algorithm without a field is left out, not a panic.
	var in struct{ crc32 *string }
	f := checksumFields{crc32: &in.crc32}
	f.set(algSHA256, "v")
	f.set(algETagMD5, "v")
	if f.get(algSHA256) != nil || f.get(algETagMD5) != nil || in.crc32 != nil {
		t.Error("an algorithm without a field was set")
	}
}
