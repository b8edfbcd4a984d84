//go:build unix

package outfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fifoPoll is how often a FIFO without a reader is tried again.
const fifoPoll = 50 * time.Millisecond

// openStream opens a character device, or a FIFO once it has a reader:
// opened without blocking (open(2) of a FIFO blocks until a reader comes,
// and would not end on ctx), and tried again until a reader comes or ctx
// ends.
func openStream(ctx context.Context, d dest) (*os.File, error) {
	if d.mode&os.ModeNamedPipe == 0 {
		return os.OpenFile(d.path, os.O_WRONLY, 0)
	}
	t := time.NewTicker(fifoPoll)
	defer t.Stop()
	for {
		f, err := os.OpenFile(d.path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.ENXIO) { // ENXIO: no reader yet
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// checkStream checks that a character device or a FIFO may be written.
func checkStream(path string) error {
	if err := unix.Access(path, unix.W_OK); err != nil {
		return fmt.Errorf("cannot write to it: %w", err)
	}
	return nil
}

// isNotDir reports whether err says a path's parent is not a directory.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
