// Package lockfile keeps two dbarena processes from writing the same
// files at once: an exclusive advisory lock (flock(2)) on a lock file
// that holds the process id of its holder.
//
// The kernel drops the lock when its process ends, however it ends, so
// the lock file a killed process leaves behind is taken over by the next
// one; a process that releases its lock removes the file.
package lockfile

import (
	"errors"
	"fmt"
)

// ErrHeld is wrapped by the error of Acquire when another process holds
// the lock.
var ErrHeld = errors.New("in use by another dbarena process")

// HeldError says that another process holds the lock at Path: the one
// whose process id is PID (0 when it could not be read).
type HeldError struct {
	Path string
	PID  int
}

func (e *HeldError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("in use by dbarena process %d (lock file %s)", e.PID, e.Path)
	}
	return fmt.Sprintf("%v (lock file %s)", ErrHeld, e.Path)
}

// Unwrap returns ErrHeld.
func (e *HeldError) Unwrap() error { return ErrHeld }
