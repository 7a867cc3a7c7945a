package store

import (
	"strings"
	"testing"
)

func TestTagsEncodeAsS3ReadsAQuery(t *testing.T) {
	for _, c := range []struct {
		name string
		tags Tags
		want string
	}{
		{"no tags encode as nothing", nil, ""},
		{"keys come in byte order", Tags{"team": "blue", "cost": "42"}, "cost=42&team=blue"},
		{"spaces are %20, never a plus", Tags{"a b": "c+d"}, "a%20b=c%2Bd"},
		{"reserved characters are escaped", Tags{"k=1": "a&b/c"}, "k%3D1=a%26b%2Fc"},
		{"an empty value keeps its '='", Tags{"k": ""}, "k="},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.tags.Encode(); got != c.want {
				t.Fatalf("Encode() = %q, want %q", got, c.want)
			}
			back, err := ParseTags(c.want)
			if err != nil || !back.Equal(c.tags) {
				t.Fatalf("ParseTags(%q) = %v, %v; want %v", c.want, back, err, c.tags)
			}
		})
	}
}

func TestTagsCheckHoldsThemToS3sLimits(t *testing.T) {
	for _, c := range []struct {
		name string
		tags Tags
		want string // "" for none
	}{
		{"ten tags are allowed", nTags(10), ""},
		{"eleven are not", nTags(11), "11 tags"},
		{"an empty key is not", Tags{"": "v"}, "empty key"},
		{"a 128-character key is allowed", Tags{strings.Repeat("é", 128): "v"}, ""},
		{"a 129-character key is not", Tags{strings.Repeat("k", 129): "v"}, "longer than 128"},
		{"a 257-character value is not", Tags{"k": strings.Repeat("v", 257)}, "longer than 256"},
		{"a character S3 refuses is not", Tags{"k*": "v"}, "refuses"},
		{"letters, digits, spaces and + - = . _ : / @ are", Tags{"Ünï cödé 1+-=._:/@": "v"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.tags.Check()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Check() = %v, want nil", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Check() = %v, want an error with %q", err, c.want)
			}
		})
	}
}

func nTags(n int) Tags {
	t := Tags{}
	for i := range n {
		t[string(rune('a'+i))] = "v"
	}
	return t
}

func TestTagsFitInAHeaderUpToMaxTagHeader(t *testing.T) {
	short := Tags{"team": "blue"}
	long := Tags{}
	for i := range MaxTags {
		long[string(rune('a'+i))] = strings.Repeat("é", 40) // 240 bytes escaped
	}
	if !short.FitsHeader() || long.FitsHeader() {
		t.Fatalf("FitsHeader: short %v (want true), long %v (want false, %d bytes)", short.FitsHeader(), long.FitsHeader(), len(long.Encode()))
	}
}

func FuzzParseTags(f *testing.F) {
	for _, s := range []string{"", "a=b", "cost=42&team=blue", "a%20b=c%2Bd", "k=", "k", "a=1&a=2", "%zz=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tags, err := ParseTags(s)
		if err != nil {
			return
		}
		again, err := ParseTags(tags.Encode())
		if err != nil || !again.Equal(tags) {
			t.Fatalf("ParseTags(Encode(%v)) = %v, %v", tags, again, err)
		}
	})
}
