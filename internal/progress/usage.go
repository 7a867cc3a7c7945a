package progress

import (
	"io"
	"sort"

	"github.com/s3bulk/s3bulk/store"
)

// Usage adds up the objects of one du location: a total, and with Group
// one count per storage class.
type Usage struct {
	url     string
	group   bool
	total   UsageRecord
	classes map[string]*UsageRecord
}

// NewUsage starts the count of the location url.
func NewUsage(url string, group bool) *Usage {
	return &Usage{url: url, group: group, total: UsageRecord{URL: url}, classes: map[string]*UsageRecord{}}
}

// Add counts o (an engine.Walk callback).
func (u *Usage) Add(o store.Object) error {
	u.total.Objects++
	u.total.Bytes += o.Size
	if u.group {
		c := u.classes[o.StorageClass]
		if c == nil {
			c = &UsageRecord{URL: u.url, StorageClass: o.StorageClass}
			u.classes[o.StorageClass] = c
		}
		c.Objects++
		c.Bytes += o.Size
	}
	return nil
}

// Records are du's lines: the total, or with Group one per storage class
// seen, by class (the total when there was none).
func (u *Usage) Records() []UsageRecord {
	if !u.group || len(u.classes) == 0 {
		return []UsageRecord{u.total}
	}
	var out []UsageRecord
	for _, c := range u.classes {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StorageClass < out[j].StorageClass })
	return out
}

// LockedTerminal is Locked for one writer, which stays a terminal (its Fd)
// when it is one, so that a progress bar still shows.
func LockedTerminal(w io.Writer) io.Writer {
	l := Locked(w)[0]
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		return fdWriter{l, f}
	}
	return l
}

type fdWriter struct {
	io.Writer
	f interface{ Fd() uintptr }
}

func (w fdWriter) Fd() uintptr { return w.f.Fd() }
