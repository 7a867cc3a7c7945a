//go:build unix

package journal

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on the journal for the life of the
// open file, so two runs of one job cannot interleave their records.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}
