package engine

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/store"
)

// ReasonWrittenBefore is the reason of a skip of a version that an
// interrupted run of the job wrote without journaling it (VersionJournal):
// the destination holds it already, after the versions before it.
const ReasonWrittenBefore = "written before the run was interrupted"

// maxClockSkew bounds how far this machine's clock can be from the
// server's for a request to be taken at all: SigV4 refuses one more than
// 15 minutes off (RequestTimeTooSkewed). A write that followed an intent
// carries a server time no earlier than the intent's less this.
const maxClockSkew = 15 * time.Minute

// errKeyListed ends a listing of one key's versions at the next key.
var errKeyListed = errors.New("key listed")

// executeVersion is execute for a version in its key's turn. With a
// VersionJournal it journals an intent before the write and the
// destination's version with the done record after it, both before the
// key's next version may start: a key's records are then intent, done,
// intent, done... in the file, and a resumed run finds at most one write
// of a key in doubt, its last.
func (e *executor) executeVersion(ctx context.Context, t Task) Result {
	vj, _ := e.opts.Journal.(VersionJournal)
	if t.Op == OpSkip {
		r := e.execute(ctx, t)
		if vj != nil && t.Reason == ReasonWrittenBefore {
			e.journalWritten(vj, &r)
		}
		return r
	}
	if vj != nil {
		if err := vj.Intent(e.intent(vj, t)); err != nil {
			err = &FatalError{Op: "write journal", URL: journalName(vj), Err: err}
			e.setFatal(err)
			return e.failed(Result{Task: t}, err, time.Now()) // nothing written
		}
	}
	var rc store.Receipt
	r := e.execute(store.WithReceipt(ctx, &rc), t)
	if r.Status == StatusDone {
		r.Task.DstVersionID = rc.VersionID()
		if vj != nil {
			e.journalWritten(vj, &r)
		}
	}
	return r
}

// intent is the VersionWrite that t is about to make, after the version
// its key's chain wrote or found last. A write an earlier run began and
// left in doubt, which reconcile found had not landed, keeps that run's
// time: the upload it started may be the one this run completes.
func (e *executor) intent(vj VersionJournal, t Task) VersionWrite {
	w := VersionWrite{Src: t.object(), DeleteMarker: t.Op == OpMarker, DstKey: t.DstKey, After: e.chains.last(t.DstKey), At: time.Now()}
	if before, ok := vj.Interrupted(t.DstKey); ok && before.Src.Key == t.SrcKey && before.Src.VersionID == t.VersionID {
		w.At = before.At
		if w.After == "" {
			w.After = before.After
		}
	}
	return w
}

// journalWritten records r's version done, with the destination's version
// that holds it; a journal that fails is the run's fatal error.
func (e *executor) journalWritten(vj VersionJournal, r *Result) {
	if err := vj.Written(r.Task.object(), r.Task.DstKey, r.Task.DstVersionID); err != nil {
		e.setFatal(&FatalError{Op: "write journal", URL: journalName(vj), Err: err})
	}
	r.journaled = true
}

// reconcile settles, before a key's tasks are sent, what an interrupted
// run of the job left unknown, with one ListObjectVersions of the
// destination key, for a key that run left half done only: whether the
// write the journal shows begun and never done landed (it is then a skip,
// ReasonWrittenBefore), and else which destination version the key's
// next write follows (Task.DstVersionID of the task before it, the key's
// latest there). A key the journal knows nothing of costs no request.
func (e *executor) reconcile(ctx context.Context, tasks []Task) error {
	vj, ok := e.opts.Journal.(VersionJournal)
	if !ok {
		return nil
	}
	first := slices.IndexFunc(tasks, func(t Task) bool { return t.Op != OpSkip })
	if first < 0 {
		return nil // every version done
	}
	t := &tasks[first]
	w, begun := vj.Interrupted(t.DstKey)
	begun = begun && w.Src.Key == t.SrcKey && w.Src.VersionID == t.VersionID
	vl, lists := e.job.Dst.Store.(store.VersionLister)
	if !begun && first == 0 || !lists {
		return nil
	}
	latest, landed, err := e.findWrite(ctx, vl, t.DstKey, w, begun)
	if err != nil {
		return err
	}
	switch {
	case landed != "":
		t.Op, t.Reason, t.DstVersionID = OpSkip, ReasonWrittenBefore, landed
	case first > 0 && latest != "":
		tasks[first-1].DstVersionID = latest
	}
	return nil
}

// findWrite lists the versions of key at the destination (the key's
// alone: the listing stops at the next key) and returns its latest, and,
// when begun, the version that w wrote if it landed (writeSearch).
func (e *executor) findWrite(ctx context.Context, vl store.VersionLister, key string, w VersionWrite, begun bool) (latest, landed string, err error) {
	s := writeSearch{w: w}
	// Not under the run's budget of requests (e.do): the planner calls
	// this from the source listing's callback, which holds a slot of it,
	// and a second slot may never come (a budget of one). It is one
	// request a key in doubt, on a resumed run only.
	err = vl.ListVersions(ctx, key, func(v store.Version) error {
		if v.Key != key || !begun && s.latest != "" {
			return errKeyListed
		}
		s.see(v)
		return nil
	})
	if err != nil && !errors.Is(err, errKeyListed) {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", &FatalError{Op: "list versions", URL: e.job.Dst.Store.URL(key), Err: err}
	}
	if !begun {
		return s.latest, "", nil
	}
	return s.latest, s.landed(), nil
}

// writeSearch looks through a destination key's entries, newest first,
// for what w wrote: an entry like w's source (a delete marker for a
// marker) newer than w.After, the oldest such; or, when After is empty or
// not listed (deleted since), one no older than w.At allows. Unsure, it
// says not landed: a version written twice is better than one missing.
type writeSearch struct {
	w       VersionWrite
	latest  string
	after   bool   // w.After was listed: what follows is older
	byAfter string // the oldest match newer than w.After
	byTime  string // the oldest match within w.At's bound
}

func (s *writeSearch) see(v store.Version) {
	if s.latest == "" {
		s.latest = v.VersionID
	}
	if s.w.After != "" && v.VersionID == s.w.After {
		s.after = true
	}
	if !sameWrite(v, s.w) {
		return
	}
	if !s.after {
		s.byAfter = v.VersionID
	}
	if !s.w.At.IsZero() && !v.ModTime.Before(s.w.At.Add(-maxClockSkew)) {
		s.byTime = v.VersionID
	}
}

func (s *writeSearch) landed() string {
	if s.after {
		return s.byAfter
	}
	return s.byTime
}

// sameWrite reports whether the destination's entry v can be what w wrote:
// a delete marker for a marker, else a version whose size and ETag do not
// show other bytes (diff.Compare: a copy in parts has an ETag of its own).
func sameWrite(v store.Version, w VersionWrite) bool {
	if v.DeleteMarker || w.DeleteMarker {
		return v.DeleteMarker == w.DeleteMarker
	}
	return diff.Compare(w.Src, v.Object).Verdict != diff.Differs
}
