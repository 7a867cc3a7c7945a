package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/smithy-go/middleware"
)

// Stall cancels an HTTP exchange that stops making progress, so the
// SDK retries it on a new connection instead of waiting on a dead one.
// Progress is: the transport reading the request body, response headers
// arriving, and response body bytes arriving while someone is reading. Time
// the caller spends not reading (a slow disk, a full buffer budget) is not a
// stall. How long a wait may last follows what the server has been taking
// (stallwait.go): a dead connection among answering ones is cut at the
// floor, a server slow for everyone is waited for.
type Stall struct {
	base http.RoundTripper
	// stall is the floor of every wait; 0 or less disables the watchdog.
	stall time.Duration
	// slowHeaders is the header wait of operations whose server-side work
	// grows with object size and happens before the response starts: a
	// server may copy gigabytes before it answers.
	slowHeaders time.Duration
	// waits is what the watchdogs learn and judge by.
	waits *stallWaits
}

func NewStall(base http.RoundTripper, stall, slowHeaders time.Duration) *Stall {
	t := &Stall{base: base, stall: stall, slowHeaders: slowHeaders}
	if stall > 0 {
		t.waits = newStallWaits(stall)
	}
	return t
}

// slowOps are the operations that get Stall.slowHeaders.
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

// WithCopiedBytes tells Stall how many bytes the request's server
// copies before it answers; n <= 0 (unknown) tells it nothing.
func WithCopiedBytes(ctx context.Context, n int64) context.Context {
	if n <= 0 {
		return ctx
	}
	return context.WithValue(ctx, copiedBytesKey{}, n)
}

func copiedBytes(ctx context.Context) (int64, bool) {
	n, ok := ctx.Value(copiedBytesKey{}).(int64)
	return n, ok
}

// stallError is what a stalled exchange fails with: which wait was
// exceeded, for how long, and why that was a stall. It says it is a
// retryable timeout, which is how the SDK's retryer and internal/retry
// recognise it.
type stallError struct {
	op    string
	kind  waitKind
	after time.Duration
	why   string
}

func (e *stallError) Error() string {
	return fmt.Sprintf("%s: stalled: %s for %v (%s); connection dropped", e.op, e.kind.what(), round(e.after), e.why)
}
func (e *stallError) Timeout() bool        { return true }
func (e *stallError) Temporary() bool      { return true }
func (e *stallError) RetryableError() bool { return true }

func (t *Stall) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.waits == nil {
		return t.base.RoundTrip(req)
	}
	parent := req.Context()
	op := middleware.GetOperationName(parent)
	headerFloor, extra := t.stall, time.Duration(0)
	if n, ok := copiedBytes(parent); ok {
		// A copy of known size: small ones are retried as soon as any
		// small request would be, big ones get time to copy.
		headerFloor = min(max(t.slowHeaders, t.stall), t.stall+time.Duration(n/bytesPerSecondOfHeaderWait)*time.Second)
	} else if slowOps[op] {
		headerFloor = max(t.slowHeaders, t.stall)
	} else if req.ContentLength > 0 {
		extra = time.Duration(req.ContentLength/bytesPerSecondOfHeaderWait) * time.Second
	}
	headers := wait{c: t.waits.op(op), l: t.waits.limits(headerFloor, extra)}
	gaps := t.waits.limits(t.stall, 0)
	ctx, cancel := context.WithCancelCause(parent)
	send := newWatchdog(t.waits, op, func() { cancel(errStalled) })
	out := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		b := &sendBody{ReadCloser: req.Body, w: send, send: wait{c: &t.waits.send, l: gaps}, headers: headers}
		out.Body = b
		if req.GetBody != nil {
			// net/http sends the body again, from GetBody, when a kept-alive
			// connection failed before any answer: watched like the first.
			out.GetBody = func() (io.ReadCloser, error) {
				rc, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				send.restart(b.send) // the failed send's wait is no sample
				return &sendBody{ReadCloser: rc, w: send, send: b.send, headers: headers}, nil
			}
		}
		send.arm(b.send)
	} else {
		send.arm(headers)
	}
	resp, err := t.base.RoundTrip(out)
	send.finish(err == nil)
	if se := send.stalled(); se != nil && parent.Err() == nil {
		// Cut, even if the headers arrived as the watchdog fired: the
		// request's context is gone, and with it the body.
		if err == nil {
			resp.Body.Close()
		}
		cancel(nil)
		return nil, se
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	resp.Body = &recvBody{
		ReadCloser: resp.Body,
		w:          newWatchdog(t.waits, op, func() { cancel(errStalled) }),
		recv:       wait{c: &t.waits.recv, l: gaps},
		ctx:        ctx,
		parent:     parent,
		cancel:     cancel,
	}
	return resp, nil
}

// wait is a kind of wait and its bounds.
type wait struct {
	c *waitClass
	l waitLimits
}

// watchdog times one wait at a time of an exchange, and runs fire when
// one is judged a stall. Its first check of a wait comes at the floor; a
// check that finds the wait may go on sets the next.
type watchdog struct {
	waits *stallWaits
	op    string
	fire  func()
	mu    sync.Mutex
	timer *time.Timer
	done  bool
	cur   wait  // the wait in progress; cur.c nil when none
	since int64 // when it began, on waits' clock
	due   int64 // when the timer is due: a firing before it is stale
	err   *stallError
}

func newWatchdog(waits *stallWaits, op string, fire func()) *watchdog {
	w := &watchdog{waits: waits, op: op, fire: fire}
	w.timer = time.AfterFunc(time.Hour, w.check)
	w.timer.Stop()
	return w
}

// arm starts a wait; a wait in progress ends in progress (its bytes were
// taken, or the next phase began).
func (w *watchdog) arm(next wait) { w.start(next, true) }

// restart starts a wait; a wait in progress ends without progress.
func (w *watchdog) restart(next wait) { w.start(next, false) }

func (w *watchdog) start(next wait, progress bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	now := w.waits.now()
	w.end(now, progress)
	w.cur, w.since = next, now
	next.c.begin()
	d := next.l.floor + next.l.extra
	w.due = now + int64(d)
	w.timer.Reset(d)
}

// end ends the wait in progress, if any; w.mu is held.
func (w *watchdog) end(now int64, progress bool) {
	if w.cur.c == nil {
		return
	}
	w.cur.c.end(w.since, now, progress)
	w.cur = wait{}
}

// disarm ends the wait in progress, progress saying whether what it
// waited for came.
func (w *watchdog) disarm(progress bool) {
	w.mu.Lock()
	w.end(w.waits.now(), progress)
	w.timer.Stop()
	w.mu.Unlock()
}

// finish disarms for good: the transport may still read the request body
// after the response arrived, and that must not arm the timer again.
func (w *watchdog) finish(progress bool) {
	w.mu.Lock()
	w.done = true
	w.end(w.waits.now(), progress)
	w.timer.Stop()
	w.mu.Unlock()
}

// check runs when the timer fires: the wait goes on, or is a stall.
func (w *watchdog) check() {
	w.mu.Lock()
	if w.done || w.cur.c == nil {
		w.mu.Unlock()
		return
	}
	now := w.waits.now()
	if now < w.due {
		w.mu.Unlock() // a firing from before the last arm
		return
	}
	v := w.cur.c.decide(w.since, now, w.cur.l)
	if !v.stall {
		w.due = now + int64(v.again)
		w.timer.Reset(v.again)
		w.mu.Unlock()
		return
	}
	w.err = &stallError{op: w.op, kind: w.cur.c.kind, after: time.Duration(now - w.since), why: v.why}
	w.end(now, false)
	w.mu.Unlock()
	w.fire()
}

// stalled is the stall this watchdog fired for, nil when none.
func (w *watchdog) stalled() *stallError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// sendBody arms the watchdog between the transport's reads of the request
// body: a transport that stops reading is blocked on a connection that
// stopped accepting bytes.
// Read and writeMem run on the transport's one writing goroutine.
type sendBody struct {
	io.ReadCloser
	w             *watchdog
	send, headers wait
	// all is set once the whole body went out. net/http reads once more
	// after the last byte, to check the body is no longer than its
	// Content-Length: that read is no progress of the header wait.
	all bool
}

func (b *sendBody) Read(p []byte) (int, error) {
	if b.all {
		return b.ReadCloser.Read(p)
	}
	b.w.disarm(true) // time spent producing the bytes is not the network's
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.sentAll()
	} else {
		b.w.arm(b.send)
	}
	return n, err
}

// sentAll records that the whole body went out: now the server's answer
// is awaited.
func (b *sendBody) sentAll() {
	b.all = true
	b.w.arm(b.headers)
}

// recvBody arms the watchdog while a read of the response body is pending.
type recvBody struct {
	io.ReadCloser
	w           *watchdog
	recv        wait
	ctx, parent context.Context
	cancel      context.CancelCauseFunc
}

func (b *recvBody) Read(p []byte) (int, error) {
	b.w.arm(b.recv)
	n, err := b.ReadCloser.Read(p)
	b.w.disarm(n > 0 || err == nil || err == io.EOF)
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), errStalled) && b.parent.Err() == nil {
		if se := b.w.stalled(); se != nil {
			err = se
		} else {
			// Not this watchdog's doing, yet a stall: never a bare
			// errStalled, which no classifier retries.
			err = &stallError{op: b.w.op, kind: waitRecv, why: "the exchange was cut"}
		}
	}
	return n, err
}

func (b *recvBody) Close() error {
	b.w.finish(false)
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// copyConn is a connection whose ReadFrom, which net/http sends request
// bodies through, copies with a pooled buffer: the connection's own would
// allocate 32 KiB per request body, most of a small-object stream's
// garbage. Bodies from files keep the connection's own (sendfile), and
// bodies in memory (MemBody) are written as they lie (writeMem).
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
	buf := CopyBuffers.Get().(*[32 << 10]byte)
	defer CopyBuffers.Put(buf)
	return io.CopyBuffer(writerOnly{c.Conn}, r, buf[:])
}

// memWrite is the most bytes of a body in memory written to a connection
// at once: a write is one period of the stall watchdog.
const memWrite = 256 << 10

// writeMem writes to w what is left of body, at most limit bytes, when
// body is one held in memory (a MemBody, bare or as Stall's
// sendBody): in writes of up to memWrite bytes, not copied through a
// buffer first. ok is false, and nothing written, for any other body.
func writeMem(w io.Writer, body io.Reader, limit int64) (n int64, ok bool, err error) {
	sb, _ := body.(*sendBody)
	if sb != nil {
		body = sb.ReadCloser
	}
	m, ok := body.(*MemBody)
	if !ok {
		return 0, false, nil
	}
	rest := m.b[m.off:]
	if int64(len(rest)) > limit {
		rest = rest[:limit]
	}
	for len(rest) > 0 {
		if sb != nil {
			sb.w.arm(sb.send)
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

// CopyBuffers are copyConn's and copyAt's.
var CopyBuffers = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// PooledCopies makes a transport's connections copyConns.
func PooledCopies(tr *http.Transport) {
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

// MemBody is a request body held in memory. copyConn writes what is left
// of it to the connection directly, not through a copy buffer. Close hands
// the bytes to release, once: the transport closes a request body when it
// is done with it.
type MemBody struct {
	b       []byte
	off     int
	release func([]byte)
	closed  atomic.Bool
}

func (m *MemBody) Read(p []byte) (int, error) {
	if m.off >= len(m.b) {
		return 0, io.EOF
	}
	n := copy(p, m.b[m.off:])
	m.off += n
	return n, nil
}

func (m *MemBody) Close() error {
	if m.release != nil && m.closed.CompareAndSwap(false, true) {
		m.release(m.b)
	}
	return nil
}

// NewMemBody is a body of b; Close hands b to release, when not nil.
func NewMemBody(b []byte, release func([]byte)) *MemBody {
	return &MemBody{b: b, release: release}
}

// Bytes is the whole body, sent or not.
func (m *MemBody) Bytes() []byte { return m.b }
