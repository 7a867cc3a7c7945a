// Package s3test owns the S3 server that tests run against: a real
// versitygw gateway (see internal/gateway) started once per test binary as
// a child process of that binary, or an external endpoint named by
// S3BULK_TEST_ENDPOINT. It also hands out clients, throwaway buckets, and
// the environment a CLI child process needs to reach the server.
//
// A package that uses it calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { s3test.Main(m) }
package s3test
