package faultproxy

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// Throttle answers 503 SlowDown to requests above a rate per prefix, the way
// S3 scales: it accepts about 3,500 writes (PUT, COPY, POST, DELETE) and
// 5,500 reads (GET, HEAD) per second per partitioned prefix, and answers
// SlowDown above that. Each prefix has a token bucket per kind, refilled
// at the rate and holding a tenth of a second's worth, so a burst above the
// rate is throttled within 100 ms.
type Throttle struct {
	// WriteRate and ReadRate are the requests per second allowed per
	// prefix; 0 leaves that kind unlimited.
	WriteRate, ReadRate float64
	// Depth is how many leading segments of the key (its first
	// "directories") make a request's prefix: 0 throttles a bucket as
	// one, 1 per "company-0001/" and so on. A listing counts against the
	// prefix it lists.
	Depth int
}

type rateBuckets struct {
	t   Throttle
	now func() time.Time

	mu      sync.Mutex
	buckets map[string]*tokenBucket
}

type tokenBucket struct {
	tokens float64
	last   time.Time
}

func newRateBuckets(t Throttle, now func() time.Time) *rateBuckets {
	return &rateBuckets{t: t, now: now, buckets: map[string]*tokenBucket{}}
}

// allow takes a token for r, and reports whether there was one.
func (b *rateBuckets) allow(r *http.Request) bool {
	rate, kind := b.t.WriteRate, "w "
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		rate, kind = b.t.ReadRate, "r "
	}
	if rate <= 0 {
		return true
	}
	key := kind + requestPrefix(r, b.t.Depth)
	capacity := max(1, rate/10)
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	tb := b.buckets[key]
	if tb == nil {
		tb = &tokenBucket{tokens: capacity, last: now}
		b.buckets[key] = tb
	}
	tb.tokens = min(capacity, tb.tokens+now.Sub(tb.last).Seconds()*rate)
	tb.last = now
	if tb.tokens < 1 {
		return false
	}
	tb.tokens--
	return true
}

// requestPrefix is the bucket and the first depth segments of the key a
// path-style request names (of the prefix a listing asks for).
func requestPrefix(r *http.Request, depth int) string {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if key == "" {
		key = r.URL.Query().Get("prefix")
	}
	end := 0
	for range depth {
		i := strings.IndexByte(key[end:], '/')
		if i < 0 {
			break
		}
		end += i + 1
	}
	return bucket + "/" + key[:end]
}
