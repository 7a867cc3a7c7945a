package journal

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// BenchmarkAppend appends done records from hundreds of goroutines, as the
// engine's workers do.
func BenchmarkAppend(b *testing.B) {
	benchParallel(b, "records/s", func(w *Writer, i int) error {
		o := store.Object{Key: fmt.Sprintf("some/prefix/of/a/key/%08d.json", i), Size: 1234, ETag: "0123456789abcdef0123456789abcdef"}
		return w.Done(o, "dst/"+o.Key)
	})
}

// BenchmarkIntentWritten journals version copies from hundreds of
// goroutines as a copy of every version does: an intent, which waits
// until it is in the file, then the done record. It is what each version
// pays the journal before its write may start.
func BenchmarkIntentWritten(b *testing.B) {
	benchParallel(b, "versions/s", func(w *Writer, i int) error {
		o := store.Object{Key: fmt.Sprintf("some/prefix/of/a/key/%08d.json", i), VersionID: "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY", Size: 1234, ETag: "0123456789abcdef0123456789abcdef"}
		if err := w.Intent(engine.VersionWrite{Src: o, DstKey: "dst/" + o.Key, After: "Wt8Mm.OuLx1F3eG3rTTJv.hZ0yU7O2Rp", At: time.Now()}); err != nil {
			return err
		}
		return w.Written(o, "dst/"+o.Key, "kLx1F3eG3rTTJvWt8Mm.OuhZ0yU7O2Rp")
	})
}

// benchParallel runs journal(w, i) from 100 x GOMAXPROCS goroutines on one
// Writer, i counting each goroutine's calls, and reports calls per second
// as unit.
func benchParallel(b *testing.B, unit string, journal func(w *Writer, i int) error) {
	w, err := Open(filepath.Join(b.TempDir(), "j"), fp)
	if err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(100) // times GOMAXPROCS goroutines
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if err := journal(w, i); err != nil {
				b.Error(err)
				return
			}
		}
	})
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
}

// BenchmarkLoad reads a journal of a million finished objects and reports
// the memory the State keeps for each.
func BenchmarkLoad(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "j")
	w, err := Open(path, fp)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		o := store.Object{Key: fmt.Sprintf("some/prefix/of/a/key/%08d.json", i), Size: 1234, ETag: "0123456789abcdef0123456789abcdef"}
		if err := w.Done(o, "dst/"+o.Key); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var perEntry float64
	for b.Loop() {
		b.StopTimer()
		before := heapInUse()
		b.StartTimer()
		st, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		perEntry = float64(heapInUse()-before) / float64(st.Stats().Done)
		runtime.KeepAlive(st)
		b.StartTimer()
	}
	b.ReportMetric(perEntry, "bytes/entry")
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkDone asks a State of a million objects, as the planner does for
// every listed object.
func BenchmarkDone(b *testing.B) {
	const n = 1_000_000
	l := &loading{st: &State{}, uploads: map[string]*openUpload{}}
	for i := range n {
		r := record{T: kindDone, Src: fmt.Sprint("k", i), Dst: "d", Size: 1, ETag: "e"}
		l.apply(&r)
	}
	st := l.finish()
	// Half the asked objects are done, half are not.
	asked := make([]store.Object, 2*n)
	for i := range asked {
		asked[i] = store.Object{Key: fmt.Sprint("k", i), Size: 1, ETag: "e"}
	}
	i := 0
	for b.Loop() {
		i++
		st.Done(asked[i%len(asked)], "d")
	}
}
