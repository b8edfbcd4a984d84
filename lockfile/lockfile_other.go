//go:build !unix

package lockfile

// Lock does nothing where flock(2) is not available.
type Lock struct{ path string }

// Acquire does nothing where flock(2) is not available.
func Acquire(path string) (*Lock, error) { return &Lock{path: path}, nil }

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Release does nothing.
func (l *Lock) Release() {}
