package store

import (
	"context"
	"sync"
)

// Version is one entry of a bucket's history of a key: an object version
// or a delete marker, as ListObjectVersions lists them.
type Version struct {
	// Object is the version's key, size, time, ETag and storage class,
	// with its VersionID ("null" for the version an unversioned or
	// suspended bucket wrote). A delete marker has only Key, ModTime and
	// VersionID.
	Object
	// IsLatest marks the key's current version (or current delete marker).
	IsLatest bool
	// DeleteMarker marks a delete marker: the key was deleted then.
	DeleteMarker bool
}

// VersionLister is implemented by stores that keep object versions (S3).
type VersionLister interface {
	// ListVersions calls fn for every version and delete marker of every
	// key under prefix, in ListObjectVersions order: keys in ascending
	// byte order, each key's entries newest first. It never holds the
	// whole listing in memory.
	ListVersions(ctx context.Context, prefix string, fn func(Version) error) error
	// Versioning returns the bucket's versioning status: "Enabled",
	// "Suspended", or "" for a bucket that never had it enabled.
	Versioning(ctx context.Context) (string, error)
}

// VersionPinner is implemented by stores whose reads can name one version
// of an object.
type VersionPinner interface {
	// AtVersion returns the store with every read of an object (Head, Get,
	// the checks of what was read) made of version id. It is meant for one
	// key: each key's versions have IDs of their own.
	AtVersion(id string) Store
}

// VersionDeleter is implemented by stores that delete object versions.
type VersionDeleter interface {
	// DeleteVersions deletes up to MaxBatchDelete versions or delete
	// markers (Key and VersionID of each) for good, with one request.
	// Versions it could not delete come back as DeleteErrors (Key is
	// "key?versionId=ID" then); missing ones are not errors.
	DeleteVersions(ctx context.Context, versions []Object) ([]DeleteError, error)
}

// Receipt is where a write says what it wrote, when its caller asks
// (WithReceipt): the version ID a versioned bucket gave the object
// written, or the delete marker a Delete of a key left. The writes of
// Store return only an error, as every store has nothing more to say;
// the one caller that needs the ID (a copy of every version, which
// journals it) asks through the context rather than through a second
// set of write methods. Safe for concurrent use.
type Receipt struct {
	mu        sync.Mutex
	versionID string
}

type receiptKey struct{}

// WithReceipt returns ctx with r attached: the writes made with it (or
// a context derived from it) record in r what they wrote.
func WithReceipt(ctx context.Context, r *Receipt) context.Context {
	return context.WithValue(ctx, receiptKey{}, r)
}

// NoteWritten is what a store calls once a write made with ctx
// succeeded: the version ID the bucket gave what it wrote. It does
// nothing when ctx has no Receipt or the bucket gave no version ID.
func NoteWritten(ctx context.Context, versionID string) {
	r, _ := ctx.Value(receiptKey{}).(*Receipt)
	if r == nil || versionID == "" {
		return
	}
	r.mu.Lock()
	r.versionID = versionID
	r.mu.Unlock()
}

// VersionID is the version ID the last write noted, "" when none did.
func (r *Receipt) VersionID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.versionID
}
