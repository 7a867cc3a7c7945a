package diff

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/s3bulk/s3bulk/store"
)

// Spool holds objects in the order added until they are read back once: in
// memory while they are few, then in a temporary file, so that holding
// millions of them (a sync's deletes until its copies are done) holds none
// in memory. Records are the sorter's runs' (appendRecord): the one spill
// codec of s3bulk. The zero value is ready; Close removes the file.
type Spool struct {
	// Dir is where the temporary file goes; "" means os.TempDir().
	Dir string

	n   int64
	mem []byte
	f   *os.File
	w   *bufio.Writer
}

// spoolMemory is how much of a spool stays in memory before it moves to a
// file: a sync deleting a few thousand objects writes nothing to disk.
const spoolMemory = 1 << 20

// Len is the number of objects added.
func (s *Spool) Len() int64 { return s.n }

// Spilled reports whether the objects went to a file.
func (s *Spool) Spilled() bool { return s.f != nil }

// Add appends o.
func (s *Spool) Add(o store.Object) error {
	s.n++
	if s.w != nil {
		_, err := s.w.Write(appendRecord(s.mem[:0], &o))
		return err
	}
	s.mem = appendRecord(s.mem, &o)
	if len(s.mem) < spoolMemory {
		return nil
	}
	f, err := os.CreateTemp(s.Dir, "s3bulk-spool-*")
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	s.f, s.w = f, bufio.NewWriterSize(f, writeBuffer)
	_, err = s.w.Write(s.mem)
	s.mem = make([]byte, 0, 256) // one record at a time from here
	return err
}

// Each calls fn for every object added, in order. It may be called once.
// An error from fn stops it and is returned.
func (s *Spool) Each(fn func(store.Object) error) error {
	it := &fileIter{name: "(memory)", r: bytes.NewReader(s.mem), left: s.n}
	if s.f != nil {
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		it = &fileIter{name: s.f.Name(), r: bufio.NewReaderSize(s.f, readBuffer), left: s.n}
	}
	for {
		o, ok, err := it.next()
		if err != nil || !ok {
			return err
		}
		if err := fn(o); err != nil {
			return err
		}
	}
}

// Close removes the temporary file, if any.
func (s *Spool) Close() error {
	s.mem = nil
	if s.f == nil {
		return nil
	}
	name := s.f.Name()
	err := s.f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	s.f, s.w = nil, nil
	return err
}
