// Package compattest owns the differential tests that keep s3bulk's
// command-line semantics those of the tools its users come from: each case
// runs one command through s3bulk, s5cmd v2.3.0 and the AWS CLI against the
// embedded S3 server (internal/s3test), each tool in its own buckets and
// directory seeded with the same objects, and compares what each left
// behind: every key with its body (bodies name the source they came
// from), every local file, the exit status (zero or not), and for ls the
// lines printed (dates masked, aws's columns kept). The case's verdict says
// whom s3bulk must match: both peers, aws, s5cmd, or neither (a deliberate
// difference, documented in docs/compat.md). The package has no code
// outside its tests.
//
// Run it with
//
//	go test ./internal/compattest/
//
// Peers: the AWS CLI (v1 or v2) is taken from PATH, or from
// S3BULK_COMPAT_AWS. s5cmd is taken from S3BULK_COMPAT_S5CMD, else from
// the user cache directory (s3bulk-test/s5cmd-v2.3.0/s5cmd), where the
// test builds it once from the Go module proxy in a throwaway module.
// Setting either variable to "off" leaves that peer out.
//
// Modes, logged per peer at the start: a peer that is present runs live,
// and its results must equal those recorded in testdata/peers.json (a
// changed peer fails the run until it is re-recorded). A peer that is
// missing, or cannot be built, is replayed: its cases compare s3bulk with
// the recorded results, so a machine without the peers (CI) still checks
// s3bulk against them.
//
// Other servers (S3BULK_TEST_ENDPOINT): the results were recorded on the
// embedded gateway. A server that answers a request otherwise (a '+' in a
// copy source, a DeleteObject of a prefix, a ranged GET of an empty
// object, a marker one level down in a listing) is asked so once per
// run, and a case names, for such an answer, what each peer does there
// and which verdict holds (servers_test.go); the live peers are held to
// that. A case whose keys the server cannot store needs a capability of
// internal/s3test and skips with the server's answer.
//
// Re-record after adding or changing a case, with both peers present:
//
//	go test ./internal/compattest/ -run TestCompat -update
//
// -update rewrites testdata/peers.json from the live peers and keeps the
// recorded results of a missing one. Results are only ever recorded from
// real runs.
//
// testdata/open.txt lists the cases where s3bulk is known to break the
// contract. A listed case must still diverge and is logged; when s3bulk is
// fixed the suite fails until the case is taken off the list.
package compattest
