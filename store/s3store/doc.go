// Package s3store owns everything the engine says to S3: it turns an S3
// bucket into a store.Store with server-side copy (store.Copier) and
// multipart upload and copy (store.Multipart), and LoadAWSConfig is the one
// loader of AWS configuration (credentials chain, profile, files, region).
//
// It is the engine's only way to S3, not the only importer of the SDK's S3
// client: five packages use that directly, each because the engine must not
// stand in between. internal/batchops drives S3 Control and STS, which this
// package does not wrap, and asks the bucket's region (HeadBucket,
// GetBucketLocation) on Client.SDK; internal/bench's baseline methods
// reproduce plain SDK programs, one attempt per request, so they must not
// get this package's retries (demo's set-up is there too); internal/cli
// hands Client.SDK to batchops; internal/s3test's clients seed and check what
// tests did, independently of the code under test; and the fake Batch
// Operations job (internal/batchops/fakecontrol) copies with CopyObject as
// S3 would. docs/architecture.md keeps that list.
//
// A Client holds one SDK client, one HTTP transport and one retry policy for
// a whole run; Client.Bucket returns a cheap Store view of one bucket.
//
// What the client adds to the SDK's defaults, and why:
//
//   - Retries: the standard retryer without its client-side retry quota
//     (ratelimit.None). The quota is one token bucket shared by every
//     goroutine; with hundreds of requests in flight a burst of 503s drains
//     it and healthy requests then fail with "retry quota exceeded" instead
//     of being retried (aws-sdk-go-v2 issues 1665 and 3413). Concurrency is
//     throttled by the run's AIMD limiter instead, fed by Config.OnThrottle.
//     Which errors are retried is decided by internal/retry.Classify, with
//     full-jitter backoff from internal/retry.Backoff.
//   - Connection pool: the idle pool holds Config.Concurrency connections per
//     host. Go's default keeps 2 idle connections per host, so a run with
//     hundreds of requests in flight would close and reopen connections (and
//     TLS sessions) constantly.
//   - Stall detection: an exchange that makes no progress (no response
//     headers, or no body bytes moving either way) for far longer than
//     this server has been taking, and at least Config.StallTimeout, is
//     cancelled and retried on a new connection, when requests sent after
//     it were answered or nothing else waits; a server slow for everyone
//     is waited for, up to StallTimeoutCap (internal/transport/stallwait.go,
//     docs/design/0008-stalls.md). A TCP connection to an overloaded front
//     end can hang for minutes; S3's guidance is to retry such requests
//     early rather than wait.
//   - Get resumes a body that breaks mid-stream with a ranged, If-Match
//     request from the first missing byte, so a reset at 90% of a 5 GiB part
//     does not cost the first 90% again.
//   - Integrity: multipart uploads of client bytes carry a FULL_OBJECT
//     CRC32C that the server verifies part by part and as a whole; a Get of
//     a whole object hashes what it delivers, resumed requests included,
//     and fails on a difference from the stored checksum (or from an ETag
//     that is an MD5); PartsVerifier does the same for downloads in parts,
//     against a multipart ETag too. checksum.go and verifyparts.go say
//     which checksums and why; Config.ChecksumWhenRequired
//     turns it all off for servers that reject checksum headers.
//   - Unsigned payloads: over plain HTTP too, a request carrying a CRC the
//     server checks is signed with UNSIGNED-PAYLOAD rather than the SHA-256
//     of its body (payload.go, docs/design/0006-unsigned-payloads.md).
//   - Listings: ListPage decodes ListObjectsV2 answers with a scanner of
//     the fields a page uses, and leaves what it does not read to the
//     SDK's decoder (listxml.go, internal/wire).
//   - Errors wrap both the store sentinel (store.ErrNotFound, ...) and the
//     SDK error, so callers use errors.Is for the first and
//     internal/retry.Classify still sees the typed SDK error.
//
// The SDK version in go.mod already turns an S3 "200 OK with an <Error>
// body" (CopyObject, UploadPartCopy, CompleteMultipartUpload) into a 500
// error that is retried, and already reads AWS_ENDPOINT_URL and
// AWS_ENDPOINT_URL_S3 from the process's environment; this package relies on
// both rather than reimplementing them. A caller with an environment of its
// own (the CLI's, in tests) passes what it read as Config fields.
package s3store
