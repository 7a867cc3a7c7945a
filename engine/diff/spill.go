package diff

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/s3bulk/s3bulk/store"
)

// objectSize is what one buffered object costs besides its strings.
const objectSize = int64(unsafe.Sizeof(store.Object{}))

func cost(o *store.Object) int64 {
	return objectSize + int64(len(o.Key)+len(o.ETag)+len(o.StorageClass))
}

const (
	readBuffer  = 32 << 10
	writeBuffer = 64 << 10
	maxFanIn    = 64
	maxField    = 1 << 20 // no key, ETag or storage class comes near it
)

const (
	flagTime = 1 << iota
	flagPrefix
)

// iterator yields objects in ascending key order.
type iterator interface {
	next() (store.Object, bool, error)
}

type sliceIter struct {
	objs []store.Object
	i    int
}

func (s *sliceIter) next() (store.Object, bool, error) {
	if s.i >= len(s.objs) {
		return store.Object{}, false, nil
	}
	o := s.objs[s.i]
	s.objs[s.i] = store.Object{} // let the strings go
	s.i++
	return o, true, nil
}

// spill owns the temporary files of one Run. Both sides' sorters use it at
// once.
type spill struct {
	parent string // Options.TempDir
	bytes  atomic.Int64

	mu    sync.Mutex
	dir   string // made on first use
	seq   int
	files []*os.File
}

func (s *spill) create(what string) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		d, err := os.MkdirTemp(s.parent, "s3bulk-diff-")
		if err != nil {
			return nil, fmt.Errorf("diff: make temporary directory: %w", err)
		}
		s.dir = d
	}
	s.seq++
	f, err := os.Create(filepath.Join(s.dir, fmt.Sprintf("%s-%d", what, s.seq)))
	if err != nil {
		return nil, fmt.Errorf("diff: create temporary file: %w", err)
	}
	s.files = append(s.files, f)
	return f, nil
}

func (s *spill) open(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("diff: open temporary file: %w", err)
	}
	s.mu.Lock()
	s.files = append(s.files, f)
	s.mu.Unlock()
	return f, nil
}

// cleanup closes and removes every temporary file, whatever happened.
func (s *spill) cleanup() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, f := range s.files {
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	s.files = nil
	if s.dir != "" {
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("diff: remove temporary files: %w", err))
		}
		s.dir = ""
	}
	return errors.Join(errs...)
}

// writer appends records to a temporary file. Records wait in memory until
// they fill a write buffer; a writer made with lazy set creates its file
// only then, so that the small spools of a small sync never touch the disk.
// A finished file is closed and opened again to be read, so that a long
// listing cut into many runs never holds more files open than one merge
// reads.
type writer struct {
	s    *spill
	what string
	lazy bool
	f    *os.File // open while writing
	name string   // set once the file exists
	pend []byte   // encoded records not yet written
	n    int64    // records
	done bool
}

func (s *spill) newWriter(what string, lazy bool) (*writer, error) {
	w := &writer{s: s, what: what, lazy: lazy}
	if !lazy {
		if err := w.open(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (w *writer) open() error {
	f, err := w.s.create(w.what)
	if err != nil {
		return err
	}
	w.f, w.name = f, f.Name()
	return nil
}

func (w *writer) write(o *store.Object) error {
	w.pend = appendRecord(w.pend, o)
	w.n++
	if len(w.pend) < writeBuffer {
		return nil
	}
	return w.flush()
}

func (w *writer) flush() error {
	if w.f == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	if _, err := w.f.Write(w.pend); err != nil {
		return fmt.Errorf("diff: write temporary file: %w", err)
	}
	w.s.bytes.Add(int64(len(w.pend)))
	w.pend = w.pend[:0]
	return nil
}

// finish writes what is pending, unless the file was never needed, and
// closes the file.
func (w *writer) finish() error {
	if w.done {
		return nil
	}
	w.done = true
	if w.f == nil {
		return nil
	}
	err := w.flush()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("diff: write temporary file: %w", cerr)
	}
	w.f, w.pend = nil, nil
	return err
}

// reader finishes the file and returns an iterator over it from the start.
func (w *writer) reader() (*fileIter, error) {
	if err := w.finish(); err != nil {
		return nil, err
	}
	if w.name == "" {
		return &fileIter{name: "(memory)", r: bytes.NewReader(w.pend), left: w.n}, nil
	}
	f, err := w.s.open(w.name)
	if err != nil {
		return nil, err
	}
	return &fileIter{f: f, name: w.name, r: bufio.NewReaderSize(f, readBuffer), left: w.n}, nil
}

// appendRecord encodes o: uvarint-prefixed key, varint size, a flags byte,
// the time as varint seconds and uvarint nanoseconds when set, then
// uvarint-prefixed ETag and storage class.
func appendRecord(b []byte, o *store.Object) []byte {
	b = binary.AppendUvarint(b, uint64(len(o.Key)))
	b = append(b, o.Key...)
	b = binary.AppendVarint(b, o.Size)
	var flags byte
	if !o.ModTime.IsZero() {
		flags |= flagTime
	}
	if o.IsPrefix {
		flags |= flagPrefix
	}
	b = append(b, flags)
	if flags&flagTime != 0 {
		b = binary.AppendVarint(b, o.ModTime.Unix())
		b = binary.AppendUvarint(b, uint64(o.ModTime.Nanosecond()))
	}
	b = binary.AppendUvarint(b, uint64(len(o.ETag)))
	b = append(b, o.ETag...)
	b = binary.AppendUvarint(b, uint64(len(o.StorageClass)))
	b = append(b, o.StorageClass...)
	return b
}

// fileIter reads back the records of one temporary file, or of a spool
// that stayed in memory.
type fileIter struct {
	f    *os.File // nil in memory
	name string
	r    interface {
		io.Reader
		io.ByteReader
	}
	left int64
	buf  []byte
}

func (it *fileIter) next() (store.Object, bool, error) {
	if it.left == 0 {
		return store.Object{}, false, nil
	}
	o, err := it.decode()
	if err != nil {
		return store.Object{}, false, fmt.Errorf("diff: read temporary file %s: %w", it.name, err)
	}
	it.left--
	return o, true, nil
}

func (it *fileIter) decode() (store.Object, error) {
	var o store.Object
	var err error
	if o.Key, err = it.str(); err != nil {
		return o, err
	}
	if o.Size, err = binary.ReadVarint(it.r); err != nil {
		return o, unexpected(err)
	}
	flags, err := it.r.ReadByte()
	if err != nil {
		return o, unexpected(err)
	}
	if flags&flagTime != 0 {
		sec, err := binary.ReadVarint(it.r)
		if err != nil {
			return o, unexpected(err)
		}
		nsec, err := binary.ReadUvarint(it.r)
		if err != nil {
			return o, unexpected(err)
		}
		o.ModTime = time.Unix(sec, int64(nsec)).UTC()
	}
	o.IsPrefix = flags&flagPrefix != 0
	if o.ETag, err = it.str(); err != nil {
		return o, err
	}
	o.StorageClass, err = it.str()
	return o, err
}

func (it *fileIter) str() (string, error) {
	n, err := binary.ReadUvarint(it.r)
	if err != nil {
		return "", unexpected(err)
	}
	if n > maxField {
		return "", fmt.Errorf("corrupt record: field of %d bytes", n)
	}
	if n == 0 {
		return "", nil
	}
	it.buf = slices.Grow(it.buf[:0], int(n))[:n]
	if _, err := io.ReadFull(it.r, it.buf); err != nil {
		return "", unexpected(err)
	}
	return string(it.buf), nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// mergeIter merges sorted iterators through a heap.
type mergeIter struct {
	h mergeHeap
}

type mergeItem struct {
	o  store.Object
	it iterator
}

type mergeHeap []mergeItem

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return h[i].o.Key < h[j].o.Key }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newMerge(its []iterator) (iterator, error) {
	if len(its) == 1 {
		return its[0], nil
	}
	m := &mergeIter{h: make(mergeHeap, 0, len(its))}
	for _, it := range its {
		o, ok, err := it.next()
		if err != nil {
			return nil, err
		}
		if ok {
			m.h = append(m.h, mergeItem{o, it})
		}
	}
	heap.Init(&m.h)
	return m, nil
}

func (m *mergeIter) next() (store.Object, bool, error) {
	if len(m.h) == 0 {
		return store.Object{}, false, nil
	}
	top := &m.h[0]
	o := top.o
	n, ok, err := top.it.next()
	switch {
	case err != nil:
		return store.Object{}, false, err
	case ok:
		top.o = n
		heap.Fix(&m.h, 0)
	default:
		heap.Pop(&m.h)
	}
	return o, true, nil
}

// sorter turns one side's objects, in any order, into one sorted iterator
// in bounded memory.
type sorter struct {
	sp     *spill
	name   string
	budget int64
	buf    []store.Object
	bytes  int64 // cost of the objects in buf
	runs   []*writer
}

func (s *sorter) add(o store.Object) error {
	if len(s.buf) == cap(s.buf) {
		// Grow the array only as far as the budget allows, so that the
		// array and the strings together stay within it.
		n := max(64, 2*cap(s.buf))
		if limit := int((s.budget - s.bytes) / objectSize); n > limit {
			n = max(limit, len(s.buf)+1)
		}
		s.buf = slices.Grow(s.buf, n-len(s.buf))
	}
	s.buf = append(s.buf, o)
	s.bytes += cost(&o)
	if s.bytes < s.budget {
		return nil
	}
	return s.flush()
}

func byKey(a, b store.Object) int { return strings.Compare(a.Key, b.Key) }

// flush writes the buffer as one sorted run and empties it, keeping its
// array for the next run.
func (s *sorter) flush() error {
	slices.SortFunc(s.buf, byKey)
	w, err := s.sp.newWriter(s.name+"-run", false)
	if err != nil {
		return err
	}
	for i := range s.buf {
		if err := w.write(&s.buf[i]); err != nil {
			return err
		}
	}
	if err := w.finish(); err != nil {
		return err
	}
	s.runs = append(s.runs, w)
	clear(s.buf)
	s.buf, s.bytes = s.buf[:0], 0
	return nil
}

// finish returns the whole input, sorted. The last buffer is not written:
// it is merged from memory.
func (s *sorter) finish() (iterator, error) {
	slices.SortFunc(s.buf, byKey)
	its := make([]iterator, 0, len(s.runs)+1)
	runs := s.runs
	// Merge runs into longer ones while there are too many to read at once.
	for len(runs) > maxFanIn {
		batch := make([]iterator, 0, maxFanIn)
		for _, w := range runs[:maxFanIn] {
			r, err := w.reader()
			if err != nil {
				return nil, err
			}
			batch = append(batch, r)
		}
		m, err := newMerge(batch)
		if err != nil {
			return nil, err
		}
		out, err := s.sp.newWriter(s.name+"-merge", false)
		if err != nil {
			return nil, err
		}
		for {
			o, ok, err := m.next()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			if err := out.write(&o); err != nil {
				return nil, err
			}
		}
		if err := out.finish(); err != nil {
			return nil, err
		}
		// The merged runs are not needed any more: give their disk back.
		for _, it := range batch {
			f := it.(*fileIter).f
			f.Close()
			os.Remove(f.Name())
		}
		runs = append(runs[maxFanIn:], out)
	}
	for _, w := range runs {
		r, err := w.reader()
		if err != nil {
			return nil, err
		}
		its = append(its, r)
	}
	its = append(its, &sliceIter{objs: s.buf})
	s.buf = nil
	return newMerge(its)
}
