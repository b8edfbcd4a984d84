package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOutputFile checks, before any work starts, that path can be
// written as a command writes its files (a temporary file in the same
// directory, renamed over path): path is not a directory, and its parent
// exists, is a directory and takes a new file. The check leaves nothing
// behind. Its error, a *UsageError, names flag and path.
func checkOutputFile(flag, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return &UsageError{fmt.Errorf("%s %s: is a directory; name the file to write", flag, path)}
	}
	return checkWritableDir(flag, path, filepath.Dir(path))
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
// is a directory in which a file can be created, by creating and removing
// one.
func checkWritableDir(flag, value, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &UsageError{fmt.Errorf("%s %s: directory %s does not exist", flag, value, dir)}
	case err != nil:
		return &UsageError{fmt.Errorf("%s %s: %w", flag, value, err)}
	case !fi.IsDir():
		return &UsageError{fmt.Errorf("%s %s: %s is not a directory", flag, value, dir)}
	}
	tmp, err := os.CreateTemp(dir, ".dbarena-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		return &UsageError{fmt.Errorf("%s %s: cannot create a file in %s: %w", flag, value, dir, err)}
	}
	name := tmp.Name()
	tmp.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("%s %s: removing the check's file: %w", flag, value, err)
	}
	return nil
}
