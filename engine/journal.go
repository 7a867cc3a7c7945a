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
