// Package faultproxy owns a reverse proxy that puts network and server
// faults between an S3 client and a real server: added latency, 503
// SlowDown, 500 InternalError, 429 throttling, connections reset before or
// during a response, bodies cut short of their Content-Length, and
// requests that never get an answer. Tests use it to show that retries,
// throttling and resumption work against real failures; `s3bulk demo`
// uses it to make a local server feel like a remote one.
//
// The proxy forwards the client's Host header unchanged, because SigV4
// signs it: a signature made for the proxy's address validates at the
// server behind it.
package faultproxy
