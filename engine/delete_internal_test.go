package engine

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/localstore"
)

func TestProtectionCoversSkippedNamesAndWhatIsBelow(t *testing.T) {
	p := newProtection(skipper{"base/dir", "base/f.txt", "elsewhere/x"}, "base/")
	for rel, want := range map[string]bool{
		"dir": true, "dir/a": true, "dir/a/b": true, "f.txt": true,
		"dir2": false, "dirx/a": false, "f.txt.bak": false, "x": false, "other/dir": false,
	} {
		if got := p.covers(rel); got != want {
			t.Errorf("covers(%q) = %v, want %v", rel, got, want)
		}
	}
	if !newProtection(skipper{"a"}, "a/b/").covers("anything") {
		t.Error("a skipped directory above the base does not protect everything")
	}
	if newProtection(noSkips{}, "").covers("anything") {
		t.Error("a store that skips nothing protects a name")
	}
}

// skipper is a store whose listings left out its names (only Skipped is
// used).
type skipper []string

func (s skipper) Skipped() []string { return s }

func (skipper) Head(context.Context, string) (store.Object, store.Metadata, error) {
	panic("not used")
}
func (skipper) Get(context.Context, string, int64, int64, string) (io.ReadCloser, error) {
	panic("not used")
}
func (skipper) Put(context.Context, string, io.Reader, int64, store.Metadata) error {
	panic("not used")
}
func (skipper) List(context.Context, string, string, func(store.Object) error) error {
	panic("not used")
}
func (skipper) Delete(context.Context, string) error { panic("not used") }
func (skipper) URL(k string) string                  { return k }

// noSkips is a store without store.Skipper.
type noSkips struct{ store.Store }

func TestFileETagMatchesWhatS3WouldCompute(t *testing.T) {
	dir := t.TempDir()
	body := []byte(strings.Repeat("0123456789abcdef", (11<<20)/16)) // 11 MiB
	if err := os.WriteFile(filepath.Join(dir, "f"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := localstore.New(dir, localstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ep := Endpoint{Store: st, Loc: s3url.Location{Local: true}}
	e := New(Config{}).newExecutor(Job{Src: ep, Dst: ep}, Options{PartSize: 5 << 20})

	sum := md5.Sum(body)
	whole := hex.EncodeToString(sum[:])
	var cat []byte
	for off := 0; off < len(body); off += 5 << 20 {
		s := md5.Sum(body[off:min(off+5<<20, len(body))])
		cat = append(cat, s[:]...)
	}
	all := md5.Sum(cat)
	multi := hex.EncodeToString(all[:]) + "-3"

	tests := []struct {
		name, like, want string
	}{
		{"against an MD5 ETag it is the file's MD5", `"0123456789abcdef0123456789abcdef"`, whole},
		{"against a multipart ETag with the same number of parts it is the multipart ETag", "ffffffffffffffffffffffffffffffff-3", multi},
		{"against a multipart ETag with another number of parts it is unknown", "ffffffffffffffffffffffffffffffff-2", ""},
		{"against no ETag it is the MD5", "", whole},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.fileETag(t.Context(), st, "f", int64(len(body)), tt.like)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ETag = %q, want %q", got, tt.want)
			}
		})
	}
}
