package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestPathCause(t *testing.T) {
	denied := &fs.PathError{Op: "open", Path: "dir/f", Err: syscall.EACCES}
	plain := errors.New("slow down")
	wrapped := fmt.Errorf("read back: %w", denied)
	tests := []struct {
		name string
		err  error
		only []string
		want string
	}{
		{"a PathError gives its cause alone", denied, nil, "permission denied"},
		{"an error that is no PathError is returned as it is", plain, nil, "slow down"},
		{"a wrapped PathError is left whole, its context kept", wrapped, nil, "read back: open dir/f: permission denied"},
		{"a PathError on the path named gives its cause", denied, []string{"dir/f"}, "permission denied"},
		{"a PathError on any of the paths named gives its cause", denied, []string{"x", "dir/f"}, "permission denied"},
		{"a PathError on another path keeps that path", denied, []string{"dir/g"}, "open dir/f: permission denied"},
		{"a nil error stays nil", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PathCause(tt.err, tt.only...)
			if tt.err == nil {
				if got != nil {
					t.Fatalf("PathCause(nil) = %v, want nil", got)
				}
				return
			}
			if got.Error() != tt.want {
				t.Errorf("PathCause = %q, want %q", got, tt.want)
			}
			// The cause is what errors.Is matches, with or without the path.
			if errors.Is(tt.err, fs.ErrPermission) != errors.Is(got, fs.ErrPermission) {
				t.Errorf("errors.Is(_, fs.ErrPermission) changed: %v for %v, %v for %v", errors.Is(tt.err, fs.ErrPermission), tt.err, errors.Is(got, fs.ErrPermission), got)
			}
		})
	}
}

// The PathErrors the os package returns are the ones PathCause unwraps.
func TestPathCauseOfARealOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing")
	_, err := os.Open(p)
	if got, want := PathCause(err).Error(), "no such file or directory"; got != want {
		t.Errorf("PathCause(%v) = %q, want %q", err, got, want)
	}
	if !errors.Is(PathCause(err), fs.ErrNotExist) {
		t.Errorf("PathCause(%v) is no longer fs.ErrNotExist", err)
	}
}
