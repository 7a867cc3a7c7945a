package bench

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Target
	}{
		{"a prefix gets its trailing slash", "s3://b/seed", Target{"b", "seed/"}},
		{"a prefix with its slash is kept", "s3://b/a/b/", Target{"b", "a/b/"}},
		{"a bucket alone has no prefix", "s3://b", Target{"b", ""}},
		{"a bucket with a slash has no prefix", "s3://b/", Target{"b", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTarget(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseTarget(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseTargetRejects(t *testing.T) {
	for _, in := range []string{"", "b/p", "s3://", "s3:///p", "s3://b/p*", "/local/dir"} {
		if _, err := ParseTarget(in); err == nil || !strings.HasPrefix(err.Error(), "parse ") {
			t.Errorf("ParseTarget(%q) = %v, want a parse error", in, err)
		}
	}
}

func TestCleanEnvDropsEmptyAWSVariablesAndKeepsTheLast(t *testing.T) {
	got := cleanEnv([]string{"AWS_PROFILE=dev", "HOME=/h", "AWS_PROFILE=", "AWS_REGION=a", "EMPTY=", "AWS_REGION=b"})
	want := []string{"HOME=/h", "EMPTY=", "AWS_REGION=b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cleanEnv (-want +got):\n%s", diff)
	}
}

// FuzzParseTarget checks that an accepted target formats back to itself
// and never has a prefix that could match a sibling ("p" matching "p2/").
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"s3://b/p", "s3://b/", "s3://b", "s3://b/a//b", "s3://b/é/ü", "s3:///x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		if tg.Bucket == "" || strings.Contains(tg.Bucket, "/") {
			t.Fatalf("ParseTarget(%q) bucket %q", s, tg.Bucket)
		}
		if tg.Prefix != "" && !strings.HasSuffix(tg.Prefix, "/") {
			t.Fatalf("ParseTarget(%q) prefix %q lacks its slash", s, tg.Prefix)
		}
		again, err := ParseTarget(tg.String())
		if err != nil || again != tg {
			t.Fatalf("ParseTarget(%q) = %+v, but its String %q parses to %+v, %v", s, tg, tg.String(), again, err)
		}
	})
}
