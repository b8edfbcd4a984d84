package plan

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dbarena/dbarena/lockfile"
)

// lockFile keeps two runs of a plan out of one results directory.
const lockFile = ".plan.lock"

// lockDir takes an exclusive, non-blocking lock on dir. The kernel drops
// it when the process ends, so a killed run leaves no stale lock.
func lockDir(dir string) (func(), error) {
	l, err := lockfile.Acquire(filepath.Join(dir, lockFile))
	if err != nil {
		var he *lockfile.HeldError
		if errors.As(err, &he) {
			return nil, fmt.Errorf("plan: %s is in use by another dbarena plan run: %w", dir, err)
		}
		return nil, fmt.Errorf("plan: locking %s: %w", dir, err)
	}
	return l.Release, nil
}
