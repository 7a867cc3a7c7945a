package runfile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{
		{"blanks separate words", "cp  a\tb ", []string{"cp", "a", "b"}, ""},
		{"single quotes keep everything", `cp 'a b\ "c"' d`, []string{"cp", `a b\ "c"`, "d"}, ""},
		{"double quotes keep a backslash before other characters", `cp "a \"b\" \\ \n" d`, []string{"cp", `a "b" \ \n`, "d"}, ""},
		{"a backslash keeps the next character", `cp a\ b c\#d`, []string{"cp", "a b", "c#d"}, ""},
		{"quotes join a word", `cp x'y z'"w" q`, []string{"cp", "xy zw", "q"}, ""},
		{"empty quotes are an empty word", `cp '' ""`, []string{"cp", "", ""}, ""},
		{"a hash starting a word is a comment", "cp a b # copy it", []string{"cp", "a", "b"}, ""},
		{"a hash inside a word is not", "cp a#1 b", []string{"cp", "a#1", "b"}, ""},
		{"a blank line has no words", "   ", nil, ""},
		{"an unterminated single quote is an error", "cp 'a", nil, "unterminated single quote"},
		{"an unterminated double quote is an error", `cp "a\"`, nil, "unterminated double quote"},
		{"a final backslash is an error", `cp a\`, nil, "backslash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("words (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzSplit checks that quoting any words and joining them gives them
// back, and that no input panics.
func FuzzSplit(f *testing.F) {
	f.Add("cp", "s3://b/with space", `it's "quoted" \ here`)
	f.Add("", "#", "a\tb")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		_, _ = Split(a + b + c)
		words := []string{a, b, c}
		for _, w := range words {
			if strings.ContainsAny(w, "\n\r") {
				return
			}
		}
		var line []string
		for _, w := range words {
			line = append(line, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		got, err := Split(strings.Join(line, " "))
		if err != nil {
			t.Fatalf("split %q: %v", strings.Join(line, " "), err)
		}
		if diff := cmp.Diff(words, got); diff != "" {
			t.Errorf("words (-want +got):\n%s", diff)
		}
	})
}
