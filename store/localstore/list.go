package localstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/s3bulk/s3bulk/store"
)

// List calls fn for every file whose key starts with prefix, in S3 byte order
// of keys. It reads one directory at a time: memory holds the entries of the
// directories on the current path, never the tree. A prefix that ends inside a
// name ("logs/2026-") reads only the directory that name is in ("logs").
//
// With delimiter "/" the subdirectories under the prefix become common
// prefixes without being walked, except to check they hold at least one file:
// an empty directory is no prefix in S3. Other delimiters roll up a full walk.
//
// A missing root fails with store.ErrBucketNotFound, as a missing bucket
// does; a caller syncing into a directory not made yet may take it as empty.
// Entries left out are reported to Options.OnSkip.
func (s *Store) List(ctx context.Context, prefix, delimiter string, fn func(store.Object) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("list %s: %w", s.URL(prefix), err)
	}
	dirKey, base := "", prefix
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dirKey, base = prefix[:i+1], prefix[i+1:]
	}
	w := &walker{s: s, ctx: ctx, fn: fn}
	dir, ok, err := w.descend(dirKey)
	if err != nil || !ok {
		return err
	}
	switch delimiter {
	case "":
		return w.walk(dir, dirKey, base, false, true)
	case "/":
		return w.walk(dir, dirKey, base, true, true)
	}
	last := ""
	w.fn = func(o store.Object) error {
		i := strings.Index(o.Key[len(prefix):], delimiter)
		if i < 0 {
			return fn(o)
		}
		common := o.Key[:len(prefix)+i+len(delimiter)]
		if common == last {
			return nil // keys sharing a common prefix are adjacent in byte order
		}
		last = common
		return fn(store.Object{Key: common, IsPrefix: true})
	}
	return w.walk(dir, dirKey, base, false, true)
}

// walker is one listing's state.
type walker struct {
	s   *Store
	ctx context.Context
	fn  func(store.Object) error
	// probe marks a walk that only asks whether a directory holds a file. It
	// reports nothing itself; it keeps the directories it could not read in
	// missed, which make a "no" uncertain.
	probe  bool
	missed [][2]string // path, reason
	// ancestors are the directories on the current path, root first, tracked
	// with FollowSymlinks to detect loops by device and inode.
	ancestors []fs.FileInfo
}

// entry is one directory entry kept while its directory is being listed.
type entry struct {
	name string
	dir  bool
	// info is the target of a followed symlink, or with FollowSymlinks the
	// directory itself; nil otherwise (a file is stat'ed when it is emitted).
	info fs.FileInfo
	// skip is why the listing leaves the entry out. It is reported when the
	// walk reaches the entry, so reports come in a stable order.
	skip string
}

// compareEntries orders entries as their keys sort: a directory's name
// compares as name+"/", so "a-b" < "a/" < "a0".
func compareEntries(a, b entry) int {
	n := min(len(a.name), len(b.name))
	if c := strings.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	return cmp.Compare(sortByte(a, n), sortByte(b, n))
}

// sortByte is the byte at index n of e's sort key, or -1 past its end.
func sortByte(e entry, n int) int {
	switch {
	case n < len(e.name):
		return int(e.name[n])
	case n == len(e.name) && e.dir:
		return '/'
	}
	return -1
}

var errFound = errors.New("found a file")

// descend returns the directory that holds the keys starting with dirKey
// (which is empty or ends with '/'), following the same rules as a walk, and
// ok=false when no listed key can start with dirKey.
func (w *walker) descend(dirKey string) (string, bool, error) {
	root := w.s.root
	fi, err := os.Stat(root)
	if err != nil {
		if notFound(err) {
			return "", false, &fsError{op: "list", path: root, err: errors.New("no such directory"), kind: store.ErrBucketNotFound}
		}
		return "", false, pathError("list", root, err)
	}
	if !fi.IsDir() {
		return "", false, fmt.Errorf("list %s: not a directory", root)
	}
	if w.s.opts.FollowSymlinks {
		w.ancestors = append(w.ancestors, fi)
	}
	dir := root
	if dirKey == "" {
		return dir, true, nil
	}
	for seg := range strings.SplitSeq(dirKey[:len(dirKey)-1], "/") {
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, tempPrefix) ||
			badName(seg, dir == root) != "" {
			return "", false, nil // no listed key has such a segment
		}
		dir += string(os.PathSeparator) + seg
		fi, err := os.Lstat(dir)
		if err != nil {
			if notFound(err) {
				return "", false, nil
			}
			w.skip(dir, "unreadable: "+store.PathCause(err).Error())
			return "", false, nil
		}
		e, ok := w.classify(dir, seg, fi.Mode().Type(), func() (fs.FileInfo, error) { return fi, nil })
		if e.skip != "" {
			w.skip(dir, e.skip)
		}
		if !ok || e.skip != "" || !e.dir {
			return "", false, nil
		}
		if e.info != nil {
			w.ancestors = append(w.ancestors, e.info)
		}
	}
	return dir, true, nil
}

// walk lists dir, whose entries have keys keyPrefix+name, keeping names that
// start with base. With rollup, subdirectories become common prefixes instead
// of being walked. A failure to read the first directory (top) is an error;
// deeper, it is reported and the walk goes on.
func (w *walker) walk(dir, keyPrefix, base string, rollup, top bool) error {
	entries, err := w.readDir(dir, keyPrefix, base)
	if err != nil {
		if top && !notFound(err) {
			return pathError("list", dir, err)
		}
		if !top && !notFound(err) { // a directory removed during the listing has no keys
			w.unreadable(dir, "unreadable directory: "+store.PathCause(err).Error())
		}
		if len(entries) == 0 {
			return nil
		}
	}
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return fmt.Errorf("list %s: %w", dir, err)
		}
		p := dir + string(os.PathSeparator) + e.name
		if e.skip != "" {
			w.skip(p, e.skip)
			continue
		}
		key := keyPrefix + e.name
		if e.dir {
			if rollup {
				found, err := w.holdsFile(p, e.info)
				if err != nil {
					return err
				}
				if found {
					if err := w.fn(store.Object{Key: key + "/", IsPrefix: true}); err != nil {
						return err
					}
				}
				continue
			}
			if err := w.walkDir(p, key+"/", e.info); err != nil {
				return err
			}
			continue
		}
		fi := e.info
		if fi == nil {
			if fi, err = os.Lstat(p); err != nil {
				if !notFound(err) { // a file removed during the listing is no key
					w.unreadable(p, "unreadable: "+store.PathCause(err).Error())
				}
				continue
			}
			if !fi.Mode().IsRegular() { // replaced since the directory was read
				w.skip(p, "not a regular file ("+describe(fi.Mode())+")")
				continue
			}
		}
		if err := w.fn(store.Object{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) walkDir(dir, keyPrefix string, info fs.FileInfo) error {
	if info != nil {
		w.ancestors = append(w.ancestors, info)
		defer func() { w.ancestors = w.ancestors[:len(w.ancestors)-1] }()
	}
	return w.walk(dir, keyPrefix, "", false, false)
}

// holdsFile reports whether the tree at dir holds at least one listable file.
func (w *walker) holdsFile(dir string, info fs.FileInfo) (bool, error) {
	probe := &walker{
		s:         w.s,
		ctx:       w.ctx,
		fn:        func(store.Object) error { return errFound },
		probe:     true,
		ancestors: slices.Clip(w.ancestors),
	}
	err := probe.walkDir(dir, "", info)
	if errors.Is(err, errFound) {
		return true, nil
	}
	for _, m := range probe.missed {
		w.unreadable(m[0], m[1])
	}
	return false, err
}

// readDir reads dir and returns the entries a listing keeps, sorted. It reads
// in batches so the os.DirEntry values of a huge directory do not all live at
// once; entries keep only what sorting and walking need.
func (w *walker) readDir(dir, keyPrefix, base string) ([]entry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var entries []entry
	for {
		batch, err := f.ReadDir(1024)
		for _, de := range batch {
			name := de.Name()
			if !strings.HasPrefix(name, base) || strings.HasPrefix(name, tempPrefix) {
				continue
			}
			if reason := badName(name, keyPrefix == ""); reason != "" {
				entries = append(entries, entry{name: name, skip: reason})
				continue
			}
			p := dir + string(os.PathSeparator) + name
			if e, ok := w.classify(p, name, de.Type(), de.Info); ok {
				entries = append(entries, e)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			slices.SortFunc(entries, compareEntries)
			return entries, err
		}
	}
	slices.SortFunc(entries, compareEntries)
	return entries, nil
}

// classify decides what the entry at p is to a listing: an entry to walk or
// emit, one to report as skipped (skip set), or, with ok false, one that
// vanished and is no key. info returns the entry's own (not followed)
// FileInfo.
func (w *walker) classify(p, name string, typ fs.FileMode, info func() (fs.FileInfo, error)) (e entry, ok bool) {
	e.name = name
	follow := w.s.opts.FollowSymlinks
	switch {
	case typ.IsRegular():
		return e, true
	case typ.IsDir():
		e.dir = true
		if !follow {
			return e, true
		}
		fi, err := info()
		switch {
		case notFound(err):
			return e, false
		case err != nil:
			e.skip = "unreadable: " + store.PathCause(err).Error()
		case w.onPath(fi): // a bind mount can loop without a symlink
			e.skip = "directory loop: it is a directory above it"
		}
		e.info = fi
		return e, true
	case typ&fs.ModeSymlink != 0:
		if !follow {
			e.skip = "symlink not followed"
			return e, true
		}
		fi, err := os.Stat(p)
		switch {
		case notFound(err):
			// Stat follows the link: ENOENT is its target missing.
			if _, lerr := os.Lstat(p); notFound(lerr) {
				return e, false
			}
			e.skip = "broken symlink"
		case err != nil:
			e.skip = "symlink target unreadable: " + store.PathCause(err).Error()
		case fi.Mode().IsRegular():
			e.info = fi
		case fi.IsDir() && w.onPath(fi):
			e.skip = "symlink loop: it points to a directory above it"
		case fi.IsDir():
			e.dir, e.info = true, fi
		default:
			e.skip = "symlink to a " + describe(fi.Mode())
		}
		return e, true
	}
	e.skip = "not a regular file (" + describe(typ) + ")"
	return e, true
}

func (w *walker) onPath(fi fs.FileInfo) bool {
	for _, a := range w.ancestors {
		if os.SameFile(a, fi) {
			return true
		}
	}
	return false
}

// badName says why a file name cannot be part of a key that SafeJoin accepts,
// or "" when it can. top: the name is the key's first segment.
func badName(name string, top bool) string {
	switch {
	case strings.IndexByte(name, '\\') >= 0:
		return "name contains a backslash, which no key may contain"
	case top && hasDriveLetter(name):
		return "name starts like a drive letter, which no key may"
	}
	return ""
}

func (w *walker) unreadable(p, reason string) {
	if w.probe {
		w.missed = append(w.missed, [2]string{p, reason})
		return
	}
	w.skip(p, reason)
}

func (w *walker) skip(p, reason string) {
	if !w.probe {
		w.s.skip(p, reason)
	}
}
