package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/internal/testfs"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/localstore"
)

func TestList(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"logs/a.json": "1", "logs/b.txt": "22", "logs/2026/c.json": "333", "other": "4"})
	st, err := localstore.New(dir, localstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bigOnly := func(o store.Object) bool { return o.Size >= 2 && !strings.HasPrefix(o.Key, "logs/") }
	tests := []struct {
		name string
		loc  string
		all  bool
		keep func(store.Object) bool
		want []string
		none bool
	}{
		{"one level lists prefixes and objects beside them", "s3://bkt/logs/", false, nil, []string{"logs/2026/", "logs/a.json", "logs/b.txt"}, false},
		{"all lists every object below", "s3://bkt/logs/", true, nil, []string{"logs/2026/c.json", "logs/a.json", "logs/b.txt"}, false},
		{"a wildcard lists every match below", "s3://bkt/logs/*.json", false, nil, []string{"logs/2026/c.json", "logs/a.json"}, false},
		{"filters see keys relative to the base, and not prefixes", "s3://bkt/logs/", false, bigOnly, []string{"logs/2026/", "logs/b.txt"}, false},
		{"a prefix with nothing under it matches nothing", "s3://bkt/missing/", false, nil, nil, true},
		{"a bucket root with nothing kept is no error", "s3://bkt", true, func(store.Object) bool { return false }, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := s3url.Parse(tt.loc)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			err = engine.List(t.Context(), st, loc, tt.all, tt.keep, func(o store.Object) error { got = append(got, o.Key); return nil })
			var none *engine.NoMatchError
			if errors.As(err, &none) != tt.none || (err != nil && !tt.none) {
				t.Fatalf("err = %v, want a NoMatchError: %v", err, tt.none)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
		})
	}
}
