package s3store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/s3bulk/s3bulk/internal/retry"
)

// observer runs once per HTTP attempt (it sits right after the SDK's retry
// middleware): it counts the attempt, reports throttling, and logs.
type observer struct {
	onRequest  func(op string)
	onThrottle func()
	onResponse func(op, outcome string)
	logger     *slog.Logger
}

// outcome names how an attempt ended, for Config.OnResponse.
func outcome(class retry.Class) string {
	if class == retry.None {
		return "ok"
	}
	return class.String()
}

func (*observer) ID() string { return "s3bulk.Observe" }

func (o *observer) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	op := middleware.GetOperationName(ctx)
	if o.onRequest != nil {
		o.onRequest(op)
	}
	start := time.Now()
	out, md, err := next.HandleFinalize(ctx, in)
	class := retry.Classify(err)
	if class == retry.Throttled && o.onThrottle != nil {
		o.onThrottle()
	}
	if o.onResponse != nil {
		o.onResponse(op, outcome(class))
	}
	if o.logger != nil && o.logger.Enabled(ctx, slog.LevelDebug) {
		o.log(ctx, op, time.Since(start), md, err, class)
	}
	return out, md, err
}

// log writes one debug line per attempt. It names the operation, bucket and
// key, never headers or URLs: those carry signatures, session tokens, SSE-C
// keys and presigned query strings.
func (o *observer) log(ctx context.Context, op string, d time.Duration, md middleware.Metadata, err error, class retry.Class) {
	status := 0
	if resp, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok && resp != nil && resp.Response != nil {
		status = resp.StatusCode
	}
	var se interface{ HTTPStatusCode() int }
	if status == 0 && errors.As(err, &se) {
		status = se.HTTPStatusCode()
	}
	target, _ := middleware.GetStackValue(ctx, targetKey{}).(target)
	attrs := []slog.Attr{
		slog.String("op", op),
		slog.String("bucket", target.bucket),
		slog.String("key", target.key),
		slog.Int("status", status),
		slog.Duration("duration", d),
	}
	if id, ok := awsmiddleware.GetRequestIDMetadata(md); ok {
		attrs = append(attrs, slog.String("request_id", id))
	}
	o.logger.LogAttrs(ctx, slog.LevelDebug, "s3 request", withError(attrs, err, class)...)
}

// withError adds to a request's log attributes what its error was, if it
// failed: the error's class and S3's code and message, or what went wrong
// before S3 answered.
func withError(attrs []slog.Attr, err error, class retry.Class) []slog.Attr {
	if err == nil {
		return attrs
	}
	attrs = append(attrs, slog.String("class", class.String()))
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return append(attrs, slog.String("code", apiErr.ErrorCode()), slog.String("message", apiErr.ErrorMessage()))
	}
	return append(attrs, slog.String("error", describe(err)))
}

type targetKey struct{}

type target struct{ bucket, key string }

// targetRecorder stores the operation's bucket and key for the observer,
// which runs after serialization, where only the signed request is left.
type targetRecorder struct{}

func (targetRecorder) ID() string { return "s3bulk.RecordTarget" }

func (targetRecorder) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error,
) {
	ctx = middleware.WithStackValue(ctx, targetKey{}, targetOf(in.Parameters))
	return next.HandleInitialize(ctx, in)
}

var stringPtr = reflect.TypeFor[*string]()

// targetOf reads the Bucket and Key fields every S3 input type that has
// them declares as *string. Reflection keeps this one function instead of a
// case per operation.
func targetOf(params any) target {
	v := reflect.ValueOf(params)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return target{}
	}
	field := func(name string) string {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Type() != stringPtr || f.IsNil() {
			return ""
		}
		return f.Elem().String()
	}
	return target{bucket: field("Bucket"), key: field("Key")}
}

// sdkLogger sends the SDK's own log lines (warnings such as a skipped
// checksum) to the run's logger at debug level instead of stderr.
type sdkLogger struct{ l *slog.Logger }

func (s sdkLogger) Logf(c logging.Classification, format string, v ...any) {
	s.l.Debug(fmt.Sprintf(format, v...), "source", "aws-sdk", "classification", string(c))
}
