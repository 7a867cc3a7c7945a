package s3store

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/faultproxy"
	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store/internal/transport"
)

// refusingAddr is an address where nothing listens: dials are refused.
func refusingAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestAnEndpointThatNeverAnsweredIsGivenUpOnAfterThreeRefusals(t *testing.T) {
	srv := s3test.Start(t)
	var reqs counter
	c := newTestClient(t, srv, func(cfg *Config) {
		cfg.EndpointURL = "http://" + refusingAddr(t)
		cfg.Backoff = fastBackoff
		cfg.MaxAttempts = 10
		cfg.OnRequest = reqs.add
	})
	s := c.Bucket("bucket")
	_, _, err := s.Head(t.Context(), "k")
	if !errors.Is(err, syscall.ECONNREFUSED) || !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("Head = %v, want connection refused and store.ErrUnreachable", err)
	}
	// The network's words, not the SDK's wrapping of an absent response.
	if msg := err.Error(); strings.Contains(msg, "StatusCode") || !strings.Contains(msg, "head s3://bucket/k: dial tcp") {
		t.Errorf("error %q: want the operation, the URL and the dial error only", msg)
	}
	// Later requests of the run give up at their first refusal.
	err = s.List(t.Context(), "", "", func(store.Object) error { return nil })
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("List = %v, want connection refused", err)
	}
	want := map[string]int{"HeadObject": transport.UnreachableAttempts, "ListObjectsV2": 1}
	if diff := cmp.Diff(want, reqs.get()); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

func TestARefusedConnectionAfterTheEndpointAnsweredIsRetried(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	front, err := faultproxy.New(srv.Endpoint, faultproxy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var reqs counter
	c := newTestClient(t, srv, func(cfg *Config) {
		cfg.EndpointURL = front.URL()
		cfg.Backoff = fastBackoff
		cfg.MaxAttempts = 5
		cfg.OnRequest = reqs.add
	})
	s := c.Bucket(bucket)
	if _, _, err := s.Head(t.Context(), "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Head of a missing key = %v, want ErrNotFound", err)
	}
	front.Close() // the endpoint goes away mid-run: dials are refused
	_, _, err = s.Head(t.Context(), "k")
	if !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("Head = %v, want connection refused and not store.ErrUnreachable (it answered before)", err)
	}
	if got := reqs.get()["HeadObject"]; got != 1+5 {
		t.Errorf("%d HeadObject attempts, want 1 + 5 (every attempt after the endpoint had answered)", got)
	}
}
