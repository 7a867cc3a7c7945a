package filter_test

import (
	"fmt"
	"time"

	"github.com/s3bulk/s3bulk/filter"
	"github.com/s3bulk/s3bulk/store"
)

func Example() {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	newer, err := filter.ParseTime("7d", now)
	if err != nil {
		panic(err)
	}
	min := int64(1)
	f, err := filter.New(filter.Options{
		Base:      "photos/",
		Rules:     []filter.Rule{filter.Include("*.jpg"), filter.Exclude("*thumbs/*")},
		MinSize:   &min,
		NewerThan: newer,
	})
	if err != nil {
		panic(err)
	}
	for _, o := range []store.Object{
		{Key: "photos/2026/a.jpg", Size: 10, ModTime: now.Add(-time.Hour)},
		{Key: "photos/2026/thumbs/a.jpg", Size: 10, ModTime: now.Add(-time.Hour)},
		{Key: "photos/2026/b.png", Size: 10, ModTime: now.Add(-time.Hour)},
		{Key: "photos/2025/c.jpg", Size: 10, ModTime: now.Add(-30 * 24 * time.Hour)},
		{Key: "photos/empty.jpg", Size: 0, ModTime: now},
	} {
		fmt.Println(f.Keep(o), o.Key)
	}
	// Output:
	// true photos/2026/a.jpg
	// false photos/2026/thumbs/a.jpg
	// false photos/2026/b.png
	// false photos/2025/c.jpg
	// false photos/empty.jpg
}
