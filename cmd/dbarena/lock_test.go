package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/result"
)

// Two processes given the same --out: the second is refused at once
// (exit 2, naming the first's process) and the first writes its file as
// if alone.
func TestTwoRunsOneOut(t *testing.T) {
	bin := buildBinary(t)
	env := append(os.Environ(), "DBARENA_HOME="+t.TempDir())
	prep := exec.Command(bin, "prepare", "oltp_point_select", "--table-size", "2000")
	prep.Env = env
	if out, err := prep.CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "same.json")
	args := []string{"run", "oltp_point_select", "--table-size", "2000", "--time", "2s", "--report-interval", "500ms", "--out", out}
	var first syncBuffer
	a := exec.Command(bin, args...)
	a.Env, a.Stdout, a.Stderr = env, &first, &first
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(first.String(), "thds: 1") {
		if time.Now().After(deadline) {
			a.Process.Kill()
			t.Fatalf("no live line after 30 s:\n%s", first.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	b := exec.Command(bin, args...)
	b.Env = env
	second, err := b.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(second), fmt.Sprintf("in use by dbarena process %d", a.Process.Pid)) {
		t.Errorf("second run: %v, want exit 2 naming process %d\n%s", err, a.Process.Pid, second)
	}
	if strings.Contains(string(second), "running oltp_point_select") {
		t.Errorf("the second run started working:\n%s", second)
	}
	if err := a.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, first.String())
	}
	if !strings.Contains(first.String(), "wrote "+out+" (complete)") {
		t.Errorf("first run's output:\n%s", first.String())
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != result.StatusComplete || f.Identity == nil || f.Identity.PID != a.Process.Pid {
		t.Errorf("the file: status %s, identity %+v; want complete, written by process %d", f.Status, f.Identity, a.Process.Pid)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the output directory holds %d files, want the result only (no log, no lock)", len(entries))
	}
}
