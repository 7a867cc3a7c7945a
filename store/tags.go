package store

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tags is an object's tag set: key -> value. A nil Tags in a write's
// Metadata means "no decision": a server-side copy keeps the source's tags
// (S3's default), any other write sets none. A non-nil, empty Tags sets
// none, also on a copy.
type Tags map[string]string

// S3's limits of an object's tag set.
const (
	MaxTags        = 10
	MaxTagKeyLen   = 128 // Unicode characters
	MaxTagValueLen = 256
	// MaxTagHeader is the longest encoded tag set a write sends in its
	// x-amz-tagging header, as the AWS CLI v2 does: a longer one (non-ASCII
	// tags are escaped to up to nine bytes a character) is set with
	// PutObjectTagging once the object exists, so that the request's
	// headers stay well below S3's 8 KiB.
	MaxTagHeader = 2 << 10
)

// Tagger is implemented by stores whose objects carry tags (S3's
// GetObjectTagging and PutObjectTagging).
type Tagger interface {
	// Tags returns key's tag set, empty when it has none. A server
	// without object tagging gives an error wrapping ErrNotImplemented.
	Tags(ctx context.Context, key string) (Tags, error)
	// SetTags replaces key's tag set.
	SetTags(ctx context.Context, key string, tags Tags) error
}

// Encode formats the tag set as S3's x-amz-tagging header wants it: a URL
// query, keys in byte order so that equal sets encode alike.
func (t Tags) Encode() string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(t)) {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(escapeTag(k))
		b.WriteByte('=')
		b.WriteString(escapeTag(t[k]))
	}
	return b.String()
}

// escapeTag escapes as S3 reads a query: spaces as %20, not '+', which S3
// would keep as a plus.
func escapeTag(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// FitsHeader reports whether the tag set goes in a write's x-amz-tagging
// header (MaxTagHeader); a set that does not is set after the write.
func (t Tags) FitsHeader() bool { return len(t.Encode()) <= MaxTagHeader }

// Equal reports whether two tag sets hold the same pairs (nil and empty
// are equal).
func (t Tags) Equal(o Tags) bool { return maps.Equal(t, o) }

// Check reports the first way the tag set breaks S3's limits: more than
// MaxTags tags, an empty key, a key or value too long or not UTF-8.
func (t Tags) Check() error {
	if len(t) > MaxTags {
		return fmt.Errorf("%d tags: S3 allows at most %d an object", len(t), MaxTags)
	}
	for _, k := range slices.Sorted(maps.Keys(t)) {
		v := t[k]
		switch {
		case k == "":
			return fmt.Errorf("a tag with an empty key")
		case !utf8.ValidString(k) || !utf8.ValidString(v):
			return fmt.Errorf("tag %q is not UTF-8", k)
		case utf8.RuneCountInString(k) > MaxTagKeyLen:
			return fmt.Errorf("tag key %q is longer than %d characters", k, MaxTagKeyLen)
		case utf8.RuneCountInString(v) > MaxTagValueLen:
			return fmt.Errorf("the value of tag %q is longer than %d characters", k, MaxTagValueLen)
		case !tagText(k) || !tagText(v):
			return fmt.Errorf("tag %q=%q: S3 refuses characters other than letters, digits, spaces and + - = . _ : / @", k, v)
		}
	}
	return nil
}

// tagText reports whether s has only the characters S3 allows in a tag.
func tagText(s string) bool {
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsNumber(r), unicode.Is(unicode.Z, r), strings.ContainsRune("+-=._:/@", r):
		default:
			return false
		}
	}
	return true
}

// ParseTags reads a tag set encoded as Encode writes it (S3's x-amz-tagging
// header, a URL query).
func ParseTags(s string) (Tags, error) {
	t := Tags{}
	if s == "" {
		return t, nil
	}
	for pair := range strings.SplitSeq(s, "&") {
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, fmt.Errorf("tag set %q: %w", s, err)
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("tag set %q: %w", s, err)
		}
		if _, dup := t[key]; dup {
			return nil, fmt.Errorf("tag set %q: key %q twice", s, key)
		}
		t[key] = val
	}
	return t, nil
}
