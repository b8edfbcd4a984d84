// Package outfile is dbarena's one policy for writing the files its flags
// name (--out, --output) and the files it keeps in a plan's results
// directory, whatever the path turns out to be:
//
//   - a regular file, or a name nothing has yet, is written atomically: to
//     a temporary file in the same directory, renamed over the path only
//     once complete, so it is never half-written and no temporary file
//     stays behind, even on an error;
//   - a symlink is written through: its target (which need not exist yet)
//     is written as above, in the target's directory, and the link stays;
//   - a character device (/dev/null, a terminal) or a FIFO is opened and
//     written in place, as the shell's ">" would; a write error (ENOSPC
//     from /dev/full) is an error;
//   - anything else (a directory, a socket, a block device) is refused.
//
// Check applies the policy before any work starts, Write when writing.
package outfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Error is a problem with an output path. Flag is the flag that named it
// ("" for a file no flag names), Path the path as given.
type Error struct {
	Flag string
	Path string
	Err  error
}

func (e *Error) Error() string {
	if e.Flag == "" {
		return e.Path + ": " + e.Err.Error()
	}
	return e.Flag + " " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// dest is where a write to a path goes.
type dest struct {
	path string      // the file to write: the final target of symlinks
	mode fs.FileMode // its type; 0 for a regular file or none yet
}

// stream reports whether d is written in place: a character device or a
// FIFO.
func (d dest) stream() bool { return d.mode&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0 }

// resolve finds where a write to path goes, or why it cannot go there.
func resolve(path string) (dest, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return dest{}, bare(err, path)
		}
		// Nothing there, or a symlink whose target is not there yet: the
		// target is created (a missing directory is reported when the file
		// is created, and by Check).
		final, err := finalTarget(path)
		return dest{path: final}, err
	}
	m := fi.Mode()
	switch {
	case m.IsRegular():
		final, err := finalTarget(path)
		if err != nil {
			return dest{}, err
		}
		// The chain of links must end at the file path names (not so for
		// /proc's links to deleted files).
		if ffi, err := os.Stat(final); err != nil || !os.SameFile(fi, ffi) {
			return dest{}, fmt.Errorf("cannot tell which file it links to (%s?)", final)
		}
		return dest{path: final}, nil
	case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		return dest{path: path, mode: m.Type()}, nil
	}
	return dest{}, fmt.Errorf("is %s; %s", Describe(m), want(m))
}

// Resolve says where a write to path goes: file, the final target of its
// symlinks (path itself when it is no link), and whether that is a stream
// written in place (a character device or a FIFO), which holds no file a
// later command can read back. Its error says why nothing can be written
// there.
func Resolve(path string) (file string, stream bool, err error) {
	d, err := resolve(path)
	if err != nil {
		return "", false, err
	}
	return d.path, d.stream(), nil
}

// want is what a refused output should be instead.
func want(m fs.FileMode) string {
	if m.IsDir() {
		return "name the file to write"
	}
	return "name a regular file, a character device or a FIFO"
}

// Describe names the type of a file of mode m, with its article: "a
// regular file", "a directory", "a FIFO", "a character device", "a block
// device", "a socket".
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// maxLinks is how many symlinks in a row finalTarget follows, as Linux.
const maxLinks = 40

// finalTarget follows path's symlinks to the name at their end, which need
// not exist; path itself when it is no symlink.
func finalTarget(path string) (string, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", bare(err, p)
		}
		if !filepath.IsAbs(to) {
			// Relative to the link's directory, as the kernel resolves it.
			dir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return "", bare(err, p)
			}
			to = filepath.Join(dir, to)
		}
		p = to
	}
	return "", fmt.Errorf("more than %d symlinks in a row", maxLinks)
}

// Check checks, before any work starts, that path can be written under
// the policy: a file is created in the directory of a regular file (or of
// a symlink's target, or of a name nothing has yet) and removed again; a
// character device or a FIFO is writable; anything else is refused. Its
// error is an *Error.
func Check(flag, path string) error {
	d, err := resolve(path)
	if err != nil {
		return &Error{flag, path, err}
	}
	if d.stream() {
		if err := checkStream(d.path); err != nil {
			return &Error{flag, path, err}
		}
		return nil
	}
	return CheckDir(flag, path, filepath.Dir(d.path))
}

// CheckDir checks that dir, where value (the value of flag) is written,
// is a directory in which a file can be created, by creating and removing
// one. Its error is an *Error.
func CheckDir(flag, value, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{flag, value, fmt.Errorf("directory %s does not exist", dir)}
	case err != nil:
		return &Error{flag, value, err}
	case !fi.IsDir():
		return &Error{flag, value, fmt.Errorf("%s is not a directory", dir)}
	}
	tmp, err := os.CreateTemp(dir, ".dbarena-check-*")
	if err != nil {
		return &Error{flag, value, fmt.Errorf("cannot create a file in %s: %w", dir, bare(err, ""))}
	}
	name := tmp.Name()
	tmp.Close()
	if err := os.Remove(name); err != nil {
		return &Error{flag, value, fmt.Errorf("removing the check's file: %w", err)}
	}
	return nil
}

// CheckNotInput refuses, before any work starts, an output path that is
// one of the command's input files, however either is named (relative or
// absolute, through symlinks, a hard link). Inputs that do not exist are
// skipped: their reader reports them. Its error is an *Error.
func CheckNotInput(flag, path string, inputs []string) error {
	out, err := os.Stat(path)
	if err != nil {
		return nil // nothing there yet: no input either
	}
	for _, in := range inputs {
		if fi, err := os.Stat(in); err == nil && os.SameFile(out, fi) {
			return &Error{flag, path, fmt.Errorf("is the input %s: writing it would replace what is read; name another file", in)}
		}
	}
	return nil
}

// Write writes what write produces to path under the policy. perm is the
// mode of the file a regular write leaves, whatever the umask. flag names
// path in errors ("" for a file no flag names); every error is an *Error.
// When ctx ends first, Write stops (a FIFO nobody reads holds it no
// longer), leaves the file as it was and returns ctx's error.
func Write(ctx context.Context, flag, path string, perm fs.FileMode, write func(io.Writer) error) error {
	d, err := resolve(path)
	if err == nil {
		if d.stream() {
			err = writeStream(ctx, d, write)
		} else {
			err = writeAtomic(ctx, d.path, perm, write)
		}
	}
	if err != nil {
		return &Error{flag, path, err}
	}
	return nil
}

// WriteFile is Write of data.
func WriteFile(ctx context.Context, flag, path string, perm fs.FileMode, data []byte) error {
	return Write(ctx, flag, path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic writes to a temporary file in path's directory and renames
// it over path once complete; the temporary file is removed on any error.
func writeAtomic(ctx context.Context, path string, perm fs.FileMode, write func(io.Writer) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".dbarena-*")
	if err != nil {
		return fmt.Errorf("cannot create a file in %s: %w", dir, bare(err, ""))
	}
	name := tmp.Name()
	defer os.Remove(name) // no-op once renamed
	err = tmp.Chmod(perm)
	if err == nil {
		err = write(tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	return bare(err, name)
}

// writeStream opens a character device or a FIFO and writes to it in
// place. A FIFO is waited for until a reader opens it or ctx ends; a write
// to it stops when ctx ends.
func writeStream(ctx context.Context, d dest, write func(io.Writer) error) error {
	f, err := openStream(ctx, d)
	if err != nil {
		return bare(err, d.path)
	}
	// Not every device has deadlines; a FIFO has.
	stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Now()) })
	err = write(f)
	stop()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = ctx.Err()
	}
	return bare(err, d.path)
}

// bare is err without the *fs.PathError or *os.LinkError around it when
// that names name (a temporary file, or the path the message names
// already), or any path when name is "".
func bare(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && (name == "" || pe.Path == name) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
