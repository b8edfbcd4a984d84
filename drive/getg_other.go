//go:build linux && !amd64 && !arm64

package drive

import "golang.org/x/sys/unix"

// getg identifies the calling goroutine where reading its runtime record
// takes assembly this package does not have: by the OS thread, which
// tells a thread's coroutines (locked to it) from every other goroutine,
// at the price of a system call.
func getg() uintptr { return uintptr(unix.Gettid()) }
