package store

import (
	"context"
	"errors"
	"io"
	"time"
)

// Sentinel errors. Implementations wrap them (fmt.Errorf("...: %w", ErrNotFound))
// so callers test with errors.Is and never match message strings.
var (
	ErrNotFound           = errors.New("not found")
	ErrBucketNotFound     = errors.New("no such bucket")
	ErrAccessDenied       = errors.New("access denied")
	ErrPreconditionFailed = errors.New("precondition failed: source changed")
	ErrNoSuchUpload       = errors.New("no such upload")
	ErrInvalidCredentials = errors.New("invalid credentials")
	ErrExists             = errors.New("already exists")
	ErrUnsafeKey          = errors.New("key would be written outside the destination")
	ErrChecksumMismatch   = errors.New("checksum mismatch")
	// ErrUnverifiable: the parts could only be checked by reading them
	// back, and they cannot be (PartsVerifier.Verify with nil).
	ErrUnverifiable = errors.New("cannot be verified without reading the parts back")
	// ErrNotImplemented marks an operation the server does not have (an
	// S3-compatible server's 501 NotImplemented or 405 MethodNotAllowed):
	// asking again never helps, doing without it may.
	ErrNotImplemented = errors.New("not implemented by the server")
	// ErrChecksumsUnsupported marks an upload that asked for checksums the
	// server cannot give (no ListParts to complete with, no checksum of a
	// part): a client that does not ask for them (the CLI's
	// --checksum-when-required) completes it.
	ErrChecksumsUnsupported = errors.New("the server cannot keep the upload's checksums")
	// ErrUnreachable marks a connection refused by an endpoint that has not
	// answered any request yet: down, or a wrong address.
	ErrUnreachable = errors.New("endpoint unreachable")
)

// Object is one listed or inspected object. Keys are relative to the store's
// root (bucket, or local directory) and always use '/' as separator.
type Object struct {
	Key          string
	Size         int64
	ModTime      time.Time
	ETag         string // without quotes; empty when unknown
	StorageClass string
	// IsPrefix marks a common prefix returned by a delimited listing
	// ("directory"); only Key is set then.
	IsPrefix bool
	// VersionID is set by listings of versions (s3store's
	// ListCurrentVersions); empty otherwise.
	VersionID string
}

// Metadata is what travels with an object's bytes.
type Metadata struct {
	ContentType        string
	ContentEncoding    string
	ContentLanguage    string
	CacheControl       string
	ContentDisposition string
	StorageClass       string
	User               map[string]string
	// Tags is the tag set a write sets (store/tags.go: nil decides
	// nothing). Reads leave it nil: tags are read on their own
	// (Tagger), only by the paths that must carry them.
	Tags Tags
	// TagCount is how many tags the object has, as a read (HEAD, GET)
	// reports it (x-amz-tagging-count); writes ignore it. A stream of a
	// small object asks for the tags only when it is not 0.
	TagCount int
	// Lock is the object's Object Lock settings: what a Head found, and
	// what a write sets (beside what the store's own options set).
	Lock ObjectLock
	// Checksum is, on a read (Head, GetWithMetadata), the object's
	// checksum as the server reported it: its algorithm, and its value
	// when it covers the whole object (empty for a composite one, a
	// checksum of the parts' checksums). On a write it is the checksum
	// the object written gets: an Algorithm alone asks for that algorithm
	// (computed by this process or the server), a Value too is the
	// checksum the bytes must have, which the server checks. Zero leaves
	// it to the store (store/checksum.go).
	Checksum Checksum
}

// Lister streams a listing.
type Lister interface {
	// List calls fn for every object whose key starts with prefix, in ascending
	// byte order of keys where the backend guarantees it. With a non-empty
	// delimiter, keys containing the delimiter after the prefix are rolled up
	// into one Object{IsPrefix: true}. List never holds the whole listing in
	// memory. Returning an error from fn stops the listing with that error.
	List(ctx context.Context, prefix, delimiter string, fn func(Object) error) error
}

// Store is the portable interface.
type Store interface {
	Lister
	// Head returns the object's attributes and metadata. ErrNotFound when absent.
	Head(ctx context.Context, key string) (Object, Metadata, error)
	// Get opens the object for reading from offset off; length < 0 means to the
	// end. ifMatch, when not empty, makes the read conditional on the ETag
	// (ErrPreconditionFailed otherwise).
	Get(ctx context.Context, key string, off, length int64, ifMatch string) (io.ReadCloser, error)
	// Put writes a whole object of the given size. A destination never shows a
	// partial object under key: S3 is atomic, local stores write a temp file and
	// rename it.
	Put(ctx context.Context, key string, body io.Reader, size int64, meta Metadata) error
	// Delete removes one object. Deleting a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// URL formats key for messages: "s3://bucket/key" or a local path.
	URL(key string) string
}

// CopySource names an object that a server-side copy reads from.
type CopySource struct {
	Bucket string
	Key    string
	// IfMatch, when not empty, makes the copy fail with ErrPreconditionFailed
	// if the source's ETag changed.
	IfMatch string
	// Size is the source object's size, 0 when unknown. A server copies
	// before it answers, so how long an answer may take grows with it.
	Size int64
	// VersionID, when not empty, copies that version of the source
	// rather than its current one.
	VersionID string
	// Tags, when not nil, replaces the source's tags on the copy (S3's
	// tagging directive REPLACE); a set too long for a header
	// (Tags.FitsHeader) leaves the copy without tags, for the caller to
	// set them. Nil keeps the source's.
	Tags Tags
	// ChecksumAlgorithm, when set, is the algorithm of the copy's
	// checksum (one of ChecksumAlgorithms), computed by the server; empty
	// keeps the source's algorithm (the server's default when the source
	// has none).
	ChecksumAlgorithm string
}

// Copier is implemented by stores that copy server-side.
type Copier interface {
	// Bucket names the bucket; Copy only works when CanCopyFrom(src) is true.
	CanCopyFrom(src Store) (bucket string, ok bool)
	// Copy copies src to key with CopyObject. When meta is nil the source's
	// metadata is kept (COPY directive), otherwise it is replaced.
	Copy(ctx context.Context, src CopySource, key string, meta *Metadata) error
}

// Part is one finished part of a multipart upload.
type Part struct {
	Number int32
	ETag   string
	Size   int64
	// Checksum is the part's checksum as the server acknowledged it when
	// the part was uploaded; zero when unknown (a copied part, a server
	// that does not say, a part recorded by an earlier run).
	Checksum Checksum
}

// Upload is one in-progress multipart upload.
type Upload struct {
	Key       string
	UploadID  string
	Initiated time.Time
}

// Multipart is implemented by stores with S3's multipart API.
type Multipart interface {
	CreateMultipart(ctx context.Context, key string, meta Metadata) (uploadID string, err error)
	UploadPart(ctx context.Context, key, uploadID string, number int32, body io.ReadSeeker, size int64) (Part, error)
	UploadPartCopy(ctx context.Context, key, uploadID string, number int32, src CopySource, first, last int64) (Part, error)
	CompleteMultipart(ctx context.Context, key, uploadID string, parts []Part) error
	AbortMultipart(ctx context.Context, key, uploadID string) error
	ListMultipartUploads(ctx context.Context, prefix string, fn func(Upload) error) error
	ListParts(ctx context.Context, key, uploadID string) ([]Part, error)
}

// TempFile is a destination file being written at random offsets. Nothing is
// visible under its final name until Commit. What was written can be read
// back before then (to verify it).
type TempFile interface {
	io.WriterAt
	io.ReaderAt
	// Commit flushes, closes and renames the file to its final name.
	Commit() error
	// Abort closes and removes the temp file. Safe after Commit (no-op).
	Abort() error
}

// RandomWriter is implemented by local stores: parallel ranged downloads
// write parts into a preallocated temp file.
type RandomWriter interface {
	CreateTemp(ctx context.Context, key string, size int64) (TempFile, error)
}

// MaxBatchDelete is the most keys one BatchDeleter request takes: S3's
// limit for DeleteObjects.
const MaxBatchDelete = 1000

// Skipper is implemented by stores whose listings may leave entries out:
// a local directory's unreadable entries, symlinks not followed, special
// files. A listing that skipped something is incomplete, so a sync must
// not delete destination objects of those names (the engine does not).
type Skipper interface {
	// Skipped returns the entries the store's listings have left out so
	// far, as keys ('/'-separated, relative to the store's root; "." is
	// the root itself). Directories are named without a trailing '/'.
	Skipped() []string
}

// DeleteError is one key a batch delete could not delete.
type DeleteError struct {
	Key string
	Err error
}

// BatchDeleter is implemented by stores that delete many objects with one
// request (S3's DeleteObjects). Stores without it are deleted from one key
// at a time.
type BatchDeleter interface {
	// DeleteKeys deletes up to MaxBatchDelete keys with one request. Keys
	// it could not delete come back as DeleteErrors; missing keys are not
	// errors. The error is for the request as a whole, which then may have
	// deleted none of the keys.
	DeleteKeys(ctx context.Context, keys []string) ([]DeleteError, error)
}

// ChecksumMultipart is implemented by stores whose multipart uploads can
// carry a checksum of the whole object, which the server verifies when the
// upload completes. Only uploads whose bytes pass through the client use it:
// parts copied server-side (UploadPartCopy) carry no checksum of the
// client's, and some servers then store a wrong one.
type ChecksumMultipart interface {
	CreateMultipartChecksum(ctx context.Context, key string, meta Metadata) (uploadID string, err error)
}

// PartsVerifier checks an object read in parts against what its store
// keeps of the whole object (a checksum, an MD5 ETag).
type PartsVerifier interface {
	// Part returns the writer that the bytes of the part at off, size bytes
	// long, go through as they are written. Parts may be written
	// concurrently, each by one goroutine.
	Part(off, size int64) io.Writer
	// Verify reports, once every part was written to written, an error
	// wrapping ErrChecksumMismatch if the parts differ from the object.
	// What cannot be checked as the parts go by (an MD5, which cannot be
	// combined from parts written out of order) is read back from written.
	// written is nil when the parts cannot be read back (a stream into
	// another store): then an object that could only be checked that way
	// gives an error wrapping ErrUnverifiable.
	Verify(ctx context.Context, written io.ReaderAt) error
}

// Verifier is implemented by stores that keep checksums of whole objects.
type Verifier interface {
	// VerifyParts returns a PartsVerifier for a read of key in parts, or
	// nil when the object carries nothing to check against. ifMatch, when
	// set, fails with ErrPreconditionFailed if the object changed.
	VerifyParts(ctx context.Context, key, ifMatch string, size int64) (PartsVerifier, error)
}

// CheckedBody is implemented by the bodies that a store checking what it
// reads (S3: a full-object checksum, an MD5 or multipart ETag) returns for
// a read of a whole object.
type CheckedBody interface {
	// Unverified reports, once the body was read to its end, whether the
	// object carried nothing to check its bytes against (or checks were
	// turned off).
	Unverified() bool
}

// Unverified reports whether body, a whole object read to its end, went
// unchecked: it is a CheckedBody that says so. Bodies of stores that check
// nothing (a local file) are not downloads and never count.
func Unverified(body io.Reader) bool {
	c, ok := body.(CheckedBody)
	return ok && c.Unverified()
}

// ChangeChecker is implemented by bodies whose source can change while it
// is read (a local file): a reader of one that did not read it to the end
// through Read, which checks by itself, asks before it uses the bytes.
type ChangeChecker interface {
	// CheckUnchanged returns an error wrapping ErrPreconditionFailed when
	// the source has changed since the body was opened.
	CheckUnchanged() error
}

// MetadataReader is implemented by stores whose reads return an object's
// metadata with its bytes, as S3's GetObject does: a copy through the
// client then costs one request to read, not a Head and a read.
type MetadataReader interface {
	// GetWithMetadata opens the whole object for reading, as Get(ctx,
	// key, 0, -1, ifMatch) does, and returns the metadata it was stored
	// with.
	GetWithMetadata(ctx context.Context, key, ifMatch string) (io.ReadCloser, Metadata, error)
}
