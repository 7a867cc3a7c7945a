package faultproxy_test

import (
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
)

// A proxy that makes a local server feel remote and a little overloaded:
// 30ms round trips, and one PUT in a hundred throttled.
func ExampleNew() {
	p, err := faultproxy.New("http://127.0.0.1:7070", faultproxy.Config{
		Latency:      30 * time.Millisecond,
		Jitter:       5 * time.Millisecond,
		SlowDownRate: 0.01,
		Match:        func(r *http.Request) bool { return r.Method == http.MethodPut },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fmt.Println("point the client at", p.URL())
}
