package limiter

import "time"

// The search for the number of requests in flight (docs/design/0003).
//
// Throughput of small requests is requests in flight / latency (Little's
// law) until something saturates: the server's CPU, a link, or the
// server's request rate per prefix, which it enforces with 503 SlowDown. A
// searching Limiter measures completed requests per second in windows of
// about one round trip and moves its limit:
//
//   - grow: from the start, the limit doubles while two windows in a row
//     rose by at least SearchGrowGain over the best so far and latency
//     stayed within SearchLatencyRise of the latency at the best limit (most
//     requests slower says the server, or this machine, is saturated);
//     otherwise it settles on the limit that gave the best rate.
//   - settled: every SearchProbeEvery windows it tries a quarter more; two
//     windows with a gain of SearchGain take it back to growing, anything
//     less back to where it was. Latency alone never shrinks the limit: on
//     a shared machine it rises with everyone's load, and more requests in
//     flight than a saturated server needs cost latency, not throughput.
//   - throttled: a window in which a fraction f of the attempts was
//     throttled ends with the limit at (1-f) x SearchMargin of itself, the
//     rate the server accepted with a margin; then it grows additively, a
//     sixteenth a window, until the next throttle or a latency rise (AIMD).
//
// The window after any change is not judged: its requests started under the
// old limit.
const (
	// SearchGrowGain is the rise in rate a doubled limit must bring, in two
	// windows in a row, for the search to double again: a network-bound
	// doubling brings twice the rate, a saturated one nothing.
	SearchGrowGain = 1.25
	// SearchGain is the rise in rate a probe (a quarter more) must bring,
	// in two windows in a row, to be kept.
	SearchGain = 1.10
	// SearchLatencyRise is how far most requests' latency may rise over the
	// latency at the best limit before the server (or the link) counts as
	// saturated. Doubling the requests in flight on a saturated server
	// doubles their latency; on a busy machine latency rises somewhat with
	// load while the rate still does too.
	SearchLatencyRise = 2
	// SearchProbeEvery is the number of settled windows between probes.
	SearchProbeEvery = 16
	// SearchMargin is the share of the accepted rate a throttled window
	// keeps.
	SearchMargin = 0.95
)

type phase int

const (
	phaseGrow phase = iota
	phaseSettled
	phaseProbe
	phaseAvoid
)

var phaseNames = [...]string{"grow", "settled", "probe", "avoid"}

func (p phase) String() string { return phaseNames[p] }

// search is the state of a searching Limiter, guarded by its mu.
type search struct {
	phase phase
	// warmup is set when the limit just changed: the next window is not
	// judged, except for throttles after an increase (they answer it).
	warmup    bool
	decreased bool // the last change was a decrease

	// The current window.
	start     time.Time
	started   bool
	ok        int
	throttles int
	latency   time.Duration // sum over ok
	slow      int           // ok slower than SearchLatencyRise x baseLatency
	demand    bool          // some Acquire waited or took the last slot

	baseLatency time.Duration // mean of the last window that set best
	best        float64       // requests/s of the best window at bestLimit
	bestLimit   int
	settled     int // windows since settling
	probeFrom   int // the limit a probe started from
	wins        int // windows in a row that beat best (growth needs two)
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
		l.search = &search{bestLimit: start, warmup: true}
	}
	return l
}

// Phase names the search's phase ("grow", "settled", "probe", "avoid"), or
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
	s.begin(l.now())
	s.ok++
	s.latency += latency
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
}

// judge ends a window and moves the limit. Called with mu held.
func (l *Limiter) judge() {
	s := l.search
	now := l.now()
	limit := int(l.limit.Load())
	elapsed := now.Sub(s.start).Seconds()
	n := s.ok + s.throttles
	judged := (!s.warmup || (s.throttles > 0 && !s.decreased)) && elapsed > 0 && n > 0
	rate := float64(s.ok) / elapsed
	var mean time.Duration
	if s.ok > 0 {
		mean = s.latency / time.Duration(s.ok)
	}
	next := limit
	if judged {
		// Most requests slower, not the mean: requests that waited out a
		// retry are a few slow ones.
		risen := s.baseLatency > 0 && 2*s.slow > s.ok
		switch {
		case s.throttles > 0:
			f := float64(s.throttles) / float64(n)
			next = int(float64(limit) * (1 - f) * SearchMargin)
			s.phase = phaseAvoid
			s.best, s.bestLimit = 0, 0
		case !s.demand:
			// An idle limit says nothing about its throughput.
		case s.phase == phaseGrow:
			switch {
			case s.bestLimit == 0 || s.best == 0:
				// The first judged window: the rate to beat.
				s.best, s.bestLimit, s.baseLatency = rate, limit, mean
				next = 2 * limit
			case rate >= s.best*SearchGrowGain && !risen:
				// Twice in a row, so that one lucky window on a busy
				// machine does not double the limit.
				if s.wins++; s.wins >= 2 {
					s.best, s.bestLimit, s.baseLatency = rate, limit, mean
					next, s.wins = 2*limit, 0
				}
			default:
				next, s.wins = s.bestLimit, 0
				s.phase, s.settled = phaseSettled, 0
			}
			if next >= l.ceiling && next != limit {
				s.phase, s.settled = phaseSettled, 0
			}
		case s.phase == phaseProbe:
			switch {
			case rate >= s.best*SearchGain && !risen:
				if s.wins++; s.wins >= 2 {
					s.best, s.bestLimit, s.baseLatency = rate, limit, mean
					next, s.wins = 2*limit, 0
					s.phase = phaseGrow
				}
			default:
				next, s.wins = s.probeFrom, 0
				s.phase, s.settled = phaseSettled, 0
			}
		case s.phase == phaseAvoid && risen:
			s.phase, s.settled = phaseSettled, 0
		case s.phase == phaseAvoid:
			next = limit + max(1, limit/16)
			if rate > s.best {
				s.best, s.bestLimit, s.baseLatency = rate, limit, mean
			}
		case s.phase == phaseSettled:
			// What the settled limit gives, smoothed: a probe must beat
			// its usual rate, not its luckiest window.
			if s.bestLimit != limit || s.best == 0 {
				s.best, s.bestLimit, s.baseLatency = rate, limit, mean
			} else {
				s.best, s.baseLatency = (s.best+rate)/2, (s.baseLatency+mean)/2
			}
			s.settled++
			if s.settled >= SearchProbeEvery && limit < l.ceiling {
				s.probeFrom = limit
				next = limit + max(1, limit/4)
				s.phase = phaseProbe
			}
		}
	}
	next = min(max(next, l.floor), l.ceiling)
	s.warmup, s.decreased = next != limit, next < limit
	if s.warmup {
		l.limit.Store(int64(next))
		l.grant()
	}
	s.start, s.ok, s.throttles, s.latency, s.slow = now, 0, 0, 0, 0
	s.demand = l.inFlight.Load() >= l.limit.Load() || l.waiters.n > 0
}
