package s3store

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// lockedBuffer is a log destination written from many goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stallClient is a client of srv through a fault proxy with cfg, whose
// stall floor is floor; it counts attempts and logs them into log.
func stallClient(t *testing.T, srv *s3test.Server, cfg faultproxy.Config, floor time.Duration) (*Client, *faultproxy.Proxy, *counter, *lockedBuffer) {
	t.Helper()
	p, err := faultproxy.New(srv.Endpoint, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	reqs, log := &counter{}, &lockedBuffer{}
	c := newTestClient(t, srv, func(c *Config) {
		c.EndpointURL = p.URL()
		c.StallTimeout = floor
		c.Backoff = fastBackoff
		c.OnRequest = reqs.add
		c.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	return c, p, reqs, log
}

// putAll puts bodies[i] as key-i, limit at a time (0: all at once).
func putAll(t *testing.T, s *Store, prefix string, bodies [][]byte, limit int) {
	t.Helper()
	var g errgroup.Group
	if limit > 0 {
		g.SetLimit(limit)
	}
	for i, b := range bodies {
		g.Go(func() error {
			return s.Put(t.Context(), fmt.Sprintf("%s%d", prefix, i), bytes.NewReader(b), int64(len(b)), store.Metadata{})
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// getAll reads key-i back, all at once, and compares it with bodies[i].
func getAll(t *testing.T, s *Store, prefix string, bodies [][]byte) {
	t.Helper()
	var g errgroup.Group
	for i, want := range bodies {
		g.Go(func() error {
			key := fmt.Sprintf("%s%d", prefix, i)
			rc, err := s.Get(t.Context(), key, 0, -1, "")
			if err != nil {
				return err
			}
			defer rc.Close()
			got, err := io.ReadAll(rc)
			if err != nil {
				return fmt.Errorf("read %s: %w", key, err)
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("%s: got %d bytes, not the %d put", key, len(got), len(want))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

func stallBodies(n int) [][]byte {
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = pattern(64<<10 + i)
	}
	// One body too large for the connection's buffers: the server not
	// reading it is a wait for the body's bytes to be taken.
	bodies[0] = pattern(8 << 20)
	return bodies
}

// The stall floor is 1s here; the server answers every request after 6s.
// A watchdog that cut every wait at the floor would retry every request
// (and fail them all, each attempt as slow as the first).
func TestAServerSlowForEveryoneIsWaitedFor(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	const floor, latency, n = time.Second, 6 * time.Second, 8

	t.Run("from the first request on, nothing is retried", func(t *testing.T) {
		c, _, reqs, log := stallClient(t, srv, faultproxy.Config{Latency: latency}, floor)
		bodies := stallBodies(n)
		putAll(t, c.Bucket(bucket), "first-", bodies, 0)
		getAll(t, c.Bucket(bucket), "first-", bodies)
		if diff := cmp.Diff(map[string]int{"PutObject": n, "GetObject": n}, reqs.get()); diff != "" {
			t.Errorf("attempts (-want +got):\n%s\n%s", diff, log)
		}
	})

	t.Run("turning slow mid-run, nothing is retried", func(t *testing.T) {
		c, p, reqs, log := stallClient(t, srv, faultproxy.Config{}, floor)
		bodies := stallBodies(n)
		putAll(t, c.Bucket(bucket), "fast-", bodies, 0)
		if err := p.SetConfig(faultproxy.Config{Latency: latency}); err != nil {
			t.Fatal(err)
		}
		putAll(t, c.Bucket(bucket), "slow-", bodies, 0)
		getAll(t, newTestClient(t, srv, nil).Bucket(bucket), "slow-", bodies)
		if diff := cmp.Diff(map[string]int{"PutObject": 2 * n}, reqs.get()); diff != "" {
			t.Errorf("attempts (-want +got):\n%s\n%s", diff, log)
		}
	})
}

// One connection of many goes dead while the others are answered in
// 250ms, 8 at a time: it is cut near the floor (others wait too, but
// requests sent after it were answered) and its request retried, and every
// object arrives whole.
func TestOneDeadConnectionAmongAnsweringOnesIsCutAtTheFloor(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	const floor, n, inFlight = time.Second, 64, 8
	for _, tt := range []struct {
		name string
		// big says whether one body is too large for the connection's
		// buffers; dies picks the request that goes dead; die holds it.
		big  bool
		dies func(r *http.Request, put int64) bool
		die  func(w http.ResponseWriter, r *http.Request)
		want string // what the stall says
	}{
		{
			name: "no answer",
			dies: func(r *http.Request, put int64) bool { return put == 3 },
			die:  hang,
			want: "stalled: no response headers for 1",
		},
		{
			name: "the request body stops being taken",
			big:  true,
			dies: func(r *http.Request, put int64) bool { return r.ContentLength > 1<<20 },
			die: func(w http.ResponseWriter, r *http.Request) {
				io.CopyN(io.Discard, r.Body, 256<<10)
				// A server that reads no more cannot see the client
				// hang up: hold on past the floor, then go.
				time.Sleep(3 * floor)
			},
			want: "stalled: no request body bytes taken for 1",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A server's first writes to a bucket can take seconds
			// (SeaweedFS's took 4.3 s, allocating volumes), and a client
			// rightly learns that wait: warm the bucket with another
			// client, so that this one learns only answering requests.
			putAll(t, newTestClient(t, srv, nil).Bucket(bucket), "warm-", stallBodies(inFlight), inFlight)
			var puts atomic.Int64
			var died atomic.Bool
			c, _, reqs, log := stallClient(t, srv, faultproxy.Config{Hook: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				if r.Method == http.MethodPut && tt.dies(r, puts.Add(1)) && died.CompareAndSwap(false, true) {
					tt.die(w, r)
					return
				}
				next.ServeHTTP(w, r)
			}, Latency: 250 * time.Millisecond}, floor)
			bodies := stallBodies(n)
			if !tt.big {
				bodies[0] = bodies[1]
			}
			putAll(t, c.Bucket(bucket), "k-", bodies, inFlight)
			getAll(t, newTestClient(t, srv, nil).Bucket(bucket), "k-", bodies)
			if got := reqs.get()["PutObject"]; got != n+1 {
				t.Errorf("PutObject attempts = %d; want %d (one retried)\n%s", got, n+1, log)
			}
			stalls := stallDurations(t, log.String())
			// At the floor, plus what a loaded machine adds to a timer
			// (well under the floor).
			if len(stalls) != 1 || stalls[0] < floor || stalls[0] > 2*floor {
				t.Errorf("stalled attempts took %v; want one, cut at the %v floor\n%s", stalls, floor, log)
			}
			if !strings.Contains(log.String(), tt.want) {
				t.Errorf("log does not say %q:\n%s", tt.want, log)
			}
		})
	}
}

// stallDurations are the durations of the attempts that stalled, from the
// client's debug log.
func stallDurations(t *testing.T, log string) []time.Duration {
	t.Helper()
	var out []time.Duration
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, ": stalled: ") {
			continue
		}
		_, rest, _ := strings.Cut(line, " duration=")
		v, _, _ := strings.Cut(rest, " ")
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("log line without a duration: %s", line)
		}
		out = append(out, d)
	}
	return out
}
