package result

import (
	"fmt"

	"github.com/dbarena/dbarena/lockfile"
)

// LockSuffix is added to a result file's path to name its lock file.
const LockSuffix = ".lock"

// LockPath is the lock file of the result file at path.
func LockPath(path string) string { return path + LockSuffix }

// LockOutput takes the lock of the result file at path and its journal:
// every dbarena process that writes them (a run, a plan, recover) holds
// it for as long as it writes them, so that a second one is refused
// before it starts (its error wraps lockfile.ErrHeld and names the
// holder's process). Release removes the lock file.
func LockOutput(path string) (*lockfile.Lock, error) {
	l, err := lockfile.Acquire(LockPath(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}
