package engine

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// streamSource is a fake store (test code) whose reads cannot seek, like a
// GET from another endpoint; only Get is used.
type streamSource struct {
	store.Store
	body []byte
}

func (s streamSource) Get(_ context.Context, _ string, off, length int64, _ string) (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(s.body[off : off+length])), nil
}

// countingMultipart is a fake multipart destination (test code) that records
// how many part bytes are held at once by the caller while it uploads.
type countingMultipart struct {
	store.Multipart
	mu      sync.Mutex
	current atomic.Int64
	peak    atomic.Int64
	release chan struct{}
}

func (c *countingMultipart) UploadPart(_ context.Context, _, _ string, n int32, body io.ReadSeeker, size int64) (store.Part, error) {
	now := c.current.Add(size)
	for {
		p := c.peak.Load()
		if now <= p || c.peak.CompareAndSwap(p, now) {
			break
		}
	}
	<-c.release
	c.current.Add(-size)
	return store.Part{Number: n, Size: size}, nil
}

func TestStreamedPartsStayWithinTheByteBudget(t *testing.T) {
	const partSize = 5 << 20
	body := bytes.Repeat([]byte("x"), 8*partSize)
	dst := &countingMultipart{release: make(chan struct{})}
	e := newExecutor(Job{Src: Endpoint{Store: streamSource{body: body}, Loc: s3url.Location{Bucket: "a"}}},
		Options{Concurrency: 8, MaxBufferBytes: 2 * partSize})
	layout, err := parts.NewLayout(int64(len(body)), partSize)
	if err != nil {
		t.Fatal(err)
	}
	task := Task{SrcKey: "k", DstKey: "k", Size: int64(len(body))}
	var wg sync.WaitGroup
	for p := range layout.All() {
		wg.Go(func() {
			if _, err := e.uploadPart(context.Background(), task, "id", dst, p); err != nil {
				t.Error(err)
			}
		})
	}
	// Let parts through one at a time; at most two can be buffered.
	for range layout.Count {
		dst.release <- struct{}{}
	}
	wg.Wait()
	if got := dst.peak.Load(); got > 2*partSize {
		t.Errorf("peak bytes held = %d, want at most the budget of %d", got, 2*partSize)
	}
	if got := dst.peak.Load(); got < partSize {
		t.Errorf("peak bytes held = %d: no part was ever uploaded", got)
	}
}
