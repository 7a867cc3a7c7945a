package diff

import (
	"context"
	"fmt"
	"strings"

	"github.com/s3bulk/s3bulk/store"
)

// Side is one side of a Check: a store and the prefix ("" or ending in
// '/') whose objects are compared, by their keys relative to it.
type Side struct {
	Store store.Store
	Base  string
	// Lister, when set, lists Store (an engine's parallel Lister); nil:
	// Store itself.
	Lister store.Lister
}

func (v Side) list() ListFunc {
	var l store.Lister = v.Store
	if v.Lister != nil {
		l = v.Lister
	}
	rel := Relative(l, v.Base, v.Base)
	return func(ctx context.Context, fn func(store.Object) error) error {
		return rel(ctx, func(o store.Object) error {
			// A "directory marker" is no object to compare: a local tree
			// never has one, and cp does not make files of them.
			if strings.HasSuffix(o.Key, "/") && o.Size == 0 {
				return nil
			}
			return fn(o)
		})
	}
}

// Finding is a key that is not the same on both sides of a Check, or
// cannot be shown to be: one line of verify's output.
type Finding struct {
	Type    string `json:"type"` // missing, extra, differs, not-comparable
	Key     string `json:"key"`  // relative to both sides' bases
	Src     string `json:"src,omitempty"`
	Dst     string `json:"dst,omitempty"`
	SrcSize *int64 `json:"src_size,omitempty"`
	DstSize *int64 `json:"dst_size,omitempty"`
	SrcETag string `json:"src_etag,omitempty"`
	DstETag string `json:"dst_etag,omitempty"`
	Reason  string `json:"reason"`
}

// The Types of a Finding.
const (
	FindingMissing       = "missing"
	FindingExtra         = "extra"
	FindingDiffers       = "differs"
	FindingNotComparable = "not-comparable"
)

// CheckStats counts a Check's objects and findings.
type CheckStats struct {
	Source, Destination int64 // objects listed, directory markers aside
	Identical           int64
	SizeOnly            int64 // of Identical: compared by size alone (no ETag on a side)
	Missing, Extra      int64
	Differing           int64
	NotComparable       int64
}

// Differences are the findings that make the sides differ: missing, extra
// and differing objects.
func (s CheckStats) Differences() int64 { return s.Missing + s.Extra + s.Differing }

// Check compares the objects under two sides key by key, from the two
// listings alone (no object is read), and calls report for every finding as
// soon as it is known. Pairs are compared by Compare. An error from report
// stops it and is returned.
func Check(ctx context.Context, src, dst Side, report func(Finding) error) (CheckStats, error) {
	return CheckWith(ctx, src, dst, CheckOptions{}, report)
}

// CheckWith is Check with options: with Props, a pair whose bytes are the
// same differs when its checksums, content headers, user metadata or tags
// do (the Reason names which).
func CheckWith(ctx context.Context, src, dst Side, opts CheckOptions, report func(Finding) error) (CheckStats, error) {
	var st CheckStats
	h := Handler{
		OnlySource: func(o store.Object) error {
			st.Missing++
			return report(Finding{Type: FindingMissing, Key: o.Key, Src: src.Store.URL(src.Base + o.Key), SrcSize: &o.Size,
				Reason: fmt.Sprintf("not in the destination (%d bytes)", o.Size)})
		},
		OnlyDest: func(o store.Object) error {
			st.Extra++
			return report(Finding{Type: FindingExtra, Key: o.Key, Dst: dst.Store.URL(dst.Base + o.Key), DstSize: &o.Size,
				Reason: fmt.Sprintf("not in the source (%d bytes)", o.Size)})
		},
		Both: func(so, do store.Object) error {
			c := Compare(so, do)
			if opts.Props && c.Verdict != Differs {
				var err error
				if c, err = compareProps(ctx, src, dst, so.Key, c); err != nil {
					return err
				}
			}
			switch c.Verdict {
			case Same:
				st.Identical++
				return nil
			case SameSize:
				st.Identical++
				st.SizeOnly++
				return nil
			}
			f := Finding{Type: FindingDiffers, Key: so.Key, Src: src.Store.URL(src.Base + so.Key), Dst: dst.Store.URL(dst.Base + do.Key),
				SrcSize: &so.Size, DstSize: &do.Size, SrcETag: so.ETag, DstETag: do.ETag, Reason: c.Reason}
			if c.Verdict == NotComparable {
				f.Type = FindingNotComparable
				st.NotComparable++
			} else {
				st.Differing++
			}
			return report(f)
		},
	}
	stats, err := Run(ctx, src.list(), dst.list(), h, Options{})
	st.Source, st.Destination = stats.Source, stats.Dest
	return st, err
}
