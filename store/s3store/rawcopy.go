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
)

// rawCopier sends CopyObject as one hand-built request, signed with the
// SDK's SigV4 signer, instead of through the SDK's operation stack.
//
// Why: a server-side copy of a small object is all overhead on the client
// (no body either way), and the SDK rebuilds a stack of some forty
// middlewares per call: on 5,000 copies of 100 KiB it cost more client CPU
// than s5cmd spends in total. This path keeps everything that matters —
// SigV4 (the SDK's signer), our retry policy and classifier, throttling
// callbacks, request counting, stall detection, 200-with-<Error> bodies,
// error mapping to store sentinels — and drops the rest. It is used only
// for S3-compatible endpoints given by URL (no AWS endpoint rules to
// honour) and for copies that keep the source's metadata; everything else
// goes through the SDK.
type rawCopier struct {
	c        *Client
	endpoint *customEndpoint
	creds    aws.CredentialsProvider
	signer   *v4.Signer
	http     *http.Client
	cfg      Config
}

// emptyPayloadHash is the SHA-256 of an empty body, which CopyObject sends.
const emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func newRawCopier(c *Client, ep *customEndpoint, creds aws.CredentialsProvider, hc *http.Client, cfg Config) *rawCopier {
	return &rawCopier{
		c: c, endpoint: ep, creds: creds, http: hc, cfg: cfg,
		// S3 signs the path exactly as sent: it is escaped once, here.
		signer: v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }),
	}
}

// copy copies src to key in the bucket of dst, with dst's options.
func (r *rawCopier) copy(ctx context.Context, dst *Store, src store.CopySource, key string) error {
	bucket := dst.bucket
	ctx = withCopiedBytes(middleware.WithOperationName(ctx, "CopyObject"), src.Size)
	for attempt := 1; ; attempt++ {
		if r.cfg.OnRequest != nil {
			r.cfg.OnRequest("CopyObject")
		}
		start := time.Now()
		err := r.once(ctx, dst, src, key)
		if err == nil {
			r.log(ctx, bucket, key, 200, time.Since(start), nil, retry.None)
			return nil
		}
		class := retry.Classify(err)
		if class == retry.Throttled && r.cfg.OnThrottle != nil {
			r.cfg.OnThrottle()
		}
		r.log(ctx, bucket, key, statusOf(err), time.Since(start), err, class)
		if ctx.Err() != nil {
			return wrap(ctx.Err(), "copy", "s3://"+bucket+"/"+key)
		}
		if !class.Retry() || attempt >= r.c.maxAttempts || r.c.reach.unreachable(err) {
			e := wrap(err, "copy", "s3://"+bucket+"/"+key).(*Error)
			e.Src = "s3://" + src.Bucket + "/" + src.Key
			e.Attempts = attempt
			return e
		}
		t := time.NewTimer(r.c.backoff.Delay(attempt, class))
		select {
		case <-ctx.Done():
			t.Stop()
			return wrap(ctx.Err(), "copy", "s3://"+bucket+"/"+key)
		case <-t.C:
		}
	}
}

func (r *rawCopier) once(ctx context.Context, dst *Store, src store.CopySource, key string) error {
	bucket := dst.bucket
	u := r.endpoint.base
	escaped := escapeKey(key)
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
	u.RawQuery = "x-id=CopyObject"
	// Built directly from the URL above: formatting it to a string for
	// NewRequest and parsing it back would be one more round per request.
	req := (&http.Request{
		Method: http.MethodPut, URL: &u, Host: u.Host,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: make(http.Header, 8), Body: http.NoBody,
	}).WithContext(ctx)
	req.Header.Set("X-Amz-Copy-Source", copySource(src.Bucket, src.Key))
	req.Header.Set("X-Amz-Metadata-Directive", "COPY")
	if src.IfMatch != "" {
		req.Header.Set("X-Amz-Copy-Source-If-Match", quoteETag(src.IfMatch))
	}
	setOptionHeaders(req.Header, dst)
	req.Header.Set("X-Amz-Content-Sha256", emptyPayloadHash)
	req.Header.Set("User-Agent", "s3bulk")
	creds, err := r.creds.Retrieve(ctx)
	if err != nil {
		return credentialsError(err)
	}
	if err := r.signer.SignHTTP(ctx, creds, req, emptyPayloadHash, "s3", dst.region(), time.Now().UTC()); err != nil {
		return err
	}
	resp, err := r.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err // keep the typed cause (stall, reset, timeout) for the classifier
		}
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 == 2 {
		// S3 may answer 200 and report the failure in the body, after the
		// copy ran for a while: that is a failure, not a copy.
		if bytes.Contains(body, []byte("<Error>")) {
			e := parseErrorBody(body, resp)
			e.status = 500 // as the SDK treats it: retryable
			return e
		}
		return nil
	}
	return parseErrorBody(body, resp)
}

// setOptionHeaders sets the headers of dst's Options that a CopyObject
// carries: the same ones the SDK's CopyObject sends for the same fields.
func setOptionHeaders(h http.Header, dst *Store) {
	if dst.payer != "" {
		h.Set("X-Amz-Request-Payer", string(dst.payer))
	}
	if dst.opts.ACL != "" {
		h.Set("X-Amz-Acl", dst.opts.ACL)
	}
	if dst.opts.SSE != "" {
		h.Set("X-Amz-Server-Side-Encryption", dst.opts.SSE)
	}
	if dst.opts.SSEKMSKeyID != "" {
		h.Set("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", dst.opts.SSEKMSKeyID)
	}
	if k := dst.ssec; k != nil {
		h.Set("X-Amz-Server-Side-Encryption-Customer-Algorithm", *k.alg)
		h.Set("X-Amz-Server-Side-Encryption-Customer-Key", *k.key)
		h.Set("X-Amz-Server-Side-Encryption-Customer-Key-Md5", *k.md5)
	}
	if k := dst.srcSSEC; k != nil {
		h.Set("X-Amz-Copy-Source-Server-Side-Encryption-Customer-Algorithm", *k.alg)
		h.Set("X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key", *k.key)
		h.Set("X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key-Md5", *k.md5)
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

func (r *rawCopier) log(ctx context.Context, bucket, key string, status int, d time.Duration, err error, class retry.Class) {
	l := r.cfg.Logger
	if l == nil || !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", "CopyObject"), slog.String("bucket", bucket), slog.String("key", key),
		slog.Int("status", status), slog.Duration("duration", d),
	}
	l.LogAttrs(ctx, slog.LevelDebug, "s3 request", withError(attrs, err, class)...)
}

// escapeKey percent-encodes a key for a request path the way S3 signs it:
// every byte but unreserved characters and '/'.
func escapeKey(key string) string {
	return strings.TrimPrefix(copySource("", key), "/")
}
