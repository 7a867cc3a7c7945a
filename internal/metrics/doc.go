// Package metrics owns the Prometheus view of a process's runs
// (--metrics-addr): it folds the engine's results as the summary does,
// reads the runs' progress counters and the limiter when scraped, counts
// S3 requests by operation and outcome as the stores report them, and
// serves it all on /metrics.
//
// It adds no progress mechanism of its own: what it serves comes from the
// engine's observer (results), its Progress (counters, the limiter) and the
// stores' request hooks, the same events the renderers and the summary
// use, so a scrape after the last result matches the run's summary.
//
// The client is github.com/prometheus/client_golang, the Prometheus
// project's own: the exposition format, content negotiation and the Go
// runtime collectors come with it, and nothing else is as widely kept.
package metrics
