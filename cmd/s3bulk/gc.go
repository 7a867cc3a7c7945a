package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"time"
)

// The garbage collector's policy: the heap grows between collections as
// far as keeps the collector's CPU within a budget, and no further than a
// headroom that scales with what the collector must scan.
//
// A collection costs CPU in proportion to what it must mark, the heap that
// holds pointers, goroutine stacks and globals (scan); bodies hold none
// and cost next to nothing. A headroom H past the live heap is a
// collection every H bytes allocated, so a run that allocates R bytes a
// second and pays c CPU seconds a byte scanned spends
//
//	c · scan · R / H
//
// CPU seconds a second in the collector. The tuner measures c and R after
// every collection (the runtime's CPU classes and bytes allocated) and
// gives the heap the H that holds this at gcBudget, a fortieth of one CPU:
//
//	H = c · R · scan / gcBudget
//
// What a run is doing decides, not a fixed floor. A listing of millions of
// keys allocates 30-60 MB a second and holds 5 MiB, nearly all scanned: 4-6
// MiB of headroom, and its peak RSS stays where a listing of 10,000 keys
// has it (a fixed 64 MiB floor, or GOGC 400, let it grow by 30-50 MiB on
// the way to a million keys). Thousands of copies in flight (25-55 MiB of
// requests, connections and stacks, all scanned, 80-100 MB allocated a
// second) want far more than the bound below, and get the bound: GOGC 400,
// as when the bound was the whole policy (the collector's CPU on 20,000
// server-side copies at 130 ms was 250-290 ms a run at a fixed 64 MiB,
// 155-190 ms at GOGC 400).
//
// The bound is the policy before this one: gcScanFactor times scan (GOGC
// 400 of a heap that is all pointers: a fixed GOGC 400 once cut the
// client's CPU per copied object by about a fifth on 5,000 small copies),
// at least gcHeadroom and at most gcMaxHeadroom past the live heap. Bodies
// in flight (up to --max-buffer of them) thus never get five times
// themselves: GOGC 400 of a heap of 100 KiB bodies held 450-660 MiB, and
// a copy streamed between endpoints (about 90 MiB live, 25 MiB scanned)
// gets 64 MiB at most. The percentage is never above gcMaxPercent nor
// below gcMinPercent, so that a large live heap is collected every half of
// itself rather than continuously, as a hard memory limit below it would;
// the headroom is never below gcMinHeadroom.
//
// The measurements are made robust to a busy machine, on which a
// collection descheduled halfway can take ten times the CPU of the next
// (the runtime counts a processor's time, not the thread's), and a peak of
// memory is made by one such collection: c is the least of the last
// gcMarkWindow collections (others' load only ever slows a collection
// down) that scanned at least half of what the heap holds now, and of
// gcMarkPrior, about what marking a byte costs, until gcMarkWindow
// collections have been measured or the heap has doubled; R is the
// median of the last gcRecent. The first gcWarmup collections measure the
// process's start, not its run, and are not counted; until a measurement,
// GOGC is gcStartPercent, which has the first collection at 8 MiB (a
// listing of 10,000 keys ends before it). GOGC in the environment turns
// all this off; GOMEMLIMIT still caps it.
const (
	gcBudget       = 0.025
	gcScanFactor   = 5
	gcMinHeadroom  = 4 << 20
	gcHeadroom     = 64 << 20
	gcMaxHeadroom  = 192 << 20
	gcMaxPercent   = 400
	gcMinPercent   = 50
	gcStartPercent = 200
	gcWarmup       = 1
	gcMarkWindow   = 8
	gcRecent       = 3
	gcMarkPrior    = 1e-9
)

// heapStats is what the last collection found: the live heap, the bytes
// it scanned (heap that holds pointers, stacks and globals) and of those
// the roots (stacks and globals), which GOGC counts with the live heap.
type heapStats struct{ live, scan, roots uint64 }

// gcAccount is the runtime's account so far, as of the end of the last
// collection: the collector's CPU seconds, the bytes allocated and the
// collections finished; and when it was read, since the tuner started.
type gcAccount struct {
	gc             float64
	allocs, cycles uint64
	at             time.Duration
}

// gcTuner follows what collections cost and how fast the program
// allocates.
type gcTuner struct {
	last     gcAccount
	measured int      // collections measured, counting the warm-up
	marks    []gcMark // latest collections, oldest first
	rates    []float64
}

// gcMark is what marking a byte cost one collection (CPU seconds), and
// how many bytes it scanned.
type gcMark struct {
	cost float64
	scan uint64
}

// observe takes the account read after a collection that found h.
func (t *gcTuner) observe(a gcAccount, h heapStats) {
	d := gcAccount{gc: a.gc - t.last.gc, allocs: a.allocs - t.last.allocs, cycles: a.cycles - t.last.cycles, at: a.at - t.last.at}
	t.last = a
	if d.cycles == 0 || d.gc <= 0 || d.at <= 0 || h.scan == 0 {
		return
	}
	if t.measured++; t.measured <= gcWarmup {
		return
	}
	if t.marks == nil {
		// The prior stands for a collection of the heap first measured.
		t.marks = []gcMark{{gcMarkPrior, h.scan}}
	}
	t.marks = latest(t.marks, gcMark{d.gc / float64(d.cycles) / float64(h.scan), h.scan}, gcMarkWindow)
	t.rates = latest(t.rates, float64(d.allocs)/d.at.Seconds(), gcRecent)
}

// latest appends v to s, keeping the last n.
func latest[T any](s []T, v T, n int) []T {
	if len(s) == n {
		s = append(s[:0], s[1:]...)
	}
	return append(s, v)
}

// cost is c · R for a heap that scans scan bytes: the collector's CPU
// seconds a second for each byte it scans over each byte of headroom; 0
// before a measurement. c is the least of the recent collections' that
// scanned at least half of scan: a heap that has more than doubled holds
// something else (the stacks of thousands of goroutines in flight cost
// two or three times a listing's pages a byte), and only the collections
// of what it holds now say what it costs.
func (t *gcTuner) cost(scan uint64) float64 {
	if len(t.rates) == 0 {
		return 0
	}
	c := t.marks[len(t.marks)-1].cost
	for _, m := range t.marks {
		if 2*m.scan >= scan {
			c = min(c, m.cost)
		}
	}
	return c * median(t.rates)
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// gcPercent is the GOGC for the heap h at cost (0: not measured yet).
func gcPercent(h heapStats, cost float64) int {
	if h.live == 0 || cost <= 0 {
		return gcStartPercent
	}
	bound := min(max(gcScanFactor*h.scan, h.live+gcHeadroom), h.live+gcMaxHeadroom) - h.live
	want := cost * float64(h.scan) / gcBudget
	headroom := max(gcMinHeadroom, uint64(min(want, float64(bound))))
	return int(min(gcMaxPercent, max(gcMinPercent, headroom*100/(h.live+h.roots))))
}

// gcMetrics are the runtime metrics the tuner reads.
var gcMetrics = [...]string{
	"/gc/heap/live:bytes",
	"/gc/scan/heap:bytes",
	"/gc/scan/stack:bytes",
	"/gc/scan/globals:bytes",
	"/cpu/classes/gc/total:cpu-seconds",
	"/gc/heap/allocs:bytes",
	"/gc/cycles/total:gc-cycles",
}

// readGC reads s (samples of gcMetrics), false when the runtime does not
// have them.
func readGC(s []metrics.Sample) (heapStats, gcAccount, bool) {
	metrics.Read(s)
	var v [len(gcMetrics)]uint64
	var f [len(gcMetrics)]float64
	for i := range s {
		switch s[i].Value.Kind() {
		case metrics.KindUint64:
			v[i] = s[i].Value.Uint64()
		case metrics.KindFloat64:
			f[i] = s[i].Value.Float64()
		default:
			return heapStats{}, gcAccount{}, false
		}
	}
	roots := v[2] + v[3]
	return heapStats{live: v[0], scan: v[1] + roots, roots: roots},
		gcAccount{gc: f[4], allocs: v[5], cycles: v[6]}, true
}

// tuneGC sets GOGC now and again after every collection, from what that
// collection found and what the collections so far cost, and calls tuned
// (when not nil) with what each setting was made from. It runs on the
// runtime's cleanup goroutine: an object allocated for the purpose is
// garbage at once, and its cleanup, run once a collection has freed it,
// retunes and allocates the next one.
func tuneGC(tuned func(h heapStats, cost float64, percent int)) {
	s := make([]metrics.Sample, len(gcMetrics))
	for i, name := range gcMetrics {
		s[i].Name = name
	}
	start := time.Now()
	var t gcTuner
	var retune func(int)
	retune = func(int) {
		if h, a, ok := readGC(s); ok {
			a.at = time.Since(start)
			t.observe(a, h)
			cost := t.cost(h.scan)
			p := gcPercent(h, cost)
			debug.SetGCPercent(p)
			if tuned != nil {
				tuned(h, cost, p)
			}
		}
		runtime.AddCleanup(new(gcCycle), retune, 0)
	}
	retune(0)
}

// gcCycle is the object whose collection marks the end of a GC cycle. A
// pointer keeps it out of the tiny allocator, whose blocks are freed
// together.
type gcCycle struct{ _ *int }
