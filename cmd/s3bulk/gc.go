package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The garbage collector's policy: a bounded headroom.
//
// Each request s3bulk sends leaves short-lived garbage, and collecting less
// often saves CPU: a fixed GOGC of 400 once cut the client's CPU per copied
// object by about a fifth on 5,000 small copies. But GOGC is a multiple of
// the live heap, and the live heap of a copy streamed through the client
// is mostly the bodies in flight (up to --max-buffer of them): GOGC 400
// let the process hold five times those, 450-660 MiB for 100 KiB objects.
//
// So the heap may grow past what the last collection found live by
// gcHeadroom, as a percentage recomputed after every collection: GOGC 400
// while the live heap is at most a quarter of the headroom (as before),
// less as it grows, and never below gcMinPercent, so that a large live
// heap (a listing of millions of keys, a full --max-buffer) is collected
// every half of itself rather than continuously, as a hard memory limit
// below it would. GOGC in the environment turns this off; GOMEMLIMIT
// still caps it.
const (
	gcHeadroom   = 64 << 20
	gcMaxPercent = 400
	gcMinPercent = 50
)

// gcPercent is the GOGC that lets a heap of live bytes grow by gcHeadroom,
// within [gcMinPercent, gcMaxPercent].
func gcPercent(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(min(gcMaxPercent, max(gcMinPercent, gcHeadroom*100/live)))
}

// tuneGC sets GOGC now and again after every collection, from the live
// heap that collection found, and calls tuned (when not nil) with each
// percentage set. It runs on the runtime's cleanup goroutine: an object
// allocated for the purpose is garbage at once, and its cleanup, run once
// a collection has freed it, retunes and allocates the next one.
func tuneGC(tuned func(percent int)) {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var retune func(int)
	retune = func(int) {
		metrics.Read(live)
		if live[0].Value.Kind() == metrics.KindUint64 {
			p := gcPercent(live[0].Value.Uint64())
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
