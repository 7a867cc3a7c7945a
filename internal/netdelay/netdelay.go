// Package netdelay relays TCP connections to a target with a round trip
// added, as a network between them would: every byte takes half the
// round trip to cross in each direction, and a connection's opening costs
// a round trip (the handshake) before its first bytes leave.
//
// It is the latency of `s3bulk demo --server local` and of the local
// benchmarks. A network's latency costs neither end any CPU; an HTTP
// reverse proxy that sleeps before it forwards (internal/faultproxy) parses
// and rebuilds every request and answer, about half a millisecond of CPU a
// request, and on a small machine it takes that from the server it stands
// for. The relay parses nothing: bytes in, the same bytes out, later. It
// keeps the order of each direction and passes half-closes on.
package netdelay

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// chunkSize is the most a relay reads at once: a request's headers, or a
// slice of a body.
const chunkSize = 32 << 10

// inFlight is the most chunks a direction holds while they wait out their
// delay; a sender past it waits, as a full window does.
const inFlight = 64

// Relay accepts connections and relays each to its target.
type Relay struct {
	ln     net.Listener
	target string
	rtt    time.Duration

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Listen starts a relay on addr (such as "127.0.0.1:0") to target (a
// host:port) that adds rtt to every round trip. rtt must not be negative.
func Listen(addr, target string, rtt time.Duration) (*Relay, error) {
	if rtt < 0 {
		return nil, errors.New("netdelay: the round trip must not be negative")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	r := &Relay{ln: ln, target: target, rtt: rtt, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is the address the relay listens on.
func (r *Relay) Addr() net.Addr { return r.ln.Addr() }

// Close stops accepting, cuts every relayed connection and waits for
// their goroutines.
func (r *Relay) Close() error {
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	err := r.ln.Close()
	r.wg.Wait()
	return err
}

// track adds c to the connections Close cuts; false once closed.
func (r *Relay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *Relay) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	c.Close()
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		if !r.track(c) {
			c.Close()
			return
		}
		r.wg.Add(1)
		go r.serve(c)
	}
}

// serve relays c to a new connection to the target.
func (r *Relay) serve(c net.Conn) {
	defer r.wg.Done()
	defer r.untrack(c)
	// The client's handshake: its first bytes leave a round trip after it
	// connected, and reach the server half a round trip after that.
	open := time.Now().Add(r.rtt)
	up, err := net.Dial("tcp", r.target)
	if err != nil {
		return // the client sees its connection closed, as a refused one
	}
	if !r.track(up) {
		up.Close()
		return
	}
	defer r.untrack(up)
	var both sync.WaitGroup
	both.Add(2)
	go func() { defer both.Done(); r.pipe(up, c, open) }()
	go func() { defer both.Done(); r.pipe(c, up, time.Time{}) }()
	both.Wait()
}

type chunk struct {
	buf *[]byte // from chunks, its first n bytes read
	n   int
	due time.Time
}

var chunks = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// pipe copies src to dst, each chunk half a round trip after it was read
// and not before notBefore. At src's end it half-closes dst; on an error
// either way it closes both, as a broken link would.
func (r *Relay) pipe(dst, src net.Conn, notBefore time.Time) {
	queue := make(chan chunk, inFlight)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ch := range queue {
			if d := time.Until(ch.due); d > 0 {
				time.Sleep(d)
			}
			_, err := dst.Write((*ch.buf)[:ch.n])
			chunks.Put(ch.buf)
			if err != nil {
				src.Close()
				dst.Close()
				for ch := range queue {
					chunks.Put(ch.buf)
				}
				return
			}
		}
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}()
	for {
		buf := chunks.Get().(*[]byte)
		n, err := src.Read(*buf)
		if n > 0 {
			now := time.Now()
			if now.Before(notBefore) {
				now = notBefore
			}
			queue <- chunk{buf: buf, n: n, due: now.Add(r.rtt / 2)}
		} else {
			chunks.Put(buf)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				dst.Close()
			}
			break
		}
	}
	close(queue)
	<-done
}
