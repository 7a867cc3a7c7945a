package faultproxy

import (
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config says which faults to inject and how often. Each rate is the
// probability, from 0 to 1, that an eligible request gets that fault; at
// most one fault hits a request, so the rates may add up to at most 1.
type Config struct {
	// Latency delays every eligible request before it is forwarded or
	// failed, plus a uniformly random extra delay below Jitter.
	Latency, Jitter time.Duration

	// SlowDownRate answers 503 with S3's SlowDown error.
	SlowDownRate float64
	// InternalErrorRate answers 500 with S3's InternalError.
	InternalErrorRate float64
	// TooManyRequestsRate answers 429 TooManyRequests, as some
	// S3-compatible services throttle.
	TooManyRequestsRate float64
	// ResetBeforeRate resets the TCP connection before any response byte.
	ResetBeforeRate float64
	// ResetMidBodyRate forwards the request, sends the response headers and
	// half the body, then resets the connection. For a response without a
	// body, it resets halfway through the headers.
	ResetMidBodyRate float64
	// TruncateRate forwards the request, sends the headers with the full
	// Content-Length and half the body, then closes the connection cleanly.
	// For a response without a body, it closes halfway through the headers.
	TruncateRate float64
	// StallRate never answers: the request is held open until the client
	// gives up or the proxy is closed.
	StallRate float64
	// CorruptRate forwards the request and flips one bit of the response
	// body, in its middle byte: the response is whole and well formed, so
	// only a check of the content can notice.
	CorruptRate float64
	// CorruptUploadRate forwards the request with one bit of its body
	// flipped, in its middle byte (by Content-Length), as a damaged link
	// on the way up would: only a checksum the server checks can notice.
	// Requests without a body are forwarded untouched.
	CorruptUploadRate float64

	// DropChecksums removes the x-amz-checksum-* headers (and
	// x-amz-checksum-type) from every response, eligible or not, as a
	// server that keeps no checksums answers.
	DropChecksums bool

	// Throttle, when set, answers 503 SlowDown to requests above a rate
	// per prefix, as S3 does, on top of the random faults above.
	Throttle *Throttle

	// Seed makes the sequence of faults repeatable; 0 picks a random seed.
	Seed int64
	// Match selects the requests eligible for latency and faults; nil
	// selects all. Others are forwarded untouched.
	Match func(*http.Request) bool

	// Hook, when set, sees every request first, with next the rest of the
	// proxy (DropChecksums, Match, latency and faults, then the server):
	// it may count or hold the request and call next, change the world
	// (the source object) before calling next, wrap w, or answer by
	// itself without calling next, as a server with a quirk of its own
	// would. Called concurrently.
	Hook func(w http.ResponseWriter, r *http.Request, next http.Handler)
}

// Fault is one kind of injected failure.
type Fault int

// The faults, in the order their rates are applied.
const (
	None Fault = iota
	SlowDown
	InternalError
	TooManyRequests
	ResetBefore
	ResetMidBody
	Truncate
	Stall
	Corrupt
	CorruptUpload
	numFaults
)

var faultNames = [numFaults]string{"none", "slow-down", "internal-error", "too-many-requests",
	"reset-before", "reset-mid-body", "truncate", "stall", "corrupt", "corrupt-upload"}

func (f Fault) String() string {
	if f < 0 || f >= numFaults {
		return "fault(" + strconv.Itoa(int(f)) + ")"
	}
	return faultNames[f]
}

func (c Config) rates() [numFaults]float64 {
	return [numFaults]float64{None: 0,
		SlowDown:        c.SlowDownRate,
		InternalError:   c.InternalErrorRate,
		TooManyRequests: c.TooManyRequestsRate,
		ResetBefore:     c.ResetBeforeRate,
		ResetMidBody:    c.ResetMidBodyRate,
		Truncate:        c.TruncateRate,
		Stall:           c.StallRate,
		Corrupt:         c.CorruptRate,
		CorruptUpload:   c.CorruptUploadRate,
	}
}

func (c Config) validate() error {
	if c.Latency < 0 || c.Jitter < 0 {
		return fmt.Errorf("latency %v and jitter %v must not be negative", c.Latency, c.Jitter)
	}
	sum := 0.0
	for f, r := range c.rates() {
		if r < 0 || r > 1 || r != r {
			return fmt.Errorf("%v rate %v is not between 0 and 1", Fault(f), r)
		}
		sum += r
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("fault rates add up to %v, more than 1", sum)
	}
	if t := c.Throttle; t != nil && (t.WriteRate < 0 || t.ReadRate < 0 || t.Depth < 0) {
		return fmt.Errorf("throttle rates %v, %v and depth %d must not be negative", t.WriteRate, t.ReadRate, t.Depth)
	}
	return nil
}

// Stats counts what the proxy did since it started.
type Stats struct {
	// Requests is every request received, eligible or not.
	Requests int64
	// Delayed is the requests that waited for Latency or Jitter.
	Delayed int64
	// Faults counts injected faults by kind; Faults[None] is the eligible
	// requests forwarded without a fault.
	Faults [numFaults]int64
	// Throttled is the SlowDown answers of Config.Throttle (also counted
	// in Faults[SlowDown]).
	Throttled int64
}

// Proxy is a running fault-injecting reverse proxy on 127.0.0.1.
type Proxy struct {
	url     string
	target  *url.URL
	ln      net.Listener
	server  *http.Server
	forward http.Handler
	// transport is the reverse proxy's, nil in front of a handler.
	transport *http.Transport
	state     atomic.Pointer[state]

	requests atomic.Int64
	delayed  atomic.Int64
	faults   [numFaults]atomic.Int64
	// throttled counts the SlowDown answers of Config.Throttle, also
	// counted in faults[SlowDown].
	throttled atomic.Int64

	closing   chan struct{} // closed when Close starts
	closed    chan struct{} // closed once every connection is closed
	closeOnce sync.Once
	// handlers counts the requests being served. admit guards it with
	// shut, so that no request is added once Close has begun to wait
	// (the server may still hand over a request it read before Close).
	admit    sync.Mutex
	shut     bool
	handlers sync.WaitGroup
	served   chan struct{} // closed when Serve returns
	serveErr error

	// onStallEnd, when set by a test, runs as each stalled request ends.
	onStallEnd func()
}

// state is one configuration and the random source that goes with it,
// swapped as a whole by SetConfig.
type state struct {
	cfg Config
	mu  sync.Mutex
	rng *rand.Rand
	// buckets are Config.Throttle's token buckets, by prefix.
	buckets *rateBuckets
}

func newState(cfg Config) *state {
	seed := uint64(cfg.Seed)
	if cfg.Seed == 0 {
		seed = rand.Uint64()
	}
	st := &state{cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	if cfg.Throttle != nil {
		st.buckets = newRateBuckets(*cfg.Throttle, time.Now)
	}
	return st
}

// draw picks the fault and the extra delay for one request.
func (s *state) draw() (Fault, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var jitter time.Duration
	if s.cfg.Jitter > 0 {
		jitter = time.Duration(s.rng.Int64N(int64(s.cfg.Jitter)))
	}
	u := s.rng.Float64()
	acc := 0.0
	for f, r := range s.cfg.rates() {
		acc += r
		if r > 0 && u < acc {
			return Fault(f), jitter
		}
	}
	return None, jitter
}

// New starts a proxy on 127.0.0.1 in front of target, an http:// URL.
func New(target string, cfg Config) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("start fault proxy: target %q is not an http(s) URL", target)
	}
	transport := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	p := &Proxy{target: u, transport: transport}
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme = u.Scheme
			r.Out.URL.Host = u.Host
			// SigV4 signs Host; the server must see the one the client
			// signed, not the target's address.
			r.Out.Host = r.In.Host
			// Go's server already answered the client's 100-continue;
			// Expect is never signed, so dropping it is safe.
			r.Out.Header.Del("Expect")
		},
		Transport:    transport,
		ErrorLog:     log.New(io.Discard, "", 0),
		ErrorHandler: p.forwardError,
	}
	return p.start(cfg)
}

// NewHandler starts a proxy on 127.0.0.1 in front of h, an in-process
// server (such as the fixture in internal/simregion), with the same faults
// and latency as New.
func NewHandler(h http.Handler, cfg Config) (*Proxy, error) {
	return (&Proxy{forward: h}).start(cfg)
}

func (p *Proxy) start(cfg Config) (*Proxy, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("start fault proxy: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start fault proxy: %w", err)
	}
	p.url = "http://" + ln.Addr().String()
	p.ln = ln
	p.closing = make(chan struct{})
	p.closed = make(chan struct{})
	p.served = make(chan struct{})
	p.state.Store(newState(cfg))
	p.server = &http.Server{
		Handler:           http.HandlerFunc(p.serveHTTP),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() {
		p.serveErr = p.server.Serve(ln)
		close(p.served)
	}()
	return p, nil
}

// URL is the proxy's endpoint, "http://127.0.0.1:PORT".
func (p *Proxy) URL() string { return p.url }

// SetConfig replaces the configuration for requests that arrive from now
// on; requests in progress keep the one they started with.
func (p *Proxy) SetConfig(cfg Config) error {
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("configure fault proxy: %w", err)
	}
	p.state.Store(newState(cfg))
	return nil
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	s := Stats{Requests: p.requests.Load(), Delayed: p.delayed.Load(), Throttled: p.throttled.Load()}
	for i := range p.faults {
		s.Faults[i] = p.faults[i].Load()
	}
	return s
}

// Close stops the proxy: it stops accepting, ends stalled requests,
// closes every connection and waits for the handlers to return.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		close(p.closing)
		_ = p.server.Close()
		close(p.closed)
		<-p.served
		p.admit.Lock()
		p.shut = true
		p.admit.Unlock()
		p.handlers.Wait()
		if p.transport != nil {
			p.transport.CloseIdleConnections()
		}
	})
	if p.serveErr != nil && !errors.Is(p.serveErr, http.ErrServerClosed) {
		return fmt.Errorf("close fault proxy: %w", p.serveErr)
	}
	return nil
}

func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.enter() {
		http.Error(w, "fault proxy closed", http.StatusServiceUnavailable)
		return
	}
	defer p.handlers.Done()
	p.requests.Add(1)
	st := p.state.Load()
	if hook := st.cfg.Hook; hook != nil {
		hook(w, r, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.inject(st, w, r) }))
		return
	}
	p.inject(st, w, r)
}

// inject applies st's faults to r, or forwards it.
func (p *Proxy) inject(st *state, w http.ResponseWriter, r *http.Request) {
	if st.cfg.DropChecksums {
		w = &noChecksums{ResponseWriter: w}
	}
	if st.cfg.Match != nil && !st.cfg.Match(r) {
		p.forward.ServeHTTP(w, r)
		return
	}
	fault, jitter := st.draw()
	if fault == None && st.buckets != nil && !st.buckets.allow(r) {
		fault = SlowDown
		p.throttled.Add(1)
	}
	if delay := st.cfg.Latency + jitter; delay > 0 {
		p.delayed.Add(1)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-p.closing:
			t.Stop()
			p.abandon()
			return
		}
	}
	p.faults[fault].Add(1)
	switch fault {
	case SlowDown:
		writeS3Error(w, r, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
	case InternalError:
		writeS3Error(w, r, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
	case TooManyRequests:
		writeS3Error(w, r, http.StatusTooManyRequests, "TooManyRequests", "Too many requests. Please reduce your request rate.")
	case ResetBefore:
		if conn := hijack(w); conn != nil {
			reset(conn)
		}
	case ResetMidBody, Truncate:
		cw := &cutWriter{ResponseWriter: w, head: r.Method == http.MethodHead, reset: fault == ResetMidBody}
		p.forward.ServeHTTP(cw, r)
	case Stall:
		p.stall(r)
	case Corrupt:
		p.forward.ServeHTTP(&flipWriter{ResponseWriter: w}, r)
	case CorruptUpload:
		if r.ContentLength > 0 {
			r.Body = &flipReader{ReadCloser: r.Body, at: r.ContentLength / 2}
		}
		p.forward.ServeHTTP(w, r)
	default:
		p.forward.ServeHTTP(w, r)
	}
}

// stall holds r until the client goes away or the proxy closes. The body
// is drained so that the server notices a client that hangs up.
func (p *Proxy) stall(r *http.Request) {
	if p.onStallEnd != nil {
		defer p.onStallEnd()
	}
	gone := make(chan struct{}) // closed when the client hangs up mid-body
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			close(gone)
		}
	}()
	select {
	case <-r.Context().Done():
	case <-gone:
	case <-p.closing:
		p.abandon()
	}
	// Every way out of the select closes the connection (the client's
	// hang-up, or server.Close), so the read ends.
	<-drained
}

// enter counts a request in, unless Close has begun waiting for them.
func (p *Proxy) enter() bool {
	p.admit.Lock()
	defer p.admit.Unlock()
	if p.shut {
		return false
	}
	p.handlers.Add(1)
	return true
}

// abandon waits until Close has closed every connection, so that a handler
// returning without an answer does not make the server send an empty 200.
func (p *Proxy) abandon() { <-p.closed }

func (p *Proxy) forwardError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the client gave up; nobody reads an answer
	}
	writeS3Error(w, r, http.StatusBadGateway, "BadGateway", "fault proxy: "+err.Error())
}

var requestSeq atomic.Int64

// writeS3Error answers the way S3 does: an XML error document and a
// request id, with no body for HEAD.
func writeS3Error(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	id := fmt.Sprintf("FAULTPROXY%08d", requestSeq.Add(1))
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("x-amz-request-id", id)
	// The client may still be sending a body we will not read.
	h.Set("Connection", "close")
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	body := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<Error><Code>%s</Code><Message>%s</Message><Resource>%s</Resource><RequestId>%s</RequestId></Error>`,
		code, xmlEscape(message), xmlEscape(r.URL.Path), id)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func xmlEscape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '"':
			b = append(b, "&quot;"...)
		case '\'':
			b = append(b, "&apos;"...)
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func hijack(w http.ResponseWriter) net.Conn {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil
	}
	return conn
}

// reset closes conn with an RST instead of a FIN.
func reset(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// errCut ends the forwarded response once the fault has been delivered;
// the reverse proxy then abandons the copy.
var errCut = errors.New("fault proxy: response cut")

// cutWriter passes a forwarded response through until halfway, then
// breaks the connection: reset or a clean close.
type cutWriter struct {
	http.ResponseWriter
	head    bool
	reset   bool
	left    int64 // body bytes still to pass before the cut
	cut     bool
	started bool
}

func (c *cutWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *cutWriter) WriteHeader(code int) {
	if c.cut {
		return
	}
	if code < 200 || c.started {
		c.ResponseWriter.WriteHeader(code)
		return
	}
	c.started = true
	n, err := strconv.ParseInt(c.Header().Get("Content-Length"), 10, 64)
	if c.head || err != nil || n <= 0 {
		// Nothing to cut in the body: cut the header itself.
		c.cutHeader(code)
		return
	}
	c.left = n / 2
	c.ResponseWriter.WriteHeader(code)
	if c.left == 0 {
		c.breakConn()
	}
}

func (c *cutWriter) Write(b []byte) (int, error) {
	if !c.started {
		c.WriteHeader(http.StatusOK)
	}
	if c.cut {
		return 0, errCut
	}
	if int64(len(b)) < c.left {
		n, err := c.ResponseWriter.Write(b)
		c.left -= int64(n)
		return n, err
	}
	n, err := c.ResponseWriter.Write(b[:c.left])
	c.left -= int64(n)
	if err != nil {
		return n, err
	}
	c.breakConn()
	return n, errCut
}

// cutHeader writes the first half of the response header by hand on the
// raw connection, then breaks it.
func (c *cutWriter) cutHeader(code int) {
	c.cut = true
	conn := hijack(c.ResponseWriter)
	if conn == nil {
		return
	}
	var buf []byte
	buf = fmt.Appendf(buf, "HTTP/1.1 %d %s\r\n", code, http.StatusText(code))
	hb := &byteWriter{buf: buf}
	_ = c.Header().Write(hb)
	hb.buf = append(hb.buf, "\r\n"...)
	_, _ = conn.Write(hb.buf[:len(hb.buf)/2])
	c.finish(conn)
}

// breakConn flushes what was written, so the client gets exactly half
// the body, and breaks the connection.
func (c *cutWriter) breakConn() {
	c.cut = true
	_ = http.NewResponseController(c.ResponseWriter).Flush()
	if conn := hijack(c.ResponseWriter); conn != nil {
		c.finish(conn)
	}
}

func (c *cutWriter) finish(conn net.Conn) {
	if c.reset {
		reset(conn)
		return
	}
	_ = conn.Close()
}

type byteWriter struct{ buf []byte }

func (b *byteWriter) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// noChecksums drops the checksum headers of a forwarded response.
type noChecksums struct{ http.ResponseWriter }

func (c *noChecksums) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *noChecksums) WriteHeader(code int) {
	for k := range c.Header() {
		if strings.HasPrefix(strings.ToLower(k), "x-amz-checksum-") {
			c.Header().Del(k)
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *noChecksums) Write(b []byte) (int, error) { return c.ResponseWriter.Write(b) }

// flipReader passes a request body through with the bit of byte at flipped.
type flipReader struct {
	io.ReadCloser
	at, seen int64
}

func (f *flipReader) Read(b []byte) (int, error) {
	n, err := f.ReadCloser.Read(b)
	if f.at >= f.seen && f.at < f.seen+int64(n) {
		b[f.at-f.seen] ^= 0x01
	}
	f.seen += int64(n)
	return n, err
}

// flipWriter passes a forwarded response through with one bit of its body
// flipped, in the middle byte (by Content-Length).
type flipWriter struct {
	http.ResponseWriter
	at      int64 // body offset of the byte to flip; < 0: none
	seen    int64
	started bool
}

func (f *flipWriter) Unwrap() http.ResponseWriter { return f.ResponseWriter }

func (f *flipWriter) WriteHeader(code int) {
	if code >= 200 && !f.started {
		f.started = true
		f.at = -1
		if n, err := strconv.ParseInt(f.Header().Get("Content-Length"), 10, 64); err == nil && n > 0 && code < 300 {
			f.at = n / 2
		}
	}
	f.ResponseWriter.WriteHeader(code)
}

func (f *flipWriter) Write(b []byte) (int, error) {
	if !f.started {
		f.WriteHeader(http.StatusOK)
	}
	if f.at >= f.seen && f.at < f.seen+int64(len(b)) {
		c := make([]byte, len(b))
		copy(c, b)
		c[f.at-f.seen] ^= 0x01
		b = c
	}
	f.seen += int64(len(b))
	return f.ResponseWriter.Write(b)
}
