package main

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestGCPercentScalesWithWhatIsScanned(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		name string
		h    heapStats
		want int
	}{
		{"nothing yet", heapStats{}, gcMaxPercent},
		{"a small heap: GOGC 400 as before", heapStats{live: 4 * mib, scan: 4 * mib, roots: 1 * mib}, gcMaxPercent},
		{"a fifth of the headroom: still 400", heapStats{live: 12 * mib, scan: 8 * mib, roots: 2 * mib}, gcMaxPercent},
		// Server-side copies in flight: requests, connections and their
		// goroutines' stacks, all scanned. 64 MiB more would be GOGC 152.
		{"1,000 copies in flight: GOGC 400 as before", heapStats{live: 30 * mib, scan: 40 * mib, roots: 12 * mib}, gcMaxPercent},
		{"4,000 copies in flight: 192 MiB more", heapStats{live: 60 * mib, scan: 90 * mib, roots: 30 * mib}, 213},
		// Bodies are not scanned: they get the 64 MiB, not five times themselves.
		{"100 KiB bodies in flight: 64 MiB more", heapStats{live: 100 * mib, scan: 25 * mib, roots: 8 * mib}, 59},
		{"more bodies: half of itself", heapStats{live: 128 * mib, scan: 20 * mib, roots: 8 * mib}, gcMinPercent},
		{"never collected continuously", heapStats{live: 1 << 30, scan: 1 << 30, roots: 8 * mib}, gcMinPercent},
	} {
		if got := gcPercent(tt.h); got != tt.want {
			t.Errorf("%s: gcPercent(%d MiB live, %d scanned, %d roots) = %d, want %d",
				tt.name, tt.h.live/mib, tt.h.scan/mib, tt.h.roots/mib, got, tt.want)
		}
	}
}

// TestTuneGCRetunesAfterEachCollection holds a live heap of a known size
// and kind across collections: the percentage set after them is the one
// for it. Bytes are not scanned and get the bounded headroom; as many
// bytes of pointers get five times themselves.
func TestTuneGCRetunesAfterEachCollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tuned := make(chan int, 16)
	tuneGC(func(p int) {
		select {
		case tuned <- p:
		default:
		}
	})
	<-tuned // set at once, before any collection
	settle := func() int {
		got := 0
		for range 3 {
			runtime.GC()
			got = <-tuned
		}
		return got
	}

	bodies := make([]byte, 48<<20)
	for i := range bodies {
		bodies[i] = byte(i)
	}
	want := gcPercent(heapStats{live: 48 << 20})
	got := settle()
	runtime.KeepAlive(bodies)
	bodies = nil
	// The test binary's own heap and stacks add a little to the 48 MiB.
	if got > want || got < want-10 {
		t.Errorf("after collections with 48 MiB of bytes live, GOGC %d; want about %d", got, want)
	}

	pointers := make([]*int, 6<<20) // 48 MiB, all of it scanned
	want = gcPercent(heapStats{live: 48 << 20, scan: 48 << 20})
	got = settle()
	runtime.KeepAlive(pointers)
	// The test binary's own heap and stacks count here too.
	if want != gcMaxPercent || got < want-want/10 {
		t.Errorf("after collections with 48 MiB of pointers live, GOGC %d; want about %d", got, want)
	}
	if cur := debug.SetGCPercent(got); cur != got {
		t.Errorf("GOGC is %d, the tuner said it set %d", cur, got)
	}
}
