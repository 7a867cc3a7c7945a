package diff

import (
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/store"
)

func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const (
		md5a = "9e107d9d372bb6826bd81d3542a419d6"
		md5b = "e4d909c290d0fb1ca068ffaddf22cbd0"
		mp3  = "d41d8cd98f00b204e9800998ecf8427e-3"
		mp4  = "0cc175b9c0f1b6a831c399e269772661-4"
	)
	obj := func(size int64, mt time.Time, etag string) *store.Object {
		return &store.Object{Key: "k", Size: size, ModTime: mt, ETag: etag}
	}
	tests := []struct {
		name     string
		src, dst *store.Object
		mode     Mode
		copy     bool
		reason   string
	}{
		{"a missing destination is copied", obj(1, t0, ""), nil, SizeAndTime, true, "missing at the destination"},
		{"a missing source is not copied", nil, obj(1, t0, ""), SizeAndTime, false, "only at the destination"},
		{"nothing on either side is not copied", nil, nil, SizeAndTime, false, "nothing to compare"},
		{"a different size is copied", obj(2, t0, ""), obj(1, t0, ""), SizeAndTime, true, "size differs (source 2 bytes, destination 1)"},
		{"a newer source of the same size is copied", obj(1, t0.Add(time.Second), ""), obj(1, t0, ""), SizeAndTime, true,
			"source is newer (2026-01-02T03:04:06Z, destination 2026-01-02T03:04:05Z)"},
		{"an older source of the same size is not copied", obj(1, t0, ""), obj(1, t0.Add(time.Hour), ""), SizeAndTime, false, "same size, destination not older"},
		{"an equal time and size is not copied", obj(1, t0, ""), obj(1, t0, ""), SizeAndTime, false, "same size, destination not older"},
		{"a source newer by less than a second is not copied", obj(1, t0.Add(900*time.Millisecond), ""), obj(1, t0, ""), SizeAndTime, false, "same size, destination not older"},
		{"times in other zones compare as instants", obj(1, t0.In(time.FixedZone("x", 3600)), ""), obj(1, t0, ""), SizeAndTime, false, "same size, destination not older"},
		{"size-only ignores a newer source", obj(1, t0.Add(time.Hour), ""), obj(1, t0, ""), SizeOnly, false, "same size"},
		{"size-only copies a different size", obj(1, t0, ""), obj(3, t0, ""), SizeOnly, true, "size differs (source 1 bytes, destination 3)"},
		{"checksum copies a different size without looking at ETags", obj(1, t0, md5a), obj(2, t0, md5a), Checksum, true, "size differs (source 1 bytes, destination 2)"},
		{"checksum skips equal MD5s even when the source is newer", obj(1, t0.Add(time.Hour), md5a), obj(1, t0, md5a), Checksum, false, "same MD5"},
		{"checksum copies different MD5s even when the destination is newer", obj(1, t0, md5a), obj(1, t0.Add(time.Hour), md5b), Checksum, true, "MD5 differs"},
		{"checksum ignores quotes and case", obj(1, t0, `"9E107D9D372BB6826BD81D3542A419D6"`), obj(1, t0, md5a), Checksum, false, "same MD5"},
		{"checksum skips equal multipart ETags", obj(1, t0, mp3), obj(1, t0, mp3), Checksum, false, "same multipart ETag"},
		{"checksum cannot compare different multipart ETags", obj(1, t0, mp3), obj(1, t0, mp4), Checksum, false,
			"cannot compare checksums: different multipart ETags, part sizes unknown; same size"},
		{"checksum cannot compare an MD5 with a multipart ETag", obj(1, t0, md5a), obj(1, t0, mp3), Checksum, false,
			"cannot compare checksums: one ETag is multipart and the other is not; same size"},
		{"checksum cannot compare without a source ETag", obj(1, t0, ""), obj(1, t0, md5a), Checksum, false,
			"cannot compare checksums: no ETag at the source; same size"},
		{"checksum cannot compare without a destination ETag", obj(1, t0, md5a), obj(1, t0, ""), Checksum, false,
			"cannot compare checksums: no ETag at the destination; same size"},
		{"checksum cannot compare an ETag that is not hex", obj(1, t0, "abc"), obj(1, t0, md5a), Checksum, false,
			"cannot compare checksums: an ETag is not an MD5; same size"},
		{"a dash without a part count is not multipart", obj(1, t0, md5a+"-"), obj(1, t0, md5a+"-"), Checksum, false,
			"cannot compare checksums: an ETag is not an MD5; same size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			copy, reason := Decide(tt.src, tt.dst, tt.mode)
			if copy != tt.copy || reason != tt.reason {
				t.Errorf("Decide = %v, %q; want %v, %q", copy, reason, tt.copy, tt.reason)
			}
		})
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[Mode]string{SizeAndTime: "size-and-time", SizeOnly: "size-only", Checksum: "checksum", 9: "Mode(9)"} {
		if got := m.String(); got != want {
			t.Errorf("Mode(%d).String() = %q, want %q", int(m), got, want)
		}
	}
}
