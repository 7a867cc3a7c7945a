// Command rawload is the trivial client of the latency fixture (package
// simregion): a fixed number of requests in flight, each a bare HTTP request
// over a kept-alive connection, without an SDK, signing, checksums,
// retries or a listing. What it reaches is the ceiling of the fixture and
// of the machine at that moment, which a real client can only approach;
// scripts/bench-latency.sh runs it beside s3bulk to tell the two apart.
// It is a test tool: the fixture checks no signature.
//
//	go run ./internal/simregion/cmd/rawload -endpoint URL -n 20000 -c 1024
//	go run ./internal/simregion/cmd/rawload -endpoint URL -n 10000 -c 1024 -put 100KiB
//
// Without -put each request is a CopyObject of the n first keys of the
// report's layout (simregion.ReportKeys) from bucket src to bucket dst; with
// it, a PutObject of that many bytes. It prints one line: requests, in
// flight, seconds, requests per second and failures, and exits 1 if any
// request failed.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/s3bulk/s3bulk/internal/simregion"
	"github.com/s3bulk/s3bulk/internal/units"
)

func main() {
	endpoint := flag.String("endpoint", "", "the fixture's URL")
	n := flag.Int("n", 20000, "requests to send")
	c := flag.Int("c", 1024, "requests in flight")
	put := flag.String("put", "", "send PutObject requests with bodies of this size instead of copies")
	flag.Parse()
	if *endpoint == "" || *n < 1 || *c < 1 {
		fmt.Fprintln(os.Stderr, "rawload: -endpoint is required, -n and -c at least 1")
		os.Exit(2)
	}
	var body []byte
	if *put != "" {
		size, err := units.ParseSize(*put)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rawload: -put:", err)
			os.Exit(2)
		}
		body = bytes.Repeat([]byte{'x'}, int(size))
	}
	keys := simregion.ReportKeys(*n)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: *c, MaxIdleConnsPerHost: *c}}
	var next, failed atomic.Int64
	var first atomic.Value
	start := time.Now()
	var wg sync.WaitGroup
	for range min(*c, *n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(*n); i = next.Add(1) - 1 {
				if err := send(client, *endpoint, keys[i], body); err != nil {
					failed.Add(1)
					first.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}
	wg.Wait()
	s := time.Since(start).Seconds()
	fmt.Printf("%d requests, %d in flight: %.2f s, %.0f /s, %d failed\n", *n, *c, s, float64(*n)/s, failed.Load())
	if failed.Load() > 0 {
		fmt.Fprintln(os.Stderr, "rawload: first failure:", first.Load())
		os.Exit(1)
	}
}

// send makes one request: a copy of key, or a put of body under it.
func send(client *http.Client, endpoint, key string, body []byte) error {
	var req *http.Request
	var err error
	if body != nil {
		req, err = http.NewRequest(http.MethodPut, endpoint+"/dst/up/"+key, bytes.NewReader(body))
	} else {
		req, err = http.NewRequest(http.MethodPut, endpoint+"/dst/"+key, nil)
		if err == nil {
			req.Header.Set("X-Amz-Copy-Source", "/src/"+key)
		}
	}
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", req.Method, key, resp.Status)
	}
	return nil
}
