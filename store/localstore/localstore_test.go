package localstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := New(t.TempDir(), Options{OnSkip: func(p, reason string) {
			t.Errorf("unexpected skip of %s: %s", p, reason)
		}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storetest.Caps{})
}

func TestConformanceWithSyncAndFollowSymlinks(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := New(t.TempDir(), Options{Sync: true, FollowSymlinks: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storetest.Caps{})
}

// skips records what a listing reported to OnSkip.
type skips struct {
	mu   sync.Mutex
	root string
	got  []string // "relative/path: reason"
}

func (k *skips) add(p, reason string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	rel, err := filepath.Rel(k.root, p)
	if err != nil {
		rel = p
	}
	k.got = append(k.got, filepath.ToSlash(rel)+": "+reason)
}

func newStore(t *testing.T, root string, opts Options) (*Store, *skips) {
	t.Helper()
	k := &skips{root: root}
	opts.OnSkip = k.add
	s, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, k
}

// files creates each file (with its content) under root, and each name
// ending in "/" as an empty directory.
func files(t *testing.T, root string, contents map[string]string) {
	t.Helper()
	for name, body := range contents {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(filepath.FromSlash(target), link); err != nil {
		t.Fatal(err)
	}
}

func keys(t *testing.T, s store.Lister, prefix, delim string) []string {
	t.Helper()
	var got []string
	err := s.List(t.Context(), prefix, delim, func(o store.Object) error {
		got = append(got, o.Key)
		return nil
	})
	if err != nil {
		t.Fatalf("list %q %q: %v", prefix, delim, err)
	}
	return got
}

// regularFiles walks root itself, not through the store, so it sees temp
// files the store hides.
func regularFiles(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// linkTree is a directory with one file, real/f holding body, and three
// symlinks: dirlink to real, filelink to real/f and broken to nowhere.
func linkTree(t *testing.T, body string) string {
	t.Helper()
	root := t.TempDir()
	files(t, root, map[string]string{"real/f": body})
	symlink(t, "real", filepath.Join(root, "dirlink"))
	symlink(t, "real/f", filepath.Join(root, "filelink"))
	symlink(t, "nowhere", filepath.Join(root, "broken"))
	return root
}

func TestSymlinksAreNotFollowedByDefault(t *testing.T) {
	s, k := newStore(t, linkTree(t, "x"), Options{})

	if diff := cmp.Diff([]string{"real/f"}, keys(t, s, "", "")); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	want := []string{
		"broken: symlink not followed",
		"dirlink: symlink not followed",
		"filelink: symlink not followed",
	}
	if diff := cmp.Diff(want, k.got); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}

	k.got = nil
	if got := keys(t, s, "dirlink/", ""); len(got) != 0 {
		t.Errorf("list under the symlink = %q; want nothing", got)
	}
	if diff := cmp.Diff([]string{"dirlink: symlink not followed"}, k.got); diff != "" {
		t.Errorf("skips listing under the symlink (-want +got):\n%s", diff)
	}
}

func TestSymlinksAreFollowedWhenAsked(t *testing.T) {
	s, k := newStore(t, linkTree(t, "xyz"), Options{FollowSymlinks: true})

	var got []store.Object
	err := s.List(t.Context(), "", "", func(o store.Object) error {
		got = append(got, store.Object{Key: o.Key, Size: o.Size})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Object{{Key: "dirlink/f", Size: 3}, {Key: "filelink", Size: 3}, {Key: "real/f", Size: 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"broken: broken symlink"}, k.got); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"dirlink/f"}, keys(t, s, "dirlink/", "")); diff != "" {
		t.Errorf("list under the symlink (-want +got):\n%s", diff)
	}
}

func TestSymlinkLoopsAreReportedAndSkipped(t *testing.T) {
	tests := []struct {
		name  string
		links map[string]string // link -> target, relative to the link's directory
		want  []string
		skips []string
	}{
		{
			name:  "a link to its own directory",
			links: map[string]string{"a/self": "."},
			want:  []string{"a/f", "b/f"},
			skips: []string{"a/self: symlink loop: it points to a directory above it"},
		},
		{
			name:  "a link to the root",
			links: map[string]string{"a/up": ".."},
			want:  []string{"a/f", "b/f"},
			skips: []string{"a/up: symlink loop: it points to a directory above it"},
		},
		{
			name:  "two links pointing at each other's directories",
			links: map[string]string{"a/toB": "../b", "b/toA": "../a"},
			// a/toB is b, whose toA is a: a loop only once a is on the path.
			want: []string{"a/f", "a/toB/f", "b/f", "b/toA/f"},
			skips: []string{
				"a/toB/toA: symlink loop: it points to a directory above it",
				"b/toA/toB: symlink loop: it points to a directory above it",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files(t, root, map[string]string{"a/f": "1", "b/f": "2"})
			for link, target := range tc.links {
				symlink(t, target, filepath.Join(root, filepath.FromSlash(link)))
			}
			s, k := newStore(t, root, Options{FollowSymlinks: true})
			if diff := cmp.Diff(tc.want, keys(t, s, "", "")); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.skips, k.got); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListSkipsNamesNoKeyCanHave(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{
		`back\slash`:        "x",
		`dir\with/f`:        "x",
		"C:drive":           "x",
		"ok/C:inner":        "x",
		".s3bulk-tmp-12345": "partial",
		"ok/.s3bulk-tmp-9":  "partial",
	})
	s, k := newStore(t, root, Options{})
	if diff := cmp.Diff([]string{"ok/C:inner"}, keys(t, s, "", "")); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	want := []string{
		"C:drive: name starts like a drive letter, which no key may",
		`back\slash: name contains a backslash, which no key may contain`,
		`dir\with: name contains a backslash, which no key may contain`,
	}
	if diff := cmp.Diff(want, k.got); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestEmptyDirectoriesAreNotPrefixes(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{
		"empty/":                  "",
		"empty-tree/a/b/":         "",
		"full/f":                  "x",
		"deep/a/b/c/f":            "x",
		"only-temp/.s3bulk-tmp-1": "x",
	})
	s, _ := newStore(t, root, Options{})
	if diff := cmp.Diff([]string{"deep/", "full/"}, keys(t, s, "", "/")); diff != "" {
		t.Errorf("delimited list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"deep/a/b/c/f", "full/f"}, keys(t, s, "", "")); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}

func TestListWithOtherDelimiters(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{
		"2026-01-01/a": "", "2026-01-02/b": "", "2026-02": "", "2027": "", "x-y-z": "",
	})
	s, _ := newStore(t, root, Options{})
	tests := []struct {
		name, prefix, delim string
		want                []string
	}{
		{"a dash rolls up at the first dash", "", "-", []string{"2026-", "2027", "x-"}},
		{"a dash after a prefix rolls up past it", "2026-", "-", []string{"2026-01-", "2026-02"}},
		{"a two-byte delimiter", "", "01", []string{"2026-01", "2026-02", "2027", "x-y-z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, keys(t, s, tc.prefix, tc.delim)); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
		})
	}
}

// model is what S3 lists for keys, a prefix and a delimiter.
func model(all []string, prefix, delim string) []string {
	var out []string
	for _, k := range all { // sorted
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if delim != "" {
			if i := strings.Index(k[len(prefix):], delim); i >= 0 {
				k = k[:len(prefix)+i+len(delim)]
				if len(out) > 0 && out[len(out)-1] == k {
					continue
				}
			}
		}
		out = append(out, k)
	}
	return out
}

// randomTree makes a tree whose names favour the bytes around '/' ('-', '.',
// '0') and multi-byte runes, plus empty directories, and returns its keys.
func randomTree(t *testing.T, r *rand.Rand, root string) []string {
	t.Helper()
	alphabet := []string{"a", "b", "-", ".", "0", "/", "A", "~", " ", "é", "+", "_", "!"}
	var keys []string
	conflicts := func(k string) bool {
		for _, o := range keys {
			if o == k || strings.HasPrefix(o, k+"/") || strings.HasPrefix(k, o+"/") {
				return true
			}
		}
		return false
	}
	n := 1 + r.IntN(60)
	for len(keys) < n {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		k := b.String()
		if unsafeReason(k) != "" || strings.Contains(k, tempPrefix) || conflicts(k) {
			continue
		}
		keys = append(keys, k)
	}
	contents := make(map[string]string, len(keys))
	for _, k := range keys {
		contents[k] = strings.Repeat("x", r.IntN(4))
	}
	files(t, root, contents)
	for range r.IntN(4) { // directories with no file are no keys
		d := filepath.Join(root, fmt.Sprintf("empty%d", r.IntN(3)), "-")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(keys)
	return keys
}

func TestListOrderMatchesSortedKeysOfRandomTrees(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x5eed))
			root := t.TempDir()
			all := randomTree(t, r, root)
			s, k := newStore(t, root, Options{})
			prefixes := []string{"", "a", "a/", "a-", "a.", "a0", "é", "-"}
			for range 10 {
				key := all[r.IntN(len(all))]
				prefixes = append(prefixes, key[:r.IntN(len(key)+1)])
			}
			for _, prefix := range prefixes {
				for _, delim := range []string{"", "/", "-", "a/"} {
					want := model(all, prefix, delim)
					if diff := cmp.Diff(want, keys(t, s, prefix, delim)); diff != "" {
						t.Errorf("list prefix %q delimiter %q (-want +got):\n%s", prefix, delim, diff)
					}
				}
			}
			if len(k.got) != 0 {
				t.Errorf("unexpected skips: %q", k.got)
			}
		})
	}
}

func TestCompareEntriesOrdersAsFullKeys(t *testing.T) {
	names := []string{"a", "a-b", "a0", "ab", "a.", "b", "", "é", "~"}
	for _, a := range names {
		for _, b := range names {
			for _, ad := range []bool{false, true} {
				for _, bd := range []bool{false, true} {
					if a == b {
						continue // one directory never holds two entries of one name
					}
					ka, kb := a, b
					if ad {
						ka += "/"
					}
					if bd {
						kb += "/"
					}
					want := strings.Compare(ka, kb)
					if got := compareEntries(entry{name: a, dir: ad}, entry{name: b, dir: bd}); got != want {
						t.Errorf("compare %q (dir %t) with %q (dir %t) = %d; want %d", a, ad, b, bd, got, want)
					}
				}
			}
		}
	}
}

func TestPutLeavesNoTempFileWhenTheBodyFails(t *testing.T) {
	root := t.TempDir()
	s, _ := newStore(t, root, Options{})
	files(t, root, map[string]string{"keep/old": "old"})
	broken := errors.New("connection reset")
	for _, key := range []string{"new/deep/file", "keep/old"} {
		// The body fails partway, or only once all its bytes are read (as
		// a reader that verifies a checksum, or that a source file did not
		// change, fails at its end).
		for _, size := range []int64{200_000, 100_000} {
			body := io.MultiReader(strings.NewReader(strings.Repeat("x", 100_000)), iotestErrReader(broken))
			err := s.Put(t.Context(), key, body, size, store.Metadata{})
			if !errors.Is(err, broken) {
				t.Errorf("put %s of %d bytes: %v; want the body's error", key, size, err)
			}
		}
	}
	if diff := cmp.Diff([]string{"keep/old"}, regularFiles(t, root)); diff != "" {
		t.Errorf("files on disk (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(filepath.Join(root, "keep", "old")); err != nil || string(b) != "old" {
		t.Errorf("keep/old = %q, %v; want the old content", b, err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func iotestErrReader(err error) io.Reader { return errReader{err} }

func TestPutChecksTheBodyAgainstItsSize(t *testing.T) {
	root := t.TempDir()
	s, _ := newStore(t, root, Options{})
	err := s.Put(t.Context(), "short", strings.NewReader("12345"), 6, store.Metadata{})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("put of a short body: %v; want io.ErrUnexpectedEOF", err)
	}
	err = s.Put(t.Context(), "long", strings.NewReader("1234567"), 6, store.Metadata{})
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("put of a long body: %v; want an error saying it is longer", err)
	}
	if err := s.Put(t.Context(), "unknown", strings.NewReader("123"), -1, store.Metadata{}); err != nil {
		t.Errorf("put of unknown size: %v", err)
	}
	if diff := cmp.Diff([]string{"unknown"}, regularFiles(t, root)); diff != "" {
		t.Errorf("files on disk (-want +got):\n%s", diff)
	}
}

func TestPutRefusesPathsBlockedByFilesOrDirectories(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"a": "file", "d/x": "x"})
	s, _ := newStore(t, root, Options{})
	tests := []struct {
		name, key, want string
	}{
		{"a parent that is a file", "a/b", "parent " + filepath.Join(root, "a") + " is a file"},
		{"a grandparent that is a file", "a/b/c", "parent " + filepath.Join(root, "a") + " is a file"},
		{"a key naming a directory", "d", "a directory has that name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Put(t.Context(), tc.key, strings.NewReader("new"), 3, store.Metadata{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("put %s: %v; want an error containing %q", tc.key, err, tc.want)
			}
			if !errors.Is(err, store.ErrExists) {
				t.Errorf("put %s: %v does not wrap store.ErrExists", tc.key, err)
			}
			if _, err := s.CreateTemp(t.Context(), tc.key, 3); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("create temp %s: %v; want an error containing %q", tc.key, err, tc.want)
			}
		})
	}
	if diff := cmp.Diff([]string{"a", "d/x"}, regularFiles(t, root)); diff != "" {
		t.Errorf("files on disk (-want +got):\n%s", diff)
	}
}

func TestPutRefusesUnsafeKeys(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "dest")
	s, _ := newStore(t, root, Options{})
	for _, key := range []string{"../escaped", "a/../../escaped", "/abs", "dir/"} {
		err := s.Put(t.Context(), key, strings.NewReader("x"), 1, store.Metadata{})
		if !errors.Is(err, store.ErrUnsafeKey) {
			t.Errorf("put %q: %v; want store.ErrUnsafeKey", key, err)
		}
	}
	if got := regularFiles(t, parent); len(got) != 0 {
		t.Errorf("files written: %q; want none", got)
	}
}

func TestDeleteRemovesEmptiedDirectoriesUpToTheRoot(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"a/b/c/d": "x", "a/keep": "x"})
	s, _ := newStore(t, root, Options{})
	if err := s.Delete(t.Context(), "a/b/c/d"); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"a/b/c", "a/b"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still exists (%v); want it removed", gone, err)
		}
	}
	if err := s.Delete(t.Context(), "a/keep"); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatalf("the root itself must remain: %v", err)
	}
	if len(entries) != 0 {
		t.Errorf("root holds %d entries after deleting every key; want 0", len(entries))
	}
}

func TestDeleteOfASymlinkRemovesTheLinkOnlyWhenItIsAFile(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"real/f": "x"})
	symlink(t, "real", filepath.Join(root, "dirlink"))
	symlink(t, "real/f", filepath.Join(root, "filelink"))
	s, _ := newStore(t, root, Options{FollowSymlinks: true})
	for _, key := range []string{"dirlink", "filelink"} {
		if err := s.Delete(t.Context(), key); err != nil {
			t.Fatalf("delete %s: %v", key, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "dirlink")); err != nil {
		t.Errorf("deleting a prefix removed the symlink to a directory: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "filelink")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the symlink to a file was not removed: %v", err)
	}
	if diff := cmp.Diff([]string{"real/f"}, regularFiles(t, root)); diff != "" {
		t.Errorf("files on disk (-want +got):\n%s", diff)
	}
}

func TestConcurrentPutsAndDeletesInOneDirectory(t *testing.T) {
	// Delete prunes a directory it empties while Put may be about to create
	// a file in it; every Put must still succeed.
	s, _ := newStore(t, t.TempDir(), Options{})
	var g errgroup.Group
	for i := range 8 {
		g.Go(func() error {
			for j := range 50 {
				key := fmt.Sprintf("shared/dir/k%d-%d", i, j)
				if err := s.Put(t.Context(), key, strings.NewReader("x"), 1, store.Metadata{}); err != nil {
					return err
				}
				if err := s.Delete(t.Context(), key); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestHeadGuessesTheContentTypeFromTheExtension(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"x.json": "{}", "page.html": "", "noext": "", "dir.d/README": ""})
	s, _ := newStore(t, root, Options{})
	tests := []struct{ key, want string }{
		{"x.json", "application/json"},
		{"page.html", "text/html; charset=utf-8"},
		{"noext", ""},
		{"dir.d/README", ""},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			_, meta, err := s.Head(t.Context(), tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if meta.ContentType != tc.want {
				t.Errorf("content type = %q; want %q", meta.ContentType, tc.want)
			}
		})
	}
}

func TestGetOfAFileRemovedAfterListingIsNotFound(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"a/f": "x", "a/g": "y"})
	s, _ := newStore(t, root, Options{})
	var missing []error
	err := s.List(t.Context(), "", "", func(o store.Object) error {
		if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
			return err
		}
		rc, err := s.Get(t.Context(), o.Key, 0, -1, "")
		if err == nil {
			rc.Close()
		}
		missing = append(missing, err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 1 {
		t.Fatalf("listed %d objects after removing the directory under the walk; want 1", len(missing))
	}
	if !errors.Is(missing[0], store.ErrNotFound) || !strings.Contains(missing[0].Error(), filepath.Join(root, "a", "f")) {
		t.Errorf("get: %v; want store.ErrNotFound naming the path", missing[0])
	}
}

// TestGetFailsAFileThatChangesWhileItIsRead changes a file between the
// first and the last bytes a reader reads: the read that reaches the end
// fails, naming the file, rather than deliver bytes of two versions.
func TestGetFailsAFileThatChangesWhileItIsRead(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, p string)
	}{
		{"left alone", nil},
		{"rewritten in place", func(t *testing.T, p string) {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteAt([]byte("WXYZ"), 6)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			// As the write itself does, unless it falls in the same tick
			// of the file system's clock.
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		}},
		{"appended to", func(t *testing.T, p string) {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString(" and more")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files(t, root, map[string]string{"f": "0123456789"})
			s, _ := newStore(t, root, Options{})
			rc, err := s.Get(t.Context(), "f", 0, -1, "")
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			var first [3]byte
			if _, err := io.ReadFull(rc, first[:]); err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(t, filepath.Join(root, "f"))
			}
			_, err = io.ReadAll(rc)
			switch {
			case tt.change == nil && err != nil:
				t.Errorf("read of an unchanged file: %v", err)
			case tt.change != nil && (err == nil || !strings.Contains(err.Error(), filepath.Join(root, "f")) || !strings.Contains(err.Error(), "changed while it was read")):
				t.Errorf("read: %v; want an error naming the file and that it changed while it was read", err)
			}
		})
	}
}

func TestGetRefusesAConditionalRead(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"f": "x"})
	s, _ := newStore(t, root, Options{})
	_, err := s.Get(t.Context(), "f", 0, -1, "abc")
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("get with ifMatch: %v; want errors.ErrUnsupported", err)
	}
}

func TestGetReaderSeeksWithinItsRange(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"f": "0123456789"})
	s, _ := newStore(t, root, Options{})
	rc, err := s.Get(t.Context(), "f", 2, 5, "")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rs, ok := rc.(io.ReadSeeker)
	if !ok {
		t.Fatalf("reader %T is not an io.ReadSeeker", rc)
	}
	for range 2 { // read, rewind, read again: what a retried upload does
		b, err := io.ReadAll(rs)
		if err != nil || string(b) != "23456" {
			t.Fatalf("read = %q, %v; want %q", b, err, "23456")
		}
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), "f", 11, -1, ""); err == nil {
		t.Error("get from past the end succeeded")
	}
}

func TestTempFile(t *testing.T) {
	root := t.TempDir()
	s, _ := newStore(t, root, Options{})
	tf, err := s.CreateTemp(t.Context(), "d/f", 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tf.WriteAt([]byte("xyz"), 8); err == nil {
		t.Error("write past the size succeeded")
	}
	if _, err := tf.WriteAt([]byte("x"), -1); err == nil {
		t.Error("write at a negative offset succeeded")
	}
	if got := regularFiles(t, root); len(got) != 1 || !strings.HasPrefix(got[0], "d/"+tempPrefix) {
		t.Errorf("files while writing = %q; want one temp file in d/", got)
	}
	if err := tf.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := regularFiles(t, root); len(got) != 0 {
		t.Errorf("files after abort = %q; want none", got)
	}

	tf, err = s.CreateTemp(t.Context(), "d/f", 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tf.WriteAt([]byte("ab"), 2); err != nil {
		t.Fatal(err)
	}
	if err := tf.Commit(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "d", "f"))
	if err != nil || string(b) != "\x00\x00ab" {
		t.Errorf("committed file = %q, %v; want the preallocated size with the write in place", b, err)
	}
	if diff := cmp.Diff([]string{"d/f"}, regularFiles(t, root)); diff != "" {
		t.Errorf("files after commit (-want +got):\n%s", diff)
	}
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"file": "x"})
	if _, err := New(filepath.Join(dir, "file"), Options{}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("New on a file: %v; want a not-a-directory error", err)
	}
	missing := filepath.Join(dir, "not", "yet")
	s, err := New(missing, Options{})
	if err != nil {
		t.Fatalf("New on a missing directory: %v", err)
	}
	err = s.List(t.Context(), "", "", func(store.Object) error { return nil })
	if !errors.Is(err, store.ErrBucketNotFound) {
		t.Errorf("list of a missing root: %v; want store.ErrBucketNotFound", err)
	}
	if err := s.Put(t.Context(), "k", strings.NewReader("x"), 1, store.Metadata{}); err != nil {
		t.Fatalf("put into a missing root: %v", err)
	}
	if diff := cmp.Diff([]string{"k"}, keys(t, s, "", "")); diff != "" {
		t.Errorf("list after put (-want +got):\n%s", diff)
	}
	if rel, _ := New("rel", Options{}); !filepath.IsAbs(rel.Root()) {
		t.Errorf("root %q of a relative directory is not absolute", rel.Root())
	}
}
