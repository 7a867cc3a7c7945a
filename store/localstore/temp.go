package localstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// tempFile is a store.TempFile: WriteAt goes straight to os.File.WriteAt
// (pwrite), which is safe from many goroutines; the mutex only orders Commit
// and Abort.
type tempFile struct {
	s          *Store
	f          *os.File
	tmp, final string
	size       int64

	mu    sync.Mutex
	state tempState
}

type tempState int

const (
	tempOpen tempState = iota
	tempCommitted
	tempAborted
)

// WriteAt writes b at off. Writing past the size given to CreateTemp is an
// error: it would mean overlapping or misplanned parts.
func (t *tempFile) WriteAt(b []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(b)) > t.size {
		return 0, fmt.Errorf("write %s at [%d,%d): outside the file's %d bytes", t.final, off, off+int64(len(b)), t.size)
	}
	n, err := t.f.WriteAt(b, off)
	if err != nil {
		return n, pathError("write", t.final, err)
	}
	return n, nil
}

// ReadAt reads back what was written, before Commit.
func (t *tempFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := t.f.ReadAt(b, off)
	if err != nil && err != io.EOF {
		return n, pathError("read back", t.final, err)
	}
	return n, err
}

// Commit flushes (with Options.Sync), closes and renames the file to its final
// name. A failed Commit removes the temp file; Commit after Commit is a no-op.
func (t *tempFile) Commit() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch t.state {
	case tempCommitted:
		return nil
	case tempAborted:
		return fmt.Errorf("commit %s: %w", t.final, errAborted)
	}
	t.state = tempAborted // unless the rename below succeeds
	if err := t.s.finish("commit", t.f, t.tmp, t.final); err != nil {
		return err
	}
	t.state = tempCommitted
	return nil
}

var errAborted = errors.New("temp file was aborted")

// Abort closes and removes the temp file. It is a no-op after Commit or Abort.
func (t *tempFile) Abort() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != tempOpen {
		return nil
	}
	t.state = tempAborted
	t.f.Close() // its error is moot: the bytes are being thrown away
	if err := os.Remove(t.tmp); err != nil && !notFound(err) {
		return pathError("abort", t.tmp, err)
	}
	return nil
}
