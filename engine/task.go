package engine

import (
	"time"

	"github.com/s3bulk/s3bulk/store"
)

// Op is what a task does.
type Op string

const (
	// OpCopy copies S3 to S3 server-side (CopyObject or UploadPartCopy).
	OpCopy Op = "copy"
	// OpUpload writes a local file to S3.
	OpUpload Op = "upload"
	// OpDownload writes an object to a local file.
	OpDownload Op = "download"
	// OpStream copies between stores that cannot copy server-side (two
	// different endpoints): the bytes pass through the client.
	OpStream Op = "stream"
	// OpDelete removes an object.
	OpDelete Op = "delete"
	// OpSkip records an object the plan chose not to transfer, with a reason.
	OpSkip Op = "skip"
)

// Task is one planned action on one object. It is plain data.
type Task struct {
	Op     Op     `json:"op"`
	Src    string `json:"src,omitempty"` // URL for messages: s3://b/k or a local path
	Dst    string `json:"dst,omitempty"`
	SrcKey string `json:"src_key,omitempty"`
	DstKey string `json:"dst_key,omitempty"`
	Size   int64  `json:"size"`
	ETag   string `json:"etag,omitempty"`
	// VersionID is the source version listed, when the source store lists
	// versions (a Batch Operations manifest pins it); empty otherwise.
	VersionID string    `json:"version_id,omitempty"`
	ModTime   time.Time `json:"mtime,omitzero"`
	// PartSize is set when the object is moved in parts; 0 means one request.
	PartSize int64  `json:"part_size,omitempty"`
	Reason   string `json:"reason,omitempty"` // why a task is a skip
	// DeleteSource makes the task a move: the source is deleted only after
	// the transfer succeeded.
	DeleteSource bool `json:"delete_source,omitempty"`
	// DstVersionID, in a copy of every version (Job.AllVersions), is the
	// destination's version that holds this one: the write's, in a
	// Result; in a plan resumed after an interruption, the one found
	// there (a skip, ReasonWrittenBefore, or the last version done before).
	DstVersionID string `json:"dst_version_id,omitempty"`
}

// Status is how a task ended.
type Status string

const (
	StatusDone    Status = "done"
	StatusSkipped Status = "skipped"
	StatusFailed  Status = "failed"
	StatusDryRun  Status = "dry-run"
)

// Result is the one outcome of one task.
type Result struct {
	Task     Task
	Status   Status
	Err      error
	Duration time.Duration
	// Parts is the number of parts the object moved in (0 for one request).
	Parts int
	// Unverified marks an object whose bytes were read from a store and
	// checked against nothing: its source kept no full-object checksum,
	// no MD5 or multipart ETag that could be rebuilt (SSE-KMS, SSE-C, a
	// server that does not say), checksums were turned off, or it was
	// streamed in parts from a source that can only be checked by reading
	// the parts back.
	Unverified bool
	// Attempts is how many times the whole object was tried: 1, or more
	// when it was restarted (Options.Restarts). Task is then the object
	// as the last attempt found it.
	Attempts int
	// journaled marks a result already in the journal (a version's,
	// recorded Written before its key's next version started).
	journaled bool
}

// object returns the task's source as a store.Object.
func (t Task) object() store.Object {
	return store.Object{Key: t.SrcKey, Size: t.Size, ETag: t.ETag, ModTime: t.ModTime, VersionID: t.VersionID}
}
