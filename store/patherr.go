package store

import (
	"io/fs"
	"slices"
)

// PathCause returns err without the operation and path an *fs.PathError
// repeats, for a message that names the path itself ("read dir/f: permission
// denied", not "read dir/f: open dir/f: permission denied"): the error the
// PathError carries when err is one, err as it is otherwise (a PathError
// wrapped in another error is left whole, so no context is lost).
//
// With only, the path is dropped only when it is one of those: a message
// about a file then keeps the name of the temp file or the parent
// directory that failed.
func PathCause(err error, only ...string) error {
	pe, ok := err.(*fs.PathError)
	if !ok {
		return err
	}
	if len(only) > 0 && !slices.Contains(only, pe.Path) {
		return err
	}
	return pe.Err
}
