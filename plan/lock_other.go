//go:build !unix

package plan

// lockDir does nothing where flock(2) is not available.
func lockDir(string) (func(), error) { return func() {}, nil }
