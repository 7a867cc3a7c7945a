// Package simregion owns the simulated S3 region: an S3 endpoint whose cost
// is the round trip a region adds to every request and whose capacity is
// S3's, not the CPU of a server on the same machine. demo and bench
// --simulate run in it; benchmarks of the latency regime
// (scripts/bench-latency.sh) use it as their fixture. (It was
// internal/fakes3, the latency fixture.)
//
// What it simulates, and how:
//   - Latency: every answer waits Config.Delay first (default in demo: the
//     round trip the field report's figures imply, 120 ms), requests in flight wait side by
//     side, so a client's rate is its requests in flight over the delay.
//   - Capacity: 503 SlowDown above a rate of writes and of reads per
//     prefix (Config.Throttle; demo uses S3's documented 3,500 and 5,500
//     per second), from a token bucket per prefix. Nothing else limits it:
//     it does no disk or body work but hashing what is sent to it.
//   - Metadata only: the bucket Config.Bucket holds a described data set
//     (sorted Config.Keys, each Config.Size bytes of a fixed pattern, so
//     the ETag, the MD5 of that body, is correct and computed once).
//     Objects written (PutObject, CopyObject) and deleted are remembered
//     as descriptions: size, ETag, CRC32, CRC64NVME, content type; bodies are not
//     kept. HeadObject answers for every object; GetObject (ranges,
//     If-Match) only for the data set and copies of it, whose bodies it can
//     make; for a body written to it, 501.
//   - Checks what S3 checks: with Config.Auth, Signature Version 4 (header
//     or presigned query: key, region, clock skew, expiry, the signature
//     over the canonical request, and a signed payload's SHA-256 against
//     the body); Content-MD5, CRC32 and CRC64NVME of PutObject (aws-chunked bodies
//     and trailers included); DeleteObjects' Content-MD5 or checksum; copy
//     sources (existence, x-amz-copy-source-if-match, a copy onto itself
//     without REPLACE, 5 GiB); NoSuchBucket when Config.Buckets names the
//     buckets. Listings (ListObjectsV2 with continuation tokens and
//     start-after, ListObjects with markers; prefix, delimiter, max-keys,
//     encoding-type=url) merge the data set with what was written.
//   - Not simulated: multipart uploads (501), versioning, tagging, ACLs,
//     chunk signatures of signed aws-chunked bodies, connection set-up
//     (a new connection costs no extra round trip).
//
// Without Config.Auth and Config.Buckets it is the latency fixture it was:
// every bucket exists and no signature is asked for, so that a bare client
// (cmd/rawload) can reach it.
//
// A PutObject's body of up to 128 KiB is read whole and then hashed beside
// other requests' bodies, one lane each, by github.com/minio/md5-simd
// (AVX-512 or AVX2, crypto/md5 on a CPU with neither); a longer one streams
// through crypto/md5. Either way the ETag is the body's MD5: on the two
// cores a benchmark shares with its client, the region's own hashing was
// most of its CPU, and it serves every client it measures alike.
//
// Written objects live in a B-tree (github.com/google/btree) over the
// sorted data set, so that a listing pages through both in order without
// copying either.
package simregion
