package diff

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/s3bulk/s3bulk/store"
)

// CheckOptions change what Check compares.
type CheckOptions struct {
	// Props compares, for every pair whose bytes are the same (or cannot
	// be shown to differ), the content headers, user metadata and tags as
	// well: a HEAD and a GetObjectTagging of each side (a side that
	// keeps no tags, a local file, has none to compare). The HEADs'
	// full-object checksums, when both sides have one of the same
	// algorithm, decide whether the bytes are the same, where ETags
	// cannot.
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

// compareProps reads both sides' properties and returns c, the
// comparison of their listings, decided by them: the full-object
// checksums the HEADs report, when both sides have one of the same
// algorithm, say whether the bytes are the same (a copy in parts of
// another layout has an ETag the source's cannot be compared with), and
// the pair differs when a property does.
func compareProps(ctx context.Context, src, dst Side, key string, c Comparison) (Comparison, error) {
	a, err := readProps(ctx, src, key)
	if err != nil {
		return c, err
	}
	b, err := readProps(ctx, dst, key)
	if err != nil {
		return c, err
	}
	if sa, sb := a.meta.Checksum, b.meta.Checksum; sa.Full() && sb.Full() && sa.Algorithm == sb.Algorithm {
		if sa.Value != sb.Value {
			c.Verdict, c.Reason = Differs, fmt.Sprintf("%s checksums differ (source %s, destination %s)", strings.ToLower(sa.Algorithm), sa.Value, sb.Value)
			return c, nil
		}
		c.Verdict, c.Reason = Same, ""
	}
	if d := propsDiffer(a, b); len(d) > 0 {
		c.Verdict, c.Reason = Differs, strings.Join(d, ", ")+" differ"
	}
	return c, nil
}
