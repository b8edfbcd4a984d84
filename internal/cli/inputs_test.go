//go:build unix

package cli_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// An input that is neither a regular file nor a directory (a FIFO, a
// character device, a socket), named or found in an input directory, is
// refused at once, naming it and what it is: a FIFO is never opened, so
// nothing waits for a writer that never comes.
func TestInputNotAFileRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A writer that opens the FIFO unblocks a reader stuck on it.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	sock := filepath.Join(t.TempDir(), "sock.json")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	journal := filepath.Join(t.TempDir(), "r.json")
	if err := syscall.Mkfifo(journal+result.JournalSuffix, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(journal+result.JournalSuffix, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		name string
		args []string
		path string
		what string
	}{
		{"compare FIFO", []string{"compare", fifo}, fifo, "FIFO"},
		{"compare labelled FIFO", []string{"compare", "x=" + fifo, a}, fifo, "FIFO"},
		{"compare FIFO in a directory", []string{"compare", dir}, fifo, "FIFO"},
		{"export FIFO", []string{"export", a, fifo}, fifo, "FIFO"},
		{"report FIFO", []string{"report", a, fifo, "-o", out + ".html"}, fifo, "FIFO"},
		{"merge FIFO", []string{"merge", a, fifo, "-o", out + ".json"}, fifo, "FIFO"},
		{"recover FIFO log", []string{"recover", journal, "-o", out + ".json"}, journal + result.JournalSuffix, "FIFO"},
		{"compare device", []string{"compare", "/dev/null"}, "/dev/null", "character device"},
		{"merge device", []string{"merge", a, "/dev/null", "-o", out + ".json"}, "/dev/null", "character device"},
		{"export socket", []string{"export", sock}, sock, "socket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan outcome, 1)
			go func() { done <- dbarena(t, ctx, nil, tc.args...) }()
			select {
			case o := <-done:
				if o.code != cli.ExitUsage || !strings.Contains(o.stderr, tc.path+": ") || !strings.Contains(o.stderr, tc.what) {
					t.Errorf("exit %d, stderr %q; want exit %d naming %s, a %s", o.code, o.stderr, cli.ExitUsage, tc.path, tc.what)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s still runs after 10 s", tc.args[0])
			}
			if _, err := os.Stat(out + ".json"); err == nil {
				t.Errorf("%s wrote %s", tc.args[0], out+".json")
			}
		})
	}
}

// Commands that read result files stop when their context ends (Ctrl-C,
// SIGTERM), exiting as interrupted, and write nothing.
func TestReadersInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	a2 := writeResult(t, "a2.json", "sqlite", "1000", map[int]float64{1: 1100, 4: 1900}) // another shard
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"compare", a},
		{"export", a, "-o", out},
		{"report", a, "-o", out},
		{"merge", a, a2, "-o", out},
	} {
		t.Run(args[0], func(t *testing.T) {
			o := dbarena(t, ctx, nil, args...)
			if o.code != cli.ExitInterrupted || !strings.Contains(o.stderr, "interrupted") {
				t.Errorf("exit %d, stderr %q; want %d, interrupted", o.code, o.stderr, cli.ExitInterrupted)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s wrote %s", args[0], out)
			}
		})
	}
}
