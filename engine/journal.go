package engine

import (
	"time"

	"github.com/s3bulk/s3bulk/store"
)

// Journal makes runs resumable (Options.Journal): it remembers the objects
// a run finished and the multipart uploads it started, so a rerun of the
// same job skips the first and resumes the second. The engine calls it from
// many goroutines at once. s3bulk's own journal, an append-only file of
// checksummed JSON lines that survives kill -9, implements it; a program may
// bring its own (a table in its database, say).
type Journal interface {
	// IsDone reports whether the journal records src as moved to dstKey,
	// with the same size and ETag (modification time when it has no ETag).
	IsDone(src store.Object, dstKey string) bool
	// Upload returns the open multipart upload to dstKey most recently
	// started, if any.
	Upload(dstKey string) (Upload, bool)
	// Uploads returns every open multipart upload the journal knows.
	Uploads() []Upload

	// Done records src as moved to dstKey; Failed as failed with cause.
	Done(src store.Object, dstKey string) error
	Failed(src store.Object, dstKey string, cause error) error
	// UploadStarted checkpoints a multipart upload (its Parts are nil),
	// PartDone one of its parts, UploadCompleted and UploadAborted its end.
	UploadStarted(u Upload) error
	PartDone(uploadID string, p store.Part) error
	UploadCompleted(dstKey, uploadID string) error
	UploadAborted(dstKey, uploadID string) error
}

// Upload is a checkpointed multipart upload: what was being uploaded where,
// in parts of what size.
type Upload struct {
	SrcKey   string
	DstKey   string
	UploadID string
	PartSize int64
	// Size, ETag and ModTime describe the source as it was when the upload
	// started; see Matches.
	Size    int64
	ETag    string
	ModTime time.Time
	// Parts holds the finished parts by number, as far as the journal
	// knows (nil in what is passed to Journal.UploadStarted). The server's
	// ListParts is the authority: a part finished just before a crash may
	// be missing here.
	Parts map[int32]store.Part
}

// Matches reports whether src is the object this upload was started from,
// judged by key, size and ETag (modification time when there is no ETag).
// An upload of a source that changed since must be aborted, not resumed.
func (u Upload) Matches(src store.Object) bool {
	if u.SrcKey != src.Key || u.Size != src.Size || u.ETag != src.ETag {
		return false
	}
	return u.ETag != "" || u.ModTime.IsZero() && src.ModTime.IsZero() || u.ModTime.Equal(src.ModTime)
}

// journalName names j in messages: its path, when it has one.
func journalName(j Journal) string {
	if p, ok := j.(interface{ Path() string }); ok {
		return p.Path()
	}
	return "journal"
}

// VersionJournal is a Journal that makes a copy of every version
// (Job.AllVersions) resumable without writing a version twice. Unlike
// another copy, a version's is not idempotent: each write of a key adds a
// version to its history, so a run killed between a version's write and
// its Done record would, resumed, write that version again. With a
// VersionJournal the engine records an intent before each write (no
// request) and the destination's version ID with each Written record;
// resumed, it asks the destination about the one write of each key that
// an intent shows begun and never recorded (one ListObjectVersions of the
// key), and does not write again what landed.
type VersionJournal interface {
	Journal
	// Intent records that w is about to be written. It returns once the
	// record is where the end of this process, kill -9 included, cannot
	// lose it (the file, not yet fsynced): the write starts only then.
	Intent(w VersionWrite) error
	// Written records src as copied to dstKey, where the destination gave
	// it the version dstVersion ("" when it gave none): Done, closing the
	// key's intent.
	Written(src store.Object, dstKey, dstVersion string) error
	// Interrupted returns the last intent an earlier run recorded for
	// dstKey with no Written after it: a write that may or may not have
	// landed.
	Interrupted(dstKey string) (VersionWrite, bool)
}

// VersionWrite is the write of one version or delete marker of a source
// key to a destination key, as a VersionJournal's intent records it.
type VersionWrite struct {
	// Src is the source version: its Key, VersionID, Size and ETag.
	Src store.Object
	// DeleteMarker marks the recreation of a delete marker.
	DeleteMarker bool
	DstKey       string
	// After is the destination's version this write follows: the one the
	// run wrote or found last for the key. Empty when the run knows none
	// (the key's first version): At bounds the write then.
	After string
	// At is when the write was about to start (this machine's clock); for
	// a write tried again after an interruption, when the first try was.
	At time.Time
}
