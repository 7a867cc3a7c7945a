package engine

import (
	"context"
	"testing"

	"github.com/s3bulk/s3bulk/internal/limiter"
)

func TestBuffersHoldTheSizeAskedAndLittleMore(t *testing.T) {
	ctx := context.Background()
	budget := limiter.NewByteBudget(64 << 20)
	b := &partBuffers{budget: budget}
	for _, n := range []int64{0, 1, 4095, 4096, 4097, 100 << 10, 100<<10 + 1, 1<<20 - 1, 1 << 20, 1<<20 + 1, 5 << 20} {
		var first []byte
		for i := range 3 { // new, then reused
			buf, err := b.get(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(buf)) != n {
				t.Fatalf("get(%d) has %d bytes", n, len(buf))
			}
			c := int64(cap(buf))
			if c != bufferSize(n) {
				t.Errorf("get(%d) has capacity %d, want bufferSize's %d", n, c, bufferSize(n))
			}
			if n > minBuffer && c > n+n/8 {
				t.Errorf("get(%d) holds %d bytes, more than an eighth more", n, c)
			}
			if got := budget.InUse(); got != c {
				t.Errorf("get(%d) charged the budget %d bytes, want its capacity %d", n, got, c)
			}
			if i == 0 {
				first = buf[:cap(buf)]
			} else if n > 0 && &buf[:cap(buf)][0] != &first[0] {
				t.Errorf("get(%d) after a put of one of its size allocated a new buffer", n)
			}
			b.put(buf)
			if got := budget.InUse(); got != 0 {
				t.Fatalf("after put, the budget holds %d bytes", got)
			}
		}
	}
}

func TestIdleBuffersMakeRoomWithinTheBudget(t *testing.T) {
	ctx := context.Background()
	const total = 1 << 20
	b := &partBuffers{budget: limiter.NewByteBudget(total)}
	var held [][]byte
	for range 8 {
		buf, err := b.get(ctx, 100<<10)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, buf)
	}
	for _, buf := range held {
		b.put(buf)
	}
	// The idle buffers are of another size: they go, rather than the
	// budget's memory and theirs adding up.
	big, err := b.get(ctx, total)
	if err != nil {
		t.Fatal(err)
	}
	if b.idle+b.budget.InUse() > total {
		t.Errorf("%d bytes idle and %d in use, more than the budget of %d", b.idle, b.budget.InUse(), total)
	}
	b.put(big)
}
