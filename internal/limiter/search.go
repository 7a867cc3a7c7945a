package limiter

import (
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
//     Latency alone never shrinks the limit: on a shared machine it rises
//     with everyone's load, and more requests in flight than a saturated
//     server needs cost latency, not throughput.
//   - throttled: a window in which a fraction f of the attempts was
//     throttled ends with the limit at (1-f) x SearchMargin of itself, the
//     rate the server accepted with a margin; then it grows additively, a
//     sixteenth a window, until the next throttle or a latency rise (AIMD).
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
	// SearchMargin is the share of the accepted rate a throttled window
	// keeps.
	SearchMargin = 0.95
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
	warmup bool
	// opening is set during the run's first window, whose latencies are
	// kept in opened.
	opening   bool
	opened    []time.Duration
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
		l.search = &search{bestLimit: start, warmup: true, opening: true, recent: make([]float64, 0, searchRecent)}
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
	if s.opening {
		s.opened = append(s.opened, latency)
	}
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
		// Little's law: no more than limit requests in flight for mean
		// each. A window's own rate can be far above that when the
		// answers of a stalled moment (this process descheduled on a
		// busy machine, a GC pause) are taken in a burst: a window of
		// limit answers then lasts much less than a round trip.
		if little := float64(limit) / mean.Seconds(); little < rate {
			rate = little
		}
	}
	next := limit
	if s.opening {
		s.opening = false
		opened := s.opened
		s.opened = nil
		slices.Sort(opened)
		if s.demand && s.throttles == 0 && s.ok > 0 && float64(opened[len(opened)/20]) >= SearchOpenSpread*float64(opened[len(opened)/2]) {
			// Nothing queued the start's requests: a doubling can only
			// bring more. Judged against what the start would give in
			// its steady state, limit / mean latency.
			s.best, s.bestLimit, s.baseLatency = float64(limit)/mean.Seconds(), limit, mean
			if next = 2 * limit; next >= l.ceiling {
				s.phase, s.settled = phaseSettled, 0
			}
		}
	}
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
			tried := false // a doubling tried after one that paid: judged, even at the ceiling
			switch {
			case s.bestLimit == 0 || s.best == 0 || s.baseOne:
				// The first two judged windows: the better one is the
				// rate to beat (the first may have caught a stall).
				if !s.baseOne || rate > s.best {
					s.best, s.bestLimit, s.baseLatency = rate, limit, mean
				}
				if s.baseOne = !s.baseOne; !s.baseOne {
					next = 2 * limit
				}
			case rate >= s.best*SearchJumpGain && !risen:
				// Most of what the doubling could bring, in one
				// window: no burst fakes that, since the rate is held
				// to limit / mean latency above. Waiting for a second
				// window would cost a round trip at every doubling.
				s.best, s.bestLimit, s.baseLatency = rate, limit, mean
				next = 2 * limit
			case rate >= s.best*SearchGrowGain && !risen:
				// Twice, so that one lucky window on a busy machine
				// does not double the limit; the better of the two is
				// the rate to beat next, so that a window slowed by a
				// stall does not make the next doubling look good.
				if s.wins++; s.wins >= 2 {
					s.best, s.bestLimit, s.baseLatency = max(rate, s.winRate), limit, mean
					next = 2 * limit
				} else {
					s.winRate = rate
				}
				s.sum += rate
			default:
				// Twice too, before two wins: one unlucky window (a
				// stall of this process) does not end the growth.
				s.sum += rate
				if s.losses++; s.losses >= 2 {
					// A doubling whose windows, on average, beat the
					// best by what a probe must bring paid: it is kept,
					// and the next doubling is tried, as the rate still
					// rose (at a knee softened by this machine's
					// stalls a doubling brings 10-30%, and the next
					// one again). One that did not settles on the
					// limit that gave the best rate.
					if avg := s.sum / float64(s.wins+s.losses); avg >= s.best*SearchGain {
						s.best, s.bestLimit, s.baseLatency = avg, limit, mean
						if limit < l.ceiling {
							next, tried = min(2*limit, l.ceiling), true
						} else {
							s.phase, s.settled = phaseSettled, 0
						}
					} else {
						next = s.bestLimit
						s.phase, s.settled = phaseSettled, 0
					}
				}
			}
			if next >= l.ceiling && next != limit && !tried {
				s.phase, s.settled = phaseSettled, 0
			}
		case s.phase == phaseProbe:
			switch {
			case rate >= s.best*SearchGain && !risen:
				if s.wins++; s.wins >= 2 {
					s.best, s.bestLimit, s.baseLatency = rate, limit, mean
					next = 2 * limit
					s.phase, s.probeEvery = phaseGrow, SearchProbeFirst
				}
			default:
				if s.losses++; s.losses >= 2 {
					next = s.probeFrom
					s.phase, s.settled = phaseSettled, 0
					s.probeEvery = min(2*max(s.probeEvery, SearchProbeFirst), SearchProbeEvery)
				}
			}
		case s.phase == phaseAvoid && risen:
			s.phase, s.settled = phaseSettled, 0
		case s.phase == phaseAvoid:
			next = limit + max(1, limit/16)
			if rate > s.best {
				s.best, s.bestLimit, s.baseLatency = rate, limit, mean
			}
		case s.phase == phaseSettled:
			// What the settled limit gives when nothing stalls: a probe
			// must beat the upper quartile of its last windows, neither
			// its luckiest one nor an average that stalls of this
			// process pull down (a quarter of the windows, on a busy
			// machine).
			if s.bestLimit != limit || s.best == 0 {
				s.recent = s.recent[:0]
				s.best, s.bestLimit, s.baseLatency = rate, limit, mean
			} else {
				s.baseLatency = (s.baseLatency + mean) / 2
			}
			if len(s.recent) == cap(s.recent) {
				s.recent = append(s.recent[:0], s.recent[1:]...)
			}
			s.recent = append(s.recent, rate)
			s.best = upperQuartile(s.recent)
			s.settled++
			if s.settled >= max(s.probeEvery, SearchProbeFirst) && limit < l.ceiling {
				s.probeFrom = limit
				next = limit + max(1, limit/4)
				s.phase = phaseProbe
			}
		}
	}
	next = min(max(next, l.floor), l.ceiling)
	s.warmup, s.decreased = next != limit, next < limit
	if s.warmup {
		s.wins, s.losses, s.sum = 0, 0, 0
		l.limit.Store(int64(next))
		l.grant()
	}
	s.start, s.ok, s.throttles, s.latency, s.slow = now, 0, 0, 0, 0
	s.demand = l.inFlight.Load() >= l.limit.Load() || l.waiters.n > 0
}

// upperQuartile returns the value that a quarter of v (not empty) is
// above, from a sorted copy.
func upperQuartile(v []float64) float64 {
	c := slices.Clone(v)
	slices.Sort(c)
	return c[(3*len(c))/4]
}
