package s3store

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
	"github.com/s3bulk/s3bulk/store"
)

// ListPage does what the engine's parallel listings rely on, on the real
// server: StartAfter a key that need not exist, a delimiter's common
// prefixes in byte order with the objects. (Continuation: see
// TestListPagesHoldAThousandKeys, through List.)
func TestListPage(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, nil)
	st := c.Bucket(srv.NewBucket(t))
	for _, k := range []string{"a-b", "a.txt", "a/x", "a/y/z", "a0", "b/1", "b/2", "c"} {
		mustPut(t, st, k, []byte(k), store.Metadata{})
	}
	keys := func(p store.Page) []string {
		var ks []string
		for _, o := range p.Objects {
			if o.IsPrefix {
				ks = append(ks, o.Key+" (prefix)")
			} else {
				ks = append(ks, o.Key)
			}
		}
		return ks
	}
	tests := []struct {
		name string
		q    store.ListQuery
		want []string
	}{
		{"start after a name that is no key", store.ListQuery{StartAfter: "a"}, []string{"a-b", "a.txt", "a/x", "a/y/z", "a0", "b/1", "b/2", "c"}},
		{"start after a prefix without its slash", store.ListQuery{StartAfter: "a.txt"}, []string{"a/x", "a/y/z", "a0", "b/1", "b/2", "c"}},
		{"a delimiter merges prefixes into key order", store.ListQuery{Delimiter: "/"}, []string{"a-b", "a.txt", "a/ (prefix)", "a0", "b/ (prefix)", "c"}},
		{"a prefix and a delimiter", store.ListQuery{Prefix: "a/", Delimiter: "/"}, []string{"a/x", "a/y/ (prefix)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Require(t, s3test.Listing) // the page's order is the point
			p, err := st.ListPage(t.Context(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, keys(p)); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
			if p.Next != "" {
				t.Errorf("Next = %q on the only page", p.Next)
			}
		})
	}
}
