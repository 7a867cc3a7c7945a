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
		// What the suite checks that some servers do not do: the first
		// match of the test's name decides.
		for _, r := range []struct {
			name string
			need s3test.Capability
		}{
			{"stale_etag", s3test.ConditionalGet},
			{"metadata_given_to_put", s3test.Metadata},
			{"byte_range", s3test.Ranges},
			{"/list_", s3test.Listing},
			{"reserved_characters", s3test.OddKeys},
			{"prefix_vanish", s3test.PrefixesVanish},
		} {
			if strings.Contains(t.Name(), r.name) {
				srv.Require(t, r.need)
				break
			}
		}
		return c.Bucket(srv.NewBucket(t))
	}, storetest.Caps{ETags: true, Metadata: true})
}
