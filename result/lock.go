package result

import (
	"fmt"

	"github.com/dbarena/dbarena/lockfile"
	"github.com/dbarena/dbarena/outfile"
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
//
// A symlink's lock is its target's, so that the link and its target are
// one output. A stream (a character device, a FIFO) takes no lock: nothing
// is kept there that another process could overwrite or read half-written,
// and a lock file beside it (in /dev) is no place for one; the returned
// *Lock is then nil, whose Release does nothing.
func LockOutput(path string) (*lockfile.Lock, error) {
	file, stream, err := outfile.Resolve(path)
	switch {
	case err == nil && stream:
		return nil, nil
	case err != nil:
		file = path // refused when it is written; locked as named until then
	}
	l, err := lockfile.Acquire(LockPath(file))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}
