package main

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestGCPercentBoundsTheHeadroom(t *testing.T) {
	for _, tt := range []struct {
		live uint64
		want int
	}{
		{0, gcMaxPercent},
		{4 << 20, gcMaxPercent},   // a small heap: GOGC 400 as before
		{16 << 20, gcMaxPercent},  // a quarter of the headroom: still 400
		{32 << 20, 200},           // 64 MiB more
		{100 << 20, 64},           // 100 KiB bodies in flight: 64 MiB more
		{128 << 20, gcMinPercent}, // half of itself
		{1 << 30, gcMinPercent},   // never collected continuously
	} {
		if got := gcPercent(tt.live); got != tt.want {
			t.Errorf("gcPercent(%d MiB) = %d, want %d", tt.live>>20, got, tt.want)
		}
	}
}

// TestTuneGCRetunesAfterEachCollection holds a live heap of a known size
// across collections: the percentage set after them is the one for it.
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
	live := make([]byte, 48<<20)
	for i := range live {
		live[i] = byte(i)
	}
	want := gcPercent(48 << 20)
	got := 0
	for range 3 {
		runtime.GC()
		got = <-tuned
	}
	runtime.KeepAlive(live)
	// The test binary's own heap adds a little to the 48 MiB.
	if got > want || got < want-10 {
		t.Errorf("after collections with 48 MiB live, GOGC %d; want about %d", got, want)
	}
	if cur := debug.SetGCPercent(got); cur != got {
		t.Errorf("GOGC is %d, the tuner said it set %d", cur, got)
	}
}
