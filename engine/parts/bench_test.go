package parts

import "testing"

// A 10,000-part layout: whether collecting parts into a slice costs enough
// that the executor should walk a Layout instead.
func BenchmarkPlan10000(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ps, err := Plan(MaxParts*MinPartSize, MinPartSize)
		if err != nil || len(ps) != MaxParts {
			b.Fatal(len(ps), err)
		}
	}
}

func BenchmarkLayoutAll10000(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		l, err := NewLayout(MaxParts*MinPartSize, MinPartSize)
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		for p := range l.All() {
			total += p.Size
		}
		if total != l.Size {
			b.Fatal(total)
		}
	}
}

func BenchmarkAuto(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if Auto(5_471_004_718, Copy) != 256*mib {
			b.Fatal()
		}
	}
}
