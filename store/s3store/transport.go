package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/aws/smithy-go/middleware"
)

// stallTransport cancels an HTTP exchange that stops making progress, so the
// SDK retries it on a new connection instead of waiting on a dead one.
// Progress is: the transport reading the request body, response headers
// arriving, and response body bytes arriving while someone is reading. Time
// the caller spends not reading (a slow disk, a full buffer budget) is not a
// stall.
type stallTransport struct {
	base http.RoundTripper
	// stall is how long any phase may go without progress.
	stall time.Duration
	// slowHeaders is the header wait of operations whose server-side work
	// grows with object size and happens before the response starts: a
	// server may copy gigabytes before it answers.
	slowHeaders time.Duration
}

// slowOps are the operations that get stallTransport.slowHeaders.
var slowOps = map[string]bool{
	"CopyObject":              true,
	"UploadPartCopy":          true,
	"CompleteMultipartUpload": true,
	"DeleteObjects":           true,
}

// bytesPerSecondOfHeaderWait grows the header wait of an upload with its
// size: after the last byte a server may still hash and persist the body
// before it answers.
const bytesPerSecondOfHeaderWait = 8 << 20

var errStalled = errors.New("stalled")

// copiedBytesKey carries the size of what a CopyObject or UploadPartCopy
// copies to the transport, which sees only a request without a body.
type copiedBytesKey struct{}

// withCopiedBytes tells stallTransport how many bytes the request's server
// copies before it answers; n <= 0 (unknown) tells it nothing.
func withCopiedBytes(ctx context.Context, n int64) context.Context {
	if n <= 0 {
		return ctx
	}
	return context.WithValue(ctx, copiedBytesKey{}, n)
}

func copiedBytes(ctx context.Context) (int64, bool) {
	n, ok := ctx.Value(copiedBytesKey{}).(int64)
	return n, ok
}

// stallError is what a stalled exchange fails with. It says it is a
// retryable timeout, which is how the SDK's retryer and internal/retry
// recognise it.
type stallError struct {
	op    string
	phase string
	after time.Duration
}

func (e *stallError) Error() string {
	return fmt.Sprintf("%s: no progress %s for %v; connection dropped", e.op, e.phase, e.after)
}
func (e *stallError) Timeout() bool        { return true }
func (e *stallError) Temporary() bool      { return true }
func (e *stallError) RetryableError() bool { return true }

func (t *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.stall <= 0 {
		return t.base.RoundTrip(req)
	}
	parent := req.Context()
	op := middleware.GetOperationName(parent)
	headerWait := t.stall
	if n, ok := copiedBytes(parent); ok {
		// A copy of known size: small ones are retried as soon as any
		// small request would be, big ones get time to copy.
		headerWait = min(max(t.slowHeaders, t.stall), t.stall+time.Duration(n/bytesPerSecondOfHeaderWait)*time.Second)
	} else if slowOps[op] {
		headerWait = max(t.slowHeaders, t.stall)
	} else if req.ContentLength > 0 {
		headerWait += time.Duration(req.ContentLength/bytesPerSecondOfHeaderWait) * time.Second
	}
	ctx, cancel := context.WithCancelCause(parent)
	send := newWatchdog(func() { cancel(errStalled) })
	out := req.WithContext(ctx)
	phase := "waiting for response headers"
	if req.Body != nil && req.Body != http.NoBody {
		out.Body = &sendBody{ReadCloser: req.Body, w: send, stall: t.stall, headerWait: headerWait}
		send.arm(t.stall)
	} else {
		send.arm(headerWait)
	}
	resp, err := t.base.RoundTrip(out)
	send.finish()
	if err != nil {
		stalled := errors.Is(context.Cause(ctx), errStalled) && parent.Err() == nil
		cancel(nil)
		if stalled {
			if b, ok := out.Body.(*sendBody); ok && !b.sent() {
				phase = "sending the request body"
			}
			return nil, &stallError{op: op, phase: phase, after: t.stall}
		}
		return nil, err
	}
	resp.Body = &recvBody{
		ReadCloser: resp.Body,
		w:          newWatchdog(func() { cancel(errStalled) }),
		stall:      t.stall,
		ctx:        ctx,
		parent:     parent,
		cancel:     cancel,
		op:         op,
	}
	return resp, nil
}

// watchdog runs fire when armed and not re-armed or disarmed in time.
type watchdog struct {
	mu    sync.Mutex
	timer *time.Timer
	done  bool
}

func newWatchdog(fire func()) *watchdog {
	w := &watchdog{timer: time.AfterFunc(time.Hour, fire)}
	w.timer.Stop()
	return w
}

func (w *watchdog) arm(d time.Duration) {
	w.mu.Lock()
	if !w.done {
		w.timer.Reset(d)
	}
	w.mu.Unlock()
}

func (w *watchdog) disarm() {
	w.mu.Lock()
	w.timer.Stop()
	w.mu.Unlock()
}

// finish disarms for good: the transport may still read the request body
// after the response arrived, and that must not arm the timer again.
func (w *watchdog) finish() {
	w.mu.Lock()
	w.done = true
	w.timer.Stop()
	w.mu.Unlock()
}

// sendBody arms the watchdog between the transport's reads of the request
// body: a transport that stops reading is blocked on a connection that
// stopped accepting bytes.
type sendBody struct {
	io.ReadCloser
	w                 *watchdog
	stall, headerWait time.Duration
	mu                sync.Mutex
	eof               bool
}

func (b *sendBody) Read(p []byte) (int, error) {
	b.w.disarm() // time spent producing the bytes is not the network's
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.sentAll()
	} else {
		b.w.arm(b.stall)
	}
	return n, err
}

// sentAll records that the whole body went out: now the server's answer
// is awaited.
func (b *sendBody) sentAll() {
	b.mu.Lock()
	b.eof = true
	b.mu.Unlock()
	b.w.arm(b.headerWait)
}

func (b *sendBody) sent() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.eof
}

// recvBody arms the watchdog while a read of the response body is pending.
type recvBody struct {
	io.ReadCloser
	w           *watchdog
	stall       time.Duration
	ctx, parent context.Context
	cancel      context.CancelCauseFunc
	op          string
}

func (b *recvBody) Read(p []byte) (int, error) {
	b.w.arm(b.stall)
	n, err := b.ReadCloser.Read(p)
	b.w.disarm()
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), errStalled) && b.parent.Err() == nil {
		err = &stallError{op: b.op, phase: "receiving the response body", after: b.stall}
	}
	return n, err
}

func (b *recvBody) Close() error {
	b.w.finish()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// copyConn is a connection whose ReadFrom, which net/http sends request
// bodies through, copies with a pooled buffer: the connection's own would
// allocate 32 KiB per request body, most of a small-object stream's
// garbage. Bodies from files keep the connection's own (sendfile), and
// bodies in memory (memBody) are written as they lie (writeMem).
type copyConn struct{ net.Conn }

func (c copyConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		// net/http's limit of the body to its Content-Length.
		if n, ok, err := writeMem(c.Conn, lr.R, lr.N); ok {
			lr.N -= n
			return n, err
		}
	}
	rf, ok := c.Conn.(io.ReaderFrom)
	if ok && fromFile(r) {
		return rf.ReadFrom(r)
	}
	buf := copyBuffers.Get().(*[32 << 10]byte)
	defer copyBuffers.Put(buf)
	return io.CopyBuffer(writerOnly{c.Conn}, r, buf[:])
}

// memWrite is the most bytes of a body in memory written to a connection
// at once: a write is one period of the stall watchdog.
const memWrite = 256 << 10

// writeMem writes to w what is left of body, at most limit bytes, when
// body is one held in memory (a memBody, bare or as stallTransport's
// sendBody): in writes of up to memWrite bytes, not copied through a
// buffer first. ok is false, and nothing written, for any other body.
func writeMem(w io.Writer, body io.Reader, limit int64) (n int64, ok bool, err error) {
	sb, _ := body.(*sendBody)
	if sb != nil {
		body = sb.ReadCloser
	}
	m, ok := body.(*memBody)
	if !ok {
		return 0, false, nil
	}
	rest := m.b[m.off:]
	if int64(len(rest)) > limit {
		rest = rest[:limit]
	}
	for len(rest) > 0 {
		if sb != nil {
			sb.w.arm(sb.stall)
		}
		k, err := w.Write(rest[:min(len(rest), memWrite)])
		m.off += k
		n += int64(k)
		rest = rest[k:]
		if err != nil {
			return n, true, err
		}
	}
	if sb != nil && m.off >= len(m.b) {
		sb.sentAll() // as Read's io.EOF would
	}
	return n, true, nil
}

func fromFile(r io.Reader) bool {
	if lr, ok := r.(*io.LimitedReader); ok {
		r = lr.R
	}
	_, ok := r.(*os.File)
	return ok
}

// writerOnly hides a writer's ReadFrom from io.CopyBuffer.
type writerOnly struct{ io.Writer }

// copyBuffers are copyConn's and copyAt's.
var copyBuffers = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// pooledCopies makes a transport's connections copyConns.
func pooledCopies(tr *http.Transport) {
	dial := tr.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return copyConn{c}, nil
	}
}
