//go:build !unix

package outfile

import (
	"context"
	"os"
)

// openStream opens a character device.
func openStream(_ context.Context, d dest) (*os.File, error) {
	return os.OpenFile(d.path, os.O_WRONLY, 0)
}

// checkStream checks nothing where access(2) is not available.
func checkStream(string) error { return nil }

// isNotDir reports whether err says a path's parent is not a directory.
func isNotDir(error) bool { return false }
