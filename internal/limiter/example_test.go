package limiter_test

import (
	"context"
	"fmt"

	"github.com/s3bulk/s3bulk/internal/limiter"
)

// The shape of one request in the executor: a slot and the part's bytes
// first, the outcome reported after.
func Example() {
	ctx := context.Background()
	requests := limiter.New(64, 4)
	memory := limiter.NewByteBudget(1 << 30)

	const partSize = 8 << 20
	if err := requests.Acquire(ctx); err != nil {
		return
	}
	if err := memory.Acquire(ctx, partSize); err != nil {
		requests.Release()
		return
	}
	throttled := true // say the server answered 503 SlowDown
	memory.Release(partSize)
	requests.Release()
	if throttled {
		requests.Throttled()
	} else {
		requests.Succeeded()
	}
	fmt.Println(requests.Limit(), requests.InFlight(), memory.InUse())
	// Output: 32 0 0
}
