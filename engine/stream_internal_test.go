package engine

import "testing"

func TestObjectBuffersHoldExactlyTheSizeAsked(t *testing.T) {
	for _, n := range []int64{0, 1, 4095, 4096, 4097, 100 << 10, 1 << 20, 1<<20 + 1, 5 << 20} {
		for range 3 { // new, then reused
			bp := getObjectBuffer(n)
			if int64(len(*bp)) != n {
				t.Fatalf("getObjectBuffer(%d) has %d bytes", n, len(*bp))
			}
			if c := bufferClass(n); c >= 0 && cap(*bp) != 1<<c {
				t.Errorf("getObjectBuffer(%d) has capacity %d, want its class's %d", n, cap(*bp), 1<<c)
			}
			putObjectBuffer(bp)
		}
	}
}
