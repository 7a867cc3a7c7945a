package s3store

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/s3bulk/s3bulk/store/s3store/internal/wire"
)

// Unsigned payloads over plain HTTP, and why (docs/design/0006).
//
// SigV4 signs a request's body by putting its SHA-256 in the signature.
// Over HTTPS the SDK sends bodies as aws-chunked with a trailing CRC and
// STREAMING-UNSIGNED-PAYLOAD-TRAILER, so no SHA-256 is computed. Over plain
// HTTP (the usual case for S3-compatible servers on a LAN) it computes the
// CRC and the SHA-256 of every body before sending it, and the SHA-256 is
// most of the client's CPU on uploads and streamed copies.
//
// A request that carries a CRC checksum the server validates (CRC32,
// CRC32C or CRC64NVME in an x-amz-checksum-* header) is sent with
// UNSIGNED-PAYLOAD instead, over HTTP too: accidental corruption on the way
// is still caught by the server, end to end, and the object is not
// written. What the SHA-256 adds on an unencrypted link is protection
// against an attacker who rewrites the body in flight and recomputes the
// CRC, and such an attacker can read every byte anyway. A request without
// such a checksum (Config.ChecksumWhenRequired) keeps its signed payload.
// A stream too large to buffer is spooled to a temporary file over plain
// HTTP (Store.Put), so it gets its CRC or its signature like any body.
//
// The SDK's own mechanism does the work: a payload hash set in the context
// before its checksum middleware runs makes that middleware compute only
// the CRC (for the header), and its ComputePayloadSHA256 middleware then
// leaves the hash alone. unsignedWithChecksum sets it; checksumGuard,
// right after the checksum middleware, takes it back when no CRC header
// was added, so the SDK hashes and signs the payload as before.
//
// A server that refuses unsigned payloads over HTTP (none of the servers
// in docs/servers.md does) is noticed on the first such request: before
// any unsigned request has succeeded, one refused with 400, 403 or 501
// is sent again with a signed payload, and when that succeeds the client
// signs every payload from then on and says so once in its debug log.

const unsignedPayload = wire.UnsignedPayload

// sdkInputChecksum is the SDK middleware that computes request checksums.
const sdkInputChecksum = "AWSChecksum:ComputeInputPayloadChecksum"

// What a client knows about its server and unsigned payloads.
const (
	payloadUntried  int32 = iota // no unsigned request has succeeded yet
	payloadAccepted              // one has: the server takes them
	payloadSigned                // the server refused one: sign them all
)

// unsignedAttempt is the stack value through which the middlewares of one
// operation say that a request went out unsigned.
type unsignedAttempt struct{}

// signPayload is the stack value that makes unsignedWithChecksum leave a
// request alone: unsignedFallback's second try.
type signPayload struct{}

// crcHeaders are the checksums that let a payload go unsigned.
var crcHeaders = []string{"X-Amz-Checksum-Crc32", "X-Amz-Checksum-Crc32c", "X-Amz-Checksum-Crc64nvme"}

func hasCRCHeader(h http.Header) bool {
	for _, k := range crcHeaders {
		if h.Get(k) != "" {
			return true
		}
	}
	return false
}

// addUnsignedPayload adds the three middlewares to stack, when it has the
// SDK's checksum middleware (operations with a body) and a retry loop (not
// a presigner).
func (c *Client) addUnsignedPayload(stack *middleware.Stack) error {
	if _, ok := stack.Finalize.Get(sdkInputChecksum); !ok {
		return nil
	}
	if _, ok := stack.Finalize.Get("Retry"); !ok {
		return nil
	}
	if err := stack.Finalize.Insert(unsignedFallback{c}, "Retry", middleware.Before); err != nil {
		return err
	}
	if err := stack.Finalize.Insert(unsignedWithChecksum{c}, sdkInputChecksum, middleware.Before); err != nil {
		return err
	}
	return stack.Finalize.Insert(checksumGuard{}, sdkInputChecksum, middleware.After)
}

// unsignedWithChecksum marks a plain-HTTP request's payload unsigned before
// the SDK's checksum middleware runs.
type unsignedWithChecksum struct{ c *Client }

func (unsignedWithChecksum) ID() string { return "s3bulk.UnsignedPayload" }

func (m unsignedWithChecksum) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	req, ok := in.Request.(*smithyhttp.Request)
	if ok && !req.IsHTTPS() && v4.GetPayloadHash(ctx) == "" && m.c.payload.Load() != payloadSigned &&
		middleware.GetStackValue(ctx, signPayload{}) == nil {
		ctx = v4.SetPayloadHash(ctx, unsignedPayload)
	}
	return next.HandleFinalize(ctx, in)
}

// checksumGuard runs after the SDK's checksum middleware: a payload marked
// unsigned without a CRC header to vouch for it is signed after all.
type checksumGuard struct{}

func (checksumGuard) ID() string { return "s3bulk.UnsignedPayloadNeedsChecksum" }

func (checksumGuard) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	req, ok := in.Request.(*smithyhttp.Request)
	if ok && v4.GetPayloadHash(ctx) == unsignedPayload && !req.IsHTTPS() {
		if !hasCRCHeader(req.Header) {
			ctx = v4.SetPayloadHash(ctx, "") // ComputePayloadSHA256 signs it
		} else if sent, _ := middleware.GetStackValue(ctx, unsignedAttempt{}).(*atomic.Bool); sent != nil {
			sent.Store(true)
		}
	}
	return next.HandleFinalize(ctx, in)
}

// unsignedFallback wraps the retry loop: it learns from the first unsigned
// requests whether the server takes them, and resends a refused one signed.
type unsignedFallback struct{ c *Client }

func (unsignedFallback) ID() string { return "s3bulk.UnsignedPayloadFallback" }

func (m unsignedFallback) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	if m.c.payload.Load() != payloadUntried {
		return next.HandleFinalize(ctx, in)
	}
	sent := new(atomic.Bool)
	out, md, err := next.HandleFinalize(middleware.WithStackValue(ctx, unsignedAttempt{}, sent), in)
	if !sent.Load() {
		return out, md, err
	}
	if err == nil {
		m.c.payload.CompareAndSwap(payloadUntried, payloadAccepted)
		return out, md, err
	}
	req, ok := in.Request.(*smithyhttp.Request)
	if !ok || !refusesUnsigned(err) || ctx.Err() != nil || m.c.payload.Load() != payloadUntried || req.RewindStream() != nil {
		return out, md, err
	}
	// Signed, the retry loop starts again from the first attempt.
	out, md, err2 := next.HandleFinalize(middleware.WithStackValue(ctx, signPayload{}, true), in)
	if err2 != nil {
		return out, md, err2 // refused signed too: the payload was not why
	}
	if m.c.payload.CompareAndSwap(payloadUntried, payloadSigned) {
		m.c.sayOnce("signed-payloads", "the server refused an unsigned payload over plain HTTP: payloads are signed from now on",
			"endpoint", m.c.endpoint, "refusal", err.Error())
	}
	return out, md, nil
}

// refusesUnsigned reports whether err could be a server's refusal of an
// unsigned payload: 400, 403 or 501, but not a checksum that does not
// match (corruption that the unsigned request rightly failed on).
func refusesUnsigned(err error) bool {
	var re interface{ HTTPStatusCode() int }
	if !errors.As(err, &re) {
		return false
	}
	switch re.HTTPStatusCode() {
	case http.StatusBadRequest, http.StatusForbidden, http.StatusNotImplemented:
	default:
		return false
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code := ae.ErrorCode()
		if code == "BadDigest" || code == "InvalidDigest" || strings.Contains(code, "ChecksumMismatch") ||
			code == "InvalidChecksum" || code == "IncompleteBody" {
			return false
		}
	}
	return true
}
