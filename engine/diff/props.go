package diff

import (
	"context"
	"errors"
	"maps"
	"strings"

	"github.com/s3bulk/s3bulk/store"
)

// CheckOptions change what Check compares.
type CheckOptions struct {
	// Props compares, for every pair whose bytes are the same (or cannot
	// be shown to differ), the content headers, user metadata and tags as
	// well: a HEAD and a GetObjectTagging of each side (a side that
	// keeps no tags, a local file, has none to compare).
	Props bool
}

// propsOf is what Check compares of an object besides its bytes.
type propsOf struct {
	meta store.Metadata
	tags store.Tags
	// tagged: the store keeps tags (store.Tagger).
	tagged bool
}

func readProps(ctx context.Context, s Side, key string) (propsOf, error) {
	var p propsOf
	var err error
	if _, p.meta, err = s.Store.Head(ctx, s.Base+key); err != nil {
		return p, err
	}
	if tg, ok := s.Store.(store.Tagger); ok {
		p.tagged = true
		if p.tags, err = tg.Tags(ctx, s.Base+key); errors.Is(err, store.ErrNotImplemented) {
			p.tagged, err = false, nil
		}
	}
	return p, err
}

// propsDiffer names the properties that differ between a and b, in a
// fixed order; none when they are the same.
func propsDiffer(a, b propsOf) []string {
	var out []string
	add := func(name string, differ bool) {
		if differ {
			out = append(out, name)
		}
	}
	add("content-type", a.meta.ContentType != b.meta.ContentType)
	add("content-encoding", a.meta.ContentEncoding != b.meta.ContentEncoding)
	add("content-language", a.meta.ContentLanguage != b.meta.ContentLanguage)
	add("cache-control", a.meta.CacheControl != b.meta.CacheControl)
	add("content-disposition", a.meta.ContentDisposition != b.meta.ContentDisposition)
	add("user metadata", !maps.Equal(a.meta.User, b.meta.User))
	add("tags", a.tagged && b.tagged && !a.tags.Equal(b.tags))
	return out
}

// compareProps reads both sides' properties and returns the reason they
// differ, "" when they do not.
func compareProps(ctx context.Context, src, dst Side, key string) (string, error) {
	a, err := readProps(ctx, src, key)
	if err != nil {
		return "", err
	}
	b, err := readProps(ctx, dst, key)
	if err != nil {
		return "", err
	}
	d := propsDiffer(a, b)
	if len(d) == 0 {
		return "", nil
	}
	return strings.Join(d, ", ") + " differ", nil
}
