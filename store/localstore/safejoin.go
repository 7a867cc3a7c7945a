package localstore

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/s3bulk/s3bulk/store"
)

// keyError explains why a key cannot become a local path. Its message names
// the key and the reason; errors.Is matches store.ErrUnsafeKey so the engine
// skips the object with that reason instead of failing the run.
type keyError struct {
	key, reason string
}

func (e *keyError) Error() string { return fmt.Sprintf("unsafe key %q: %s", e.key, e.reason) }
func (e *keyError) Unwrap() error { return store.ErrUnsafeKey }

// SafeJoin returns the local path of key under root. It is the only place an
// object key becomes a path. It refuses, with an error wrapping
// store.ErrUnsafeKey, a key that is empty, contains NUL or a backslash, is
// absolute, starts with a drive letter ("C:"), has an empty, "." or ".."
// segment, or ends with "/" (a directory marker, which callers skip). After
// joining it checks that the result lies strictly inside root, so a rule
// missed above still cannot write outside it.
func SafeJoin(root, key string) (string, error) {
	if reason := unsafeReason(key); reason != "" {
		return "", &keyError{key: key, reason: reason}
	}
	rel, err := filepath.Localize(key)
	if err != nil {
		// Windows: reserved names (NUL, COM1) and characters it refuses.
		return "", &keyError{key: key, reason: "not a valid local file name"}
	}
	root = filepath.Clean(root)
	p := filepath.Join(root, rel)
	if !inside(root, p) {
		return "", &keyError{key: key, reason: "resolves outside the destination"}
	}
	return p, nil
}

func unsafeReason(key string) string {
	switch {
	case key == "":
		return "empty key"
	case strings.IndexByte(key, 0) >= 0:
		return "contains NUL"
	case strings.IndexByte(key, '\\') >= 0:
		return `contains a backslash, a path separator on Windows`
	case key[0] == '/':
		return "absolute path"
	case key[len(key)-1] == '/':
		return "ends with '/': a directory marker, not a file"
	case hasDriveLetter(key):
		return "starts with a drive letter"
	}
	for rest := key; ; {
		seg, after, more := strings.Cut(rest, "/")
		switch seg {
		case "..":
			return "has a '..' segment"
		case ".":
			return "has a '.' segment, so two keys would name one file"
		case "":
			return "has an empty segment ('//'), so two keys would name one file"
		}
		if !more {
			return ""
		}
		rest = after
	}
}

func hasDriveLetter(s string) bool {
	return len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z')
}

// inside reports whether the clean path p lies strictly below the clean
// directory root, by lexical analysis.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}
