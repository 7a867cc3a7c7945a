package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
)

func TestCatWritesTheObjectOrSaysItIsMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	ep := endpoint(t, dir, "")
	var out bytes.Buffer
	if err := engine.Cat(context.Background(), ep.Store, s3url.Location{Bucket: "b", Key: "a.txt"}, &out); err != nil || out.String() != "hello" {
		t.Errorf("Cat: %q, %v", out.String(), err)
	}
	err := engine.Cat(context.Background(), ep.Store, s3url.Location{Bucket: "b", Key: "none"}, &out)
	if err == nil || err.Error() != "cat s3://b/none: no such object" {
		t.Errorf("Cat of a missing object: %v", err)
	}
}

func TestNamesObjectOnlyForAWildcardThatIsAKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"star*", "plain"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		key  string
		raw  bool
		want bool
	}{
		{"star*", false, true},
		{"sta*", false, false},
		{"star*", true, false}, // raw: no wildcard
		{"plain", false, false},
	}
	for _, tt := range tests {
		ep := endpoint(t, dir, "")
		loc, err := s3url.Options{Raw: tt.raw}.Parse("s3://bucket/" + tt.key)
		if err != nil {
			t.Fatal(err)
		}
		ep.Loc = loc
		if got := engine.NamesObject(context.Background(), ep); got != tt.want {
			t.Errorf("NamesObject(%s, raw %t) = %t, want %t", tt.key, tt.raw, got, tt.want)
		}
	}
}
