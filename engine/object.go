package engine

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store"
)

// Cat writes the object at loc, read from st, to w as it arrives, in
// constant memory. The read is checked against the object's stored
// checksum or MD5 ETag (store.Get): a difference fails it, though the
// bytes before it are written.
func Cat(ctx context.Context, st store.Store, loc s3url.Location, w io.Writer) error {
	body, err := st.Get(ctx, loc.Key, 0, -1, "")
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("cat %s: no such object", loc)
		}
		return fmt.Errorf("cat %s: %w", loc, err)
	}
	defer body.Close()
	if _, err := io.Copy(w, body); err != nil {
		return fmt.Errorf("cat %s: %w", loc, err)
	}
	return nil
}

// NamesObject reports whether the source of ep, a wildcard, is also the
// exact name of an existing object (a key with a literal '*' or '?'): a
// delete or a move of every match may then not be what was meant. A
// source without a wildcard, a missing object, or one the caller may not
// read names none.
func NamesObject(ctx context.Context, ep Endpoint) bool {
	if !ep.Loc.HasWildcard() {
		return false
	}
	_, _, err := ep.Store.Head(ctx, ep.Loc.Key)
	return err == nil
}
