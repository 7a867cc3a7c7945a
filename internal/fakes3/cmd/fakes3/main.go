// Command fakes3 runs the instant S3 responder of package fakes3 as its own
// process, for benchmarks that measure a client's memory and CPU apart from
// the server's. It is a test fixture: it stores nothing.
//
//	go run ./internal/fakes3/cmd/fakes3 -objects 20000 -size 100KiB -delay 130ms
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
	"syscall"

	"github.com/s3bulk/s3bulk/internal/fakes3"
	"github.com/s3bulk/s3bulk/internal/faultproxy"
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
	flag.Parse()
	n, err := units.ParseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakes3: -size:", err)
		os.Exit(2)
	}
	cfg := fakes3.Config{Bucket: *bucket, Keys: fakes3.ReportKeys(*objects), Size: n, Delay: *delay}
	if *writeRate > 0 || *readRate > 0 {
		cfg.Throttle = &faultproxy.Throttle{WriteRate: *writeRate, ReadRate: *readRate, Depth: *depth}
	}
	srv, err := fakes3.Start(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakes3:", err)
		os.Exit(1)
	}
	fmt.Println("endpoint:", srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	st := srv.Stats()
	_ = srv.Close()
	_ = json.NewEncoder(os.Stderr).Encode(st)
}
