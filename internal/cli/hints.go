package cli

import (
	"errors"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// flagHints tells how to fix what the engine reports in the flags' words:
// the engine names no flags.
func flagHints(err error) error {
	var ne *engine.NoMatchError
	var pe *engine.PartsLimitError
	var te *engine.TagsError
	var ce *engine.ChecksumError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ne) && ne.Exact && ne.Hint == "":
		ne.Hint = "for a prefix use --recursive"
	case errors.Is(err, engine.ErrPrefix):
		return hinted{err, "use --recursive or a wildcard"}
	case errors.As(err, &pe):
		return hinted{err, "give a larger --part-size"}
	case errors.As(err, &te) && (errors.Is(err, store.ErrNotImplemented) || errors.Is(err, store.ErrAccessDenied)):
		return hinted{err, "--copy-props metadata-directive copies without tags"}
	case errors.As(err, &ce):
		return hinted{err, "the destination may not know " + ce.Algorithm + " checksums: drop --checksum-algorithm"}
	case errors.Is(err, store.ErrChecksumsUnsupported):
		return hinted{err, "--checksum-when-required uploads without checksums"}
	}
	return err
}

// withFlagHints is flagHints for one result.
func withFlagHints(r engine.Result) engine.Result {
	r.Err = flagHints(r.Err)
	if r.Task.Reason == engine.ReasonExists {
		r.Task.Reason += " (--no-clobber)"
	}
	return r
}

// hinted is an error followed by how to fix it.
type hinted struct {
	err  error
	hint string
}

func (h hinted) Error() string { return h.err.Error() + ": " + h.hint }
func (h hinted) Unwrap() error { return h.err }
