package faultproxy

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestRequestPrefix(t *testing.T) {
	tests := []struct {
		name, target string
		depth        int
		want         string
	}{
		{"depth 0 is the bucket", "/b/company-0001/user-0001/f.json", 0, "b/"},
		{"depth 1 is the first segment", "/b/company-0001/user-0001/f.json", 1, "b/company-0001/"},
		{"depth 2 is two segments", "/b/company-0001/user-0001/f.json", 2, "b/company-0001/user-0001/"},
		{"a key shallower than depth is its segments", "/b/top.json", 2, "b/"},
		{"a listing counts against its prefix", "/b?list-type=2&prefix=company-0002/u", 1, "b/company-0002/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := requestPrefix(httptest.NewRequest(http.MethodGet, tt.target, nil), tt.depth); got != tt.want {
				t.Errorf("requestPrefix(%q, %d) = %q, want %q", tt.target, tt.depth, got, tt.want)
			}
		})
	}
}

func TestThrottleAllowsTheRatePerPrefix(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := newRateBuckets(Throttle{WriteRate: 100, Depth: 1}, func() time.Time { return now })
	put := func(key string) *http.Request { return httptest.NewRequest(http.MethodPut, "/b/"+key, nil) }
	// One second at 1,000 writes/s to one prefix, 100/s to another: the
	// first gets its 100 and the burst, the second everything.
	allowedA, allowedB := 0, 0
	for i := range 1000 {
		now = now.Add(time.Millisecond)
		if b.allow(put("a/k")) {
			allowedA++
		}
		if i%10 == 0 && b.allow(put("b/k")) {
			allowedB++
		}
	}
	if allowedA < 100 || allowedA > 111 {
		t.Errorf("prefix a: %d of 1,000 writes allowed in a second at 100/s, want 100 to 110", allowedA)
	}
	if allowedB != 100 {
		t.Errorf("prefix b: %d of 100 writes allowed, want all", allowedB)
	}
	if !b.allow(httptest.NewRequest(http.MethodGet, "/b/a/k", nil)) {
		t.Error("a read was throttled with no read rate set")
	}
}
