// Command simregion runs the simulated S3 region of package simregion as its own
// process, for benchmarks that measure a client's memory and CPU apart from
// the server's. It is a test fixture: it stores nothing.
//
//	go run ./internal/simregion/cmd/simregion -objects 20000 -size 100KiB -delay 130ms
//
// It prints "endpoint: URL" on stdout once it listens, and its counts as
// JSON on stderr when it gets SIGINT or SIGTERM.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/simregion"
	"github.com/s3bulk/s3bulk/internal/units"
)

func main() {
	bucket := flag.String("bucket", "src", "the bucket that holds the objects; others are empty")
	objects := flag.Int("objects", 20000, "objects in the report's layout (company-%04d/user-%04d/file-%02d.json)")
	size := flag.String("size", "100KiB", "size of every object")
	delay := flag.Duration("delay", 0, "latency added to every answer")
	writeRate := flag.Float64("write-rate", 0, "writes per second per prefix above which the answer is 503 SlowDown (0: no limit)")
	readRate := flag.Float64("read-rate", 0, "reads per second per prefix above which the answer is 503 SlowDown (0: no limit)")
	depth := flag.Int("depth", 0, "key segments that make a prefix for -write-rate and -read-rate (0: the bucket)")
	trace := flag.Duration("trace", 0, "print a line of counts to stderr every interval: answers and throttles per second, requests in flight (0: none)")
	cpuProfile := flag.String("cpu-profile", "", "write a Go CPU profile of the fixture's run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "simregion: -cpu-profile:", err)
			os.Exit(1)
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
	}
	n, err := units.ParseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "simregion: -size:", err)
		os.Exit(2)
	}
	cfg := simregion.Config{Bucket: *bucket, Keys: simregion.ReportKeys(*objects), Size: n, Delay: *delay}
	if *writeRate > 0 || *readRate > 0 {
		cfg.Throttle = &faultproxy.Throttle{WriteRate: *writeRate, ReadRate: *readRate, Depth: *depth}
	}
	srv, err := simregion.Start(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "simregion:", err)
		os.Exit(1)
	}
	fmt.Println("endpoint:", srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	if *trace > 0 {
		traceUntil(srv, *trace, sig)
	} else {
		<-sig
	}
	st := srv.Stats()
	_ = srv.Close()
	_ = json.NewEncoder(os.Stderr).Encode(st)
}

// traceUntil prints, every interval until a signal arrives, the seconds
// since the first request, the answers and SlowDowns per second over the
// interval, and the requests in flight at its end.
func traceUntil(srv *simregion.Server, every time.Duration, sig <-chan os.Signal) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var first time.Time
	var last simregion.Stats
	for {
		select {
		case <-sig:
			return
		case now := <-tick.C:
			st := srv.Stats()
			if st.Requests == 0 {
				continue
			}
			if first.IsZero() {
				first = now.Add(-every)
			}
			answered := func(s simregion.Stats) int64 {
				n := s.Throttled
				for _, v := range s.ByOp {
					n += v
				}
				return n
			}
			sec := every.Seconds()
			fmt.Fprintf(os.Stderr, "trace %6.1f s %8.0f answers/s %7.0f slowdowns/s %6d in flight\n",
				now.Sub(first).Seconds(), float64(answered(st)-answered(last))/sec,
				float64(st.Throttled-last.Throttled)/sec, srv.InFlight())
			last = st
		}
	}
}
