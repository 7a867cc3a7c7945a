// Package storetest owns the conformance suite that every store.Store
// implementation passes: one set of behaviours (byte-exact round trips, ranged
// reads, S3 byte-order listings with prefixes, delimiters and pagination,
// not-found semantics, conditional reads, atomic temp files) checked the same
// way for an S3 bucket and a local directory.
//
// A backend's test calls Run with a constructor that returns a new, empty store
// for each subtest, and the capabilities the backend claims:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			s, err := localstore.New(t.TempDir(), localstore.Options{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		}, storetest.Caps{})
//	}
//
// The keys the suite writes never use one key as a "directory" of another
// ("a" and "a/b" together), because a local directory cannot hold both.
package storetest
