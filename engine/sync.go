package engine

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/store"
)

// SyncOptions make a Job a sync: the source's prefix (or directory) is
// compared with the destination's, key by key relative to each side's base,
// and only what differs is copied.
//
// A sync's plan comes from diff.Run, which pairs the two listings in bounded
// memory whatever their order: a key only the source has is copied, a key
// both have is copied when diff.Decide says so, and a key only the
// destination has is deleted when Delete is set. Deletes are held back (on
// disk when many) and carried out only after every copy has ended, in
// batches: a destination never loses an object before the objects that
// replace it have arrived. They are not carried out at all when a copy
// failed, and none is when there are more than MaxDelete.
//
// Objects a filter leaves out are neither copied nor deleted, on either
// side; with a shard, each run copies and deletes the names of its shard.
// A name the source's listing left out (a store.Skipper's Skipped: a local
// directory's unreadable entries, symlinks not followed, special files) is
// never deleted at the destination, nor anything below it: its source may
// well exist. A skipped root protects every name.
type SyncOptions struct {
	// Mode is how a pair is compared: diff.SizeAndTime (the default),
	// diff.SizeOnly or diff.Checksum. With Checksum, a local file of the
	// same size as its object is read to compute the ETag S3 would give it
	// (its MD5, or its multipart ETag when the part size s3bulk would use
	// gives the object's number of parts); a pair that still has no
	// comparable checksum is reported as a skip saying why.
	Mode diff.Mode
	// Delete removes destination objects that the source lacks.
	Delete bool
	// MaxDelete, when positive, is the most objects a sync may delete: with
	// more to delete, it deletes none and fails with a *DeleteLimitError.
	MaxDelete int64
	// AllowEmptySource lets a sync with Delete go on when the source lists
	// no object at all while the destination has some to delete; without
	// it such a sync deletes nothing and fails with an *EmptySourceError,
	// so that an unmounted directory or a mistyped prefix cannot empty a
	// bucket.
	AllowEmptySource bool
	// CompareTags makes a pair that is otherwise the same differ when its
	// tags do (a GetObjectTagging of each side), so that a tag-only
	// change at the source is copied. Both sides must be S3.
	CompareTags bool
	// Memory and TempDir bound the listings' comparison: see diff.Options.
	Memory  int64
	TempDir string
}

// DeleteLimitError is a sync that would have deleted more objects than
// SyncOptions.MaxDelete allows; it deleted none.
type DeleteLimitError struct {
	Count, Max int64
}

func (e *DeleteLimitError) Error() string {
	return fmt.Sprintf("refusing to delete %d objects, more than the limit of %d: deleted none", e.Count, e.Max)
}

// held is the number of deletes the limit refused, counted as skips.
func (e *DeleteLimitError) held() int64 { return e.Count }

// heldDeletes is the number of deletes err held back, when it is a plan's
// refusal of them (a *DeleteLimitError or an *EmptySourceError): the run's
// error once its copies have ended, its deletes counted as skips.
func heldDeletes(err error) (int64, bool) {
	var h interface{ held() int64 }
	if errors.As(err, &h) {
		return h.held(), true
	}
	return 0, false
}

// runSync executes a sync's plan: its copies on the executor's workers as
// they are planned; then, once every copy has ended, the deletes the plan
// holds back until then, or none of them but as skips when a copy failed.
func (e *executor) runSync(ctx context.Context, tasks iter.Seq2[Task, error]) (Summary, error) {
	next, stop := iter.Pull2(tasks)
	defer stop()
	var first *Task
	copies := func(yield func(Task, error) bool) {
		for {
			t, err, ok := next()
			if !ok {
				return
			}
			if err == nil && t.Op == OpDelete {
				first = &t // the plan's deletes begin: its copies are all planned
				return
			}
			if !yield(t, err) {
				return
			}
		}
	}
	sum, err := e.run(ctx, copies)
	if err != nil {
		return sum, err
	}
	if n, ok := heldDeletes(e.limited); ok {
		e.progress.skipped.Add(n)
		sum.Skipped += n
		return sum, e.limited
	}
	if first == nil {
		return sum, nil
	}
	start := time.Now().Add(-sum.Elapsed)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	deletes := make(chan Task, 2*store.MaxBatchDelete)
	var planErr error
	go func() {
		defer close(deletes)
		for t, err, ok := *first, error(nil), true; ok; t, err, ok = next() {
			if err != nil {
				planErr = err
				cancel(err)
				return
			}
			if sum.Failed > 0 {
				// The destination may still miss what replaces these.
				t.Op, t.Reason = OpSkip, fmt.Sprintf("not deleted: %d copies failed; sync again to finish", sum.Failed)
			}
			e.planned(t)
			select {
			case deletes <- t:
			case <-ctx.Done():
				return
			}
		}
	}()
	e.deleteAll(ctx, cancel, e.job.Dst.Store, deletes)
	if planErr != nil {
		e.setFatal(planErr)
	}
	return e.summarize(ctx, start)
}

// deleteLimit checks the deletes held against MaxDelete, and against a
// source that listed nothing (AllowEmptySource).
func (e *executor) deleteLimit() error {
	if e.deletes.Len() > 0 && e.sourceObjects.Load() == 0 && !e.job.Sync.AllowEmptySource {
		return &EmptySourceError{Src: e.job.Src.Store.URL(e.job.Src.Loc.Key), Dst: e.job.Dst.Store.URL(e.job.Dst.Loc.Key), Count: e.deletes.Len()}
	}
	if max := e.job.Sync.MaxDelete; max > 0 && e.deletes.Len() > max {
		return &DeleteLimitError{Count: e.deletes.Len(), Max: max}
	}
	return nil
}

// planSyncTo is Plan for a sync: the copies and skips as the listings are
// compared, then the deletes.
func (e *executor) planSyncTo(ctx context.Context, fn func(Task) error) error {
	sp := &diff.Spool{Dir: e.job.Sync.TempDir}
	defer sp.Close()
	e.deletes = sp
	if err := e.planTo(ctx, fn); err != nil {
		return err
	}
	if err := e.deleteLimit(); err != nil {
		return err
	}
	var fnErr error
	err := sp.Each(func(o store.Object) error {
		fnErr = fn(e.syncDelete(o))
		return fnErr
	})
	if err != nil && fnErr == nil && ctx.Err() == nil {
		return &FatalError{Op: "sync", URL: e.job.Dst.Loc.String(), Err: err}
	}
	return err
}

// syncDelete is the task deleting destination object o (its key relative to
// the destination's base).
func (e *executor) syncDelete(o store.Object) Task {
	_, base := listing(e.job.Dst.Loc)
	key := base + o.Key
	return Task{Op: OpDelete, Src: e.job.Dst.Store.URL(key), SrcKey: key, Size: o.Size, ETag: o.ETag, ModTime: o.ModTime, Reason: "only at the destination"}
}

// planSync compares the listings and sends the copies (and the skips worth
// reporting) to out; deletes go to e.deletes.
func (e *executor) planSync(ctx context.Context, out chan<- Task) error {
	so, src, dst := e.job.Sync, e.job.Src, e.job.Dst
	if src.Loc.HasWildcard() {
		return &FatalError{Op: "sync", URL: src.Loc.String(), Err: errors.New("a sync source is a prefix or directory, not a wildcard (use include and exclude filters)")}
	}
	srcLoc, srcBase := listing(src.Loc)
	dstLoc, dstBase := listing(dst.Loc)
	sp := &syncPlan{e: e, send: e.sender(ctx, out), srcBase: srcBase, dstBase: dstBase}
	h := diff.Handler{
		OnlySource: sp.onlySource,
		Both:       func(s, d store.Object) error { return sp.both(ctx, s, d) },
	}
	if so.Delete {
		h.OnlyDest = sp.onlyDest
	}
	// Both listings in parallel and in order: the merge pairs them as they
	// stream.
	srcLister := pagedLister{e: e, st: src.Store, ordered: true}
	dstLister := pagedLister{e: e, st: dst.Store, ordered: true}
	if e.job.From == nil {
		// A sharded sync lists its part of both sides by the split the
		// source's names give (shardlist.go); the names' hash otherwise.
		split, err := e.discoverShards(ctx, src.Store, srcLoc.Prefix(), srcBase)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &FatalError{Op: "list", URL: src.Store.URL(srcLoc.Prefix()), Err: err}
		}
		if _, ok := dst.Store.(store.Pager); ok && split != nil {
			e.shardListed = true
			if split.found > 0 {
				// The source is not empty, whatever this shard's part of
				// it holds (SyncOptions.AllowEmptySource).
				e.sourceObjects.Add(1)
			}
			srcLister.pieces = split.pieces(e.shardOf(), srcBase)
			dstLister.pieces = split.pieces(e.shardOf(), dstBase)
		}
	}
	listSrc := diff.Relative(srcLister, srcLoc.Prefix(), srcBase)
	listDst := diff.Relative(dstLister, dstLoc.Prefix(), dstBase)
	if e.job.From != nil {
		listSrc = e.fromList(srcBase)
	}
	if dst.Loc.Local {
		// A directory not made yet (a dry run makes none) is empty.
		l := listDst
		listDst = func(ctx context.Context, fn func(store.Object) error) error {
			if err := l(ctx, fn); err != nil && !errors.Is(err, store.ErrBucketNotFound) {
				return err
			}
			return nil
		}
	}
	if err := e.do(ctx, func(context.Context) error { return nil }); err != nil {
		return err // a cancelled run lists nothing
	}
	_, err := diff.Run(ctx, listSrc, listDst, h, diff.Options{Memory: so.Memory, TempDir: so.TempDir})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &FatalError{Op: "sync", URL: src.Store.URL(src.Loc.Key) + " to " + dst.Store.URL(dst.Loc.Key), Err: err}
	}
	return nil
}

// syncPlan is one sync's decisions on the merged listings: what the source
// has alone is copied, what both have is compared, what the destination has
// alone is deleted (SyncOptions.Delete). Keys are relative to the bases.
type syncPlan struct {
	e                *executor
	send             func(Task) error
	srcBase, dstBase string
	prot             *protection // made once the listings have ended
}

// copyTask is the task copying source object o (its key relative) for why.
func (sp *syncPlan) copyTask(o store.Object, why string) Task {
	e := sp.e
	rel := o.Key
	o.Key = sp.srcBase + rel
	if e.job.Dst.Loc.Local && strings.HasSuffix(rel, "/") {
		// A "directory marker" object has no file to become.
		return Task{Op: OpSkip, Src: e.job.Src.Store.URL(o.Key), SrcKey: o.Key, Size: o.Size, Reason: "directory marker"}
	}
	t := e.task(o, sp.dstBase+rel)
	t.Reason = why
	return t
}

// marker skips a source folder marker; a destination one is left alone,
// never deleted (as the AWS CLI and s5cmd do).
func (sp *syncPlan) marker(s store.Object) (bool, error) {
	e := sp.e
	if !isFolderMarker(s) {
		e.sourceObjects.Add(1)
		return false, nil
	}
	if !e.keep(s.Key, s) {
		return true, nil
	}
	key := sp.srcBase + s.Key
	return true, sp.send(Task{Op: OpSkip, Src: e.job.Src.Store.URL(key), SrcKey: key, Reason: "folder marker"})
}

func (sp *syncPlan) onlySource(s store.Object) error {
	if skip, err := sp.marker(s); skip {
		return err
	}
	if !sp.e.keep(s.Key, s) {
		return nil
	}
	return sp.send(sp.copyTask(s, "missing at the destination"))
}

func (sp *syncPlan) both(ctx context.Context, s, d store.Object) error {
	e, mode := sp.e, sp.e.job.Sync.Mode
	if skip, err := sp.marker(s); skip {
		return err
	}
	if !e.keep(s.Key, s) {
		return nil
	}
	srcURL := e.job.Src.Store.URL(sp.srcBase + s.Key)
	cs, cd := s, d // the task keeps the listed ETag, the comparison a computed one
	if mode == diff.Checksum {
		if err := e.localChecksums(ctx, sp.srcBase, sp.dstBase, &cs, &cd); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return sp.send(Task{Op: OpSkip, Src: srcURL, SrcKey: sp.srcBase + s.Key, Size: s.Size,
				Reason: "cannot compare checksums: " + err.Error()})
		}
	}
	copy, why := diff.Decide(&cs, &cd, mode)
	if !copy && mode == diff.Checksum && strings.HasPrefix(why, "cannot compare") {
		c, w, ok, err := e.fullChecksums(ctx, sp.srcBase+s.Key, sp.dstBase+d.Key)
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			why = "cannot compare checksums: " + err.Error()
		case ok:
			copy, why = c, w
		default:
			why += "; no full-object checksum common to both sides"
		}
	}
	if !copy && e.job.Sync.CompareTags && !strings.HasPrefix(why, "cannot compare") {
		differ, err := e.tagsDiffer(ctx, sp.srcBase+s.Key, sp.dstBase+d.Key)
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			why = "cannot compare tags: " + err.Error()
		case differ:
			copy, why = true, "tags differ"
		}
	}
	switch {
	case copy:
		return sp.send(sp.copyTask(s, why))
	case strings.HasPrefix(why, "cannot compare"):
		return sp.send(Task{Op: OpSkip, Src: srcURL, SrcKey: sp.srcBase + s.Key, Size: s.Size, Reason: why})
	}
	// Unchanged: counted, not reported one by one, so that a sync of an
	// unchanged tree prints nothing but its summary.
	e.progress.skipped.Add(1)
	e.unchanged.Add(1)
	return nil
}

func (sp *syncPlan) onlyDest(d store.Object) error {
	e := sp.e
	if isFolderMarker(d) || !e.keep(d.Key, d) {
		return nil
	}
	if sp.prot == nil {
		// The listings have ended: what the source skipped is known.
		sp.prot = newProtection(e.job.Src.Store, sp.srcBase)
	}
	if sp.prot.covers(d.Key) {
		t := e.syncDelete(d)
		t.Op, t.Reason = OpSkip, "not deleted: the source listing skipped this name (unreadable, a symlink or a special file)"
		return sp.send(t)
	}
	e.progress.planned.Add(1)
	e.progress.plannedBytes.Add(d.Size)
	return e.deletes.Add(d)
}

// protection answers whether a destination name may be deleted, given the
// names the source's listing skipped.
type protection struct {
	all   bool
	names map[string]bool // relative to the source's base
}

func newProtection(src store.Store, base string) *protection {
	p := &protection{}
	sk, ok := src.(store.Skipper)
	if !ok {
		return p
	}
	for _, k := range sk.Skipped() {
		k = strings.TrimSuffix(filepath.ToSlash(k), "/")
		switch {
		case k == "" || k == "." || strings.HasPrefix(base, k+"/"):
			// The root, or a directory above the base: nothing is known.
			p.all = true
		case strings.HasPrefix(k, base):
			if p.names == nil {
				p.names = map[string]bool{}
			}
			p.names[k[len(base):]] = true
		}
	}
	return p
}

// covers reports whether rel, or a directory above it, was skipped.
func (p *protection) covers(rel string) bool {
	if p.all {
		return true
	}
	if len(p.names) == 0 {
		return false
	}
	for i := len(rel); i > 0; i = strings.LastIndexByte(rel[:i], '/') {
		if p.names[rel[:i]] {
			return true
		}
	}
	return false
}

// localChecksums gives the local side(s) of a pair of the same size the
// ETag S3 would have for them, so that Decide can compare a file with an
// object, or two files. It leaves ETags it cannot make empty; Decide then
// says why it cannot compare.
func (e *executor) localChecksums(ctx context.Context, srcBase, dstBase string, s, d *store.Object) error {
	if s.Size != d.Size {
		return nil
	}
	src, dst := e.job.Src, e.job.Dst
	var err error
	switch {
	case src.Loc.Local && dst.Loc.Local:
		if s.ETag, err = e.fileETag(ctx, src.Store, srcBase+s.Key, s.Size, ""); err != nil {
			return err
		}
		d.ETag, err = e.fileETag(ctx, dst.Store, dstBase+d.Key, d.Size, "")
	case src.Loc.Local && s.ETag == "" && d.ETag != "":
		s.ETag, err = e.fileETag(ctx, src.Store, srcBase+s.Key, s.Size, d.ETag)
	case dst.Loc.Local && d.ETag == "" && s.ETag != "":
		d.ETag, err = e.fileETag(ctx, dst.Store, dstBase+d.Key, d.Size, s.ETag)
	}
	return err
}

// fileETag computes the ETag of a local file in the form of like: a
// multipart ETag ("hex-N") when like is one and the part size this run
// would upload the file with gives N parts, else the file's MD5. It returns
// "" when like is multipart with another number of parts: the part size
// that made it is unknown.
func (e *executor) fileETag(ctx context.Context, st store.Store, key string, size int64, like string) (string, error) {
	var layout parts.Layout
	multipart := false
	if tag := diff.ParseETag(like); tag.Kind == diff.MultipartETag {
		var err error
		if layout, err = e.layout(size, parts.Upload); err != nil || int64(layout.Count) != tag.Parts {
			return "", nil
		}
		multipart = true
	}
	var r io.ReadCloser
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		r, err = st.Get(ctx, key, 0, -1, "")
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read %s: %w", st.URL(key), err)
	}
	defer r.Close()
	if !multipart {
		h := md5.New()
		if _, err := io.Copy(h, r); err != nil {
			return "", fmt.Errorf("read %s: %w", st.URL(key), err)
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	// A multipart ETag is the MD5 of the parts' MD5s, then "-" and the
	// number of parts.
	all := md5.New()
	for p := range layout.All() {
		h := md5.New()
		if _, err := io.CopyN(h, r, p.Size); err != nil {
			return "", fmt.Errorf("read %s: %w", st.URL(key), err)
		}
		all.Write(h.Sum(nil))
	}
	return hex.EncodeToString(all.Sum(nil)) + "-" + strconv.Itoa(int(layout.Count)), nil
}

// fullChecksums decides a pair of the same size by the full-object
// checksums S3 keeps (CRC32C, CRC64NVME, SHA256, ...) when their ETags
// could not: multipart objects whose part size is unknown, SSE-KMS and
// SSE-C objects. It costs a HeadObject per S3 side, and a local side is
// read and hashed in the algorithm the other side has. ok is false when
// the two sides have no checksum in common.
func (e *executor) fullChecksums(ctx context.Context, srcKey, dstKey string) (copy bool, why string, ok bool, err error) {
	src, dst := e.job.Src.Store, e.job.Dst.Store
	srcCS, srcKeeps := src.(store.Checksummer)
	dstCS, dstKeeps := dst.(store.Checksummer)
	if !srcKeeps && !dstKeeps {
		return false, "", false, nil // two local files: their MD5s decided
	}
	var srcSums, dstSums []store.Checksum
	if srcKeeps {
		if srcSums, err = e.checksums(ctx, srcCS, src, srcKey); err != nil {
			return false, "", false, err
		}
	}
	if dstKeeps {
		if dstSums, err = e.checksums(ctx, dstCS, dst, dstKey); err != nil {
			return false, "", false, err
		}
	}
	verdict := func(alg, a, b string) (bool, string, bool, error) {
		if a == b {
			return false, "same " + alg, true, nil
		}
		return true, alg + " differs", true, nil
	}
	switch {
	case srcKeeps && dstKeeps:
		for _, a := range srcSums {
			for _, b := range dstSums {
				if a.Algorithm == b.Algorithm {
					return verdict(a.Algorithm, a.Value, b.Value)
				}
			}
		}
	case srcKeeps && len(srcSums) > 0:
		got, err := e.hashContent(ctx, dst, dstKey, srcSums[0].Algorithm)
		if err != nil {
			return false, "", false, err
		}
		return verdict(srcSums[0].Algorithm, srcSums[0].Value, got)
	case dstKeeps && len(dstSums) > 0:
		got, err := e.hashContent(ctx, src, srcKey, dstSums[0].Algorithm)
		if err != nil {
			return false, "", false, err
		}
		return verdict(dstSums[0].Algorithm, got, dstSums[0].Value)
	}
	return false, "", false, nil
}

func (e *executor) checksums(ctx context.Context, cs store.Checksummer, st store.Store, key string) ([]store.Checksum, error) {
	var sums []store.Checksum
	err := e.do(ctx, func(ctx context.Context) error {
		var err error
		sums, err = cs.Checksums(ctx, key)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("checksums of %s: %w", st.URL(key), err)
	}
	return sums, nil
}

// hashContent reads key and returns its checksum in alg, base64 as S3
// writes it.
func (e *executor) hashContent(ctx context.Context, st store.Store, key, alg string) (string, error) {
	h := store.NewChecksumHash(alg)
	if h == nil {
		return "", fmt.Errorf("checksum %s: unknown algorithm", alg)
	}
	err := e.do(ctx, func(ctx context.Context) error {
		r, err := st.Get(ctx, key, 0, -1, "")
		if err != nil {
			return err
		}
		defer r.Close()
		h.Reset()
		_, err = io.Copy(h, r)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read %s: %w", st.URL(key), err)
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}
