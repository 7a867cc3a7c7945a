package transport

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// How long Stall lets a wait go without progress follows what the
// server has been doing (docs/design/0008-stalls.md). Each kind of wait (the
// response headers of one operation; a request body's bytes being taken; a
// response body's bytes arriving) learns, as TCP learns its retransmission
// timeout (RFC 6298), a smoothed wait and its variation from the waits of
// its kind that ended in progress. A wait is called a stall when it has
// lasted stallMargin times that estimate (and at least the floor,
// Config.StallTimeout) and it was overtaken: a wait of its kind, or a
// request's wait for its answer, that began after it already ended in
// progress (this connection is the one not moving); or when nothing else
// is waiting to compare with. When others wait too and none overtook it,
// the server is slow for everyone, not this connection dead: the wait goes
// on, up to MaxStallWait. Each stall doubles the next wait of its kind
// until one ends in progress (RFC 6298 5.5), so a kind that is always
// slower than the others is cut a few times at most, not at every attempt.
const (
	// stallMargin is how many times the estimate (smoothed wait + 4x its
	// variation) a wait may last before it can be a stall.
	stallMargin = 2
	// MaxStallWait is the cap: no wait lasts longer than this (or than
	// its floor, when that is larger), however slow the server has been.
	// It is what a run waits when every connection died at once, which
	// looks the same as a server answering no one: the AWS CLI's read
	// timeout (rclone's idle timeout is 5m).
	MaxStallWait = time.Minute
	// coldStallWait is the wait before this client has seen any answer:
	// the first exchanges know nothing of the server (a cold prefix, a
	// far region, a loaded server may take seconds), and a retry storm
	// from the first requests is the failure to avoid.
	coldStallWait = 30 * time.Second
	// minGapSample is the shortest gap between body bytes that is a
	// sample: a read served from the socket's buffer says nothing about
	// the server's pace, and would drag the estimate to zero.
	minGapSample = time.Millisecond
	// maxStallBackoff bounds the count of doublings of a kind's wait
	// after stalls; the cap bounds the wait itself.
	maxStallBackoff = 30
)

// waitKind is the phase of an exchange a wait belongs to.
type waitKind uint8

const (
	waitSend    waitKind = iota // the server taking the request body
	waitHeaders                 // the response headers
	waitRecv                    // the response body's bytes
)

// what says what did not arrive, for the stall error.
func (k waitKind) what() string {
	switch k {
	case waitSend:
		return "no request body bytes taken"
	case waitHeaders:
		return "no response headers"
	default:
		return "no response body bytes"
	}
}

// overtaken says what the waits of this kind that overtook a stalled one
// got.
func (k waitKind) overtaken() string {
	if k == waitRecv {
		return "got their bytes"
	}
	return "were answered"
}

// waitClass is one kind of wait's estimator and the counts the stall
// verdict compares with. Every field is one atomic word, so thousands of
// exchanges in flight share it without a lock; its size is fixed.
type waitClass struct {
	kind waitKind
	// all is what every kind of the client shares.
	all *waitTotals
	// prior, when set, is what a class without samples goes by: every
	// operation's headers, for an operation not answered yet, or for
	// body bytes that never took long enough to be a sample.
	prior *waitClass
	// parent, when set, gets this class's samples too (every operation's
	// headers, for one operation's).
	parent *waitClass
	// est packs the RFC 6298 state in microseconds: bit 63 set once a
	// sample was taken, SRTT in bits 32-62, RTTVAR in bits 0-31.
	est atomic.Uint64
	// backoff is how many times the wait is doubled after stalls; the
	// next sample resets it.
	backoff atomic.Int32
	// served is the latest start (on stallWaits' clock) of a wait of this
	// class that ended in progress after a wait long enough to be a
	// sample. A request body's bytes do not count: a write into the
	// connection's buffer ends whether or not the server reads.
	served atomic.Int64
}

// waitTotals are the counts every kind of wait of a client shares.
type waitTotals struct {
	// waiting counts the waits in progress.
	waiting atomic.Int64
	// answered is the latest start (on stallWaits' clock) of a wait for
	// response headers that got them.
	answered atomic.Int64
}

// estimate is a class's learnt state.
type estimate struct {
	srtt, rttvar time.Duration
	ok           bool
}

const (
	estValid = 1 << 63
	estMax   = 1<<31 - 1 // µs, about 35 minutes
)

func (c *waitClass) estimate() estimate {
	v := c.est.Load()
	if v&estValid == 0 {
		return estimate{}
	}
	return estimate{
		srtt:   time.Duration(v>>32&estMax) * time.Microsecond,
		rttvar: time.Duration(v&estMax) * time.Microsecond,
		ok:     true,
	}
}

// sample adds one observed wait to the estimate (RFC 6298 2.2 and 2.3,
// alpha 1/8 and beta 1/4) and ends the backoff.
func (c *waitClass) sample(d time.Duration) {
	r := min(max(int64(d/time.Microsecond), 0), estMax)
	for {
		old := c.est.Load()
		var srtt, rttvar int64
		if old&estValid == 0 {
			srtt, rttvar = r, r/2
		} else {
			srtt, rttvar = int64(old>>32&estMax), int64(old&estMax)
			dev := srtt - r
			if dev < 0 {
				dev = -dev
			}
			rttvar = (3*rttvar + dev) / 4
			srtt = (7*srtt + r) / 8
		}
		nv := uint64(estValid) | uint64(srtt)<<32 | uint64(rttvar)
		if c.est.CompareAndSwap(old, nv) {
			break
		}
	}
	if c.backoff.Load() != 0 {
		c.backoff.Store(0)
	}
}

// begin and end bracket one wait of this class; end says whether it ended
// in progress, and how long it took. A wait that was cut (a stall, a
// cancelled request) teaches nothing: its true length is unknown, and a
// stall taken as a sample would teach that stalls are normal.
func (c *waitClass) begin() { c.all.waiting.Add(1) }

func (c *waitClass) end(since, now int64, progress bool) {
	c.all.waiting.Add(-1)
	if !progress {
		return
	}
	if c.kind == waitHeaders {
		raise(&c.all.answered, since)
	}
	d := time.Duration(now - since)
	if c.kind != waitHeaders && d < minGapSample {
		return
	}
	if c.kind != waitSend {
		raise(&c.served, since)
	}
	c.sample(d)
	if c.parent != nil {
		c.parent.sample(d)
	}
}

// raise sets v to t if t is later.
func raise(v *atomic.Int64, t int64) {
	for {
		old := v.Load()
		if old >= t || v.CompareAndSwap(old, t) {
			return
		}
	}
}

// waitLimits are one wait's bounds.
type waitLimits struct {
	// floor is the least the wait lasts, cap the most; cold is the wait
	// while nothing has been learnt (between the two).
	floor, cap, cold time.Duration
	// extra is added to the wait and its cap: the time an upload's server
	// may take to hash and store the body after its last byte.
	extra time.Duration
}

// wait is how long a wait of this class may last before it can be a stall,
// with the estimate it comes from (ok false: nothing learnt yet).
func (c *waitClass) wait(l waitLimits) (time.Duration, estimate) {
	return c.waitAt(l, c.backoff.Load())
}

// waitAt is wait after backoff doublings.
func (c *waitClass) waitAt(l waitLimits, backoff int32) (time.Duration, estimate) {
	e := c.estimate()
	if !e.ok && c.prior != nil {
		e = c.prior.estimate()
	}
	w := l.floor
	switch {
	case e.ok:
		w = max(w, stallMargin*(e.srtt+4*e.rttvar))
	default:
		w = max(w, l.cold)
	}
	for n := backoff; n > 0 && w < l.cap; n-- {
		w *= 2
	}
	return min(w, l.cap) + l.extra, e
}

// verdict is what a wait that reached a check point comes to: a stall
// (why says why), or another check after again.
type verdict struct {
	stall bool
	again time.Duration
	why   string
}

// decide judges a wait of this class that began at since and is still
// going at now (nanoseconds on one monotonic clock).
func (c *waitClass) decide(since, now int64, l waitLimits) verdict {
	elapsed := time.Duration(now - since)
	limit := l.cap + l.extra
	backoff := c.backoff.Load()
	w, e := c.waitAt(l, backoff)
	if elapsed >= limit {
		return verdict{stall: true, why: fmt.Sprintf("the most any wait lasts is %v", round(limit))}
	}
	if elapsed < w {
		return verdict{again: min(w-elapsed, l.floor+l.extra)}
	}
	pace := "this server has not answered one yet"
	if e.ok {
		pace = fmt.Sprintf("%s the %v this server has been taking", times(elapsed, e.srtt), round(e.srtt))
	}
	others := c.all.waiting.Load() > 1
	switch {
	case c.served.Load() > since:
		pace += "; later ones " + c.kind.overtaken()
	case c.all.answered.Load() > since:
		pace += "; requests sent after it were answered"
	case others:
		// Others wait too and none overtook this one: the server is
		// slow for all, not this connection dead.
		return verdict{again: min(l.floor+l.extra, limit-elapsed)}
	default:
		pace += "; nothing else was waiting"
	}
	// One doubling per wait exceeded: the stalls of many waits judged
	// at the same wait are one.
	if backoff < maxStallBackoff {
		c.backoff.CompareAndSwap(backoff, backoff+1)
	}
	return verdict{stall: true, why: pace}
}

func times(elapsed, typical time.Duration) string {
	if typical <= 0 {
		return "many times"
	}
	r := float64(elapsed) / float64(typical)
	if r < 10 {
		return fmt.Sprintf("%.1fx", r)
	}
	return fmt.Sprintf("%.0fx", r)
}

// round keeps a duration's message short: 12.3s, 130ms, 450µs.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	default:
		return d.Round(time.Microsecond)
	}
}

// stallWaits is one client's estimators and bounds.
type stallWaits struct {
	floor time.Duration
	start time.Time // the clock's zero
	// headers is every operation's response headers: the prior of an
	// operation not answered yet.
	headers    waitClass
	send, recv waitClass
	ops        sync.Map // operation name -> *waitClass; a bounded set
	all        waitTotals
}

func newStallWaits(floor time.Duration) *stallWaits {
	s := &stallWaits{floor: floor, start: time.Now()}
	s.headers = waitClass{kind: waitHeaders, all: &s.all}
	s.send = waitClass{kind: waitSend, all: &s.all, prior: &s.headers}
	s.recv = waitClass{kind: waitRecv, all: &s.all, prior: &s.headers}
	return s
}

// now is the monotonic clock the classes' times are on.
func (s *stallWaits) now() int64 { return int64(time.Since(s.start)) }

// op is the response-header class of an operation.
func (s *stallWaits) op(name string) *waitClass {
	if c, ok := s.ops.Load(name); ok {
		return c.(*waitClass)
	}
	c, _ := s.ops.LoadOrStore(name, &waitClass{kind: waitHeaders, all: &s.all, prior: &s.headers, parent: &s.headers})
	return c.(*waitClass)
}

// limits are the bounds of a wait whose floor is floor.
func (s *stallWaits) limits(floor, extra time.Duration) waitLimits {
	c := max(MaxStallWait, floor)
	return waitLimits{floor: floor, cap: c, cold: min(max(coldStallWait, floor), c), extra: extra}
}
