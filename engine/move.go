package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/s3bulk/s3bulk/store"
)

// moveDeletes deletes the sources of a move in batches (DeleteObjects,
// up to 1,000 keys a request) instead of one request per object, which
// halves the requests of a move of many small objects. An object is
// finished (observed, journaled as done) only once its source is deleted,
// so a failed delete makes the object a failure, its copy made and its
// source kept: nothing is lost.
type moveDeletes struct {
	e  *executor
	bd store.BatchDeleter
	in chan Result
	// done is closed when every result added has been finished.
	done chan struct{}
}

// moveBatchWait is how long a partial batch waits for more keys before it
// is sent: long enough to fill batches at thousands of objects a second,
// short enough that a slow move reports its objects promptly.
const moveBatchWait = 100 * time.Millisecond

// moveDeleteTimeout bounds the deletes of copies already made when the run
// is interrupted: finishing them is one request per 1,000 objects.
const moveDeleteTimeout = time.Minute

func (e *executor) startMoveDeletes(ctx context.Context, bd store.BatchDeleter) *moveDeletes {
	m := &moveDeletes{e: e, bd: bd, in: make(chan Result, store.MaxBatchDelete), done: make(chan struct{})}
	go m.loop(ctx)
	return m
}

// add hands over a result whose copy is done and whose source is to go.
func (m *moveDeletes) add(r Result) { m.in <- r }

// close sends what is pending and waits until every result is finished.
func (m *moveDeletes) close() {
	close(m.in)
	<-m.done
}

func (m *moveDeletes) loop(ctx context.Context) {
	defer close(m.done)
	batch := make([]Result, 0, store.MaxBatchDelete)
	timer := time.NewTimer(moveBatchWait)
	timer.Stop()
	flush := func() {
		if len(batch) > 0 {
			m.flush(ctx, batch)
			batch = batch[:0]
		}
	}
	for {
		select {
		case r, ok := <-m.in:
			if !ok {
				flush()
				return
			}
			batch = append(batch, r)
			switch len(batch) {
			case store.MaxBatchDelete:
				timer.Stop()
				flush()
			case 1:
				timer.Reset(moveBatchWait)
			}
		case <-timer.C:
			flush()
		}
	}
}

// flush deletes the sources of batch with one request and finishes each
// result: done, or failed with why its source could not be deleted.
func (m *moveDeletes) flush(ctx context.Context, batch []Result) {
	// The copies are made: an interrupted run still completes their moves
	// rather than leave sources it was asked to remove.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), moveDeleteTimeout)
	defer cancel()
	keys := make([]string, len(batch))
	for i, r := range batch {
		keys[i] = r.Task.SrcKey
	}
	var failed []store.DeleteError
	err := m.e.do(ctx, func(ctx context.Context) error {
		var err error
		failed, err = m.bd.DeleteKeys(ctx, keys)
		return err
	})
	byKey := make(map[string]error, len(failed))
	for _, f := range failed {
		byKey[f.Key] = f.Err
	}
	for _, r := range batch {
		derr := err
		if derr == nil {
			derr = byKey[r.Task.SrcKey]
		}
		if derr != nil {
			r.Status = StatusFailed
			r.Err = &TaskError{Op: string(r.Task.Op), Src: r.Task.Src, Dst: r.Task.Dst,
				Err: fmt.Errorf("delete source after copy: %w", derr)}
		}
		m.e.finish(r)
	}
}
