package store

import "testing"

func TestETagQuoting(t *testing.T) {
	tests := []struct{ in, quoted, trimmed string }{
		{"abc", `"abc"`, "abc"},
		{`"abc"`, `"abc"`, "abc"},
		{`W/"abc"`, `W/"abc"`, `W/"abc`},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := QuoteETag(tt.in); got != tt.quoted {
			t.Errorf("QuoteETag(%q) = %q; want %q", tt.in, got, tt.quoted)
		}
	}
	for _, tt := range tests[:2] {
		if got := TrimETag(tt.in); got != tt.trimmed {
			t.Errorf("TrimETag(%q) = %q; want %q", tt.in, got, tt.trimmed)
		}
	}
}
