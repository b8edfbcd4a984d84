//go:build linux && (amd64 || arm64)

package drive

// getg returns the address of the calling goroutine's runtime record,
// which identifies it while it lives: two instructions reading the
// register or thread-local slot the runtime keeps it in.
func getg() uintptr
