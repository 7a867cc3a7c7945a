package limiter

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// ByteBudget bounds the bytes buffered in memory for a whole run: a part is
// read or downloaded into memory only after Acquire of its size. Requests are
// served first come, first served, so a large part is not starved by a stream
// of small ones. Safe for concurrent use.
type ByteBudget struct {
	total int64
	sem   *semaphore.Weighted // nil when unlimited
	inUse atomic.Int64
}

// NewByteBudget returns a budget of total bytes. A total of 0 or less means
// unlimited.
func NewByteBudget(total int64) *ByteBudget {
	b := &ByteBudget{total: total}
	if total > 0 {
		b.sem = semaphore.NewWeighted(total)
	}
	return b
}

// Acquire blocks until n bytes are free or ctx is done, and then returns ctx's
// error holding nothing. A request for more than the whole budget is clamped
// to the budget: it waits for everything to be free and then runs alone,
// rather than never. n <= 0 acquires nothing.
func (b *ByteBudget) Acquire(ctx context.Context, n int64) error {
	n = b.clamp(n)
	if n <= 0 {
		return nil
	}
	if b.sem != nil {
		if err := b.sem.Acquire(ctx, n); err != nil {
			return err
		}
	} else if err := ctx.Err(); err != nil {
		return err
	}
	b.inUse.Add(n)
	return nil
}

// TryAcquire acquires n bytes, clamped like Acquire, only if they are free
// now and nobody is waiting, and reports whether it did.
func (b *ByteBudget) TryAcquire(n int64) bool {
	n = b.clamp(n)
	if n <= 0 {
		return true
	}
	if b.sem != nil && !b.sem.TryAcquire(n) {
		return false
	}
	b.inUse.Add(n)
	return true
}

// Release returns n bytes acquired by Acquire(ctx, n), clamped the same way.
// It panics when releasing more than is held.
func (b *ByteBudget) Release(n int64) {
	n = b.clamp(n)
	if n <= 0 {
		return
	}
	if b.inUse.Add(-n) < 0 {
		panic("limiter: released more bytes than held")
	}
	if b.sem != nil {
		b.sem.Release(n)
	}
}

// Total is the budget, 0 or less when unlimited.
func (b *ByteBudget) Total() int64 { return b.total }

// InUse is the number of bytes acquired and not yet released.
func (b *ByteBudget) InUse() int64 { return b.inUse.Load() }

func (b *ByteBudget) clamp(n int64) int64 {
	if b.sem != nil {
		return min(n, b.total)
	}
	return n
}
