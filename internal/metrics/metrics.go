package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/s3bulk/s3bulk/engine"
)

// Metrics is the Prometheus view of one process's runs. Its methods are
// safe for concurrent use.
type Metrics struct {
	reg      *prometheus.Registry
	objects  *prometheus.CounterVec
	bytes    *prometheus.CounterVec
	requests *prometheus.CounterVec
	throttle prometheus.Counter
	info     *prometheus.GaugeVec

	mu   sync.Mutex
	runs []*engine.Progress
}

// New returns the metrics of a process, with its Go runtime's.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.objects = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "s3bulk_objects_total",
		Help: "Objects ended, by status: done (deletes included), failed, skipped. Their sum over a run is its summary's.",
	}, []string{"status"})
	m.bytes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "s3bulk_bytes_total",
		Help: "Bytes of the objects ended, by status (done: moved objects, deletes not counted).",
	}, []string{"status"})
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "s3bulk_requests_total",
		Help: "S3 requests (HTTP attempts) by operation and outcome: ok, throttled, retryable, permanent, fatal.",
	}, []string{"operation", "outcome"})
	m.throttle = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "s3bulk_throttles_total",
		Help: "Requests the server throttled (503 SlowDown, 429...): each halves the limit of requests in flight.",
	})
	m.info = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "s3bulk_run_info",
		Help: "1 for the run going on: its command and shard (index and count; 0 of 1 without --shard).",
	}, []string{"command", "shard", "shards"})
	m.reg.MustRegister(m.objects, m.bytes, m.requests, m.throttle, m.info,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, s := range []string{"done", "failed", "skipped"} {
		m.objects.WithLabelValues(s)
		m.bytes.WithLabelValues(s)
	}
	m.reg.MustRegister(
		m.counterFunc("s3bulk_objects_planned_total", "Objects planned: listed (or read from a list) and kept by the filters and the shard.",
			func(s engine.Snapshot) float64 { return float64(s.Planned) }),
		m.counterFunc("s3bulk_bytes_transferred_total", "Bytes moved so far: finished objects and the finished parts of objects moving in parts.",
			func(s engine.Snapshot) float64 { return float64(s.Bytes) }),
		m.gaugeFunc("s3bulk_requests_in_flight", "Requests in flight now.", func(s engine.Snapshot) float64 { return float64(s.InFlight) }),
		m.gaugeFunc("s3bulk_concurrency_limit", "The limiter's current limit of requests in flight.", func(s engine.Snapshot) float64 { return float64(s.Limit) }),
		m.gaugeFunc("s3bulk_listing_keys_per_second", "Objects planned a second while the listing goes on; 0 once it has ended.", listingRate),
		m.gaugeFunc("s3bulk_eta_seconds", "Seconds left at the rate so far, once the listing has ended (NaN before, or with nothing moved yet).", eta),
	)
	return m
}

// snapshot sums the counters of the runs tracked; Limit and InFlight are
// the latest run's (every run of a process shares one limiter).
func (m *Metrics) snapshot() (engine.Snapshot, bool) {
	m.mu.Lock()
	runs := append([]*engine.Progress(nil), m.runs...)
	m.mu.Unlock()
	var sum engine.Snapshot
	sum.PlanComplete = true
	for _, p := range runs {
		s := p.Snapshot()
		sum.Planned += s.Planned
		sum.Bytes += s.Bytes
		sum.RemainingBytes += s.RemainingBytes
		sum.PlanComplete = sum.PlanComplete && s.PlanComplete
		sum.Elapsed = max(sum.Elapsed, s.Elapsed)
		sum.Limit, sum.InFlight = s.Limit, s.InFlight
	}
	return sum, len(runs) > 0
}

func (m *Metrics) counterFunc(name, help string, f func(engine.Snapshot) float64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 {
		s, _ := m.snapshot()
		return f(s)
	})
}

func (m *Metrics) gaugeFunc(name, help string, f func(engine.Snapshot) float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
		s, ok := m.snapshot()
		if !ok {
			return 0
		}
		return f(s)
	})
}

func listingRate(s engine.Snapshot) float64 {
	if s.PlanComplete || s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Planned) / s.Elapsed.Seconds()
}

func eta(s engine.Snapshot) float64 {
	if !s.PlanComplete || s.Bytes <= 0 || s.Elapsed <= 0 {
		return math.NaN()
	}
	return float64(s.RemainingBytes) / (float64(s.Bytes) / s.Elapsed.Seconds())
}

// Track adds a run's progress counters, before it starts; command and sh
// label it (sh: index and count; count 0 or 1 for none).
func (m *Metrics) Track(p *engine.Progress, command string, index, count int) {
	m.mu.Lock()
	m.runs = append(m.runs, p)
	m.mu.Unlock()
	count = max(count, 1)
	m.info.Reset()
	m.info.WithLabelValues(command, strconv.Itoa(index), strconv.Itoa(count)).Set(1)
}

// Observe counts one result, as engine.Summary does: an
// engine.Options.Observer.
func (m *Metrics) Observe(r engine.Result) {
	switch r.Status {
	case engine.StatusDone, engine.StatusDryRun:
		m.objects.WithLabelValues("done").Inc()
		if r.Task.Op != engine.OpDelete {
			m.bytes.WithLabelValues("done").Add(float64(r.Task.Size))
		}
	case engine.StatusFailed:
		m.objects.WithLabelValues("failed").Inc()
		m.bytes.WithLabelValues("failed").Add(float64(r.Task.Size))
	case engine.StatusSkipped:
		m.objects.WithLabelValues("skipped").Inc()
		m.bytes.WithLabelValues("skipped").Add(float64(r.Task.Size))
	}
}

// Request counts one S3 request's outcome: an s3store.Config.OnResponse.
func (m *Metrics) Request(op, outcome string) {
	m.requests.WithLabelValues(op, outcome).Inc()
	if outcome == "throttled" {
		m.throttle.Inc()
	}
}

// Handler serves the metrics in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Server serves metrics on /metrics until closed.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
}

// Listen checks addr (HOST:PORT; an empty host is every interface), listens
// on it and serves m's Handler on /metrics.
func Listen(addr string, m *Metrics) (*Server, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("want HOST:PORT, such as 127.0.0.1:9090 or :9090")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("port %q: want a number from 0 to 65535", port)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Addr is the address listened on (with the port chosen for port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops serving, letting scrapes in progress end (up to a second),
// and waits for the server's goroutine.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
