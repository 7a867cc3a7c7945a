package s3url_test

import (
	"fmt"

	"github.com/s3bulk/s3bulk/s3url"
)

func ExampleDestKey() {
	src, _ := s3url.Parse("s3://src/logs/2026-*/*.json")
	dst, _ := s3url.Parse("s3://dst/archive/")
	for _, key := range []string{"logs/2026-01/a.json", "logs/2026-01/b.txt", "logs/2025-12/c.json"} {
		if !src.Match(key) {
			continue
		}
		k, _ := s3url.DestKey(src, key, dst, false)
		fmt.Println("s3://" + dst.Bucket + "/" + k)
	}
	// Output:
	// s3://dst/archive/2026-01/a.json
}

func ExampleLocation_Prefix() {
	l, _ := s3url.Parse("s3://b12/logs/2026-*/*.json")
	fmt.Printf("list %q, name below %q\n", l.Prefix(), l.Base())
	// Output:
	// list "logs/2026-", name below "logs/"
}

func ExampleLocation_Match() {
	l, _ := s3url.Parse("s3://b12/dir/*.json")
	for _, k := range []string{"dir/a.json", "dir/sub/deep/b.json", "dir/a.json.gz", "other/c.json"} {
		fmt.Println(l.Match(k), k)
	}
	// Output:
	// true dir/a.json
	// true dir/sub/deep/b.json
	// false dir/a.json.gz
	// false other/c.json
}
