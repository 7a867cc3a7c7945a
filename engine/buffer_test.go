package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// streamSource is a fake store (test code) whose reads cannot seek, like a
// GET from another endpoint; it signals each read.
type streamSource struct {
	store.Store
	body []byte
	got  chan struct{}
}

func (s streamSource) Get(_ context.Context, _ string, off, length int64, _ string) (io.ReadCloser, error) {
	s.got <- struct{}{}
	return io.NopCloser(bytes.NewReader(s.body[off : off+length])), nil
}

// recordingMultipart is a fake multipart destination (test code) that
// counts the parts it was sent.
type recordingMultipart struct {
	store.Multipart
	parts atomic.Int32
}

func (r *recordingMultipart) UploadPart(_ context.Context, _, _ string, n int32, _ io.ReadSeeker, size int64) (store.Part, error) {
	r.parts.Add(1)
	return store.Part{Number: n, Size: size}, nil
}

func TestAStreamedPartWaitsForRoomInTheByteBudget(t *testing.T) {
	const partSize = 5 << 20
	src := streamSource{body: bytes.Repeat([]byte("x"), 2*partSize), got: make(chan struct{}, 2)}
	dst := &recordingMultipart{}
	e := New(Config{Concurrency: 4, MaxBufferBytes: partSize}).newExecutor(Job{Src: Endpoint{Store: src, Loc: s3url.Location{Bucket: "a"}}},
		Options{})
	task := Task{SrcKey: "k", DstKey: "k", Size: 2 * partSize}
	p := parts.Part{Number: 1, Offset: 0, Size: partSize}

	// Another part holds the whole budget: this one must not be buffered
	// or sent until it is released. A blocked call can only be seen not to
	// finish: the wait below never fails a correct engine, and catches one
	// that ignores the budget (it sends at once).
	if err := e.buffers.Acquire(context.Background(), partSize); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.uploadPart(context.Background(), task, "id", dst, p, nil)
		done <- err
	}()
	<-src.got
	select {
	case err := <-done:
		t.Fatalf("uploadPart finished (%v) while the budget was full", err)
	case <-time.After(200 * time.Millisecond):
	}
	if n := dst.parts.Load(); n != 0 {
		t.Errorf("%d parts sent while the budget was full, want 0", n)
	}
	e.buffers.Release(partSize)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := dst.parts.Load(); n != 1 {
		t.Errorf("%d parts sent once the budget was free, want 1", n)
	}

	// A cancelled wait gives up holding nothing.
	if err := e.buffers.Acquire(context.Background(), partSize); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.uploadPart(ctx, task, "id", dst, p, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("uploadPart with the budget full and ctx done = %v, want context.Canceled", err)
	}
	<-src.got
	e.buffers.Release(partSize)
	if got := e.buffers.InUse(); got != 0 {
		t.Errorf("budget in use after the part = %d, want 0", got)
	}
}
