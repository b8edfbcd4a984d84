package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dbarena/dbarena/outfile"
)

// checkOutputFile checks, before any work starts, that path can be
// written as every command writes its files (package outfile): a regular
// file or a new one, with a directory that takes a new file (the target's,
// for a symlink), a character device or a FIFO; not a directory, a socket
// or a block device. The check leaves nothing behind. Its error, a
// *UsageError, names flag and path.
func checkOutputFile(flag, path string) error {
	if err := outfile.Check(flag, path); err != nil {
		return &UsageError{err}
	}
	return nil
}

// checkOutputDir checks, before any work starts, that dir can serve as a
// results directory: an existing directory that takes new files, or a
// new one whose parent exists and takes new files.
func checkOutputDir(flag, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return &UsageError{fmt.Errorf("%s %s: is a file; name a directory", flag, dir)}
	case err == nil:
		return checkWritableDir(flag, dir, dir)
	case !errors.Is(err, fs.ErrNotExist):
		return &UsageError{fmt.Errorf("%s %s: %w", flag, dir, err)}
	}
	return checkWritableDir(flag, dir, filepath.Dir(dir))
}

// checkWritableDir checks that dir, where the output value of flag goes,
// is a directory in which a file can be created.
func checkWritableDir(flag, value, dir string) error {
	if err := outfile.CheckDir(flag, value, dir); err != nil {
		return &UsageError{err}
	}
	return nil
}
