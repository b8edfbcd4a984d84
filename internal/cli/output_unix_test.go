//go:build unix

package cli_test

import (
	"context"
	"encoding/json"
	"io/fs"
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

// An output that is a symlink is written through: its target gets the
// content (atomically, in the target's directory), the link stays a link,
// and no temporary file is left in either directory. A dangling link's
// target is created.
func TestOutputThroughSymlink(t *testing.T) {
	ctx := context.Background()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	a2 := writeResult(t, "a2.json", "sqlite", "1000", map[int]float64{1: 1100, 4: 1900}) // another shard
	for _, tc := range []struct {
		name   string
		args   []string
		exists bool
		check  func(t *testing.T, b []byte)
	}{
		{"export", []string{"export", a, "-o"}, true, func(t *testing.T, b []byte) {
			if !strings.HasPrefix(string(b), "file,label,") {
				t.Errorf("target holds %.60q, want the CSV", b)
			}
		}},
		{"export dangling", []string{"export", a, "-o"}, false, func(t *testing.T, b []byte) {
			if !strings.HasPrefix(string(b), "file,label,") {
				t.Errorf("target holds %.60q, want the CSV", b)
			}
		}},
		{"report", []string{"report", a, "-o"}, true, func(t *testing.T, b []byte) {
			if !strings.Contains(string(b), "<html") {
				t.Errorf("target holds %.60q, want the report", b)
			}
		}},
		{"merge", []string{"merge", a, a2, "-o"}, true, func(t *testing.T, b []byte) {
			if f, err := result.Decode(b); err != nil || len(f.Shards) != 2 {
				t.Errorf("target is not the merged file: %v", err)
			}
		}},
		{"dump", []string{"dump", "docolap", "--events", "10", "--out"}, true, func(t *testing.T, b []byte) {
			if strings.Count(string(b), "\n") != 10 {
				t.Errorf("target holds %d lines, want 10", strings.Count(string(b), "\n"))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			linkDir, targetDir := t.TempDir(), t.TempDir()
			target := filepath.Join(targetDir, "target")
			if tc.exists {
				if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(linkDir, "link")
			// A relative link resolves against the link's directory.
			rel, err := filepath.Rel(linkDir, target)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(rel, link); err != nil {
				t.Fatal(err)
			}
			o := dbarena(t, ctx, nil, append(tc.args, link)...)
			if o.code != cli.ExitOK {
				t.Fatalf("exit %d: %s", o.code, o.stderr)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("%s is no longer a symlink (%v)", link, err)
			}
			b, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, b)
			if got := listDir(t, linkDir) + " " + listDir(t, targetDir); got != linkDir+" "+link+" "+targetDir+" "+target {
				t.Errorf("files: %s; want the link and its target alone", got)
			}
		})
	}
}

// An output that is a character device or a FIFO is written to directly:
// the device stays a device, a reader of the FIFO gets the content, and a
// write error (/dev/full: no space left) is an error naming the flag.
func TestOutputToDeviceOrFIFO(t *testing.T) {
	ctx := context.Background()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	a2 := writeResult(t, "a2.json", "sqlite", "1000", map[int]float64{1: 1100, 4: 1900}) // another shard
	cmds := []struct {
		name string
		args []string
		flag string
		want string // in what a FIFO's reader gets
	}{
		{"export", []string{"export", a, "-o"}, "--output", "file,label,"},
		{"report", []string{"report", a, "-o"}, "--output", "<html"},
		{"merge", []string{"merge", a, a2, "-o"}, "--out", `"shards"`},
		{"dump", []string{"dump", "docolap", "--events", "10", "--out"}, "--out", "\t"},
	}
	for _, c := range cmds {
		t.Run("full/"+c.name, func(t *testing.T) {
			full := fullDevice(t)
			if full == "" {
				t.Skip("no device like /dev/full to write to")
			}
			o := dbarena(t, ctx, nil, append(c.args, full)...)
			if o.code != cli.ExitInternal || !strings.Contains(o.stderr, c.flag+" "+full+": ") || !strings.Contains(o.stderr, "no space left on device") {
				t.Errorf("exit %d, stderr %q; want exit %d, %q and the write error", o.code, o.stderr, cli.ExitInternal, c.flag+" "+full)
			}
			if fi, err := os.Stat(full); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
				t.Fatalf("%s is no longer a character device: %v (%v)", full, fi.Mode(), err)
			}
		})
	}
	for _, c := range cmds {
		t.Run("FIFO/"+c.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte, 1)
			go func() {
				b, _ := os.ReadFile(fifo)
				got <- b
			}()
			o := dbarena(t, ctx, nil, append(c.args, fifo)...)
			if o.code != cli.ExitOK {
				t.Errorf("exit %d: %s", o.code, o.stderr)
			}
			select {
			case b := <-got:
				if !strings.Contains(string(b), c.want) {
					t.Errorf("the FIFO's reader got %.80q, want %q in it", b, c.want)
				}
			case <-time.After(10 * time.Second):
				// Unblock the reader: the FIFO was replaced or never opened.
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Error("the FIFO's reader got nothing in 10 s")
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
				t.Errorf("%s is no longer a FIFO (%v)", fifo, err)
			}
			if got := listDir(t, dir); got != dir+" "+fifo {
				t.Errorf("files: %s; want the FIFO alone", got)
			}
		})
	}
}

// A FIFO nobody reads does not hold a command past Ctrl-C: it exits as
// interrupted, and the FIFO stays a FIFO.
func TestOutputFIFOWithoutReaderInterrupted(t *testing.T) {
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan outcome, 1)
	go func() { done <- dbarena(t, ctx, nil, "export", a, "-o", fifo) }()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case o := <-done:
		if o.code != cli.ExitInterrupted {
			t.Errorf("exit %d, stderr %q; want %d", o.code, o.stderr, cli.ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		if f, err := os.Open(fifo); err == nil { // unblock the writer
			f.Close()
		}
		t.Fatal("export still writes to a FIFO nobody reads 10 s after the interrupt")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO (%v)", fifo, err)
	}
}

// An output that is neither a regular file, a character device nor a
// FIFO (a socket, a block device) is refused before any work starts,
// naming the flag, the path and what it is; it stays as it was.
func TestOutputNotAFileRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := writeResult(t, "a.json", "sqlite", "1000", map[int]float64{1: 1000, 4: 2000})
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	outs := map[string]string{sock: "socket"}
	blk := filepath.Join(dir, "blk")
	if err := syscall.Mknod(blk, syscall.S_IFBLK|0o600, 7<<8); err == nil {
		outs[blk] = "block device"
	} else {
		t.Logf("no block device to try: mknod: %v", err)
	}
	linkToSock := filepath.Join(dir, "link")
	if err := os.Symlink(sock, linkToSock); err != nil {
		t.Fatal(err)
	}
	outs[linkToSock] = "socket"
	for out, what := range outs {
		for _, args := range [][]string{
			{"export", a, "-o", out},
			{"report", a, "-o", out},
			{"merge", a, "-o", out},
			{"dump", "docolap", "--events", "10", "--out", out},
			{"run", "oltp_point_select", "--time", "60s", "--target", sqliteURL(t), "--out", out},
		} {
			t.Run(args[0]+"/"+filepath.Base(out), func(t *testing.T) {
				before, _ := os.Lstat(out)
				o := dbarena(t, ctx, nil, args...)
				if o.code != cli.ExitUsage || !strings.Contains(o.stderr, " "+out+": ") || !strings.Contains(o.stderr, what) {
					t.Errorf("exit %d, stderr %q; want exit %d, %s and %q", o.code, o.stderr, cli.ExitUsage, out, what)
				}
				if after, err := os.Lstat(out); err != nil || after.Mode() != before.Mode() {
					t.Errorf("%s changed: %v (%v)", out, after, err)
				}
			})
		}
	}
}

// fullDevice is a character device every write to fails with ENOSPC: a
// node of its own, like /dev/full (1, 7), where the test may create one
// (root), else /dev/full itself (which a user that cannot create nodes
// cannot replace either); "" when there is none.
func fullDevice(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "full")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|7); err == nil {
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
			return p
		}
	}
	if fi, err := os.Stat("/dev/full"); err == nil && fi.Mode()&fs.ModeCharDevice != 0 && os.Geteuid() != 0 {
		return "/dev/full"
	}
	return ""
}

// run --out to a FIFO: its reader gets the one result file of the whole
// sweep (not one per run), and no interval log or lock file is made
// beside the FIFO (or a device such as /dev/stdout).
func TestRunOutToFIFO(t *testing.T) {
	ctx := context.Background()
	sq := sqliteURL(t)
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--target", sq, "--tables", "1", "--table-size", "100"); o.code != cli.ExitOK {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	ran := make(chan outcome, 1)
	go func() {
		ran <- dbarena(t, ctx, nil, "run", "oltp_point_select", "--target", sq, "--tables", "1", "--table-size", "100",
			"--threads", "1,2", "--events", "50", "--out", fifo)
	}()
	select {
	case o := <-ran:
		if o.code != cli.ExitOK {
			t.Errorf("exit %d: %s", o.code, o.stderr)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("run --out FIFO did not end in 60 s")
	}
	select {
	case b := <-got:
		var f result.File
		if err := json.Unmarshal(b, &f); err != nil || len(f.Runs) != 2 {
			t.Errorf("the FIFO's reader got %d bytes, not one result file of 2 runs: %v", len(b), err)
		}
	case <-time.After(20 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("the FIFO's reader got nothing in 20 s")
	}
	if got := listDir(t, dir); got != dir+" "+fifo {
		t.Errorf("files: %s; want the FIFO alone", got)
	}
}
