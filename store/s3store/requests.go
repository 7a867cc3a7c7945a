package s3store

import (
	"context"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// RequestCounter counts HTTP attempts by S3 operation name, for a run's
// summary and its cost: a Client counts into it through Config.OnRequest
// (Count), and any SDK client by appending APIOption to its
// aws.Config.APIOptions, after the SDK's retry middleware, so a retried
// request counts once per attempt, as S3 bills it. It is safe for
// concurrent use.
type RequestCounter struct {
	mu     sync.Mutex
	counts map[string]int64
}

// NewRequestCounter returns an empty counter.
func NewRequestCounter() *RequestCounter { return &RequestCounter{counts: map[string]int64{}} }

// Count counts one request of op: a Config.OnRequest.
func (c *RequestCounter) Count(op string) { c.Add(op, 1) }

// Add counts n requests of op.
func (c *RequestCounter) Add(op string, n int64) {
	c.mu.Lock()
	c.counts[op] += n
	c.mu.Unlock()
}

// Counts returns a copy of the counts so far.
func (c *RequestCounter) Counts() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// APIOption installs the counting middleware on an SDK client's stack.
func (c *RequestCounter) APIOption(stack *middleware.Stack) error {
	mw := middleware.FinalizeMiddlewareFunc("s3bulkCountRequests",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			c.Add(awsmiddleware.GetOperationName(ctx), 1)
			return next.HandleFinalize(ctx, in)
		})
	if err := stack.Finalize.Insert(mw, "Retry", middleware.After); err != nil {
		// No retry middleware (a stripped-down stack): every call is one attempt.
		return stack.Finalize.Add(mw, middleware.After)
	}
	return nil
}
