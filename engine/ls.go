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
	f := newLsFilter(loc, keep)
	return f.end(st.List(ctx, loc.Prefix(), delim, func(o store.Object) error {
		if !f.shows(o) {
			return nil
		}
		return fn(o)
	}))
}

// lsFilter is what List and ListVersions ask of each object listed for
// loc, and how their listing ends.
type lsFilter struct {
	loc    s3url.Location
	wild   bool
	match  func(string) bool
	base   string
	keep   func(store.Object) bool
	listed bool // shows took an object
}

func newLsFilter(loc s3url.Location, keep func(store.Object) bool) *lsFilter {
	return &lsFilter{loc: loc, wild: loc.HasWildcard(), match: loc.Matcher(), base: loc.Base(), keep: keep}
}

// shows reports whether ls shows o: loc's wildcard, if it has one,
// matches its key, and keep, when set, takes it with its key relative to
// loc's base. Prefixes are not put to keep.
func (f *lsFilter) shows(o store.Object) bool {
	if f.wild && !f.match(o.Key) {
		return false
	}
	if f.keep != nil && !o.IsPrefix {
		rel := o
		rel.Key = strings.TrimPrefix(o.Key, f.base)
		if !f.keep(rel) {
			return false
		}
	}
	f.listed = true
	return true
}

// end is what a listing that ended with err returns: a *NoMatchError for a
// key or prefix (not a bucket's root) of which shows took nothing.
func (f *lsFilter) end(err error) error {
	if err == nil && !f.listed && f.loc.Key != "" {
		return &NoMatchError{URL: f.loc.String()}
	}
	return err
}
