package engine

import (
	"context"
	"errors"
	"sync"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/store"
)

// resumed records the journal's upload ids this run took over, so the ones
// left over at the end can be aborted.
type resumed struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (r *resumed) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids = map[string]bool{}
	}
	r.ids[id] = true
}

func (r *resumed) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[id]
}

// resumeUpload looks for a checkpointed multipart upload of the same source
// version to the same key, and reconciles its parts with the server
// (ListParts is the truth: a part finished just before a crash may be
// missing from the journal). It returns the upload id and the parts already
// there, or ok false to start afresh.
func (e *executor) resumeUpload(ctx context.Context, t Task, layout parts.Layout, mp store.Multipart) (id string, done map[int32]store.Part, ok bool) {
	j := e.opts.Journal
	if j == nil {
		return "", nil, false
	}
	u, found := j.Upload(t.DstKey)
	if !found || !u.Matches(t.object()) || u.PartSize != layout.PartSize || e.resumedIDs.has(u.UploadID) {
		return "", nil, false
	}
	var listed []store.Part
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		listed, err = mp.ListParts(ctx, t.DstKey, u.UploadID)
		return err
	})
	if err != nil {
		// Gone (completed, aborted or expired) or unreadable: start afresh;
		// a stale upload that still exists is aborted at the end of the run.
		return "", nil, false
	}
	done = make(map[int32]store.Part, len(listed))
	for _, p := range listed {
		if p.Number >= 1 && p.Number <= layout.Count && p.Size == layout.Part(p.Number).Size {
			done[p.Number] = p
		}
	}
	e.resumedIDs.add(u.UploadID)
	return u.UploadID, done, true
}

// abortStaleUploads aborts the journal's open uploads that this run did not
// take over (a source that changed since, a different part size), so a
// finished run leaves no billed parts behind.
func (e *executor) abortStaleUploads(ctx context.Context) {
	j := e.opts.Journal
	if j == nil {
		return
	}
	mp, ok := e.job.Dst.Store.(store.Multipart)
	if !ok {
		return
	}
	for _, u := range j.Uploads() {
		if e.resumedIDs.has(u.UploadID) {
			continue
		}
		err := e.do(ctx, func(ctx context.Context) error { return mp.AbortMultipart(ctx, u.DstKey, u.UploadID) })
		if err == nil || errors.Is(err, store.ErrNoSuchUpload) {
			_ = j.UploadAborted(u.DstKey, u.UploadID)
		}
	}
}

func journalUpload(t Task, id string, layout parts.Layout) Upload {
	return Upload{SrcKey: t.SrcKey, DstKey: t.DstKey, UploadID: id, PartSize: layout.PartSize, Size: t.Size, ETag: t.ETag, ModTime: t.ModTime}
}
