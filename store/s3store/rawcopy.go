package s3store

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/s3bulk/s3bulk/internal/retry"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/transport"
	"github.com/s3bulk/s3bulk/store/s3store/internal/wire"
)

// rawClient sends the requests a bulk copy sends most — CopyObject, and
// the GetObject and small PutObject of a copy streamed through the client
// (rawobject.go) — as hand-built requests, signed with SigV4 (internal/wire,
// byte for byte the SDK's signer, which signs what it does not take),
// instead of through the SDK's operation stack.
//
// Why: a copy of a small object is mostly per-request overhead on the
// client, and the SDK rebuilds a stack of some forty middlewares per call:
// on 5,000 server-side copies of 100 KiB it cost more client CPU than
// s5cmd spends in total, and on 5,000 copies of 100 KiB streamed between
// two endpoints it was about half of s3bulk's CPU. This path keeps
// everything that matters — SigV4, our retry policy and
// classifier, throttling callbacks, request counting, stall detection,
// 200-with-<Error> bodies, error mapping to store sentinels, request
// checksums the server verifies, response checksums we verify — and drops
// the rest. It is used only for S3-compatible endpoints given by URL (no
// AWS endpoint rules to honour) and signed requests; everything else goes
// through the SDK.
type rawClient struct {
	c        *Client
	endpoint *customEndpoint
	creds    aws.CredentialsProvider
	signer   *v4.Signer
	// sigv4 signs what signer would sign the same way, faster (internal/wire).
	sigv4 wire.Signer
	http  *http.Client
	cfg   Config
	// sends holds the bodies of small PutObjects while they are sent
	// (rawobject.go).
	sends *sendPool
}

func newRawClient(c *Client, ep *customEndpoint, creds aws.CredentialsProvider, hc *http.Client, cfg Config) *rawClient {
	return &rawClient{
		c: c, endpoint: ep, creds: creds, http: hc, cfg: cfg, sends: &sendPool{max: sendPoolBytes},
		// S3 signs the path exactly as sent: it is escaped once, here.
		signer: v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }),
	}
}

// copy copies src to key in the bucket of dst, with dst's options.
func (r *rawClient) copy(ctx context.Context, dst *Store, src store.CopySource, key string) error {
	ctx = transport.WithCopiedBytes(ctx, src.Size)
	attempts, err := r.attempt(ctx, "CopyObject", dst.bucket, key, func(ctx context.Context) (int, error) {
		return r.once(ctx, dst, src, key)
	})
	if err == nil {
		return nil
	}
	e := wrap(err, "copy", dst.URL(key)).(*Error)
	if ctx.Err() == nil {
		e.Src = "s3://" + src.Bucket + "/" + src.Key
		e.Attempts = attempts
	}
	return e
}

// attempt runs send, one HTTP exchange of operation op on bucket/key,
// until it succeeds, fails for good or runs out of attempts, with the
// client's retry policy: internal/retry's classifier and backoff, the
// throttling callback, request counting, the endpoint's reachability and
// one debug line per attempt. send returns the status of a success, for
// that line (a ranged GET's 206). attempt returns how many attempts were
// made and the last error, unwrapped (ctx's error when ctx ended).
func (r *rawClient) attempt(ctx context.Context, op, bucket, key string, send func(context.Context) (int, error)) (int, error) {
	// stallTransport reads the operation's name from the context.
	ctx = middleware.WithOperationName(ctx, op)
	for attempt := 1; ; attempt++ {
		if r.cfg.OnRequest != nil {
			r.cfg.OnRequest(op)
		}
		start := time.Now()
		status, err := send(ctx)
		class := retry.Classify(err)
		if r.cfg.OnResponse != nil {
			r.cfg.OnResponse(op, outcome(class))
		}
		if err == nil {
			r.log(ctx, op, bucket, key, status, time.Since(start), nil, retry.None)
			return attempt, nil
		}
		if class == retry.Throttled && r.cfg.OnThrottle != nil {
			r.cfg.OnThrottle()
		}
		r.log(ctx, op, bucket, key, statusOf(err), time.Since(start), err, class)
		if ctx.Err() != nil {
			return attempt, ctx.Err()
		}
		if !class.Retry() || attempt >= r.c.maxAttempts || r.c.reach.Unreachable(err) {
			return attempt, err
		}
		t := time.NewTimer(r.c.backoff.Delay(attempt, class))
		select {
		case <-ctx.Done():
			t.Stop()
			return attempt, ctx.Err()
		case <-t.C:
		}
	}
}

// request is a request of operation op on bucket/key, addressed as the
// endpoint addresses buckets, with no body yet.
func (r *rawClient) request(ctx context.Context, method, op, bucket, key string) *http.Request {
	u := r.endpoint.base
	escaped := EscapeKey(key)
	if r.endpoint.pathStyle {
		u.Path += "/" + bucket + "/" + key
		u.RawPath = r.endpoint.base.EscapedPath() + "/" + bucket + "/" + escaped
	} else {
		u.Host = bucket + "." + u.Host
		u.Path += "/" + key
		u.RawPath = r.endpoint.base.EscapedPath() + "/" + escaped
	}
	// The operation tag the SDK adds too: servers and proxies use it to
	// tell operations apart.
	u.RawQuery = "x-id=" + op
	// Built directly from the URL above: formatting it to a string for
	// NewRequest and parsing it back would be one more round per request.
	return (&http.Request{
		Method: method, URL: &u, Host: u.Host,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: make(http.Header, 16), Body: http.NoBody,
	}).WithContext(ctx)
}

// sign signs req for dst's region with the payload hash given, which it
// also sets as X-Amz-Content-Sha256.
func (r *rawClient) sign(ctx context.Context, req *http.Request, dst *Store, payloadHash string) error {
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	req.Header.Set("User-Agent", "s3bulk")
	creds, err := r.creds.Retrieve(ctx)
	if err != nil {
		return credentialsError(err)
	}
	now := time.Now().UTC()
	if r.sigv4.Sign(creds, req, payloadHash, "s3", dst.region(), now) {
		return nil
	}
	return r.signer.SignHTTP(ctx, creds, req, payloadHash, "s3", dst.region(), now)
}

// do sends req; a transport error comes back with its typed cause.
func (r *rawClient) do(req *http.Request) (*http.Response, error) {
	resp, err := r.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, ue.Err // keep the typed cause (stall, reset, timeout) for the classifier
		}
		return nil, err
	}
	return resp, nil
}

func (r *rawClient) once(ctx context.Context, dst *Store, src store.CopySource, key string) (int, error) {
	req := r.request(ctx, http.MethodPut, "CopyObject", dst.bucket, key)
	req.Header.Set("X-Amz-Copy-Source", copySourceOf(src))
	req.Header.Set("X-Amz-Metadata-Directive", "COPY")
	if src.Tags != nil {
		req.Header.Set("X-Amz-Tagging-Directive", "REPLACE")
		if v := taggingHeader(src.Tags); v != nil {
			req.Header.Set("X-Amz-Tagging", *v)
		}
	}
	if src.IfMatch != "" {
		req.Header.Set("X-Amz-Copy-Source-If-Match", store.QuoteETag(src.IfMatch))
	}
	if src.ChecksumAlgorithm != "" {
		req.Header.Set("X-Amz-Checksum-Algorithm", src.ChecksumAlgorithm)
	}
	setOptionHeaders(req.Header, dst)
	if err := r.sign(ctx, req, dst, wire.EmptyPayloadHash); err != nil {
		return 0, err
	}
	resp, err := r.do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode/100 == 2 {
		// S3 may answer 200 and report the failure in the body, after the
		// copy ran for a while: that is a failure, not a copy.
		if bytes.Contains(body, []byte("<Error>")) {
			e := parseErrorBody(body, resp)
			e.status = 500 // as the SDK treats it: retryable
			return 0, e
		}
		store.NoteWritten(ctx, resp.Header.Get("X-Amz-Version-Id"))
		return resp.StatusCode, nil
	}
	return 0, parseErrorBody(body, resp)
}

// setOptionHeaders sets the headers of dst's Options that a CopyObject
// carries: the same ones the SDK's CopyObject sends for the same fields.
func setOptionHeaders(h http.Header, dst *Store) {
	setWriteHeaders(h, dst)
	if k := dst.srcSSEC; k != nil {
		h.Set("X-Amz-Copy-Source-Server-Side-Encryption-Customer-Algorithm", *k.alg)
		h.Set("X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key", *k.key)
		h.Set("X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key-Md5", *k.md5)
	}
}

// setWriteHeaders sets the headers of s's Options that a write of an
// object carries.
func setWriteHeaders(h http.Header, s *Store) {
	if s.opts.ACL != "" {
		h.Set("X-Amz-Acl", s.opts.ACL)
	}
	if s.opts.SSE != "" {
		h.Set("X-Amz-Server-Side-Encryption", s.opts.SSE)
	}
	if s.opts.SSEKMSKeyID != "" {
		h.Set("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", s.opts.SSEKMSKeyID)
	}
	setReadHeaders(h, s)
}

// setReadHeaders sets the headers of s's Options that every request on an
// object's content carries.
func setReadHeaders(h http.Header, s *Store) {
	if s.payer != "" {
		h.Set("X-Amz-Request-Payer", string(s.payer))
	}
	if k := s.ssec; k != nil {
		h.Set("X-Amz-Server-Side-Encryption-Customer-Algorithm", *k.alg)
		h.Set("X-Amz-Server-Side-Encryption-Customer-Key", *k.key)
		h.Set("X-Amz-Server-Side-Encryption-Customer-Key-Md5", *k.md5)
	}
}

// apiError is an S3 error response, typed like the SDK's so the same
// classifier and sentinel mapping read it.
type apiError struct {
	code, message, requestID string
	status                   int
}

func (e *apiError) Error() string {
	return fmt.Sprintf("api error %s: %s", e.code, e.message)
}
func (e *apiError) ErrorCode() string             { return e.code }
func (e *apiError) ErrorMessage() string          { return e.message }
func (e *apiError) ErrorFault() smithy.ErrorFault { return smithy.FaultUnknown }
func (e *apiError) HTTPStatusCode() int           { return e.status }

func parseErrorBody(body []byte, resp *http.Response) *apiError {
	var x struct {
		Code      string `xml:"Code"`
		Message   string `xml:"Message"`
		RequestID string `xml:"RequestId"`
	}
	_ = xml.Unmarshal(bytes.TrimSpace(body), &x)
	e := &apiError{code: x.Code, message: x.Message, requestID: x.RequestID, status: resp.StatusCode}
	if e.code == "" {
		e.code = http.StatusText(resp.StatusCode)
		if e.code == "" {
			e.code = "UnknownError"
		}
		e.code = strings.ReplaceAll(e.code, " ", "")
	}
	return e
}

func statusOf(err error) int {
	var s interface{ HTTPStatusCode() int }
	if errors.As(err, &s) {
		return s.HTTPStatusCode()
	}
	return 0
}

func (r *rawClient) log(ctx context.Context, op, bucket, key string, status int, d time.Duration, err error, class retry.Class) {
	l := r.cfg.Logger
	if l == nil || !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", op), slog.String("bucket", bucket), slog.String("key", key),
		slog.Int("status", status), slog.Duration("duration", d),
	}
	l.LogAttrs(ctx, slog.LevelDebug, "s3 request", withError(attrs, err, class)...)
}
