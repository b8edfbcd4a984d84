//go:build unix

package lockfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dbarena/dbarena/lockfile"
)

// A lock is held by one holder at a time (flock's locks are per open
// file, so two in one process exclude each other as two processes do);
// the second is told the first's process id.
func TestExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := lockfile.Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != strconv.Itoa(os.Getpid())+"\n" {
		t.Errorf("lock file holds %q (%v), want this process's id", b, err)
	}
	_, err = lockfile.Acquire(path)
	var he *lockfile.HeldError
	if !errors.As(err, &he) || !errors.Is(err, lockfile.ErrHeld) || he.PID != os.Getpid() || he.Path != path {
		t.Fatalf("second Acquire = %v, want a HeldError naming pid %d", err, os.Getpid())
	}
	a.Release()
	a.Release() // twice is harmless
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the lock file is still there after Release: %v", err)
	}
	c, err := lockfile.Acquire(path)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	c.Release()
}

// The lock file of a process that is gone is taken over.
func TestStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	if err := os.WriteFile(path, []byte("2147483000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := lockfile.Acquire(path)
	if err != nil {
		t.Fatalf("a stale lock: %v", err)
	}
	defer l.Release()
	if b, _ := os.ReadFile(path); string(b) != strconv.Itoa(os.Getpid())+"\n" {
		t.Errorf("lock file holds %q, want this process's id", b)
	}
}

// A lock file that cannot be created is an error of its own.
func TestCannotCreate(t *testing.T) {
	_, err := lockfile.Acquire(filepath.Join(t.TempDir(), "none", "x.lock"))
	if err == nil || errors.Is(err, lockfile.ErrHeld) {
		t.Errorf("Acquire in a missing directory = %v", err)
	}
}
