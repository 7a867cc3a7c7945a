package store

import (
	"io"
	"testing"
)

func TestBytesReaderBytesAreTheUnreadOnes(t *testing.T) {
	r := NewBytesReader([]byte("hello world"))
	if got := string(r.Bytes()); got != "hello world" {
		t.Errorf("before reading: %q", got)
	}
	var p [6]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		t.Fatal(err)
	}
	if got := string(r.Bytes()); got != "world" {
		t.Errorf("after 6 bytes: %q, want %q", got, "world")
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if got := string(r.Bytes()); got != "hello world" {
		t.Errorf("after a rewind: %q", got)
	}
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	if got := len(r.Bytes()); got != 0 {
		t.Errorf("at the end: %d bytes left", got)
	}
}
