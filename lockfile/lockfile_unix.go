//go:build unix

package lockfile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Lock is a lock held by this process. Its methods are safe to call once
// each; Release is safe on a nil Lock.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock at path without waiting: the file is created
// when missing and holds this process's id while it is held. When another
// process holds it the error is a *HeldError naming that process.
func Acquire(path string) (*Lock, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			defer f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &HeldError{Path: path, PID: holder(f)}
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		// The holder before this process may have removed the file
		// between this open and the lock: the lock is then on a file
		// no other process can see, and the path is opened again.
		if same(f, path) {
			if err := f.Truncate(0); err == nil {
				_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			}
			// A lock whose file holds no process id still locks.
			return &Lock{f: f, path: path}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("locking %s: the file keeps being replaced", path)
}

// same tells whether f is the file at path.
func same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// holder reads the process id in the lock file f, waiting a little for a
// holder that has just taken it to write its id.
func holder(f *os.File) int {
	for range 20 {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n]))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Release removes the lock file and drops the lock.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	// Removed while still held, so that no other process can take a
	// lock on it between the two.
	os.Remove(l.path)
	l.f.Close()
	l.f = nil
}
