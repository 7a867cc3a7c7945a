// Package transport is s3store's HTTP transport policy, below the SDK and
// the raw client alike: the stall watchdog, whose waits follow what the
// server has been taking (transport.go, stallwait.go,
// docs/design/0008-stalls.md), the endpoint reachability that ends a run's
// attempts on an endpoint that never answered (reach.go), and request
// bodies sent through pooled buffers or straight from memory.
package transport
