package manifest

import "fmt"

// InputError is bad input: a malformed line of a key list, an inventory
// of another bucket, a data file whose checksum does not match its
// manifest. Nothing was read past it.
type InputError struct {
	// Name is the input: a file name, "-" or an s3:// URL.
	Name string
	// Line is the line of a key list or CSV file the error is on (from 1),
	// 0 when it is about the whole input.
	Line int
	Err  error
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %v", e.Name, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Name, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }
