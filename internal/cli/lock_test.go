package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// A second dbarena writing the result file (and interval log) another is
// writing is refused before it connects or does anything, naming the
// process that holds it; the first one's files are left as they are.
func TestOutInUse(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	out := filepath.Join(dir, "same.json")
	lock, err := result.LockOutput(out)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	for _, p := range []string{out, result.JournalPath(out)} {
		if err := os.WriteFile(p, []byte("the first run's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	holder := fmt.Sprintf("in use by dbarena process %d", os.Getpid())
	for _, args := range [][]string{
		// An unreachable target: the lock is checked before connecting.
		{"run", "oltp_point_select", "--target", "postgres://bench@127.0.0.1:1/bench", "--time", "1s", "--out", out},
		{"recover", out},
		{"recover", out, "-o", filepath.Join(dir, "other.json")},
		{"recover", filepath.Join(dir, "x.json"), "-o", out},
	} {
		o := dbarena(t, ctx, nil, args...)
		if o.code != cli.ExitUsage || !strings.Contains(o.stderr, holder) || !strings.Contains(o.stderr, out) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming %s and %q", strings.Join(args, " "), o.code, o.stderr, out, holder)
		}
	}
	for _, p := range []string{out, result.JournalPath(out)} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "the first run's\n" {
			t.Errorf("%s was changed: %q, %v", p, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "other.json")); !os.IsNotExist(err) {
		t.Errorf("a refused recover wrote other.json: %v", err)
	}
}

// The lock of a process that is gone (killed: the kernel dropped its
// lock, its lock file stayed) is taken over; a run removes its own lock
// file when it ends.
func TestOutStaleLock(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--table-size", "1000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(result.LockPath(out), []byte("2147483000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := dbarena(t, ctx, nil, "run", "oltp_point_select", "--table-size", "1000", "--target", u, "--events", "200", "--out", out)
	if o.code != 0 {
		t.Fatalf("run over a stale lock: exit %d: %s", o.code, o.stderr)
	}
	if _, err := result.Read(out); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(result.LockPath(out)); !os.IsNotExist(err) {
		t.Errorf("the lock file is still there after the run: %v", err)
	}
}
