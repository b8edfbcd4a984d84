//go:build unix

package outfile_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/outfile"
)

// A FIFO is written in place once a reader opens it; the FIFO stays.
func TestWriteFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Check("-o", fifo); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		time.Sleep(100 * time.Millisecond) // the writer waits for a reader
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := outfile.WriteFile(context.Background(), "-o", fifo, 0o644, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO (%v)", fifo, err)
	}
}

// A write to a FIFO whose reader stops reading ends with the context.
func TestWriteFIFOStalledReaderInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	// More than a pipe holds, and nobody reads it.
	go func() { done <- outfile.WriteFile(ctx, "-o", fifo, 0o644, make([]byte, 4<<20)) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want the context's", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write still blocks 10 s after the context ended")
	}
}

// A socket and a block device are refused, naming what they are.
func TestRefusedSpecial(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := map[string]string{sock: "-o " + sock + ": is a socket; name a regular file, a character device or a FIFO"}
	blk := filepath.Join(dir, "blk")
	if err := syscall.Mknod(blk, syscall.S_IFBLK|0o600, 7<<8); err == nil {
		want[blk] = "-o " + blk + ": is a block device; name a regular file, a character device or a FIFO"
	}
	for p, w := range want {
		for _, err := range []error{outfile.Check("-o", p), outfile.WriteFile(context.Background(), "-o", p, 0o644, []byte("x"))} {
			if err == nil || err.Error() != w {
				t.Errorf("error %v, want %q", err, w)
			}
		}
	}
}
