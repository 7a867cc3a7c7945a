// Package gateway owns the local S3 server s3bulk runs for tests, demos and
// benchmarks: versitygw's posix backend embedded in this binary, serving a
// directory over HTTP with SigV4 authentication.
//
// versitygw changes the working directory of the whole process and allows
// one gateway per process, so callers run Main in a child process (the
// `s3bulk serve` command, or a test binary in child mode) and start it with
// Spawn, which reads the endpoint the child reports on stdout.
package gateway
