package parts_test

import (
	"fmt"

	"github.com/s3bulk/s3bulk/engine/parts"
)

func ExampleNewLayout() {
	const size = 5_471_004_718 // a 5.09 GB object copied server-side
	l, err := parts.NewLayout(size, parts.Auto(size, parts.Copy))
	if err != nil {
		panic(err)
	}
	last := l.Part(l.Count)
	fmt.Printf("%d parts of %d MiB; part %d is bytes=%d-%d\n", l.Count, l.PartSize>>20, last.Number, last.Offset, last.Last())
	// Output: 21 parts of 256 MiB; part 21 is bytes=5368709120-5471004717
}

func ExampleNewLayout_raised() {
	// An 8 MiB part size cannot cut 5 TiB into 10,000 parts: it is raised.
	l, err := parts.NewLayout(5<<40, 8<<20)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d parts of %d MiB\n", l.Count, l.PartSize>>20)
	// Output: 9987 parts of 525 MiB
}

func ExamplePlan() {
	// The parts of a 12 MiB upload in 5 MiB parts, as a slice: what a
	// CompleteMultipartUpload lists. NewLayout hands them out one at a time.
	ps, err := parts.Plan(12<<20, parts.MinPartSize)
	if err != nil {
		panic(err)
	}
	for _, p := range ps {
		fmt.Printf("part %d: bytes=%d-%d\n", p.Number, p.Offset, p.Last())
	}
	// Output:
	// part 1: bytes=0-5242879
	// part 2: bytes=5242880-10485759
	// part 3: bytes=10485760-12582911
}
