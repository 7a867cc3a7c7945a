package diff_test

import (
	"context"
	"fmt"
	"time"

	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/store"
)

// memLister lists a fixed set of objects, in the order given.
type memLister []store.Object

func (m memLister) List(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error {
	for _, o := range m {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

func Example() {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// The source lists out of order, as a directory bucket may.
	src := memLister{
		{Key: "photos/b.jpg", Size: 20, ModTime: t.Add(time.Hour)},
		{Key: "photos/a.jpg", Size: 10, ModTime: t},
		{Key: "photos/c.jpg", Size: 30, ModTime: t},
	}
	dst := memLister{
		{Key: "backup/a.jpg", Size: 10, ModTime: t},
		{Key: "backup/b.jpg", Size: 20, ModTime: t},
		{Key: "backup/old.jpg", Size: 5, ModTime: t},
	}
	h := diff.Handler{
		OnlySource: func(s store.Object) error {
			_, why := diff.Decide(&s, nil, diff.SizeAndTime)
			fmt.Println("copy", s.Key+":", why)
			return nil
		},
		Both: func(s, d store.Object) error {
			copy, why := diff.Decide(&s, &d, diff.SizeAndTime)
			fmt.Println(map[bool]string{true: "copy", false: "skip"}[copy], s.Key+":", why)
			return nil
		},
		OnlyDest: func(d store.Object) error {
			fmt.Println("delete", d.Key)
			return nil
		},
	}
	st, err := diff.Run(context.Background(),
		diff.Relative(src, "photos/", "photos/"), diff.Relative(dst, "backup/", "backup/"), h, diff.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("source in order:", st.SourceOrdered)
	// Output:
	// skip a.jpg: same size, destination not older
	// copy b.jpg: source is newer (2026-01-01T01:00:00Z, destination 2026-01-01T00:00:00Z)
	// copy c.jpg: missing at the destination
	// delete old.jpg
	// source in order: false
}
