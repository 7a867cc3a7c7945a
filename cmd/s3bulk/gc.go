package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The garbage collector's policy: a headroom that scales with what the
// collector must scan, bounded.
//
// Each request s3bulk sends leaves short-lived garbage, and collecting less
// often saves CPU: a fixed GOGC of 400 once cut the client's CPU per copied
// object by about a fifth on 5,000 small copies. But GOGC is a multiple of
// the live heap, and the live heap of a copy streamed through the client
// is mostly the bodies in flight (up to --max-buffer of them): GOGC 400
// let the process hold five times those, 450-660 MiB for 100 KiB objects.
//
// What a collection costs is the marking of what it must scan: the heap
// that holds pointers, goroutine stacks and globals. Bodies hold none and
// cost next to nothing to mark, so they need no headroom of their own;
// requests, connections and the goroutines that wait on them are all
// pointers. So the heap may grow to gcScanFactor times the bytes the last
// collection scanned (GOGC 400 of a heap that is all pointers, as before),
// but at least gcHeadroom and at most gcMaxHeadroom past what it found
// live, as a percentage recomputed after every collection and never below
// gcMinPercent, so that a large live heap (a listing of millions of keys,
// a full --max-buffer) is collected every half of itself rather than
// continuously, as a hard memory limit below it would.
//
// Measured on 20,000 server-side copies at 130 ms a request (1,000-4,000
// requests in flight, a live heap of 25-55 MiB nearly all scanned), a
// fixed 64 MiB headroom (GOGC about 150) spent 250-290 ms of CPU a run in
// the collector against 110-190 ms for GOGC 400; this policy 155-190 ms.
// A copy streamed between endpoints (about 90 MiB live, 25 MiB scanned)
// keeps the 64 MiB, and its peak RSS (183 MiB); 2,000 copies in flight
// stay near 250 MiB, where GOGC 400 took 320. GOGC in the environment
// turns this off; GOMEMLIMIT still caps it.
const (
	gcScanFactor  = 5
	gcHeadroom    = 64 << 20
	gcMaxHeadroom = 192 << 20
	gcMaxPercent  = 400
	gcMinPercent  = 50
)

// heapStats is what the last collection found: the live heap, the bytes
// it scanned (heap that holds pointers, stacks and globals) and of those
// the roots (stacks and globals), which GOGC counts with the live heap.
type heapStats struct{ live, scan, roots uint64 }

// gcPercent is the GOGC that lets the heap grow to gcScanFactor x scan,
// within gcHeadroom..gcMaxHeadroom past live, as a percentage within
// [gcMinPercent, gcMaxPercent].
func gcPercent(h heapStats) int {
	if h.live == 0 {
		return gcMaxPercent
	}
	goal := min(max(gcScanFactor*h.scan, h.live+gcHeadroom), h.live+gcMaxHeadroom)
	return int(min(gcMaxPercent, max(gcMinPercent, (goal-h.live)*100/(h.live+h.roots))))
}

// gcMetrics are the runtime metrics gcPercent is computed from.
var gcMetrics = [...]string{
	"/gc/heap/live:bytes",
	"/gc/scan/heap:bytes",
	"/gc/scan/stack:bytes",
	"/gc/scan/globals:bytes",
}

// readHeapStats reads s (samples of gcMetrics), false when the runtime
// does not have them.
func readHeapStats(s []metrics.Sample) (heapStats, bool) {
	metrics.Read(s)
	var v [len(gcMetrics)]uint64
	for i := range s {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return heapStats{}, false
		}
		v[i] = s[i].Value.Uint64()
	}
	roots := v[2] + v[3]
	return heapStats{live: v[0], scan: v[1] + roots, roots: roots}, true
}

// tuneGC sets GOGC now and again after every collection, from what that
// collection found, and calls tuned (when not nil) with each percentage
// set. It runs on the runtime's cleanup goroutine: an object allocated for
// the purpose is garbage at once, and its cleanup, run once a collection
// has freed it, retunes and allocates the next one.
func tuneGC(tuned func(percent int)) {
	s := make([]metrics.Sample, len(gcMetrics))
	for i, name := range gcMetrics {
		s[i].Name = name
	}
	var retune func(int)
	retune = func(int) {
		if h, ok := readHeapStats(s); ok {
			p := gcPercent(h)
			debug.SetGCPercent(p)
			if tuned != nil {
				tuned(p)
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
