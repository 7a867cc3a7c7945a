package engine

import (
	"context"
	"strings"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// List calls fn for what `ls` shows of loc in st, in S3's byte order (an
// Engine's Lister lists it by chains side by side): with all unset, one level
// (common prefixes and the objects beside them); with all, or for a
// wildcard, every object below, matched by the wildcard. keep, when set,
// is asked about each object with its key relative to loc's base, as
// cp's filters see it; prefixes are not filtered. A key or prefix (not a
// bucket's root) under which nothing is listed is a *NoMatchError. An
// error from fn, or from the listing, stops it and is returned.
func List(ctx context.Context, st store.Lister, loc s3url.Location, all bool, keep func(store.Object) bool, fn func(store.Object) error) error {
	delim := "/"
	if all || loc.HasWildcard() {
		delim = ""
	}
	shows := lsFilter(loc, keep)
	listed := false
	err := st.List(ctx, loc.Prefix(), delim, func(o store.Object) error {
		if !shows(o) {
			return nil
		}
		listed = true
		return fn(o)
	})
	if err == nil && !listed && loc.Key != "" {
		return &NoMatchError{URL: loc.String()}
	}
	return err
}

// lsFilter is what List and ListVersions ask of each object listed for
// loc: that loc's wildcard, if it has one, matches its key, and that keep,
// when set, takes it with its key relative to loc's base. Prefixes are
// not put to keep.
func lsFilter(loc s3url.Location, keep func(store.Object) bool) func(store.Object) bool {
	wild, match, base := loc.HasWildcard(), loc.Matcher(), loc.Base()
	return func(o store.Object) bool {
		if wild && !match(o.Key) {
			return false
		}
		if keep == nil || o.IsPrefix {
			return true
		}
		rel := o
		rel.Key = strings.TrimPrefix(o.Key, base)
		return keep(rel)
	}
}
