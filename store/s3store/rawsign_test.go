package s3store

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// The raw client signs its own PutObject, GetObject and CopyObject
// (internal/wire) and sends small puts with an unsigned payload. A server's
// refusal of the first unsigned payload turns every later put over to the
// SDK with signed payloads, which would also hide a request the signer got
// wrong: on a server that checks signatures, each raw request, odd keys
// and metadata headers included, must be taken as it was signed, once,
// with no fallback.
func TestRawRequestsAreTakenAsSigned(t *testing.T) {
	srv := s3test.Start(t)
	srv.Require(t, s3test.Auth)
	var reqs counter
	c := newTestClient(t, srv, func(cfg *Config) { cfg.OnRequest = reqs.add })
	if c.raw == nil {
		t.Fatal("no raw client on an endpoint given by URL: the test tests nothing")
	}
	s := c.Bucket(srv.NewBucket(t))
	keys := []string{"plain", "a b+c=d;e", "ünï/cödé [x]", "p%20q#r~s"}
	meta := store.Metadata{ContentType: "text/plain; charset=utf-8", CacheControl: "max-age=60", User: map[string]string{"origin": "sig  test"}}
	for _, key := range keys {
		mustPut(t, s, key, []byte("body of "+key), meta)
		if got := c.payload.Load(); got != payloadAccepted {
			t.Fatalf("after a put of %q the payload state is %d, want %d (unsigned payloads accepted)", key, got, payloadAccepted)
		}
		if got := mustGet(t, s, key); string(got) != "body of "+key {
			t.Errorf("get %q: %q", key, got)
		}
		if err := s.Copy(t.Context(), store.CopySource{Bucket: s.Bucket(), Key: key, Size: int64(len("body of " + key))}, "copy/"+key, nil); err != nil {
			t.Errorf("copy %q: %v", key, err)
		}
	}
	n := len(keys)
	if diff := cmp.Diff(map[string]int{"PutObject": n, "GetObject": n, "CopyObject": n}, reqs.get()); diff != "" {
		t.Errorf("requests (-want +got): a raw request refused and sent again shows as one more:\n%s", diff)
	}
}
