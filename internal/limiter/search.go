package limiter

import (
	"math"
	"slices"
	"time"
)

// The search for the number of requests in flight (docs/design/0004).
//
// Throughput of small requests is requests in flight / latency (Little's
// law) until something saturates: the server's CPU, a link, or the
// server's request rate per prefix, which it enforces with 503 SlowDown. A
// searching Limiter measures completed requests per second in windows of
// about one round trip and moves its limit:
//
//   - grow: from the better of the first two windows, the limit doubles
//     once two windows rose by at least SearchGrowGain over the best so
//     far with latency within SearchLatencyRise of the latency at the best
//     limit (most requests slower says the server, or this machine, is
//     saturated), or at once after one window that rose by SearchJumpGain;
//     two windows that did not, whichever two come first, either keep the
//     new limit and try the next doubling, when their windows averaged
//     SearchGain over the best, or settle it on the limit before.
//   - settled: after SearchProbeFirst windows, then after twice as many
//     each time up to SearchProbeEvery, it tries a quarter more; two
//     windows with a gain of SearchGain over the upper quartile of the settled
//     windows take it back to growing, two without back to where it was.
//     Latency alone never shrinks the limit on a link: on a shared
//     machine it rises with everyone's load. But where the settled
//     windows' latency is SearchKneeQueue times the start's first round
//     trips and the limit SearchKneeRoom times what the rate needs
//     without a queue, the requests queue in the server, and the probe
//     tries fewer instead (a quarter fewer, half when the queue is deep),
//     kept when two windows lost less than 1-SearchKneeKeep of the rate:
//     past its knee a server's rate stays, its memory and CPU per
//     request do not. A probe down that was kept tries fewer again at
//     once while the requests still queue, and the growth never doubles
//     a limit whose requests queue so: where the start's windows (or a
//     doubling's) already queue in the server, it probes down from them
//     instead, so that a run of a few seconds reaches the knee in its
//     first second rather than after the settled windows.
//   - throttled (hold): a window in which a share f of the attempts was
//     throttled drops the limit at once to (1-f) x limit, what the
//     server accepted (never below half). The first throttle says the
//     limit is too many, and by how much: a token bucket (S3's rate per
//     prefix) takes a burst before it throttles, so a doubling past its
//     rate is seen only at the next one, at twice the rate. The limit
//     that meets the server's rate is the rate it accepted in that
//     window (its successes over the span of their answers) times the
//     latency before anything was throttled; the search holds at
//     SearchHold of it (docs/design/0014), at once (never below a
//     quarter of the limit), and from then on at SearchHold of the
//     limit that was throttled, growing back to that hold by a
//     sixteenth a window after a cut. Every so many windows at the hold
//     (SearchHoldProbeFirst, doubling after each throttled probe up to
//     SearchHoldProbeEvery) it probes a small step higher
//     (SearchHoldStep); a probe that held out is the new hold, and past
//     the limit that was throttled the steps double (and the waits
//     halve), so that room that opened is found again, then settled
//     above SearchHoldStepMax. Throttles at or below the hold (a burst
//     of requests after a stall of this process, or a server that takes
//     less now) move it only when over its last windows they were more
//     than SearchHoldTolerance of the attempts, or when most of those
//     windows were throttled: a hold a few percent above the server's
//     rate throttles that share window after window, and goes down by
//     that share and a probe's step. Retries of throttled
//     requests answer the cut before them: the throttles of the
//     SearchHoldEcho windows after a cut are not news.
//
// The run's first window (its requests all started at once) is not judged
// by its rate, but it says whether anything queued them: when all but the
// fastest twentieth of its latencies are at least SearchOpenSpread of
// their median, no server or link was saturated by the start's requests in
// flight (a queue of n requests at a capacity of c a second spreads their
// latencies over n/c, from the round trip up), and the limit doubles at
// once, the rate to beat then being limit / mean latency.
//
// A window's rate is never taken above limit / its mean latency (Little's
// law again): answers that piled up while this process stalled make a
// burst, not a faster server. The window after any change is not judged:
// its requests started under the old limit.
const (
	// SearchGrowGain is the rise in rate a doubled limit must bring, in two
	// windows in a row, for the search to double again: a network-bound
	// doubling brings twice the rate, a saturated one nothing.
	SearchGrowGain = 1.25
	// SearchJumpGain is the rise in rate that doubles the limit again
	// after one window: most of the twice a network-bound doubling brings.
	SearchJumpGain = 1.6
	// SearchGain is the rise in rate a probe (a quarter more) must bring,
	// in two windows in a row, to be kept.
	SearchGain = 1.10
	// SearchLatencyRise is how far most requests' latency may rise over the
	// latency at the best limit before the server (or the link) counts as
	// saturated. Doubling the requests in flight on a saturated server
	// doubles their latency; on a busy machine latency rises somewhat with
	// load while the rate still does too.
	SearchLatencyRise = 2
	// SearchProbeEvery is the most settled windows between probes. The
	// first probe after settling comes after SearchProbeFirst windows,
	// and each probe that fails doubles the wait up to SearchProbeEvery:
	// a growth that a stall of this process ended is resumed soon, a
	// saturated server is probed ever more rarely.
	SearchProbeEvery = 16
	// SearchProbeFirst is the number of settled windows before the first
	// probe.
	SearchProbeFirst = 4
	// SearchHold is the share of the throttled limit the search holds to
	// after a throttle: far enough below the server's rate that a stall
	// of this process or a round trip slower for a while does not
	// throttle it again, near enough to lose no more than a tenth of the
	// rate. (Growing back by a sixteenth a window instead, as before,
	// met the next SlowDown within a second, window after window.)
	SearchHold = 0.9
	// SearchHoldStep is the first probe above the hold, a share of the
	// limit: at the rate a server throttles at, a step of 1/32 costs at
	// most a thirtieth of a window's requests in SlowDowns.
	SearchHoldStep = 1.0 / 32
	// SearchHoldStepMax is the largest step of the probes above the hold;
	// once one such step held out the search is settled again, probing
	// by its rates.
	SearchHoldStepMax = 1.0 / 4
	// SearchHoldProbeFirst is the number of windows at the hold before
	// the first probe, SearchHoldProbeEvery the most between probes
	// (each throttle doubles the wait) and SearchHoldProbeLeast the
	// fewest (each probe that held out past the remembered point halves
	// it).
	SearchHoldProbeFirst = 16
	SearchHoldProbeEvery = 64
	SearchHoldProbeLeast = 4
	// SearchHoldEcho is the number of windows after a throttled window
	// was acted on (the window after the cut, not judged, and the next)
	// whose throttles are taken as its echo (the retries of its
	// throttled requests, a first one waiting up to 250 ms), not as news.
	SearchHoldEcho = 3
	// SearchHoldTolerance is the share of the attempts at the hold, over
	// its last searchHoldWindows windows, that may be throttled before
	// the hold counts as too many: the burst of requests after a stall
	// of this process is throttled wherever the hold is near the
	// server's rate (1-3% of the attempts, simulated, at stalls of 150
	// ms every 2 s; at a tolerance of 2% the hold ratcheted down by a
	// tenth at a time, to 3,000/s and below), a server that takes less
	// throttles a larger share window after window.
	SearchHoldTolerance = 0.05
	// SearchEarly is the share of the limit in throttles that ends a
	// window at once, once a quarter of its attempts are in: the
	// requests sent in the rest of it would be throttled as much (a
	// doubling far past a server's rate).
	SearchEarly = 1.0 / 8
	// SearchKneeQueue is how many times the start's first round trips a
	// settled window's mean latency must be for the search to try fewer
	// requests in flight: a server on this machine saturated at 64 in
	// flight answers the start's first requests in 1-2 ms and its 256 in
	// about 100; a network-bound one in the round trip. SearchKneeRoom is
	// how many times what the rate needs without a queue (rate x round
	// trip) the lower limit must still be, SearchKneeKeep the share of
	// the rate a probe down must keep.
	SearchKneeQueue = 4
	SearchKneeRoom  = 2
	SearchKneeKeep  = 0.95
	// SearchDescentQueue is how many times the fastest answers seen (the
	// least of the windows' 5th percentiles of latency) a window's mean
	// latency must be for the search to go down from the start when the
	// start's requests queued (its first window failed SearchOpenSpread),
	// and to go down again after a probe down that kept the rate. A
	// server that works on all its requests at once spreads even the
	// start's first answers over its queue: they are no measure of the
	// link (0.4 of the mean latency behind 30 ms at 256 in flight, where
	// the knee is near 96), but the fastest answers of the windows that
	// follow are. Each step goes to SearchKneeRoom times what the rate
	// needs at those latencies, at most half, as a congestion window of
	// twice the bandwidth-delay product does; it is kept unless the rate
	// fell below SearchDescentKeep of the best (a server warming up in a
	// run's first second moves its rate by more than the SearchKneeKeep
	// a settled probe must keep). docs/design/0016-knee-early.md.
	SearchDescentQueue = 2
	SearchDescentKeep  = 0.85
	// SearchOpenSpread is the least share of the first window's median
	// latency that its 5th percentile must be for the search to double
	// the start at once (a percentile: one request of the start, such as
	// a check answered without a round trip, may take no time). Behind a
	// round trip rtt, a server of capacity c requests a second spreads the
	// start's n requests over n/c, so that at 256 requests and 130 ms it
	// takes a server of 2,500 a second or more (1.3 times the start's
	// 1,969) to pass; one saturated on this machine is far below (a few
	// ms against a queue of 256: 0.01, and 0.3-0.5 behind 30 ms), while
	// this client's own burst of the start's requests spreads them less
	// (0.73-0.87 at 130 ms on the busy test machine).
	SearchOpenSpread = 0.75
)

// searchRecent is the number of settled windows whose upper quartile of
// rates a probe must beat.
const searchRecent = 9

// searchHoldWindows is the number of windows at the hold whose throttles
// are weighed against SearchHoldTolerance.
const searchHoldWindows = 16

type phase int

const (
	phaseGrow phase = iota
	phaseSettled
	phaseProbe
	phaseHold
)

var phaseNames = [...]string{"grow", "settled", "probe", "hold"}

func (p phase) String() string { return phaseNames[p] }

// search is the state of a searching Limiter, guarded by its mu.
type search struct {
	phase phase
	// warmup is set when the limit just changed: the next window is not
	// judged, except for throttles after an increase (they answer it).
	warmup bool
	// opening is set during the run's first window. lats holds the
	// current window's latencies.
	opening   bool
	lats      []time.Duration
	decreased bool // the last change was a decrease

	// The current window.
	start     time.Time
	first     time.Time // the window's first report
	started   bool
	ok        int
	throttles int
	latency   time.Duration // sum over ok
	slow      int           // ok slower than SearchLatencyRise x baseLatency
	demand    bool          // some Acquire waited or took the last slot

	baseLatency time.Duration // mean of the last window that set best
	best        float64       // requests/s of the best window at bestLimit
	bestLimit   int
	baseOne     bool      // growing from a first judged window, a second to come
	winRate     float64   // the rate of the first win at this limit
	settled     int       // windows since settling
	recent      []float64 // the rates of the last settled windows, oldest first
	probeFrom   int       // the limit a probe started from
	probeEvery  int       // settled windows before the next probe
	// Judged windows since the limit changed that beat best, and that did
	// not: growing (or keeping a probe) takes two wins, settling two
	// losses, whichever comes first.
	wins, losses int
	sum          float64 // of the rates of those windows, while growing

	// After a throttle: the limit the server last throttled, the limit
	// held to, the step of the next probe above it, whether a throttle
	// at the hold was seen since the last probe, and the windows since
	// the last decrease.
	throttledAt, held int
	step              float64
	// roundTrip is the start's first answers' latency, before anything
	// queued; down is set while a probe tries fewer requests in flight.
	roundTrip time.Duration
	down      bool
	// queuedStart is set when the start's requests queued (its first
	// window failed SearchOpenSpread); descent is set while a probe down
	// of the descent is judged.
	queuedStart bool
	descent     bool
	// lowest is the least of the windows' fastest answers' latencies
	// (window.low, over windows of 20 answers or more): the round trip
	// with the least queue seen, as TCP keeps its least round trip.
	lowest time.Duration
	// downAt is when a probe down last lowered the limit; before is set
	// when the window holds an answer to a request started before then.
	downAt     time.Time
	before     bool
	sinceCut   int      // windows since the last throttle acted on
	recentHold [][2]int // attempts and throttles of the last windows at the hold
}

// NewSearching returns a limiter whose limit starts at start and is found by
// measuring, between floor and ceiling (see the package documentation and
// docs/design/0003). Requests must report Completed (with their latency)
// rather than Succeeded, and throttles through Throttled. The bounds are
// clamped as New does, start into floor..ceiling.
func NewSearching(start, ceiling, floor int, opts ...Option) *Limiter {
	l := New(ceiling, floor, opts...)
	start = min(max(start, l.floor), l.ceiling)
	l.limit.Store(int64(start))
	if start < l.ceiling {
		// The first window starts with the first report, when all of the
		// first requests end at once: it is not judged.
		l.search = &search{bestLimit: start, warmup: true, opening: true, sinceCut: SearchHoldEcho,
			recent: make([]float64, 0, searchRecent), recentHold: make([][2]int, 0, searchHoldWindows)}
	}
	return l
}

// Phase names the search's phase ("grow", "settled", "probe", "hold"), or
// "fixed" for a limiter that does not search.
func (l *Limiter) Phase() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.search == nil {
		return "fixed"
	}
	return l.search.phase.String()
}

// Completed reports a request that succeeded after latency (its whole time
// in flight, retries included). A limiter that does not search counts it as
// Succeeded.
func (l *Limiter) Completed(latency time.Duration) {
	if l.search == nil {
		l.Succeeded()
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.search
	now := l.now()
	s.begin(now)
	s.lats = append(s.lats, latency)
	s.ok++
	s.latency += latency
	if now.Add(-latency).Before(s.downAt) {
		// Sent before the last probe down (never, while downAt is zero).
		s.before = true
	}
	if s.baseLatency > 0 && float64(latency) > SearchLatencyRise*float64(s.baseLatency) {
		s.slow++
	}
	if s.ok+s.throttles >= int(l.limit.Load()) {
		l.judge()
	}
}

// begin starts the first window with the first report.
func (s *search) begin(now time.Time) {
	if !s.started {
		s.started, s.start = true, now
	}
	if s.ok+s.throttles == 0 {
		s.first = now
	}
}

// window is what one window measured.
type window struct {
	limit  int
	rate   float64       // successes a second, at most limit / mean (Little's law)
	mean   time.Duration // latency of the successes
	f      float64       // the share of the attempts throttled
	judged bool
	risen  bool // most successes slower than SearchLatencyRise x baseLatency
	// accepted is the successes a second over the span of the window's
	// answers, from the first to the last, at most limit / mean too: a
	// window's rate when the requests were not sent in step.
	accepted float64
	// low is the window's fastest answers' latency, its 5th percentile
	// (a percentile: one request, such as a check answered without a
	// round trip, may take no time).
	low time.Duration
}

// judge ends a window and moves the limit. Called with mu held.
func (l *Limiter) judge() {
	s := l.search
	now := l.now()
	w := s.measure(now, int(l.limit.Load()))
	next := w.limit
	if s.opening {
		next = s.open(w, l.ceiling)
	}
	if w.judged {
		switch {
		case s.throttles > 0:
			next = s.throttled(w, s.ok+s.throttles, s.throttles)
		case !s.demand:
			// An idle limit says nothing about its throughput.
		case s.phase == phaseGrow:
			next = s.grow(w, l.ceiling, l.floor)
		case s.phase == phaseProbe:
			next = s.probe(w, l.floor)
		case s.phase == phaseHold:
			next = s.hold(w, s.ok, l.ceiling)
		case s.phase == phaseSettled:
			next = s.settle(w, l.ceiling, l.floor)
		}
	}
	next = min(max(next, l.floor), l.ceiling)
	s.warmup, s.decreased = next != w.limit, next < w.limit
	if s.warmup {
		s.wins, s.losses, s.sum = 0, 0, 0
		l.limit.Store(int64(next))
		l.grant()
	}
	if s.sinceCut++; s.decreased {
		s.sinceCut = 0
	}
	if s.decreased && s.down {
		// A probe down: the requests in flight now started under the
		// higher limit, queued behind each other, and their answers
		// say nothing of the lower one (held to limit / their mean
		// latency, they would look like a loss). No window with one
		// of their answers is judged.
		s.downAt = now
	}
	s.start, s.ok, s.throttles, s.latency, s.slow, s.before = now, 0, 0, 0, 0, false
	s.lats = s.lats[:0]
	s.demand = l.inFlight.Load() >= l.limit.Load() || l.waiters.n > 0
}

// measure returns what the window ending now measured at limit.
func (s *search) measure(now time.Time, limit int) window {
	w := window{limit: limit}
	elapsed := now.Sub(s.start).Seconds()
	n := s.ok + s.throttles
	w.judged = (!s.warmup || (s.throttles > 0 && !s.decreased)) && !s.before && elapsed > 0 && n > 0
	if n > 0 {
		w.f = float64(s.throttles) / float64(n)
	}
	w.rate = float64(s.ok) / elapsed
	if len(s.lats) > 0 {
		slices.Sort(s.lats)
		w.low = s.lats[len(s.lats)/20]
		if len(s.lats) >= 20 && (s.lowest == 0 || w.low < s.lowest) {
			s.lowest = w.low
		}
	}
	if s.ok > 0 {
		w.mean = s.latency / time.Duration(s.ok)
		// Little's law: no more than limit requests in flight for mean
		// each. A window's own rate can be far above that when the
		// answers of a stalled moment (this process descheduled on a
		// busy machine, a GC pause) are taken in a burst: a window of
		// limit answers then lasts much less than a round trip.
		little := float64(limit) / w.mean.Seconds()
		w.rate = min(w.rate, little)
		w.accepted = little
		if span := now.Sub(s.first).Seconds(); span > 0 {
			w.accepted = min(little, float64(s.ok)/span)
		}
	}
	// Most requests slower, not the mean: requests that waited out a
	// retry are a few slow ones.
	w.risen = s.baseLatency > 0 && 2*s.slow > s.ok
	return w
}

// open judges the run's first window: when nothing queued the start's
// requests, a doubling can only bring more.
func (s *search) open(w window, ceiling int) int {
	s.opening = false
	opened := s.lats // sorted by measure
	if len(opened) > 0 {
		// The round trip before anything queued: the start's first
		// answers (a percentile, as below).
		s.roundTrip = opened[len(opened)/20]
	}
	if !s.demand || s.throttles > 0 || s.ok == 0 {
		return w.limit
	}
	if float64(opened[len(opened)/20]) < SearchOpenSpread*float64(opened[len(opened)/2]) {
		s.queuedStart = true
		return w.limit
	}
	// Judged against what the start would give in its steady state,
	// limit / mean latency.
	s.best, s.bestLimit, s.baseLatency = float64(w.limit)/w.mean.Seconds(), w.limit, w.mean
	next := 2 * w.limit
	if next >= ceiling {
		s.phase, s.settled = phaseSettled, 0
	}
	return next
}

// grow judges a window of the growth: doubling while the rate doubles.
func (s *search) grow(w window, ceiling, floor int) int {
	next := w.limit
	tried := false // a doubling tried after one that paid: judged, even at the ceiling
	switch {
	case s.bestLimit == 0 || s.best == 0 || s.baseOne:
		// The first two judged windows: the better one is the rate to
		// beat (the first may have caught a stall).
		if !s.baseOne || w.rate > s.best {
			s.best, s.bestLimit, s.baseLatency = w.rate, w.limit, w.mean
		}
		if s.baseOne = !s.baseOne; !s.baseOne {
			if down := s.kneeDown(w, floor, s.queuedStart); down > 0 {
				s.descent = true
				// The start's requests already queue in the server:
				// twice as many would queue twice as long.
				return s.probeDownFrom(w.limit, down)
			}
			next = 2 * w.limit
		}
	case w.rate >= s.best*SearchJumpGain && !w.risen:
		// Most of what the doubling could bring, in one window: no
		// burst fakes that, since the rate is held to limit / mean
		// latency. Waiting for a second window would cost a round trip
		// at every doubling.
		s.best, s.bestLimit, s.baseLatency = w.rate, w.limit, w.mean
		next = 2 * w.limit
	case w.rate >= s.best*SearchGrowGain && !w.risen:
		// Twice, so that one lucky window on a busy machine does not
		// double the limit; the better of the two is the rate to beat
		// next, so that a window slowed by a stall does not make the
		// next doubling look good.
		if s.wins++; s.wins >= 2 {
			s.best, s.bestLimit, s.baseLatency = max(w.rate, s.winRate), w.limit, w.mean
			next = 2 * w.limit
		} else {
			s.winRate = w.rate
		}
		s.sum += w.rate
	default:
		// Twice too, before two wins: one unlucky window (a stall of
		// this process) does not end the growth.
		s.sum += w.rate
		if s.losses++; s.losses < 2 {
			break
		}
		// A doubling whose windows, on average, beat the best by what a
		// probe must bring paid: it is kept, and the next doubling is
		// tried, as the rate still rose (at a knee softened by this
		// machine's stalls a doubling brings 10-30%, and the next one
		// again). One that did not settles on the limit that gave the
		// best rate.
		avg := s.sum / float64(s.wins+s.losses)
		switch {
		case avg < s.best*SearchGain || s.kneeStep(w, floor) > 0:
			// It did not pay, or what it seemed to bring came with a
			// queue in the server (a run's first seconds warming the
			// server up): the limit before it.
			next = s.bestLimit
			s.phase, s.settled = phaseSettled, 0
		case w.limit < ceiling:
			s.best, s.bestLimit, s.baseLatency = avg, w.limit, w.mean
			next, tried = min(2*w.limit, ceiling), true
		default:
			s.best, s.bestLimit, s.baseLatency = avg, w.limit, w.mean
			s.phase, s.settled = phaseSettled, 0
		}
	}
	if next >= ceiling && next != w.limit && !tried {
		s.phase, s.settled = phaseSettled, 0
	}
	return next
}

// probe judges a window of a probe of a quarter more from the settled
// limit: kept, and growing again, on two wins; back on two losses.
func (s *search) probe(w window, floor int) int {
	if s.down {
		return s.probeDown(w, floor)
	}
	if w.rate >= s.best*SearchGain && !w.risen {
		if s.wins++; s.wins >= 2 {
			s.best, s.bestLimit, s.baseLatency = w.rate, w.limit, w.mean
			s.phase, s.probeEvery = phaseGrow, SearchProbeFirst
			return 2 * w.limit
		}
		return w.limit
	}
	if s.losses++; s.losses >= 2 {
		s.phase, s.settled = phaseSettled, 0
		s.probeEvery = min(2*max(s.probeEvery, SearchProbeFirst), SearchProbeEvery)
		return s.probeFrom
	}
	return w.limit
}

// throttled judges a window in which the server throttled some of the
// attempts. The first throttle puts the limit at once at SearchHold of
// the requests in flight that the rate the server accepted needs at the
// latency before it (never below a quarter of the limit); after it the
// limit drops to the share the server accepted (never below half). A
// probe throttled, or throttles at the hold of more than
// SearchHoldTolerance of its attempts or in most of its windows, say the
// limit is too many, and the search holds below it.
func (s *search) throttled(w window, attempts, throttles int) int {
	if s.sinceCut < SearchHoldEcho {
		// Retries of the requests throttled before the last cut: they
		// answer that cut, not this limit.
		return w.limit
	}
	switch first := s.phase != phaseHold; {
	case first:
		at := w.limit
		if s.baseLatency > 0 {
			at = min(at, max(1, int(w.accepted*s.baseLatency.Seconds())))
		}
		s.throttledAt, s.held = at, int(SearchHold*float64(at))
		s.step, s.probeEvery = SearchHoldStep, SearchHoldProbeFirst
		s.recentHold = s.recentHold[:0]
		s.phase, s.settled = phaseHold, 0
		s.best, s.bestLimit = 0, 0
		return max(1, w.limit/4, s.held)
	case w.limit > s.held:
		// A probe above the hold: the hold stays, the probes come
		// later, in small steps again.
		if w.limit > s.throttledAt {
			s.held = max(s.held, int(SearchHold*float64(w.limit)))
		}
		s.throttledAt = w.limit
		s.step, s.probeEvery = SearchHoldStep, min(2*s.probeEvery, SearchHoldProbeEvery)
	default:
		// At the hold, or on the way back to it: a burst of requests
		// after a stall of this process (its answers taken at once,
		// its next requests sent at once) is throttled now and then;
		// a server that takes less throttles window after window.
		s.tally(attempts, throttles)
		t, a := s.holdTally()
		if len(s.recentHold) < searchHoldWindows/4 {
			// Too soon after the hold moved to weigh its throttles:
			// what the server accepted, for now.
			return max(1, w.limit/2, min(s.held, int((1-w.f)*float64(w.limit))))
		}
		share := float64(t) / float64(a)
		switch {
		case share > SearchHoldTolerance:
			s.throttledAt, s.held = w.limit, int(SearchHold*float64(w.limit))
		case s.holdThrottledOften():
			// About share above the server's rate: that much lower,
			// and a step of the probes more.
			s.throttledAt, s.held = w.limit, int((1-share-SearchHoldStep)*float64(w.limit))
		default:
			return w.limit
		}
		s.probeEvery = min(2*s.probeEvery, SearchHoldProbeEvery)
		s.step, s.recentHold = SearchHoldStep, s.recentHold[:0]
	}
	s.phase, s.settled = phaseHold, 0
	s.best, s.bestLimit = 0, 0
	return max(1, w.limit/2, min(s.held, int((1-w.f)*float64(w.limit))))
}

// tally records a window at the hold: its attempts and throttles.
func (s *search) tally(attempts, throttles int) {
	if len(s.recentHold) == searchHoldWindows {
		s.recentHold = append(s.recentHold[:0], s.recentHold[1:]...)
	}
	s.recentHold = append(s.recentHold, [2]int{attempts, throttles})
}

// holdThrottledOften reports whether most of the recent windows at the
// hold were throttled: a hold above the server's rate throttles its
// excess window after window, a stall of this process one window or two.
func (s *search) holdThrottledOften() bool {
	n := 0
	for _, c := range s.recentHold {
		if c[1] > 0 {
			n++
		}
	}
	return len(s.recentHold) >= searchHoldWindows/2 && 2*n > len(s.recentHold)
}

// holdTally returns the throttles and attempts of the recent windows at
// the hold.
func (s *search) holdTally() (throttles, attempts int) {
	for _, c := range s.recentHold {
		attempts, throttles = attempts+c[0], throttles+c[1]
	}
	return throttles, attempts
}

// hold judges a window without throttles after one: back to the hold
// quickly, then probes above it now and then.
func (s *search) hold(w window, attempts, ceiling int) int {
	if w.limit < s.held {
		s.tally(attempts, 0)
		return min(s.held, w.limit+max(1, w.limit/16))
	}
	if w.limit == s.held {
		s.tally(attempts, 0)
	}
	if s.settled++; s.settled < s.probeEvery {
		return w.limit
	}
	s.settled = 0
	if w.limit > s.held {
		// The last probe held out: it is the hold now. Past the limit
		// the server throttled, the room is unknown: larger steps,
		// sooner.
		s.held, s.recentHold = w.limit, s.recentHold[:0]
		if w.limit > s.throttledAt {
			s.throttledAt = w.limit
			if s.step >= SearchHoldStepMax {
				s.phase, s.best, s.probeEvery = phaseSettled, 0, SearchProbeFirst
				return w.limit
			}
			s.step = min(2*s.step, SearchHoldStepMax)
			s.probeEvery = max(s.probeEvery/2, SearchHoldProbeLeast)
		}
	}
	return min(ceiling, w.limit+max(1, int(float64(w.limit)*s.step)))
}

// probeDownFrom starts a probe down from limit to down, judged against
// the best rate so far.
func (s *search) probeDownFrom(limit, down int) int {
	s.probeFrom, s.phase, s.down = limit, phaseProbe, true
	return down
}

// probeDown judges a window of a probe below the settled limit: kept
// when two windows kept SearchKneeKeep of the rate, and fewer tried at
// once while the requests still queue (judged against the same rate, so
// that the steps down never add up to more than its loss); otherwise
// settled there, so that the next probe comes soon. Back on two windows
// that did not keep the rate.
func (s *search) probeDown(w window, floor int) int {
	keep := SearchKneeKeep
	if s.descent {
		keep = SearchDescentKeep
	}
	if w.rate >= s.best*keep {
		if s.wins++; s.wins >= 2 {
			if down := s.kneeDown(w, floor, true); down > 0 {
				s.descent = true
				return s.probeDownFrom(w.limit, down)
			}
			s.descent = false
			s.phase, s.settled, s.down, s.best = phaseSettled, 0, false, 0
			s.probeEvery = SearchProbeFirst
		}
		return w.limit
	}
	if s.losses++; s.losses >= 2 {
		s.phase, s.settled, s.down, s.descent = phaseSettled, 0, false, false
		s.probeEvery = min(2*max(s.probeEvery, SearchProbeFirst), SearchProbeEvery)
		return s.probeFrom
	}
	return w.limit
}

// kneeDown returns the limit a probe down from w tries, or 0: by the
// start's first round trips (kneeStep), or, with queued, by the fastest
// answers seen (descentStep).
func (s *search) kneeDown(w window, floor int, queued bool) int {
	if down := s.kneeStep(w, floor); down > 0 || !queued {
		return down
	}
	return s.descentStep(w, floor)
}

// kneeStep is 0011's probe down: where the requests queue in the server
// (latency SearchKneeQueue times the start's first round trips and more),
// a quarter fewer, half where the queue is four times as deep.
func (s *search) kneeStep(w window, floor int) int {
	rt := s.roundTrip
	if rt <= 0 || w.mean < SearchKneeQueue*rt {
		return 0
	}
	next := w.limit * 3 / 4
	if w.mean >= 4*SearchKneeQueue*rt {
		next = w.limit / 2
	}
	return roomFor(w, floor, rt, next)
}

// descentStep is 0016's: where the latency is SearchDescentQueue times the
// fastest answers seen and more, straight to the room the rate needs at
// them, never below half.
func (s *search) descentStep(w window, floor int) int {
	rt := s.lowest
	if rt <= 0 || w.mean < SearchDescentQueue*rt {
		return 0
	}
	return roomFor(w, floor, rt, max(w.limit/2, room(w, rt)))
}

// room is SearchKneeRoom times what w's rate needs without a queue at the
// round trip rt (rate x rt).
func room(w window, rt time.Duration) int {
	return int(math.Ceil(SearchKneeRoom * w.rate * rt.Seconds()))
}

// roomFor returns next when it is a step down that keeps the floor and
// that room, 0 otherwise.
func roomFor(w window, floor int, rt time.Duration, next int) int {
	if next < floor || next < room(w, rt) || next >= w.limit {
		return 0
	}
	return next
}

// settle judges a settled window, and starts a probe when it is time.
func (s *search) settle(w window, ceiling, floor int) int {
	// What the settled limit gives when nothing stalls: a probe must beat
	// the upper quartile of its last windows, neither its luckiest one
	// nor an average that stalls of this process pull down (a quarter of
	// the windows, on a busy machine).
	if s.bestLimit != w.limit || s.best == 0 {
		s.recent = s.recent[:0]
		s.best, s.bestLimit, s.baseLatency = w.rate, w.limit, w.mean
	} else {
		s.baseLatency = (s.baseLatency + w.mean) / 2
	}
	if len(s.recent) == cap(s.recent) {
		s.recent = append(s.recent[:0], s.recent[1:]...)
	}
	s.recent = append(s.recent, w.rate)
	s.best = upperQuartile(s.recent)
	s.settled++
	if s.settled < max(s.probeEvery, SearchProbeFirst) {
		return w.limit
	}
	if down := s.kneeDown(w, floor, true); down > 0 {
		// Past the knee: the rate stopped rising and the requests
		// queue in the server, costing its memory and CPU.
		return s.probeDownFrom(w.limit, down)
	}
	if w.limit < ceiling {
		s.probeFrom = w.limit
		s.phase = phaseProbe
		return w.limit + max(1, w.limit/4)
	}
	return w.limit
}

// upperQuartile returns the value that a quarter of v (not empty) is
// above, from a sorted copy.
func upperQuartile(v []float64) float64 {
	c := slices.Clone(v)
	slices.Sort(c)
	return c[(3*len(c))/4]
}
