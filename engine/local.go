package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/localstore"
)

// LocalOptions say how LocalSource and LocalDestination open a local
// location.
type LocalOptions struct {
	// Recursive: a source directory is walked (without it, a directory is
	// an error); a destination may receive many objects, so it is a
	// directory.
	Recursive bool
	// DryRun makes LocalDestination create no directory.
	DryRun bool
	// Store configures the local store (symlinks, skips, fsync).
	Store localstore.Options
}

// ErrNotDirectory is the cause of a destination that is a file where a
// directory is needed.
var ErrNotDirectory = errors.New("is a file, not a directory")

// LocationError is a local location that cannot be the side of a job it
// was opened as; Err is ErrPrefix (a source directory, opened without
// Recursive) or ErrNotDirectory.
type LocationError struct {
	URL string
	Err error
}

func (e *LocationError) Error() string { return e.URL + ": " + e.Err.Error() }
func (e *LocationError) Unwrap() error { return e.Err }

// LocalSource opens the file, directory or wildcard loc names (a local
// location: loc.Local) as the source of a job. The store is rooted at the
// location's fixed directory part, so keys are relative to it and nothing
// above it is ever read. A missing file or directory is a *NoMatchError.
func LocalSource(loc s3url.Location, opts LocalOptions) (Endpoint, error) {
	if loc.HasWildcard() {
		root := loc.Base()
		rel := loc
		rel.Key = loc.Key[len(root):]
		return local(root, rel, opts.Store)
	}
	fi, err := os.Stat(filepath.FromSlash(loc.Key))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Endpoint{}, &NoMatchError{URL: loc.String(), Hint: "no such file or directory"}
		}
		return Endpoint{}, fmt.Errorf("read %s: %w", loc, store.PathCause(err))
	}
	if fi.IsDir() {
		if !opts.Recursive {
			return Endpoint{}, &LocationError{URL: loc.String(), Err: ErrPrefix}
		}
		rel := loc
		rel.Key = ""
		return local(loc.Key, rel.AsDir(), opts.Store)
	}
	dir, file := path.Split(loc.Key)
	rel := loc
	rel.Key = file
	return local(dir, rel, opts.Store)
}

// LocalDestination opens the file or directory loc names (a local
// location) as the destination of a job. It is a directory when it is one
// already, when loc ends in '/', or with opts.Recursive; the directory is
// created (unless opts.DryRun), and nothing outside it is ever written.
// Otherwise loc names the file one object becomes.
func LocalDestination(loc s3url.Location, opts LocalOptions) (Endpoint, error) {
	p := filepath.FromSlash(loc.Key)
	fi, err := os.Stat(p)
	isDir := err == nil && fi.IsDir()
	if err == nil && !fi.IsDir() && (opts.Recursive || loc.IsDirLike()) {
		return Endpoint{}, &LocationError{URL: loc.String(), Err: ErrNotDirectory}
	}
	if isDir || opts.Recursive || loc.IsDirLike() {
		rel := loc
		rel.Key = ""
		if !opts.DryRun {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return Endpoint{}, fmt.Errorf("create directory %s: %w", loc, store.PathCause(err))
			}
		}
		return local(loc.Key, rel.AsDir(), opts.Store)
	}
	dir, file := path.Split(loc.Key)
	rel := loc
	rel.Key = file
	return local(dir, rel, opts.Store)
}

func local(root string, rel s3url.Location, opts localstore.Options) (Endpoint, error) {
	if root == "" {
		root = "."
	}
	root = strings.TrimSuffix(filepath.FromSlash(root), string(filepath.Separator))
	if root == "" {
		root = string(filepath.Separator)
	}
	st, err := localstore.New(root, opts)
	if err != nil {
		return Endpoint{}, err
	}
	if rel.Key == "/" {
		rel.Key = ""
	}
	return Endpoint{Store: st, Loc: rel}, nil
}
