package localstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"mime"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/s3bulk/s3bulk/store"
)

// tempPrefix names the files Put and CreateTemp write before renaming them.
// Listings skip any entry whose name starts with it.
const tempPrefix = ".s3bulk-tmp-"

// Options configure a Store.
type Options struct {
	// FollowSymlinks makes List descend into symlinked directories and list
	// symlinked files, detecting loops. Off, symlinks are reported to OnSkip.
	FollowSymlinks bool
	// OnSkip, when set, is called by List for every entry it leaves out with a
	// reason: a symlink not followed, a symlink loop, a broken symlink, a
	// special file (socket, pipe, device), an unreadable directory or file,
	// a name that cannot be a key. A listing that skipped something is
	// incomplete: a sync must not delete destination objects on its basis
	// (Store.Skipped keeps the names for that). It is called from the
	// goroutine that called List.
	OnSkip func(path, reason string)
	// Sync flushes each written file and its directory to disk before it is
	// reported written (fsync), so it survives a power cut. Off by default: it
	// costs a disk flush per file.
	Sync bool
}

// Store is a local directory tree. It implements store.Store and
// store.RandomWriter and is safe for concurrent use.
type Store struct {
	root string // absolute and clean
	opts Options

	mu      sync.Mutex
	skipped []string // keys of the entries listings left out
}

var (
	_ store.Store        = (*Store)(nil)
	_ store.RandomWriter = (*Store)(nil)
	_ store.Skipper      = (*Store)(nil)
)

// Skipped returns the entries List has left out so far (see
// Options.OnSkip) as keys relative to the root, "." for the root itself.
func (s *Store) Skipped() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.skipped)
}

// skip records that a listing left out the entry at path p.
func (s *Store) skip(p, reason string) {
	if rel, err := filepath.Rel(s.root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		s.mu.Lock()
		s.skipped = append(s.skipped, filepath.ToSlash(rel))
		s.mu.Unlock()
	}
	if s.opts.OnSkip != nil {
		s.opts.OnSkip(p, reason)
	}
}

// New returns the store rooted at root. The directory need not exist yet (a
// download creates it); if something exists there it must be a directory.
func New(root string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open local store %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case err == nil && !fi.IsDir():
		return nil, fmt.Errorf("open local store %s: not a directory", abs)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, pathError("open local store", abs, err)
	}
	return &Store{root: abs, opts: opts}, nil
}

// Root returns the absolute path of the store's directory.
func (s *Store) Root() string { return s.root }

// URL returns the local path of key, for messages.
func (s *Store) URL(key string) string {
	if key == "" {
		return s.root
	}
	if p, err := SafeJoin(s.root, key); err == nil {
		return p
	}
	return filepath.Join(s.root, filepath.FromSlash(key))
}

// Head returns the size and modification time of the file named by key, and
// a content type guessed from its extension so an upload carries one.
func (s *Store) Head(ctx context.Context, key string) (store.Object, store.Metadata, error) {
	p, err := SafeJoin(s.root, key)
	if err != nil {
		return store.Object{}, store.Metadata{}, fmt.Errorf("head: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return store.Object{}, store.Metadata{}, fmt.Errorf("head %s: %w", p, err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return store.Object{}, store.Metadata{}, pathError("head", p, err)
	}
	if err := regular("head", p, fi); err != nil {
		return store.Object{}, store.Metadata{}, err
	}
	o := store.Object{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}
	return o, store.Metadata{ContentType: mime.TypeByExtension(path.Ext(key))}, nil
}

// Get opens the file named by key for reading length bytes from off (to the
// end when length < 0). The reader also implements io.Seeker and io.ReaderAt
// over that range, so an upload can rewind it to retry. Local files have no
// ETag: a non-empty ifMatch fails with errors.ErrUnsupported rather than
// reading a file it cannot vouch for.
func (s *Store) Get(ctx context.Context, key string, off, length int64, ifMatch string) (io.ReadCloser, error) {
	p, err := SafeJoin(s.root, key)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	if ifMatch != "" {
		return nil, fmt.Errorf("get %s if ETag is %q: local files have no ETag: %w", p, ifMatch, errors.ErrUnsupported)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get %s: %w", p, err)
	}
	// Stat before opening: opening a named pipe would block.
	fi, err := os.Stat(p)
	if err != nil {
		return nil, pathError("get", p, err)
	}
	if err := regular("get", p, fi); err != nil {
		return nil, err
	}
	// O_NONBLOCK: a named pipe that replaced the file since the Stat does
	// not block the open either (the Fstat below refuses it), and Go then
	// skips the two flag changes it makes around a blocking descriptor.
	// Reads of a regular file never block on it.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, pathError("get", p, err)
	}
	// The size of the file opened, which may have replaced the one stat'ed.
	if fi, err = f.Stat(); err == nil {
		err = regular("get", p, fi)
	}
	if err == nil && (off < 0 || off > fi.Size()) {
		err = fmt.Errorf("get %s: offset %d outside the file's %d bytes", p, off, fi.Size())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	n := fi.Size() - off
	if length >= 0 && length < n {
		n = length
	}
	return &fileReader{SectionReader: io.NewSectionReader(f, off, n), f: f, path: p, opened: fi}, nil
}

// fileReader reads a range of an open file. Its Read checks, on reaching
// the end of the range, that the file still has the size and modification
// time it had when it was opened (CheckUnchanged): a file written to while
// it was read fails the read rather than deliver bytes of two versions. (A
// write that leaves both as they were, within the file system's timestamp
// granularity, cannot be told apart.)
type fileReader struct {
	*io.SectionReader
	f       *os.File
	path    string
	opened  fs.FileInfo
	checked bool
}

var _ store.ChangeChecker = (*fileReader)(nil)

var errChangedWhileRead = errors.New("the file changed while it was read")

func (r *fileReader) Read(p []byte) (int, error) {
	n, err := r.SectionReader.Read(p)
	if err == io.EOF && !r.checked {
		r.checked = true
		if cerr := r.CheckUnchanged(); cerr != nil {
			return n, cerr
		}
	}
	return n, err
}

// CheckUnchanged reports a file whose size or modification time differs
// from what they were when it was opened.
func (r *fileReader) CheckUnchanged() error {
	now, err := r.f.Stat()
	switch {
	case err != nil:
		return pathError("get", r.path, err)
	case now.Size() != r.opened.Size() || !now.ModTime().Equal(r.opened.ModTime()):
		return &fsError{op: "get", path: r.path, err: errChangedWhileRead, kind: store.ErrPreconditionFailed}
	}
	return nil
}

// Seek moves within the range as the SectionReader does; a read to the
// end after it checks the file again.
func (r *fileReader) Seek(off int64, whence int) (int64, error) {
	r.checked = false
	return r.SectionReader.Seek(off, whence)
}

func (r *fileReader) Close() error { return r.f.Close() }

// Put writes body to a temp file next to the destination and renames it over
// key once all size bytes arrived (size < 0: until EOF). On any failure the
// temp file is removed, so key never names a partial file. A body shorter than
// size fails with io.ErrUnexpectedEOF; a longer one fails too, since either
// means the source is not what was planned. Metadata is not kept: a file has
// nowhere to put it.
func (s *Store) Put(ctx context.Context, key string, body io.Reader, size int64, _ store.Metadata) error {
	p, err := SafeJoin(s.root, key)
	if err != nil {
		return fmt.Errorf("put: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put %s: %w", p, err)
	}
	f, tmp, err := s.createTemp("put", p, os.O_WRONLY)
	if err != nil {
		return err
	}
	if err := fill(f, body, size); err != nil {
		discard(f, tmp)
		return fmt.Errorf("put %s: %w", p, err)
	}
	if err := ctx.Err(); err != nil {
		discard(f, tmp)
		return fmt.Errorf("put %s: %w", p, err)
	}
	return s.finish("put", f, tmp, p)
}

// fill copies exactly size bytes of body into f (all of it when size < 0).
func fill(f *os.File, body io.Reader, size int64) error {
	if size < 0 {
		_, err := io.Copy(f, body)
		return err
	}
	// CopyN hands f an io.LimitedReader, which os.File.ReadFrom turns into
	// copy_file_range or splice when body is a file or a socket.
	n, err := io.CopyN(f, body, size)
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("body ended after %d of %d bytes: %w", n, size, io.ErrUnexpectedEOF)
	}
	if err != nil {
		return err
	}
	// The probe for a byte more also reads the body's end, where a reader
	// that checks what it read (a checksum, a source file unchanged) says
	// it failed: that error fails the put.
	var extra [1]byte
	k, err := io.ReadFull(body, extra[:])
	if k > 0 {
		return fmt.Errorf("body is longer than its declared %d bytes", size)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// finish flushes (with Options.Sync), closes and renames tmp to p; on failure
// it removes tmp.
func (s *Store) finish(op string, f *os.File, tmp, p string) error {
	if s.opts.Sync {
		if err := f.Sync(); err != nil {
			discard(f, tmp)
			return pathError(op, p, err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return pathError(op, p, err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		if fi, serr := os.Lstat(p); serr == nil && fi.IsDir() {
			return &fsError{op: op, path: p, err: errIsDir, kind: store.ErrExists}
		}
		return fmt.Errorf("%s %s: %w", op, p, err)
	}
	if s.opts.Sync {
		if err := syncDir(filepath.Dir(p)); err != nil {
			return pathError(op, p, err)
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func discard(f *os.File, tmp string) {
	f.Close()
	os.Remove(tmp)
}

var errIsDir = errors.New("a directory has that name")

// createTemp makes the parent directories of p and opens a new temp file in
// p's directory with mode 0644 (less the umask, as any tool that creates
// files). It fails early, before any byte is copied, when p names a directory
// or a parent of p is a file.
func (s *Store) createTemp(op, p string, flag int) (*os.File, string, error) {
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return nil, "", &fsError{op: op, path: p, err: errIsDir, kind: store.ErrExists}
	}
	dir := filepath.Dir(p)
	for attempt := 1; ; attempt++ {
		// A concurrent Delete prunes the directories it empties: it may
		// remove one that MkdirAll just made, before MkdirAll made its child
		// or before the file is created in it; MkdirAll then fails with
		// ENOENT, or EEXIST when another Put made it before it vanished.
		// Then make them again.
		const attempts = 100 // each retry means a Delete made progress; many at once can take turns for a while
		err := os.MkdirAll(dir, 0o755)
		if err != nil {
			if (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist)) && attempt < attempts {
				continue
			}
			return nil, "", s.parentError(op, p, err)
		}
		f, tmp, err := openTemp(dir, flag)
		if err == nil {
			return f, tmp, nil
		}
		if errors.Is(err, fs.ErrNotExist) && attempt < attempts {
			continue
		}
		return nil, "", pathError(op, p, err)
	}
}

func openTemp(dir string, flag int) (*os.File, string, error) {
	for {
		name := filepath.Join(dir, tempPrefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, flag|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue // a name collision: 64 random bits, so one retry in practice
		}
		return f, name, err
	}
}

// parentError turns MkdirAll's failure into an error that names the parent
// that is a file, when that is the cause.
func (s *Store) parentError(op, p string, err error) error {
	var file string
	for d := filepath.Dir(p); len(d) > len(s.root); d = filepath.Dir(d) {
		if fi, serr := os.Stat(d); serr == nil && !fi.IsDir() {
			file = d // keep the one nearest the root: the first in the way
		}
	}
	if file != "" {
		return &fsError{op: op, path: p, err: fmt.Errorf("parent %s is a file, not a directory", file), kind: store.ErrExists}
	}
	return pathError(op, p, err)
}

// Delete removes the file named by key, then the directories it leaves empty
// up to the root, the way an S3 "directory" vanishes with its last key. A key
// naming nothing, or a directory (or a symlink to one), deletes nothing and is
// not an error. A symlink to a file is removed, not its target.
func (s *Store) Delete(ctx context.Context, key string) error {
	p, err := SafeJoin(s.root, key)
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		if notFound(err) {
			return nil
		}
		return pathError("delete", p, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// A link to a directory is at most a prefix, like a directory.
		if target, err := os.Stat(p); err == nil && target.IsDir() {
			return nil
		}
	}
	if fi.IsDir() {
		return nil
	}
	if err := os.Remove(p); err != nil && !notFound(err) {
		return pathError("delete", p, err)
	}
	for d := filepath.Dir(p); len(d) > len(s.root); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break // not empty (or not ours to remove): the ones above are not empty either
		}
	}
	return nil
}

// CreateTemp opens a temp file of size bytes (sparse: Truncate, not a real
// allocation) in key's directory, for parallel ranged downloads to write
// into. Nothing appears under key until Commit.
func (s *Store) CreateTemp(ctx context.Context, key string, size int64) (store.TempFile, error) {
	p, err := SafeJoin(s.root, key)
	if err != nil {
		return nil, fmt.Errorf("create temp: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create temp for %s: %w", p, err)
	}
	if size < 0 {
		return nil, fmt.Errorf("create temp for %s: negative size %d", p, size)
	}
	f, tmp, err := s.createTemp("create temp for", p, os.O_RDWR)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(size); err != nil {
		discard(f, tmp)
		return nil, pathError("create temp for", p, err)
	}
	return &tempFile{s: s, f: f, tmp: tmp, final: p, size: size}, nil
}

// regular returns nil when fi is a regular file, store.ErrNotFound (wrapped)
// for a directory, which is at most a prefix, and an error for anything else.
func regular(op, p string, fi fs.FileInfo) error {
	switch {
	case fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return &fsError{op: op, path: p, err: errors.New("is a directory"), kind: store.ErrNotFound}
	}
	return fmt.Errorf("%s %s: not a regular file (%s)", op, p, describe(fi.Mode()))
}

func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeIrregular != 0:
		return "irregular file"
	}
	return m.Type().String()
}

// fsError is a failure on one path. Its message names the operation, the
// path and the cause once (an *fs.PathError inside would repeat the path);
// errors.Is sees both the cause (fs.ErrPermission, syscall.ENOSPC) and the
// store sentinel it maps to.
type fsError struct {
	op, path string
	err      error
	kind     error // a store sentinel, or nil
}

func (e *fsError) Error() string { return e.op + " " + e.path + ": " + e.err.Error() }

func (e *fsError) Unwrap() []error {
	if e.kind == nil {
		return []error{e.err}
	}
	return []error{e.err, e.kind}
}

// pathError wraps a filesystem error on p, mapping a missing file to
// store.ErrNotFound and a refused permission to store.ErrAccessDenied.
func pathError(op, p string, err error) error {
	e := &fsError{op: op, path: p, err: store.PathCause(err, p)}
	switch {
	case notFound(err):
		e.kind = store.ErrNotFound
	case errors.Is(err, fs.ErrPermission):
		e.kind = store.ErrAccessDenied
	}
	return e
}

// notFound: the file is absent, or a parent on its path is a file, so it
// cannot exist either.
func notFound(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
