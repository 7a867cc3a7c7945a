package s3url

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"s3://bucket", "s3://bucket/", "s3://bucket/key", "s3://b12/logs/2026-*/*.json",
		"s3://b12/**/x.json", "s3://b12/a?c", "s3://", "s3:///key", "gs://b/k", "-", ".",
		"dir/file", "/abs/dir/", "s3://My_Bucket/k", "s3://b12//x", "s3://b12/a***b",
	} {
		f.Add(s, false, false)
	}
	f.Add("s3://b12/a***b", true, false)
	f.Add("s3://Legacy_Name/x", false, true)
	f.Fuzz(func(t *testing.T, s string, raw, legacy bool) {
		opts := Options{Raw: raw, LegacyBucketNames: legacy}
		l, err := opts.Parse(s)
		if err != nil {
			if l != (Location{}) {
				t.Errorf("Parse(%q) returned %+v with error %v", s, l, err)
			}
			return
		}
		if l.Raw != s {
			t.Errorf("Parse(%q).Raw = %q", s, l.Raw)
		}
		if l.Local == (l.Bucket != "") {
			t.Errorf("Parse(%q) = %+v: exactly one of Local and Bucket must be set", s, l)
		}
		again, err := opts.Parse(l.String())
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, l.String(), err)
		}
		if diff := cmp.Diff(l, again, cmpopts.IgnoreFields(Location{}, "Raw")); diff != "" {
			t.Errorf("Parse(%q) does not round-trip through %q (-first +second):\n%s", s, l.String(), diff)
		}
		// The listing prefix must select every key the pattern matches.
		p := l.Prefix()
		if !l.Match(l.Key) && !l.HasWildcard() {
			t.Errorf("Parse(%q) does not match its own key", s)
		}
		if len(l.Base()) > len(p) || p[:len(l.Base())] != l.Base() {
			t.Errorf("Parse(%q): Base %q is not a prefix of Prefix %q", s, l.Base(), p)
		}
	})
}
