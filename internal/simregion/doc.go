// Package simregion owns the simulated S3 region: an S3 responder whose
// cost is the round trip a region adds to every request, not the CPU of a
// server on the same machine. It measures speed and controller behaviour in
// the latency regime, where a real server on the same machine would be the
// bottleneck instead. (It was internal/fakes3, the latency fixture.)
//
// It is not an S3 implementation and stores nothing. One bucket holds a
// synthetic, sorted set of keys (the field report's layout, or any list);
// every other bucket exists and is empty. ListObjectsV2 (prefix,
// delimiter, start-after, continuation token, max-keys), HeadObject and
// GetObject (ranges, If-Match) answer from that set; PutObject reads the
// whole body (aws-chunked included), checks Content-MD5 and CRC32 when
// sent, and answers with the body's MD5 as its ETag; CopyObject checks that
// the source exists and its x-amz-copy-source-if-match, and answers with
// the source's ETag; DeleteObject and DeleteObjects answer success. Nothing
// written is remembered: a copy's destination is not listed afterwards.
// Signatures are not checked.
//
// A PutObject's body of up to 128 KiB is read whole and then hashed beside
// other requests' bodies, one lane each, by github.com/minio/md5-simd
// (AVX-512 or AVX2, crypto/md5 on a CPU with neither); a longer one streams
// through crypto/md5. Either way the ETag is the body's MD5: on the two
// cores a benchmark shares with its client, the fixture's own hashing was
// most of its CPU, and it serves every client it measures alike.
//
// Every object of the set has the same body (Config.Size bytes of a fixed
// pattern), so its ETag, the MD5 of that body, is correct and computed once.
//
// Latency is a fixed delay before every answer (Config.Delay). Throttling
// answers 503 SlowDown, as S3 does, to writes (and, separately, reads) above
// a rate per prefix, from a token bucket per prefix (Config.WriteRate,
// Config.ReadRate, Config.PrefixDepth). Correctness is never tested here:
// it stays tested against the real server (internal/s3test).
package simregion
