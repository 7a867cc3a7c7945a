package s3store

import (
	"strings"
	"testing"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/storetest"
)

// newTestClient returns a client of srv configured like a run would be,
// changed by mod.
func newTestClient(t testing.TB, srv *s3test.Server, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		Region:      srv.Region,
		EndpointURL: srv.Endpoint,
		AccessKey:   srv.AccessKey,
		SecretKey:   srv.SecretKey,
		Concurrency: 16,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := NewClient(t.Context(), cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func TestConformance(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, nil)
	storetest.Run(t, func(t *testing.T) store.Store {
		// What the suite checks that some servers do not do.
		switch {
		case strings.Contains(t.Name(), "stale_etag"):
			srv.Require(t, s3test.ConditionalGet)
		case strings.Contains(t.Name(), "metadata_given_to_put"):
			srv.Require(t, s3test.Metadata)
		case strings.Contains(t.Name(), "byte_range"):
			srv.Require(t, s3test.Ranges)
		case strings.Contains(t.Name(), "/list_"):
			srv.Require(t, s3test.Listing)
		case strings.Contains(t.Name(), "reserved_characters"):
			srv.Require(t, s3test.OddKeys)
		case strings.Contains(t.Name(), "prefix_vanish"):
			srv.Require(t, s3test.PrefixesVanish)
		}
		return c.Bucket(srv.NewBucket(t))
	}, storetest.Caps{ETags: true, Metadata: true})
}
