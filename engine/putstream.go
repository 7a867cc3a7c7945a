package engine

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/engine/parts"
	"github.com/s3bulk/s3bulk/internal/limiter"
	"github.com/s3bulk/s3bulk/store"
)

// DefaultStreamPartSize is the first part size of an upload of unknown
// length (PutStream): S3's minimum would cap the object at 50 GB, so parts
// grow instead (see streamPartSize).
const DefaultStreamPartSize = 8 << 20

// streamPartsPerSize is how many parts of one size an upload of unknown
// length sends before the size doubles. Parts need not be equal: every
// part but the last is at least 5 MiB, at most 5 GiB, and 10,000 parts
// then hold far more than S3's largest object.
const streamPartsPerSize = 1000

// PutStream uploads r, a stream of unknown length such as standard input,
// to key of dst. A stream that ends within the first part is one PutObject;
// a longer one is a multipart upload whose parts are read one after
// another and sent in parallel, each held in memory until it is sent:
// never more than opts.MaxBufferBytes of them (one part at least), so
// memory stays bounded whatever the stream's length. The parts carry
// CRC32C checksums, and the completed object a full-object CRC32C, that
// the server verifies. On any failure, interruption included, the upload
// is aborted: nothing is left at the destination.
//
// opts.PartSize sets the first part size (default DefaultStreamPartSize);
// opts.Metadata the object's metadata; PartStreams and MaxBufferBytes
// override the engine's budgets, as for Run. The result's Task names src,
// which is only used in messages, as its source.
func (en *Engine) PutStream(ctx context.Context, r io.Reader, src string, dst Endpoint, key string, opts Options) (Result, error) {
	e := en.newExecutor(Job{Dst: dst}, opts)
	start := time.Now()
	res := Result{Task: Task{Op: OpUpload, Src: src, Dst: dst.Store.URL(key), DstKey: key}}
	n, count, err := e.putStream(ctx, r, key)
	res.Task.Size, res.Parts, res.Duration = n, count, time.Since(start)
	if err != nil {
		res.Status = StatusFailed
		res.Err = &TaskError{Op: string(OpUpload), Src: src, Dst: res.Task.Dst, Err: err}
		return res, res.Err
	}
	res.Status = StatusDone
	return res, nil
}

// streamPartSize is the size of part number (1-based) of an upload of
// unknown length whose first part has first bytes.
func streamPartSize(first int64, number int32) int64 {
	ps := first
	for n := int32(streamPartsPerSize); n < number && ps < parts.MaxPartSize; n += streamPartsPerSize {
		ps *= 2
	}
	return min(ps, parts.MaxPartSize)
}

// partBuffers hands out the buffers of parts and of whole objects streamed
// through this process, under the run's byte budget, and reuses them: what
// is held in memory is what the budget says, not that plus garbage waiting
// for the collector. The budget is charged a buffer's capacity, which is
// what it holds. Idle buffers count against the budget too, and are
// dropped to make room for buffers of another size.
//
// Buffers up to maxClassedBuffer are rounded up to one of eight sizes per
// power of two (at most an eighth more than asked, 104 KiB for 100 KiB),
// so that objects of many sizes share buffers; bigger ones, parts of one
// size per object, are reused by exact size.
type partBuffers struct {
	budget *limiter.ByteBudget
	mu     sync.Mutex
	free   map[int64][][]byte // idle buffers by capacity
	idle   int64              // bytes in free
}

const (
	minBuffer        = 4 << 10
	maxClassedBuffer = 1 << 20
)

// bufferSize is the capacity of the buffer get hands out for n bytes.
func bufferSize(n int64) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= minBuffer:
		return minBuffer
	case n > maxClassedBuffer:
		return n
	}
	step := int64(1) << (bits.Len64(uint64(n-1)) - 4) // an eighth of the power of two above
	return (n + step - 1) / step * step
}

// get returns a buffer of length size, once the budget has room for it.
func (b *partBuffers) get(ctx context.Context, size int64) ([]byte, error) {
	c := bufferSize(size)
	if err := b.budget.Acquire(ctx, c); err != nil {
		return nil, err
	}
	if c == 0 {
		return nil, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if bufs := b.free[c]; len(bufs) > 0 {
		buf := bufs[len(bufs)-1]
		b.free[c] = bufs[:len(bufs)-1]
		b.idle -= c
		return buf[:size], nil
	}
	if b.budget.Total() > 0 && b.budget.InUse()+b.idle > b.budget.Total() {
		for k, bufs := range b.free {
			for len(bufs) > 0 && b.budget.InUse()+b.idle > b.budget.Total() {
				b.idle -= k
				bufs[len(bufs)-1] = nil
				bufs = bufs[:len(bufs)-1]
			}
			if len(bufs) == 0 {
				delete(b.free, k)
			} else {
				b.free[k] = bufs
			}
		}
	}
	return make([]byte, size, c), nil
}

// put returns a buffer from get, whatever its length now: its capacity is
// what get acquired.
func (b *partBuffers) put(buf []byte) {
	c := int64(cap(buf))
	if c == 0 {
		return
	}
	b.mu.Lock()
	if b.free == nil {
		b.free = make(map[int64][][]byte)
	}
	b.free[c] = append(b.free[c], buf[:0])
	b.idle += c
	b.mu.Unlock()
	b.budget.Release(c)
}

// putStream is PutStream's work: it returns the bytes uploaded and the
// number of parts (0 for one PutObject).
func (e *executor) putStream(ctx context.Context, r io.Reader, key string) (size int64, count int, err error) {
	dst := e.job.Dst.Store
	first := e.opts.PartSize
	if first == 0 {
		first = DefaultStreamPartSize
	}
	meta := e.withMetadata(store.Metadata{}, key)
	meta.Tags = e.opts.Tags
	pr := streamParts{r: r, bufs: e.partBuffers, first: first}
	buf, eof, err := pr.read(ctx, 1)
	if err != nil {
		return 0, 0, err
	}
	mp, ok := dst.(store.Multipart)
	if eof || !ok {
		if !eof {
			return 0, 0, fmt.Errorf("the destination cannot take a stream longer than %d bytes", len(buf))
		}
		defer pr.bufs.put(buf)
		err := e.do(ctx, func(ctx context.Context) error {
			return dst.Put(ctx, key, store.NewBytesReader(buf), int64(len(buf)), meta)
		})
		if err == nil {
			err = e.lateTags(ctx, key, meta.Tags)
		}
		return int64(len(buf)), 0, err
	}

	create := mp.CreateMultipart
	if c, ok := mp.(store.ChecksumMultipart); ok {
		create = c.CreateMultipartChecksum
	}
	var uploadID string
	err = e.do(ctx, func(ctx context.Context) error {
		var err error
		uploadID, err = create(ctx, key, meta)
		return err
	})
	if err != nil {
		pr.bufs.put(buf)
		return 0, 0, err
	}
	defer func() {
		if err == nil {
			return
		}
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
		defer cancel()
		if aerr := mp.AbortMultipart(actx, key, uploadID); aerr != nil {
			err = &uploadLeftError{err: err, uploadID: uploadID, abort: aerr}
		}
	}()

	size, number, done, err := e.sendStream(ctx, mp, key, uploadID, pr, buf, eof)
	if err != nil {
		return size, int(number), err
	}
	slices.SortFunc(done, func(a, b store.Part) int { return cmp.Compare(a.Number, b.Number) })
	err = e.do(ctx, func(ctx context.Context) error {
		return mp.CompleteMultipart(ctx, key, uploadID, done)
	})
	if err == nil {
		err = e.lateTags(ctx, key, meta.Tags)
	}
	return size, int(number), err
}

// streamParts reads a stream's parts, each into a buffer of the run's
// budget: part sizes grow with the part number (streamPartSize).
type streamParts struct {
	r     io.Reader
	bufs  *partBuffers
	first int64
}

// read reads part number; eof is set when the stream ended in it.
func (pr streamParts) read(ctx context.Context, number int32) (buf []byte, eof bool, err error) {
	buf, err = pr.bufs.get(ctx, streamPartSize(pr.first, number))
	if err != nil {
		return nil, false, err
	}
	n, err := io.ReadFull(pr.r, buf)
	switch {
	case err == nil:
		return buf[:n], false, nil
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return buf[:n], true, nil
	}
	pr.bufs.put(buf)
	return nil, false, fmt.Errorf("read %d bytes into part %d: %w", n, number, err)
}

// sendStream uploads the stream's parts, buf (part 1, eof if it was the
// last) and the rest as pr reads them, while it reads on. It returns the
// bytes and the number of parts sent and the parts, unordered.
func (e *executor) sendStream(ctx context.Context, mp store.Multipart, key, uploadID string, pr streamParts, buf []byte, eof bool) (size int64, number int32, done []store.Part, err error) {
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	// send uploads a part under a slot of e.streams, which the reader took
	// before reading it: the stream is read no faster than parts go out.
	send := func(number int32, buf []byte) {
		g.Go(func() error {
			defer pr.bufs.put(buf)
			var part store.Part
			err := e.do(gctx, func(ctx context.Context) error {
				var err error
				part, err = mp.UploadPart(ctx, key, uploadID, number, bytes.NewReader(buf), int64(len(buf)))
				return err
			})
			moved := int64(len(buf))
			if err != nil {
				moved = 0
			}
			e.streams.Release(moved)
			if err != nil {
				return fmt.Errorf("part %d: %w", number, err)
			}
			part.Number, part.Size = number, int64(len(buf))
			mu.Lock()
			done = append(done, part)
			mu.Unlock()
			return nil
		})
	}
	number = 1
	if err = e.streams.Acquire(ctx); err != nil {
		pr.bufs.put(buf)
		return 0, 0, nil, err
	}
	for {
		size += int64(len(buf))
		send(number, buf)
		if eof {
			break
		}
		if number == parts.MaxParts {
			err = &PartsLimitError{Size: size}
			break
		}
		number++
		if err = e.streams.Acquire(gctx); err != nil {
			if ctx.Err() == nil {
				err = nil // a part failed: its error is g.Wait's
			}
			number--
			break
		}
		// Reading stops as soon as a part failed. A stream that ended on
		// a part boundary leaves an empty last read, which is not sent.
		if buf, eof, err = pr.read(gctx, number); err != nil || (eof && len(buf) == 0) {
			e.streams.Release(0)
			if buf != nil {
				pr.bufs.put(buf)
			}
			if gctx.Err() != nil && ctx.Err() == nil {
				err = nil // the failed part's error is g.Wait's
			}
			number--
			break
		}
	}
	if werr := g.Wait(); err == nil {
		err = werr
	}
	if err == nil {
		err = ctx.Err()
	}
	return size, number, done, err
}
