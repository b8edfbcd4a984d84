//go:build unix

package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile keeps two runs of a plan out of one results directory.
const lockFile = ".plan.lock"

// lockDir takes an exclusive, non-blocking lock on dir. The kernel drops
// it when the process ends, so a killed run leaves no stale lock.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("plan: %s is in use by another dbarena plan run", dir)
		}
		return nil, fmt.Errorf("plan: locking %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}
