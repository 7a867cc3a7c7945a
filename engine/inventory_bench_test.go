//go:build unix

package engine_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/manifest"
	"github.com/s3bulk/s3bulk/internal/invtest"
	"github.com/s3bulk/s3bulk/internal/memstat"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/localstore"
)

// inventoryEntriesPerFile is how many entries each data file holds, about
// what S3 Inventory puts in one.
const inventoryEntriesPerFile = 1_000_000

// writeInventory writes a report of n entries in format under dir, as
// files of inventoryEntriesPerFile entries, streamed.
func writeInventory(b *testing.B, dir, format string, n int) {
	b.Helper()
	r := invtest.Report{SourceBucket: "src", DestBucket: "inv", Prefix: "inv", Format: format}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type mfile struct {
		Key  string `json:"key"`
		Size int64  `json:"size"`
		MD5  string `json:"MD5checksum"`
	}
	var files []mfile
	for first := 0; first < n; first += inventoryEntriesPerFile {
		last := min(n, first+inventoryEntriesPerFile)
		key := fmt.Sprintf("inv/data/file-%04d", len(files))
		f, err := os.Create(filepath.Join(dir, filepath.FromSlash(key)))
		if err != nil {
			b.Fatal(err)
		}
		h := md5.New()
		w := io.MultiWriter(f, h)
		entries := func(yield func(invtest.Entry) bool) {
			for i := first; i < last; i++ {
				e := invtest.Entry{Key: fmt.Sprintf("data/company-%04d/user-%06d/file-%02d.json", i/400_000, i/4, i%4),
					Size: int64(i%1000) * 1024, Modified: t0, ETag: "9e107d9d372bb6826bd81d3542a419d6", StorageClass: "STANDARD"}
				if !yield(e) {
					return
				}
			}
		}
		if err := r.Write(w, entries); err != nil {
			b.Fatal(err)
		}
		st, _ := f.Stat()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		files = append(files, mfile{Key: key, Size: st.Size(), MD5: hex.EncodeToString(h.Sum(nil))})
	}
	m, err := r.Manifest(files)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inv", "manifest.json"), m, 0o600); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPlanInventory plans a copy from an S3 Inventory report of 1M
// or 10M entries (CSV gzip, Parquet, ORC) held in a local directory:
// OpenInventory reads every data file once for its MD5, then the planner
// reads them again and makes one task per entry (FAKE source and
// destination stores, as BenchmarkPlanSync). It reports entries/s over
// both passes (by the wall clock, and by the process's CPU time) and the peak resident memory of the process, which must
// not grow with the number of entries. One size per process, on one core:
//
//	go test -run '^$' -bench 'PlanInventory/CSV/10000000$' -benchtime 1x -cpu 1 ./engine
func BenchmarkPlanInventory(b *testing.B) {
	// ORC's budget is larger: its reader holds the columns read of one
	// stripe whole, decompressed (a stripe here is a file, 1M entries,
	// ~100 MB of them, in buffers grown by doubling). It does not grow
	// with the number of stripes or files.
	rssLimit := map[string]uint64{"CSV": 200 << 20, "Parquet": 200 << 20, "ORC": 320 << 20}
	for _, format := range []string{"CSV", "Parquet", "ORC"} {
		for _, n := range []int{1_000_000, 10_000_000} {
			b.Run(format+"/"+strconv.Itoa(n), func(b *testing.B) {
				dir := b.TempDir()
				if err := os.MkdirAll(filepath.Join(dir, "inv", "data"), 0o700); err != nil {
					b.Fatal(err)
				}
				writeInventory(b, dir, format, n)
				invStore, err := localstore.New(dir, localstore.Options{})
				if err != nil {
					b.Fatal(err)
				}
				// The writer's garbage, given back to the system, so that
				// the peak counts the reading only.
				debug.FreeOSMemory()
				rssReset := memstat.ResetPeakRSS()
				src := engine.Endpoint{Store: &fakeListing{name: "src"}, Loc: s3url.Location{Bucket: "src", Key: "data/"}}
				dst := engine.Endpoint{Store: &fakeListing{name: "dst"}, Loc: s3url.Location{Bucket: "dst", Key: "copy/"}}
				var tasks int
				cpu0 := cpuTime()
				b.ResetTimer()
				for b.Loop() {
					inv, err := manifest.OpenInventory(context.Background(), invStore, "inv/manifest.json", "s3://inv/inv/manifest.json", "src", nil)
					if err != nil {
						b.Fatal(err)
					}
					tasks = 0
					job := engine.Job{Src: src, Dst: dst, From: inv}
					err = engine.New(engine.Config{}).Plan(context.Background(), job, engine.Options{}).Each(func(engine.Task) error {
						tasks++
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				if tasks != n {
					b.Fatalf("%d tasks, want %d", tasks, n)
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
				if cpu := cpuTime() - cpu0; cpu > 0 {
					// On a shared machine the wall clock counts other
					// processes' turns; the CPU time is this one's.
					b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "entries/cpu-s")
				}
				if rss, ok := memstat.PeakRSS(); ok && rssReset {
					b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
					if limit := rssLimit[format]; rss > limit {
						b.Errorf("peak RSS %d MiB, over the %d MiB budget", rss>>20, limit>>20)
					}
				}
			})
		}
	}
}
