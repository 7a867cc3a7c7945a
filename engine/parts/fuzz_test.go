package parts

import (
	"errors"
	"slices"
	"testing"
)

func FuzzPlan(f *testing.F) {
	for _, s := range [][2]int64{
		{0, 0}, {1, MinPartSize}, {MinPartSize, MinPartSize}, {MinPartSize + 1, MinPartSize},
		{MaxParts*MinPartSize + 1, MinPartSize}, {MaxObjectSize, 0}, {MaxObjectSize + 1, 0},
		{-1, 0}, {100, -1}, {5_471_004_718, 256 * mib}, {1 << 62, 1 << 62},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, size, partSize int64) {
		checkPlan(t, size, partSize)
		// Most raw pairs are out of range; fold them in so that every input
		// also exercises a valid layout.
		fsize := abs(size) % (MaxObjectSize + 1)
		fpart := MinPartSize + abs(partSize)%(MaxPartSize-MinPartSize+1)
		if partSize%7 == 0 {
			fpart = 0
		}
		checkPlan(t, fsize, fpart)
	})
}

func checkPlan(t *testing.T, size, partSize int64) {
	t.Helper()
	l, err := NewLayout(size, partSize)
	badSize := size < 0 || size > MaxObjectSize
	badPart := partSize != 0 && (partSize < MinPartSize || partSize > MaxPartSize)
	switch {
	case badSize:
		if !errors.Is(err, ErrObjectSize) {
			t.Fatalf("NewLayout(%d, %d) = %+v, %v; want ErrObjectSize", size, partSize, l, err)
		}
		return
	case badPart:
		if !errors.Is(err, ErrPartSize) {
			t.Fatalf("NewLayout(%d, %d) = %+v, %v; want ErrPartSize", size, partSize, l, err)
		}
		return
	case err != nil:
		t.Fatalf("NewLayout(%d, %d): %v", size, partSize, err)
	}

	if l.Count < 1 || l.Count > MaxParts {
		t.Fatalf("NewLayout(%d, %d) has %d parts", size, partSize, l.Count)
	}
	if partSize != 0 && l.PartSize != partSize {
		// Raised: only when needed, and to the smallest whole MiB.
		if l.PartSize < partSize || ceilDiv(size, partSize) <= MaxParts ||
			l.PartSize%mib != 0 || ceilDiv(size, l.PartSize-mib) <= MaxParts {
			t.Fatalf("NewLayout(%d, %d) raised the part size to %d needlessly", size, partSize, l.PartSize)
		}
	}
	var next int64
	n := int32(0)
	for p := range l.All() {
		n++
		if p.Number != n || p.Offset != next {
			t.Fatalf("NewLayout(%d, %d): part %+v, want number %d at offset %d", size, partSize, p, n, next)
		}
		last := n == l.Count
		if p.Size > MaxPartSize || (!last && p.Size < MinPartSize) || (last && p.Size <= 0 && size > 0) {
			t.Fatalf("NewLayout(%d, %d): part %+v of %d out of limits", size, partSize, p, l.Count)
		}
		if !last && p.Size != l.PartSize {
			t.Fatalf("NewLayout(%d, %d): part %+v is not %d bytes", size, partSize, p, l.PartSize)
		}
		next = p.Last() + 1
	}
	if n != l.Count || next != size {
		t.Fatalf("NewLayout(%d, %d): %d parts cover [0,%d), want %d parts covering [0,%d)", size, partSize, n, next, l.Count, size)
	}
	if ps, err := Plan(size, partSize); err != nil || !slices.Equal(ps, slices.Collect(l.All())) {
		t.Fatalf("Plan(%d, %d) disagrees with its layout: %v", size, partSize, err)
	}
	for _, k := range []Kind{Upload, Copy, Download} {
		a := Auto(size, k)
		al, err := NewLayout(size, a)
		if err != nil || al.PartSize != a {
			t.Fatalf("Auto(%d, %v) = %d does not fit: %+v, %v", size, k, a, al, err)
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		if x == -x { // math.MinInt64
			return 0
		}
		return -x
	}
	return x
}
