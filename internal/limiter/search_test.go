package limiter

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// A simulated server, on the fake clock: serve is asked when a request
// arrives and says when its answer arrives and whether it is a SlowDown.
type server interface {
	serve(now time.Time) (done time.Time, throttled bool)
}

// network: every request takes the round trip, whatever the load.
type network struct{ rtt time.Duration }

func (s *network) serve(now time.Time) (time.Time, bool) { return now.Add(s.rtt), false }

// fifo: a server (or a link) that handles capacity(now) requests per second
// one after another, behind a round trip: requests above its capacity queue
// and their latency rises.
type fifo struct {
	rtt      time.Duration
	capacity func(now time.Time) float64
	free     time.Time
}

func (s *fifo) serve(now time.Time) (time.Time, bool) {
	start := now
	if s.free.After(start) {
		start = s.free
	}
	s.free = start.Add(time.Duration(float64(time.Second) / s.capacity(now)))
	return s.free.Add(s.rtt), false
}

// bucket: S3's rate per prefix: a token bucket of rate per second holding a
// tenth of a second's worth; a request without a token is a SlowDown after
// the same round trip.
type bucket struct {
	rtt    time.Duration
	rate   float64
	tokens float64
	last   time.Time
}

func (s *bucket) serve(now time.Time) (time.Time, bool) {
	capacity := s.rate / 10
	if s.last.IsZero() {
		s.tokens = capacity
	}
	s.tokens = math.Min(capacity, s.tokens+now.Sub(s.last).Seconds()*s.rate)
	s.last = now
	if s.tokens < 1 {
		return now.Add(s.rtt), true
	}
	s.tokens--
	return now.Add(s.rtt), false
}

// stalling: a busy machine in front of a server. Now and then this process
// is not scheduled for a while (other processes' builds and tests on two
// cores, a GC pause): answers due during a stall are taken at its end, in
// a burst. Stalls last length and start at random, every `every` on
// average; every answer's latency also varies by up to a fifth.
type stalling struct {
	server
	every, length time.Duration
	rng           *rand.Rand
	next, end     time.Time // the next stall
}

func (s *stalling) serve(now time.Time) (time.Time, bool) {
	done, thr := s.server.serve(now)
	done = now.Add(time.Duration(float64(done.Sub(now)) * (0.9 + 0.2*s.rng.Float64())))
	if s.next.IsZero() {
		s.schedule(now)
	}
	for !done.Before(s.end) {
		s.schedule(s.end)
	}
	if !done.Before(s.next) {
		done = s.end
	}
	return done, thr
}

func (s *stalling) schedule(after time.Time) {
	s.next = after.Add(time.Duration(s.rng.ExpFloat64() * float64(s.every)))
	s.end = s.next.Add(s.length)
}

// event is one answer arriving, or (retry) a throttled request being sent
// again.
type event struct {
	at        time.Time
	started   time.Time
	throttled bool
	retry     bool
	attempt   int // of a retry: the attempts before it
}

type events []event

func (e events) Len() int           { return len(e) }
func (e events) Less(i, j int) bool { return e[i].at.Before(e[j].at) }
func (e events) Swap(i, j int)      { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)        { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// run is what a simulation saw.
type run struct {
	done, attempts, throttled int
	elapsed                   time.Duration
	limits                    []int // after each change
}

func (r run) rate() float64 { return float64(r.done) / r.elapsed.Seconds() }

// sim drives a Limiter with endless demand against a server: as many
// requests as the limit allows are in flight; a SlowDown is reported and
// the request sent again after retryWait, holding its slot, as the SDK's
// retries do.
type sim struct {
	l         *Limiter
	c         *fakeClock
	srv       server
	retryWait time.Duration
	q         events
	// total, when above 0, is the run's number of requests: demand ends
	// once they were all started, and the run once they were all done.
	total, started int
	// backoff, when set, is the wait before the attempt after attempt
	// throttled ones, instead of retryWait.
	backoff func(attempt int) time.Duration
}

// more reports whether demand goes on.
func (s *sim) more() bool { return s.total == 0 || s.started < s.total }

// run simulates d of fake time and returns what happened after skip.
func (s *sim) run(d, skip time.Duration) run {
	begin := s.c.now()
	var r run
	counting := false
	var countFrom time.Time
	last := s.l.Limit()
	for s.c.now().Sub(begin) < d {
		for s.more() && s.l.tryAcquire() {
			s.started++
			at, thr := s.srv.serve(s.c.now())
			heap.Push(&s.q, event{at: at, started: s.c.now(), throttled: thr})
		}
		if s.q.Len() == 0 {
			break
		}
		e := heap.Pop(&s.q).(event)
		s.c.advance(e.at.Sub(s.c.now()))
		if !counting && s.c.now().Sub(begin) >= skip {
			counting, countFrom = true, s.c.now()
		}
		switch {
		case e.retry:
			at, thr := s.srv.serve(s.c.now())
			heap.Push(&s.q, event{at: at, started: e.started, throttled: thr, attempt: e.attempt})
			continue
		case e.throttled:
			s.l.Throttled()
			wait := s.retryWait
			if s.backoff != nil {
				wait = s.backoff(e.attempt + 1)
			}
			heap.Push(&s.q, event{at: s.c.now().Add(wait), started: e.started, retry: true, attempt: e.attempt + 1})
		default:
			s.l.Release()
			s.l.Completed(s.c.now().Sub(e.started))
		}
		if counting {
			r.attempts++
			if e.throttled {
				r.throttled++
			} else {
				r.done++
			}
		}
		if n := s.l.Limit(); n != last {
			r.limits = append(r.limits, n)
			last = n
		}
	}
	r.elapsed = s.c.now().Sub(countFrom)
	return r
}

func simulateRequests(l *Limiter, c *fakeClock, srv server, d, skip, retryWait time.Duration) run {
	return (&sim{l: l, c: c, srv: srv, retryWait: retryWait}).run(d, skip)
}

func newSearchLimiter(start, ceiling, floor int) (*Limiter, *fakeClock) {
	c := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	return NewSearching(start, ceiling, floor, WithClock(c.now)), c
}

const rtt = 130 * time.Millisecond

func TestSearchFindsTheRequestsInFlight(t *testing.T) {
	tests := []struct {
		name                string
		srv                 server
		wantMin, wantMax    int     // limit at the end
		wantRate            float64 // at least, requests/s after warm-up
		wantThrottledAtMost float64
	}{
		{
			name: "network bound: every request in flight adds its own rate, up to the ceiling",
			srv:  &network{rtt: rtt}, wantMin: 4096, wantMax: 4096, wantRate: 0.95 * 4096 / rtt.Seconds(),
		},
		{
			name:    "a server's CPU bound at 2,000/s: the start already saturates it, no growth",
			srv:     &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 2000 }},
			wantMin: 256, wantMax: 320, wantRate: 0.97 * 2000,
		},
		{
			name:    "a server bound at 6,000/s: grows to what it takes, not beyond",
			srv:     &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 6000 }},
			wantMin: 780, wantMax: 1300, wantRate: 0.95 * 6000,
		},
		{
			name:    "throttled above 3,500/s: settles under the rate with few SlowDowns",
			srv:     &bucket{rtt: rtt, rate: 3500},
			wantMin: 350, wantMax: 500, wantRate: 3000, wantThrottledAtMost: 0.05,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := newSearchLimiter(256, 4096, 16)
			r := simulateRequests(l, c, tt.srv, 30*time.Second, 10*time.Second, 500*time.Millisecond)
			if got := l.Limit(); got < tt.wantMin || got > tt.wantMax {
				t.Errorf("limit %d at the end, want %d to %d (changes: %v)", got, tt.wantMin, tt.wantMax, head(r.limits))
			}
			if got := r.rate(); got < tt.wantRate {
				t.Errorf("%.0f requests/s after warm-up, want at least %.0f (changes: %v)", got, tt.wantRate, head(r.limits))
			}
			if f := float64(r.throttled) / float64(r.attempts); f > tt.wantThrottledAtMost {
				t.Errorf("%.1f%% of attempts throttled, want at most %.1f%%", 100*f, 100*tt.wantThrottledAtMost)
			}
		})
	}
}

// A link shared with another transfer: the room halves while the other one
// runs and comes back when it ends. The search does not chase the lost
// rate with more requests in flight, and finds the room again.
func TestSearchFollowsASharedLink(t *testing.T) {
	l, c := newSearchLimiter(256, 4096, 16)
	begin := c.now()
	other := func(now time.Time) bool { d := now.Sub(begin); return d >= 20*time.Second && d < 40*time.Second }
	srv := &fifo{rtt: rtt, capacity: func(now time.Time) float64 {
		if other(now) {
			return 3000
		}
		return 6000
	}}
	s := &sim{l: l, c: c, srv: srv}
	alone := s.run(20*time.Second, 8*time.Second)
	aloneLimit := l.Limit()
	shared := s.run(20*time.Second, 8*time.Second)
	sharedLimit := l.Limit()
	again := s.run(30*time.Second, 15*time.Second)
	// A doubling that brings less than SearchGain settles on the limit
	// before it: up to a tenth of the rate may be left.
	if alone.rate() < 0.9*6000 || again.rate() < 0.9*6000 {
		t.Errorf("alone: %.0f and %.0f requests/s, want at least 5,400", alone.rate(), again.rate())
	}
	if shared.rate() < 0.95*3000 {
		t.Errorf("shared: %.0f requests/s, want at least 2,850", shared.rate())
	}
	// A probe (a quarter more) may be under way when the phase ends.
	if sharedLimit > aloneLimit+aloneLimit/4 {
		t.Errorf("limit %d alone, %d shared: want no growth while shared (changes: %v)", aloneLimit, sharedLimit, head(shared.limits))
	}
	if l.Limit() < int(0.9*6000*rtt.Seconds()) {
		t.Errorf("limit %d once alone again, want at least %d (changes: %v)", l.Limit(), int(0.9*6000*rtt.Seconds()), head(again.limits))
	}
}

func TestSearchStartsAtStartAndKeepsBounds(t *testing.T) {
	tests := []struct{ start, ceiling, floor, want int }{
		{256, 4096, 16, 256}, {8000, 4096, 16, 4096}, {1, 4096, 16, 16},
	}
	for _, tt := range tests {
		if got := NewSearching(tt.start, tt.ceiling, tt.floor).Limit(); got != tt.want {
			t.Errorf("NewSearching(%d, %d, %d).Limit() = %d, want %d", tt.start, tt.ceiling, tt.floor, got, tt.want)
		}
	}
	if p := NewSearching(64, 64, 1).Phase(); p != "fixed" {
		t.Errorf("a search starting at its ceiling is in phase %q, want fixed", p)
	}
	if p := New(64, 1).Phase(); p != "fixed" {
		t.Errorf("New's limiter is in phase %q, want fixed", p)
	}
}

// Demand below the limit says nothing about what more would give.
func TestSearchDoesNotGrowAnIdleLimit(t *testing.T) {
	l, c := newSearchLimiter(256, 4096, 16)
	for range 10_000 {
		if !l.tryAcquire() {
			t.Fatal("no slot with one request in flight")
		}
		c.advance(time.Millisecond)
		l.Release()
		l.Completed(time.Millisecond)
	}
	if l.Limit() != 256 {
		t.Errorf("limit %d after 10,000 requests one at a time, want 256", l.Limit())
	}
}

// head keeps messages short.
func head(limits []int) []int {
	if len(limits) > 40 {
		return limits[:40]
	}
	return limits
}

// On a busy machine this process stalls now and then (stalling), and one
// window in a few is bad or, right after a stall, a burst. The search still
// finds what the server gives and does not grow on a saturated one.
func TestSearchOnABusyMachine(t *testing.T) {
	tests := []struct {
		name                string
		srv                 func() server
		wantMin, wantMax    int     // limit at the end
		wantRate            float64 // at least, requests/s after warm-up
		wantThrottledAtMost float64
	}{
		{
			name: "network bound", srv: func() server { return &network{rtt: rtt} },
			wantMin: 2048, wantMax: 4096, wantRate: 0.75 * 4096 / rtt.Seconds(),
		},
		{
			name:    "a server's CPU bound at 2,000/s",
			srv:     func() server { return &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 2000 }} },
			wantMin: 256, wantMax: 640, wantRate: 0.85 * 2000,
		},
		{
			// Stalls leave a server at its knee (1,024) idle now and
			// then; 2,048 queues enough to hide them, and a search
			// that measured 10% more there keeps it (or probes a
			// quarter above it).
			name:    "a server bound at 6,000/s",
			srv:     func() server { return &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 6000 }} },
			wantMin: 780, wantMax: 2560, wantRate: 0.85 * 6000,
		},
		{
			name:    "throttled above 3,500/s",
			srv:     func() server { return &bucket{rtt: rtt, rate: 3500} },
			wantMin: 300, wantMax: 700, wantRate: 3000, wantThrottledAtMost: 0.05,
		},
	}
	for _, tt := range tests {
		for seed := range uint64(5) {
			t.Run(fmt.Sprintf("%s/seed %d", tt.name, seed), func(t *testing.T) {
				l, c := newSearchLimiter(256, 4096, 16)
				srv := &stalling{server: tt.srv(), every: 2 * time.Second, length: 150 * time.Millisecond, rng: rand.New(rand.NewPCG(seed, 1))}
				r := simulateRequests(l, c, srv, 30*time.Second, 10*time.Second, 500*time.Millisecond)
				if got := l.Limit(); got < tt.wantMin || got > tt.wantMax {
					t.Errorf("limit %d at the end, want %d to %d (changes: %v)", got, tt.wantMin, tt.wantMax, head(r.limits))
				}
				if got := r.rate(); got < tt.wantRate {
					t.Errorf("%.0f requests/s after warm-up, want at least %.0f (changes: %v)", got, tt.wantRate, head(r.limits))
				}
				if f := float64(r.throttled) / float64(r.attempts); f > tt.wantThrottledAtMost {
					t.Errorf("%.1f%% of attempts throttled, want at most %.1f%%", 100*f, 100*tt.wantThrottledAtMost)
				}
			})
		}
	}
}

// A run of 20,000 small copies lasts seconds: the search must find the room
// of a network-bound server in the first second or two, stalls or not. A
// doubling that doubles the rate doubles again after one window: at 130 ms
// a window is a round trip, and two windows at every step of 256 -> 4,096
// once cost a fifth of such a run.
func TestSearchGrowsFast(t *testing.T) {
	for seed := range uint64(5) {
		l, c := newSearchLimiter(256, 4096, 16)
		srv := &stalling{server: &network{rtt: rtt}, every: 2 * time.Second, length: 150 * time.Millisecond, rng: rand.New(rand.NewPCG(seed, 1))}
		s := &sim{l: l, c: c, srv: srv}
		r := s.run(1500*time.Millisecond, 0)
		if l.Limit() < 2048 {
			t.Errorf("seed %d: limit %d after 1.5 s, want at least 2,048 (changes: %v)", seed, l.Limit(), head(r.limits))
		}
		r = s.run(250*time.Millisecond, 0)
		if l.Limit() < 4096 {
			t.Errorf("seed %d: limit %d after 1.75 s, want the ceiling, 4,096 (changes: %v)", seed, l.Limit(), head(r.limits))
		}
	}
	l, c := newSearchLimiter(256, 4096, 16)
	r := simulateRequests(l, c, &network{rtt: rtt}, 1400*time.Millisecond, 0, 0)
	if l.Limit() < 4096 {
		t.Errorf("no stalls: limit %d after 1.4 s, want the ceiling, 4,096 (changes: %v)", l.Limit(), head(r.limits))
	}
}

// A doubling that brings more than a probe must (SearchGain) but less than
// another doubling needs (SearchGrowGain) is kept: the search settles on
// the limit that gave the better rate, not on the one before it. Here the
// doubling from 1,024 (7,900/s) to 2,048 brings 17%, about what the
// 20,000-copy benchmark saw when its client's CPU became the bound.
func TestSearchKeepsADoublingThatPays(t *testing.T) {
	l, c := newSearchLimiter(256, 4096, 16)
	s := &sim{l: l, c: c, srv: &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 9200 }}}
	// Until the doubling to 2,048, whenever the search gets there.
	for begin := c.now(); l.Limit() != 2048; s.run(10*time.Millisecond, 0) {
		if c.now().Sub(begin) > 2*time.Second {
			t.Fatalf("limit %d after 2 s, want the doubling to 2,048", l.Limit())
		}
	}
	r := s.run(2500*time.Millisecond, 0)
	if lowest := slices.Min(append(r.limits, l.Limit())); lowest < 2048 {
		t.Errorf("back to %d after the doubling to 2,048 that brought 17%% (changes: %v)", lowest, head(r.limits))
	}
	if r.rate() < 0.97*9200 {
		t.Errorf("%.0f requests/s in the 2.5 s after the doubling, want at least %.0f (changes: %v)", r.rate(), 0.97*9200, head(r.limits))
	}
}

// soft: a knee softened by queueing, as this machine's CPU is when client
// and server share it: past knee requests in flight every doubling still
// brings a seventh more (latency grows as in flight^0.8), so the rate keeps
// rising, by less than SearchGrowGain and more than SearchGain.
type soft struct {
	rtt  time.Duration
	knee int
	due  []time.Time // answers still to come, as a heap
}

func (s *soft) serve(now time.Time) (time.Time, bool) {
	for len(s.due) > 0 && !s.due[0].After(now) {
		heap.Pop((*times)(&s.due))
	}
	d := s.rtt
	if n := len(s.due) + 1; n > s.knee {
		d = time.Duration(float64(s.rtt) * math.Pow(float64(n)/float64(s.knee), 0.8))
	}
	heap.Push((*times)(&s.due), now.Add(d))
	return now.Add(d), false
}

type times []time.Time

func (t times) Len() int           { return len(t) }
func (t times) Less(i, j int) bool { return t[i].Before(t[j]) }
func (t times) Swap(i, j int)      { t[i], t[j] = t[j], t[i] }
func (t *times) Push(x any)        { *t = append(*t, x.(time.Time)) }
func (t *times) Pop() any {
	old := *t
	x := old[len(old)-1]
	*t = old[:len(old)-1]
	return x
}

// A doubling that paid (its windows averaged SearchGain over the best, not
// SearchGrowGain) is kept and the next one tried: the rate still rose.
// Settling there would leave the rest to probes of a quarter more, which
// bring a fraction of a doubling's gain and do not pass SearchGain.
func TestSearchTriesTheNextDoublingAfterOneThatPaid(t *testing.T) {
	l, c := newSearchLimiter(256, 4096, 16)
	srv := &soft{rtt: rtt, knee: 1024}
	r := simulateRequests(l, c, srv, 10*time.Second, 5*time.Second, 0)
	if l.Limit() != 4096 {
		t.Errorf("limit %d at the end, want 4,096 (changes: %v)", l.Limit(), head(r.limits))
	}
	// At 4,096 in flight: 1,024 / 130 ms x 4^0.2.
	if want := 0.97 * 1024 / rtt.Seconds() * math.Pow(4, 0.2); r.rate() < want {
		t.Errorf("%.0f requests/s after 5 s, want at least %.0f (changes: %v)", r.rate(), want, head(r.limits))
	}
}

// The start's requests all start at once. When nothing queued them (their
// latencies, but for a few, about the mean) the start doubles after their window,
// without two windows more to measure it; when a server (or this machine)
// queued them, their latencies spread over the queue and the search
// measures the start as before.
func TestSearchDoublesTheStartAtOnceWhenNothingQueuedIt(t *testing.T) {
	tests := []struct {
		name string
		srv  server
		want int // the limit after the first window
	}{
		{"network bound", &network{rtt: rtt}, 512},
		{"network bound on a busy machine", &stalling{server: &network{rtt: rtt}, every: 2 * time.Second, length: 150 * time.Millisecond, rng: rand.New(rand.NewPCG(1, 1))}, 512},
		{"a server bound at 9,200/s, far above the start's 2,000/s", &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 9200 }}, 512},
		{"a server bound at 2,000/s: the start saturates it", &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 2000 }}, 256},
		{"network bound, one request of the start answered at once", &instantFirst{server: &network{rtt: rtt}}, 512},
		{"a server bound at 4,000/s behind 130 ms, twice the start's rate", &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 4000 }}, 512},
		{"a server bound at 2,400/s behind 130 ms: its queue shows", &fifo{rtt: rtt, capacity: func(time.Time) float64 { return 2400 }}, 256},
		{"a local server bound at 3,000/s, 1 ms away", &fifo{rtt: time.Millisecond, capacity: func(time.Time) float64 { return 3000 }}, 256},
		{"a local server bound at 3,000/s behind 30 ms", &fifo{rtt: 30 * time.Millisecond, capacity: func(time.Time) float64 { return 3000 }}, 256},
		{"a local server bound at 20,000/s, 1 ms away", &fifo{rtt: time.Millisecond, capacity: func(time.Time) float64 { return 20000 }}, 256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := newSearchLimiter(256, 4096, 16)
			s := &sim{l: l, c: c, srv: tt.srv}
			var r run
			for begin := c.now(); l.search.opening && c.now().Sub(begin) < time.Second; {
				r = s.run(time.Millisecond, 0)
			}
			if l.search.opening || l.Limit() != tt.want {
				t.Errorf("limit %d after the first window, want %d (changes: %v)", l.Limit(), tt.want, head(r.limits))
			}
		})
	}
}

// instantFirst answers its first request at once, as a client's cached
// check would, and the others as server does.
type instantFirst struct {
	server
	served bool
}

func (s *instantFirst) serve(now time.Time) (time.Time, bool) {
	if !s.served {
		s.served = true
		return now, false
	}
	return s.server.serve(now)
}

// sdkBackoff waits as the stores' retries of a throttled request do: full
// jitter up to 250 ms, doubling with each attempt.
func sdkBackoff(rng *rand.Rand) func(attempt int) time.Duration {
	return func(attempt int) time.Duration {
		return time.Duration(rng.Float64() * float64(250*time.Millisecond<<min(attempt-1, 6)))
	}
}

// startAndAfter counts the SlowDowns a server answered to requests that
// arrived before after (the start), and the attempts and SlowDowns from
// then on.
type startAndAfter struct {
	server
	after           time.Duration
	begin           time.Time
	startSlows      int
	attempts, slows int
}

func (s *startAndAfter) serve(now time.Time) (time.Time, bool) {
	if s.begin.IsZero() {
		s.begin = now
	}
	done, thr := s.server.serve(now)
	switch {
	case now.Sub(s.begin) < s.after:
		if thr {
			s.startSlows++
		}
	default:
		s.attempts++
		if thr {
			s.slows++
		}
	}
	return done, thr
}

// spread: the answers of a real client's requests do not come back in
// step. Every answer takes its round trip and up to half of it more (the
// scheduling of a client with hundreds of requests in flight, the
// server's). The start then ramps as it does against the simulated
// region: the answers of one window arrive over half a round trip, the
// requests that replace them go out as spread, and a doubling meets a
// server's token bucket a few windows late instead of at once.
type spread struct {
	server
	rng *rand.Rand
}

func (s *spread) serve(now time.Time) (time.Time, bool) {
	done, thr := s.server.serve(now)
	return now.Add(time.Duration(float64(done.Sub(now)) * (1 + 0.5*s.rng.Float64()))), thr
}

// A whole run against S3's 3,500 writes a second, from its first request:
// the first throttle is where the search stops, not where a sawtooth
// begins, and the start does not pay for the doubling that crossed the
// server's rate with a second of SlowDowns. Answers in step (no spread)
// meet the token bucket at the first doubling past its rate; spread, as
// real ones are, they pass one doubling more unseen (the bucket's tenth
// of a second absorbs it), and the throttles of that doubling are the
// start's SlowDowns (docs/design/0014).
func TestSearchHoldsBelowAThrottle(t *testing.T) {
	tests := []struct {
		name  string
		srv   func(seed uint64) server
		total int
		// at least, requests/s over the whole run; at most, the share
		// of the run's attempts throttled, in the whole run, in its
		// first two seconds, and the share of the attempts after them
		wantRate, wantThrottled, wantThrottledStart, wantThrottledLater float64
	}{
		{
			name:     "30,000 requests",
			srv:      func(uint64) server { return &bucket{rtt: rtt, rate: 3500} },
			total:    30_000,
			wantRate: 3300, wantThrottled: 0.012, wantThrottledStart: 0.01, wantThrottledLater: 0.005,
		},
		{
			name: "30,000 requests, answers spread",
			srv: func(seed uint64) server {
				return &spread{server: &bucket{rtt: rtt, rate: 3500}, rng: rand.New(rand.NewPCG(seed, 1))}
			},
			total:    30_000,
			wantRate: 3300, wantThrottled: 0.02, wantThrottledStart: 0.015, wantThrottledLater: 0.01,
		},
		{
			name:     "100,000 requests",
			srv:      func(uint64) server { return &bucket{rtt: rtt, rate: 3500} },
			total:    100_000,
			wantRate: 3400, wantThrottled: 0.008, wantThrottledStart: 0.003, wantThrottledLater: 0.006,
		},
		{
			name: "100,000 requests, answers spread",
			srv: func(seed uint64) server {
				return &spread{server: &bucket{rtt: rtt, rate: 3500}, rng: rand.New(rand.NewPCG(seed, 1))}
			},
			total:    100_000,
			wantRate: 3300, wantThrottled: 0.01, wantThrottledStart: 0.005, wantThrottledLater: 0.008,
		},
		{
			// Each stall's backlog goes out at once, and a burst above
			// the bucket's tenth of a second is throttled at any limit
			// near the rate: these SlowDowns are the machine's.
			name: "30,000 requests on a busy machine",
			srv: func(seed uint64) server {
				return &stalling{server: &bucket{rtt: rtt, rate: 3500}, every: 2 * time.Second, length: 150 * time.Millisecond, rng: rand.New(rand.NewPCG(seed, 1))}
			},
			total:    30_000,
			wantRate: 3000, wantThrottled: 0.03, wantThrottledStart: 0.015, wantThrottledLater: 0.03,
		},
	}
	for _, tt := range tests {
		for seed := range uint64(5) {
			t.Run(fmt.Sprintf("%s/seed %d", tt.name, seed), func(t *testing.T) {
				l, c := newSearchLimiter(256, 4096, 16)
				srv := &startAndAfter{server: tt.srv(seed), after: 2 * time.Second}
				s := &sim{l: l, c: c, srv: srv, total: tt.total, backoff: sdkBackoff(rand.New(rand.NewPCG(seed, 7)))}
				r := s.run(time.Minute, 0)
				if r.done != tt.total {
					t.Fatalf("%d of %d requests done in a minute", r.done, tt.total)
				}
				if got := r.rate(); got < tt.wantRate {
					t.Errorf("%.0f requests/s over the run, want at least %.0f (changes: %v)", got, tt.wantRate, head(r.limits))
				}
				if f := float64(r.throttled) / float64(r.attempts); f > tt.wantThrottled {
					t.Errorf("%.2f%% of the run's attempts throttled, want at most %.2f%% (changes: %v)", 100*f, 100*tt.wantThrottled, head(r.limits))
				}
				if f := float64(srv.startSlows) / float64(r.attempts); f > tt.wantThrottledStart {
					t.Errorf("%d SlowDowns in the first 2 s, %.2f%% of the run's attempts, want at most %.2f%% (changes: %v)", srv.startSlows, 100*f, 100*tt.wantThrottledStart, head(r.limits))
				}
				if f := float64(srv.slows) / float64(srv.attempts); f > tt.wantThrottledLater {
					t.Errorf("%.2f%% of the attempts after the first 2 s throttled, want at most %.2f%% (changes: %v)", 100*f, 100*tt.wantThrottledLater, head(r.limits))
				}
			})
		}
	}
}

// A server on the same machine saturates at a few dozen requests in
// flight: more only queue in it, costing its memory and CPU for nothing.
// Once settled, the search tries fewer while the start's first round
// trips say the requests queue, and keeps fewer that lose no rate.
func TestSearchSettlesAtTheKneeOfASaturatedServer(t *testing.T) {
	tests := []struct {
		name     string
		rtt      time.Duration
		capacity float64
		wantMax  int // limit at the end, at most
	}{
		{"a local server of 1,000 copies/s, 1 ms away", time.Millisecond, 1000, 64},
		{"the same behind 10 ms", 10 * time.Millisecond, 1000, 96},
		{"the same behind 30 ms", 30 * time.Millisecond, 1000, 160},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := newSearchLimiter(256, 4096, 16)
			srv := &fifo{rtt: tt.rtt, capacity: func(time.Time) float64 { return tt.capacity }}
			r := simulateRequests(l, c, srv, 20*time.Second, 5*time.Second, 0)
			// Settled, it probes a quarter more now and then and comes
			// back: where it comes back to is where it settled.
			last := append(r.limits, l.Limit())
			if got := slices.Min(last[max(0, len(last)-4):]); got > tt.wantMax {
				t.Errorf("settled at %d, want at most %d (changes: %v)", got, tt.wantMax, head(r.limits))
			}
			if peak := slices.Max(append(r.limits, 256)); peak > 256 {
				t.Errorf("went up to %d from a start of 256 whose requests queued (changes: %v)", peak, head(r.limits))
			}
			if got := r.rate(); got < 0.95*tt.capacity {
				t.Errorf("%.0f requests/s after 5 s, want at least %.0f (changes: %v)", got, 0.95*tt.capacity, head(r.limits))
			}
		})
	}
}

// shared: a server that works on all its requests at once, as the local
// server does, rather than one after another: each request's latency is
// the round trip and its share of the queue, (n - capacity x rtt) /
// capacity for n in flight, spread from a fifth to 1.8 times that, so that
// even the start's first answers come late (the local server's first
// answers, 256 at once behind 30 ms, came at 0.4 of the mean). n is the
// limiter's limit: the runs below keep it full.
type shared struct {
	rtt      time.Duration
	capacity float64
	l        *Limiter
	rng      *rand.Rand
}

func (s *shared) serve(now time.Time) (time.Time, bool) {
	queue := max(0, float64(s.l.Limit())-s.capacity*s.rtt.Seconds()) / s.capacity
	u := 0.2 + 1.6*s.rng.Float64()
	return now.Add(s.rtt + time.Duration(u*queue*float64(time.Second))), false
}

// A run of a few seconds against a saturated server (5,000 copies on the
// local server, 5 s) ends before a settled search would probe down: the
// start's queue already says the server is the bound, so the search goes
// down from the start at once, step after step while its requests still
// queue, and is at or near the knee 2 s into the run. Against a server
// that shares itself among its requests the start's first round trips do
// not show the queue (they wait in it too), but a start whose requests
// queued and the spread of the answers after it do.
func TestSearchReachesTheKneeEarlyInAShortRun(t *testing.T) {
	const capacity = 1000
	fifoAt := func(rtt time.Duration) func(*Limiter) server {
		return func(*Limiter) server { return &fifo{rtt: rtt, capacity: func(time.Time) float64 { return capacity }} }
	}
	sharedAt := func(rtt time.Duration) func(*Limiter) server {
		return func(l *Limiter) server {
			return &shared{rtt: rtt, capacity: capacity, l: l, rng: rand.New(rand.NewPCG(1, 2))}
		}
	}
	tests := []struct {
		name    string
		srv     func(*Limiter) server
		wantMax int // the limit 2 s into the run, at most
		wantEnd int // and at its end, 0 for no bound (shared: its knee is 3.3 x capacity x rtt, at least the floor)
	}{
		{"one after another, 1 ms away", fifoAt(time.Millisecond), 96, 0},
		{"one after another, behind 10 ms", fifoAt(10 * time.Millisecond), 144, 0},
		{"one after another, behind 30 ms", fifoAt(30 * time.Millisecond), 192, 0},
		{"shared, 1 ms away", sharedAt(time.Millisecond), 96, 32},
		{"shared, behind 10 ms", sharedAt(10 * time.Millisecond), 128, 64},
		{"shared, behind 30 ms", sharedAt(30 * time.Millisecond), 160, 128},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := newSearchLimiter(256, 4096, 16)
			begin := c.now()
			s := &sim{l: l, c: c, srv: tt.srv(l), total: 5000}
			early := s.run(2*time.Second, 0)
			if got := l.Limit(); got > tt.wantMax {
				t.Errorf("limit %d 2 s into the run, want at most %d (changes: %v)", got, tt.wantMax, head(early.limits))
			}
			rest := s.run(time.Minute, 0)
			all := append(early.limits, rest.limits...)
			if peak := slices.Max(append(all, 256)); peak > 256 {
				t.Errorf("went up to %d from a start of 256 whose requests queued (changes: %v)", peak, head(all))
			}
			if got := l.Limit(); tt.wantEnd > 0 && got > tt.wantEnd {
				t.Errorf("limit %d at the end, want at most %d (changes: %v)", got, tt.wantEnd, head(all))
			}
			if took, ideal := c.now().Sub(begin), 5000*time.Second/capacity; took > ideal*106/100 {
				t.Errorf("5,000 requests took %v at %d/s, want at most 6%% over %v (changes: %v)", took, capacity, ideal, head(all))
			}
		})
	}
}
