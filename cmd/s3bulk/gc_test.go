package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

const mib = 1 << 20

func TestGCPercentFollowsWhatCollectingCosts(t *testing.T) {
	for _, tt := range []struct {
		name string
		h    heapStats
		cost float64 // c · R: CPU seconds a byte scanned x bytes allocated a second
		want int
	}{
		{"nothing yet", heapStats{}, 0, gcStartPercent},
		{"not measured yet", heapStats{live: 5 * mib, scan: 5 * mib, roots: mib}, 0, gcStartPercent},
		// A listing: 5 MiB of pages and tasks, 40 MB/s allocated, 0.6 ns a
		// byte scanned: 4.8 MiB more, where the bound gives 20.
		{"a listing of millions of keys: a few MiB more", heapStats{live: 5 * mib, scan: 5 * mib, roots: mib}, 0.6e-9 * 40e6, 79},
		{"a listing that allocates slowly: the least headroom", heapStats{live: 5 * mib, scan: 5 * mib, roots: mib}, 0.01, 66},
		// Server-side copies in flight: requests, connections and their
		// goroutines' stacks, all scanned, 100 MB/s at 2 ns a byte: more
		// than the bound, which is GOGC 400 of them.
		{"1,000 copies in flight: GOGC 400 as before", heapStats{live: 30 * mib, scan: 40 * mib, roots: 12 * mib}, 0.2, gcMaxPercent},
		{"4,000 copies in flight: 192 MiB more", heapStats{live: 60 * mib, scan: 90 * mib, roots: 30 * mib}, 0.2, 213},
		{"copies in flight, measured cheaper: less than the bound", heapStats{live: 30 * mib, scan: 40 * mib, roots: 12 * mib}, 0.05, 190},
		// Bodies are not scanned: they get 64 MiB at most, never five
		// times themselves.
		{"100 KiB bodies in flight: 64 MiB more", heapStats{live: 100 * mib, scan: 25 * mib, roots: 8 * mib}, 0.2, 59},
		{"bodies, allocated slowly: half of themselves", heapStats{live: 100 * mib, scan: 25 * mib, roots: 8 * mib}, 0.02, gcMinPercent},
		{"more bodies: half of themselves", heapStats{live: 128 * mib, scan: 20 * mib, roots: 8 * mib}, 0.2, gcMinPercent},
		{"never collected continuously", heapStats{live: 1 << 30, scan: 1 << 30, roots: 8 * mib}, 1, gcMinPercent},
	} {
		if got := gcPercent(tt.h, tt.cost); got != tt.want {
			t.Errorf("%s: gcPercent(%d MiB live, %d scanned, %d roots; cost %.3g) = %d, want %d",
				tt.name, tt.h.live/mib, tt.h.scan/mib, tt.h.roots/mib, tt.cost, got, tt.want)
		}
	}
}

// collection is what the runtime accounts for between two collections.
type collection struct {
	gc     float64       // collector CPU seconds
	allocs uint64        // bytes allocated
	dt     time.Duration // wall time
	scan   uint64        // bytes the second one scanned
}

// feed has t observe each collection in turn and returns the cost after
// each.
func feed(t *gcTuner, cs ...collection) []float64 {
	var costs []float64
	a := t.last
	for _, c := range cs {
		a.gc += c.gc
		a.allocs += c.allocs
		a.cycles++
		a.at += c.dt
		t.observe(a, heapStats{live: c.scan, scan: c.scan})
		costs = append(costs, t.cost(c.scan))
	}
	return costs
}

func TestGCTunerMeasuresRobustly(t *testing.T) {
	// A listing's collection: 5 MiB scanned in 5 ms (about 1 ns a byte),
	// 40 MiB allocated a second.
	steady := collection{gc: 0.005, allocs: 4 * mib, dt: 100 * time.Millisecond, scan: 5 * mib}
	want := steady.gc / float64(steady.scan) * float64(steady.allocs) / steady.dt.Seconds()
	near := func(got, want float64) bool { return got > want*0.999 && got < want*1.001 }

	t.Run("the start of the process is not measured", func(t *testing.T) {
		var tu gcTuner
		costs := feed(&tu, steady, steady, steady)
		for i := range gcWarmup {
			if costs[i] != 0 {
				t.Errorf("cost after collection %d = %g, want 0 (warm-up)", i+1, costs[i])
			}
		}
		if !near(costs[gcWarmup], want) {
			t.Errorf("cost after the warm-up = %g, want %g", costs[gcWarmup], want)
		}
	})
	t.Run("slow collections at the start count no more than the prior", func(t *testing.T) {
		var tu gcTuner
		slow := steady
		slow.gc *= 10
		costs := feed(&tu, slow, slow, slow)
		prior := gcMarkPrior * float64(steady.allocs) / steady.dt.Seconds()
		if !near(costs[2], prior) {
			t.Errorf("cost after slow collections = %g, want %g", costs[2], prior)
		}
	})
	t.Run("a collection slowed by others' load changes nothing", func(t *testing.T) {
		var tu gcTuner
		slow := steady
		slow.gc *= 10
		costs := feed(&tu, steady, steady, steady, slow, slow, slow, steady)
		for i, c := range costs[gcWarmup:] {
			if !near(c, want) {
				t.Errorf("cost after collection %d = %g, want %g", gcWarmup+i+1, c, want)
			}
		}
	})
	t.Run("a collection that costs more for gcMarkWindow collections does", func(t *testing.T) {
		var tu gcTuner
		dear := steady
		dear.gc *= 3
		cs := []collection{steady, steady, steady}
		for range gcMarkWindow {
			cs = append(cs, dear)
		}
		costs := feed(&tu, cs...)
		if last := costs[len(costs)-1]; !near(last, 3*want) {
			t.Errorf("cost after %d dearer collections = %g, want %g", gcMarkWindow, last, 3*want)
		}
	})
	t.Run("a heap that doubled is measured afresh", func(t *testing.T) {
		// Copies in flight after a listing: eight times the heap, whose
		// stacks cost three times as much a byte to mark.
		var tu gcTuner
		copies := collection{gc: 8 * 3 * steady.gc, allocs: steady.allocs, dt: steady.dt, scan: 8 * steady.scan}
		costs := feed(&tu, steady, steady, steady, copies)
		if last := costs[len(costs)-1]; !near(last, 3*want) {
			t.Errorf("cost after the heap grew eightfold = %g, want %g", last, 3*want)
		}
	})
	t.Run("one burst of allocation changes nothing, two do", func(t *testing.T) {
		var tu gcTuner
		burst := steady
		burst.allocs *= 8
		costs := feed(&tu, steady, steady, steady, steady, burst)
		if !near(costs[4], want) {
			t.Errorf("cost after one burst = %g, want %g", costs[4], want)
		}
		costs = feed(&tu, burst)
		if !near(costs[0], 8*want) {
			t.Errorf("cost after two bursts = %g, want %g", costs[0], 8*want)
		}
	})
	t.Run("an account without a collection or time is skipped", func(t *testing.T) {
		var tu gcTuner
		feed(&tu, steady, steady, steady)
		before := tu.cost(steady.scan)
		tu.observe(tu.last, heapStats{live: mib, scan: mib})
		if got := tu.cost(steady.scan); got != before {
			t.Errorf("cost after an empty account = %g, want %g", got, before)
		}
	})
}

// tuning is one setting of the tuner, as tuneGC reports it.
type tuning struct {
	h       heapStats
	cost    float64
	percent int
}

// TestTuneGCRetunesAfterEachCollection runs the tuner on this process:
// after each collection it sets what gcPercent makes of what the runtime
// reports, and it reads what the heap holds: bytes are not scanned,
// pointers are.
func TestTuneGCRetunesAfterEachCollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tuned := make(chan tuning, 1024)
	tuneGC(func(h heapStats, cost float64, p int) {
		select {
		case tuned <- tuning{h, cost, p}:
		default:
		}
	})
	if got := <-tuned; got.percent != gcStartPercent {
		t.Errorf("before any collection GOGC %d, want %d", got.percent, gcStartPercent)
	}
	var sink [][]byte
	settle := func() tuning {
		var got tuning
		for range gcWarmup + 3 {
			for range 64 {
				sink = append(sink, make([]byte, 64<<10)) // garbage between collections
			}
			sink = nil
			runtime.GC()
			got = <-tuned
		}
		return got
	}

	bodies := make([]byte, 48<<20)
	for i := range bodies {
		bodies[i] = byte(i)
	}
	got := settle()
	runtime.KeepAlive(bodies)
	bodies = nil
	if got.h.live < 48<<20 || got.h.scan > 16<<20 {
		t.Errorf("with 48 MiB of bytes live the tuner read %d MiB live, %d scanned", got.h.live/mib, got.h.scan/mib)
	}
	if got.cost <= 0 {
		t.Errorf("after %d collections the cost is not measured", gcWarmup+3)
	}
	if want := gcPercent(got.h, got.cost); got.percent != want {
		t.Errorf("GOGC %d set, gcPercent says %d", got.percent, want)
	}

	pointers := make([]*int, 6<<20) // 48 MiB, all of it scanned
	got = settle()
	runtime.KeepAlive(pointers)
	if got.h.scan < 48<<20 {
		t.Errorf("with 48 MiB of pointers live the tuner read %d MiB scanned", got.h.scan/mib)
	}
	if want := gcPercent(got.h, got.cost); got.percent != want {
		t.Errorf("GOGC %d set, gcPercent says %d", got.percent, want)
	}
	// Collections go on meanwhile: GOGC is the last percentage the tuner
	// reported, or one it reports next.
	set := map[int]bool{got.percent: true}
	drain := func() {
		for {
			select {
			case tu := <-tuned:
				set[tu.percent] = true
			default:
				return
			}
		}
	}
	drain()
	cur := debug.SetGCPercent(100)
	debug.SetGCPercent(cur)
	// The tuner reports a percentage just after setting it.
	for deadline := time.After(5 * time.Second); !set[cur]; {
		select {
		case tu := <-tuned:
			set[tu.percent] = true
		case <-deadline:
			t.Fatalf("GOGC is %d, the tuner set %v", cur, set)
		}
	}
}
