package s3store

import (
	"context"
	"fmt"

	"github.com/s3bulk/s3bulk/store"
)

var _ store.BatchDeleter = (*Store)(nil)

// DeleteKeys deletes up to store.MaxBatchDelete keys with one
// DeleteObjects request; it is DeleteObjects in the portable shape the
// engine looks for.
func (s *Store) DeleteKeys(ctx context.Context, keys []string) ([]store.DeleteError, error) {
	if len(keys) > store.MaxBatchDelete {
		return nil, fmt.Errorf("delete %d objects in %s: at most %d keys a request", len(keys), s.URL(""), store.MaxBatchDelete)
	}
	failed, err := s.DeleteObjects(ctx, keys)
	out := make([]store.DeleteError, len(failed))
	for i, f := range failed {
		out[i] = store.DeleteError{Key: f.Key, Err: f.Err}
	}
	return out, err
}
