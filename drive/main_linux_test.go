package drive

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// ringEnv, set in the environment, makes the tests' threads ring
// threads (NewRingThread).
const ringEnv = "DRIVE_TEST_RING"

// TestMain runs every test twice: on epoll threads, then in a child
// process on io_uring threads, so that both kinds pass the same tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if os.Getenv(ringEnv) != "" || code != 0 {
		os.Exit(code)
	}
	if err := RingUnsupported(); err != nil {
		fmt.Fprintf(os.Stderr, "drive: the kernel refuses io_uring, so ring threads cannot be tested here: %v\n", err)
		os.Exit(1)
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Env = append(os.Environ(), ringEnv+"=1")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "drive: on io_uring threads: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// newTestThread is the thread the tests run: NewThread, or NewRingThread
// in the child TestMain starts.
func newTestThread() (*Thread, error) {
	if os.Getenv(ringEnv) != "" {
		return NewRingThread()
	}
	return NewThread()
}
