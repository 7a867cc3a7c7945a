// Package faultproxy owns a reverse proxy that puts network and server
// faults between an S3 client and a real server: added latency, 503
// SlowDown, 500 InternalError, 429 throttling, connections reset before or
// during a response, bodies cut short of their Content-Length, and
// requests that never get an answer. Tests use it to show that retries,
// throttling and resumption work against real failures, and the simulated
// region (internal/simregion) delays and throttles with it. Latency alone
// in front of a real server, as `s3bulk demo --server local` wants, is
// internal/netdelay's: a byte relay costs the machine far less CPU.
//
// The proxy forwards the client's Host header unchanged, because SigV4
// signs it: a signature made for the proxy's address validates at the
// server behind it.
package faultproxy
