package diff

import (
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/store"
)

func TestCompareObjects(t *testing.T) {
	const mib = 1 << 20
	md5a, md5b := "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	obj := func(size int64, etag string) store.Object { return store.Object{Size: size, ETag: etag} }
	tests := []struct {
		name     string
		src, dst store.Object
		want     Verdict
	}{
		{"different sizes differ whatever the ETags", obj(1, md5a), obj(2, md5a), Differs},
		{"equal single-part ETags are the same bytes", obj(1, md5a), obj(1, `"`+strings.ToUpper(md5a)+`"`), Same},
		{"different single-part ETags differ", obj(1, md5a), obj(1, md5b), Differs},
		{"a missing ETag leaves the size alone", obj(1, ""), obj(1, md5a), SameSize},
		{"equal multipart ETags are the same bytes", obj(11*mib, md5a+"-3"), obj(11*mib, md5a+"-3"), Same},
		{"multipart ETags of other part counts prove nothing", obj(11*mib, md5a+"-3"), obj(11*mib, md5b+"-2"), NotComparable},
		{"multipart ETags whose part size is open prove nothing", obj(11*mib, md5a+"-2"), obj(11*mib, md5b+"-2"), NotComparable},
		{"multipart ETags whose part size is forced differ", obj(5*mib+1, md5a+"-2"), obj(5*mib+1, md5b+"-2"), Differs},
		{"one-part multipart ETags differ", obj(10, md5a+"-1"), obj(10, md5b+"-1"), Differs},
		{"single-part against multipart proves nothing", obj(11*mib, md5a), obj(11*mib, md5b+"-3"), NotComparable},
		{"ETags that are no digests prove nothing", obj(4, "abc"), obj(4, "abd"), NotComparable},
		{"equal ETags that are no digests prove nothing", obj(4, "abc"), obj(4, "abc"), NotComparable},
		{"a part count above S3's limit is no multipart ETag", obj(4, md5a+"-10001"), obj(4, md5a+"-10001"), NotComparable},
		{"a part count no upload can have proves nothing", obj(4*mib, md5a+"-2"), obj(4*mib, md5b+"-2"), NotComparable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(tt.src, tt.dst)
			got := c.Verdict
			if got != tt.want {
				t.Errorf("verdict %d (%s), want %d", got, c.Reason, tt.want)
			}
			if back := Compare(tt.dst, tt.src).Verdict; back != got {
				t.Errorf("not symmetric: %d one way, %d the other", got, back)
			}
		})
	}
}

func TestPartSizeRange(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		size, parts, lo, hi int64
	}{
		{10, 1, 10, 10},
		{5*mib + 1, 2, 5 * mib, 5 * mib},
		{10 * mib, 2, 5 * mib, 10*mib - 1},
		{11 * mib, 3, 5 * mib, 11*mib/2 - 1},
		{4 * mib, 2, 5 * mib, 4*mib - 1}, // empty: lo > hi
	}
	for _, tt := range tests {
		lo, hi := partSizeRange(tt.size, tt.parts)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("partSizeRange(%d, %d) = [%d, %d], want [%d, %d]", tt.size, tt.parts, lo, hi, tt.lo, tt.hi)
		}
		for _, p := range []int64{lo, hi} {
			if lo <= hi && !((tt.parts-1)*p < tt.size && tt.size <= tt.parts*p) {
				t.Errorf("part size %d does not cut %d bytes into %d parts", p, tt.size, tt.parts)
			}
		}
	}
}

// FuzzCompareObjects checks that the verdict does not depend on which side
// is the source, and that a multipart ETag is never called different from
// one of another part count.
func FuzzCompareObjects(f *testing.F) {
	f.Add(int64(11<<20), "0123456789abcdef0123456789abcdef-2", "fedcba9876543210fedcba9876543210-2")
	f.Add(int64(1), `"0123456789ABCDEF0123456789ABCDEF"`, "")
	f.Add(int64(5<<20+1), "0123456789abcdef0123456789abcdef-2", "0123456789abcdef0123456789abcdef-3")
	f.Fuzz(func(t *testing.T, size int64, a, b string) {
		if size < 0 {
			return
		}
		v1 := Compare(store.Object{Size: size, ETag: a}, store.Object{Size: size, ETag: b}).Verdict
		v2 := Compare(store.Object{Size: size, ETag: b}, store.Object{Size: size, ETag: a}).Verdict
		if v1 != v2 {
			t.Errorf("verdict %d one way, %d the other", v1, v2)
		}
		ea, eb := ParseETag(a), ParseETag(b)
		if ea.Kind == MultipartETag && eb.Kind == MultipartETag && ea.Parts != eb.Parts && v1 == Differs {
			t.Errorf("multipart ETags of %d and %d parts called different", ea.Parts, eb.Parts)
		}
	})
}

// TestDecideAndCompareAgree checks that sync --checksum copies exactly
// what verify calls different, and skips exactly what it calls the same.
func TestDecideAndCompareAgree(t *testing.T) {
	const mib = 1 << 20
	md5a, md5b := "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	for _, tt := range []struct {
		size       int64
		src, dst   string
		copy       bool
		wantReason string
	}{
		{5*mib + 1, md5a + "-2", md5b + "-2", true, "multipart ETag differs (both 2 parts of 5242880 bytes)"},
		{11 * mib, md5a + "-2", md5b + "-2", false, "cannot compare checksums: different multipart ETags, part sizes unknown; same size"},
		{1, md5a, md5b, true, "MD5 differs"},
		{1, "abc", "abc", false, "cannot compare checksums: an ETag is not an MD5; same size"},
	} {
		s, d := store.Object{Size: tt.size, ETag: tt.src}, store.Object{Size: tt.size, ETag: tt.dst}
		copy, reason := Decide(&s, &d, Checksum)
		if copy != tt.copy || reason != tt.wantReason {
			t.Errorf("Decide(%s, %s) = %v, %q; want %v, %q", tt.src, tt.dst, copy, reason, tt.copy, tt.wantReason)
		}
		if v := Compare(s, d).Verdict; copy != (v == Differs) {
			t.Errorf("Decide copies = %v, Compare says %d", copy, v)
		}
	}
}
