package localstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/s3bulk/s3bulk/store"
)

// BenchmarkList lists a tree of 100,000 empty files (10 x 100 directories of
// 100 files), the cost of which is one lstat per file plus the sort.
func BenchmarkList(b *testing.B) {
	root := b.TempDir()
	const top, mid, leaf = 10, 100, 100
	for i := range top {
		for j := range mid {
			dir := filepath.Join(root, fmt.Sprintf("t%02d", i), fmt.Sprintf("m-%03d", j))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := range leaf {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%03d.json", k)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	s, err := New(root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, delim := range []string{"", "/"} {
		b.Run(fmt.Sprintf("delimiter %q", delim), func(b *testing.B) {
			n := 0
			for b.Loop() {
				n = 0
				err := s.List(b.Context(), "", delim, func(store.Object) error {
					n++
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			if n == 0 {
				b.Fatal("listed nothing")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
