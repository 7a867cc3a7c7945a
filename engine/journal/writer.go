package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// Writer appends records to a journal. Its methods are safe for concurrent
// use: records are encoded by the caller's goroutine and handed to one
// goroutine owned by the Writer that writes them in batches. A record is in
// the file (though not yet fsynced) moments after the call returns.
type Writer struct {
	f     *os.File
	path  string
	state *State
	cfg   config

	mu      sync.Mutex
	space   sync.Cond // signalled when pending is taken by the writer goroutine
	inFile  sync.Cond // signalled when a batch is in the file (or the writer failed)
	pending []byte
	spare   []byte
	err     error // the first write or sync error; every later call returns it
	closed  bool
	// appended and written count the bytes of records appended and of
	// those handed to the file: a record ending at appended is in the
	// file once written reaches it.
	appended, written int64

	kick     chan struct{}   // pending went from empty to not empty
	flushReq chan chan error // Flush asks for a write and an fsync
	stop     chan struct{}
	exited   chan struct{}
	dirty    bool // written since the last fsync; owned by the goroutine
}

// config holds the writer's tunables; tests shorten them.
type config struct {
	// syncInterval is how often written records are fsynced.
	syncInterval time.Duration
	// maxPending bounds the bytes waiting to be written: appenders wait
	// beyond it, so a stalled disk slows the run rather than filling memory.
	maxPending int
	// wrote, when set, receives after every batch written (tests).
	wrote chan<- int
}

func defaultConfig() config {
	return config{syncInterval: time.Second, maxPending: 4 << 20}
}

// Open opens the journal at path for appending, creating it (and its
// directory) when absent. An existing journal is read first: its state is
// what State returns, and a torn last record is cut off. A journal whose
// header names another fingerprint is refused with ErrOtherJob. Only one
// process at a time can have a journal open (ErrLocked), where the system
// supports file locks.
func Open(path, fingerprint string) (*Writer, error) {
	return open(path, fingerprint, defaultConfig())
}

func open(path, fingerprint string, cfg config) (w *Writer, err error) {
	if fingerprint == "" {
		return nil, fmt.Errorf("open journal %s: empty job fingerprint", path)
	}
	fail := func(err error) (*Writer, error) { return nil, fmt.Errorf("open journal %s: %w", path, err) }
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fail(err)
	}
	// O_APPEND: should two processes ever share the file despite the lock
	// (a system without locks), batches of whole lines still do not
	// overwrite each other.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if err := lock(f); err != nil {
		return fail(err)
	}
	st, end, err := decode(f)
	if err != nil {
		return fail(err)
	}
	if st.fingerprint != "" && st.fingerprint != fingerprint {
		return fail(fmt.Errorf("%w (journal job %s, this job %s): remove it or use another journal", ErrOtherJob, short(st.fingerprint), short(fingerprint)))
	}
	info, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if info.Size() > end {
		// Cut the torn record, or the next record would follow it on the
		// same line and be lost with it.
		if err := f.Truncate(end); err != nil {
			return fail(err)
		}
	}
	if end == 0 {
		st.fingerprint = fingerprint
		line, err := appendLine(nil, header{Format: Format, Version: Version, Job: fingerprint})
		if err != nil {
			return fail(err)
		}
		if _, err := f.Write(line); err != nil {
			return fail(err)
		}
		if err := f.Sync(); err != nil {
			return fail(err)
		}
		syncDir(filepath.Dir(path))
	}
	w = &Writer{
		f: f, path: path, state: st, cfg: cfg,
		kick:     make(chan struct{}, 1),
		flushReq: make(chan chan error),
		stop:     make(chan struct{}),
		exited:   make(chan struct{}),
	}
	w.space.L = &w.mu
	w.inFile.L = &w.mu
	go w.loop()
	return w, nil
}

// short abbreviates a fingerprint for messages.
func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

// syncDir makes a new file's directory entry durable. Best effort: not
// every system can fsync a directory, and the records are what matters.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}

// State is what the journal held when it was opened: the earlier runs of
// the job. It does not change as records are appended.
func (w *Writer) State() *State { return w.state }

// Path is the journal's file name.
func (w *Writer) Path() string { return w.path }

// A Writer is the engine's journal: what it asks is answered from the
// State the journal held when it was opened.
var _ engine.Journal = (*Writer)(nil)

// IsDone reports whether the State records src as copied to dstKey.
func (w *Writer) IsDone(src store.Object, dstKey string) bool { return w.state.Done(src, dstKey) }

// Upload returns the State's open upload to dstKey (State.Upload).
func (w *Writer) Upload(dstKey string) (Upload, bool) { return w.state.Upload(dstKey) }

// Uploads returns the State's open uploads (State.Uploads).
func (w *Writer) Uploads() []Upload { return w.state.Uploads() }

// Done records that src was copied to dstKey.
func (w *Writer) Done(src store.Object, dstKey string) error {
	return w.Written(src, dstKey, "")
}

// Failed records that copying src to dstKey failed, so that a rerun tries
// it again even if an earlier run had recorded it done.
func (w *Writer) Failed(src store.Object, dstKey string, cause error) error {
	r := record{T: kindFailed, Size: src.Size, ETag: src.ETag, MTime: unixNano(src.ModTime)}
	r.setSrc(src.Key)
	r.setDst(dstKey)
	r.Version = src.VersionID
	if cause != nil {
		r.Err = cause.Error()
		if len(r.Err) > maxErrLen {
			r.Err = r.Err[:maxErrLen]
		}
	}
	return w.append(&r)
}

// A Writer makes a copy of every version resumable without writing a
// version twice.
var _ engine.VersionJournal = (*Writer)(nil)

// Intent records that v is about to be written, and returns once the
// record is in the file (handed to the system, not yet fsynced): a
// process killed after it returns, kill -9 included, leaves the record
// behind, and a write that follows cannot land unrecorded. Only the
// machine going down can lose it, as it can lose the last second of
// records.
func (w *Writer) Intent(v engine.VersionWrite) error {
	r := record{T: kindIntent, Version: v.Src.VersionID, Size: v.Src.Size, ETag: v.Src.ETag,
		After: v.After, Marker: v.DeleteMarker, At: unixNano(v.At)}
	r.setSrc(v.Src.Key)
	r.setDst(v.DstKey)
	end, err := w.appendRecord(&r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.written < end && w.err == nil {
		w.inFile.Wait()
	}
	return w.err
}

// Written records that version src was copied to dstKey, where the
// destination gave it the version dstVersion ("" for none, as Done): a
// done record, which closes the key's intent.
func (w *Writer) Written(src store.Object, dstKey, dstVersion string) error {
	r := record{T: kindDone, Size: src.Size, ETag: src.ETag, MTime: unixNano(src.ModTime), DstVersion: dstVersion}
	r.setSrc(src.Key)
	r.setDst(dstKey)
	r.Version = src.VersionID
	return w.append(&r)
}

// Interrupted returns the State's write to dstKey begun and not done
// (State.Interrupted).
func (w *Writer) Interrupted(dstKey string) (engine.VersionWrite, bool) {
	return w.state.Interrupted(dstKey)
}

// UploadStarted checkpoints a multipart upload just created; u.Parts is
// ignored.
func (w *Writer) UploadStarted(u Upload) error {
	r := record{T: kindUpload, Upload: u.UploadID, PartSize: u.PartSize,
		Size: u.Size, ETag: u.ETag, MTime: unixNano(u.ModTime)}
	r.setSrc(u.SrcKey)
	r.setDst(u.DstKey)
	return w.append(&r)
}

// PartDone checkpoints one finished part of an upload.
func (w *Writer) PartDone(uploadID string, p store.Part) error {
	return w.append(&record{T: kindPart, Upload: uploadID, Part: p.Number, ETag: p.ETag, Size: p.Size})
}

// UploadCompleted records that the upload was completed: nothing to resume.
func (w *Writer) UploadCompleted(dstKey, uploadID string) error {
	r := record{T: kindComplete, Upload: uploadID}
	r.setDst(dstKey)
	return w.append(&r)
}

// UploadAborted records that the upload was aborted: nothing to resume.
func (w *Writer) UploadAborted(dstKey, uploadID string) error {
	r := record{T: kindAbort, Upload: uploadID}
	r.setDst(dstKey)
	return w.append(&r)
}

func (w *Writer) append(r *record) error {
	_, err := w.appendRecord(r)
	return err
}

// appendRecord queues r for the writer's goroutine and returns where it
// ends, in bytes appended (Writer.written).
func (w *Writer) appendRecord(r *record) (end int64, err error) {
	if err := r.validate(); err != nil {
		return 0, fmt.Errorf("journal %s: %w", r.T, err)
	}
	line, err := appendLine(nil, r)
	if err != nil {
		return 0, fmt.Errorf("journal %s: %w", r.T, err)
	}
	if len(line) > maxLine {
		return 0, fmt.Errorf("journal %s: record of %d bytes is longer than %d", r.T, len(line), maxLine)
	}
	w.mu.Lock()
	for !w.closed && w.err == nil && len(w.pending) >= w.cfg.maxPending {
		w.space.Wait()
	}
	switch {
	case w.closed:
		w.mu.Unlock()
		return 0, fmt.Errorf("journal %s: %w", w.path, ErrClosed)
	case w.err != nil:
		err := w.err
		w.mu.Unlock()
		return 0, err
	}
	wasEmpty := len(w.pending) == 0
	w.pending = append(w.pending, line...)
	w.appended += int64(len(line))
	end = w.appended
	w.mu.Unlock()
	if wasEmpty {
		select {
		case w.kick <- struct{}{}:
		default: // a kick is already queued; it will take this record too
		}
	}
	return end, nil
}

// Flush writes every record appended before it and fsyncs the file.
func (w *Writer) Flush() error {
	reply := make(chan error, 1)
	select {
	case w.flushReq <- reply:
		return <-reply
	case <-w.exited:
		return fmt.Errorf("flush journal %s: %w", w.path, ErrClosed)
	}
}

// Close writes and fsyncs what is pending, stops the writer's goroutine
// and closes the file. Records appended after Close fail with ErrClosed;
// closing again does nothing.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.space.Broadcast()
	w.mu.Unlock()
	close(w.stop)
	<-w.exited
	err := w.f.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err != nil {
		return fmt.Errorf("close journal %s: %w", w.path, err)
	}
	return nil
}

// loop is the writer's goroutine: the only one to touch the file.
func (w *Writer) loop() {
	defer close(w.exited)
	tick := time.NewTicker(w.cfg.syncInterval)
	defer tick.Stop()
	for {
		select {
		case <-w.kick:
			w.write()
		case <-tick.C:
			w.write()
			w.sync()
		case reply := <-w.flushReq:
			w.write()
			reply <- w.sync()
		case <-w.stop:
			w.write()
			w.sync()
			return
		}
	}
}

// write writes everything pending in one call. Appenders fill the other
// buffer meanwhile.
func (w *Writer) write() {
	w.mu.Lock()
	if len(w.pending) == 0 {
		w.mu.Unlock()
		return
	}
	batch := w.pending
	w.pending, w.spare = w.spare[:0], nil
	w.space.Broadcast()
	failed := w.err != nil
	w.mu.Unlock()

	var err error
	if !failed {
		_, err = w.f.Write(batch)
		w.dirty = true
		if err != nil {
			w.setErr(fmt.Errorf("write journal %s: %w", w.path, err))
		}
	}
	if w.cfg.wrote != nil {
		w.cfg.wrote <- len(batch)
	}
	w.mu.Lock()
	if !failed && err == nil {
		w.written += int64(len(batch))
	}
	w.inFile.Broadcast()
	if cap(batch) <= 2*w.cfg.maxPending {
		w.spare = batch[:0]
	}
	w.mu.Unlock()
}

func (w *Writer) sync() error {
	w.mu.Lock()
	err := w.err
	w.mu.Unlock()
	if err != nil || !w.dirty {
		return err
	}
	w.dirty = false
	if err := w.f.Sync(); err != nil {
		err = fmt.Errorf("sync journal %s: %w", w.path, err)
		w.setErr(err)
		return err
	}
	return nil
}

func (w *Writer) setErr(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.inFile.Broadcast()
	w.mu.Unlock()
}
