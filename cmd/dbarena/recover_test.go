package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/result"
)

// dbarena killed with SIGKILL in the middle of a sweep keeps the runs that
// ended (written as each ended) and, through `dbarena recover`, every
// interval of the run it was killed in.
func TestSIGKILLMidSweepThenRecover(t *testing.T) {
	bin := buildBinary(t)
	env := append(os.Environ(), "DBARENA_HOME="+t.TempDir())
	dbarena := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out), 0
	}
	if out, code := dbarena("prepare", "oltp_point_select", "--table-size", "2000"); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, out)
	}

	out := filepath.Join(t.TempDir(), "r.json")
	var stdout syncBuffer
	run := exec.Command(bin, "run", "oltp_point_select", "--table-size", "2000", "--threads", "1,2",
		"--time", "2s", "--report-interval", "500ms", "--out", out)
	run.Env, run.Stdout, run.Stderr = env, &stdout, &stdout
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once the second run has reported two intervals.
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(stdout.String(), "thds: 2") < 2 {
		if time.Now().After(deadline) {
			run.Process.Kill()
			t.Fatalf("the second run reported nothing in 60 s:\n%s", stdout.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := run.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	run.Wait()

	// The first run was written when it ended.
	f, err := result.Read(out)
	if err != nil {
		t.Fatalf("after the kill: %v\n%s", err, stdout.String())
	}
	if f.Status != result.StatusKilled || len(f.Runs) != 1 || f.Runs[0].Status != result.StatusComplete || f.Runs[0].Threads != 1 {
		t.Fatalf("after the kill the file holds status %s, %d runs", f.Status, len(f.Runs))
	}
	first := f.Runs[0]

	text, code := dbarena("recover", out)
	if code != 0 {
		t.Fatalf("recover: exit %d\n%s", code, text)
	}
	f, err = result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != result.StatusKilled || len(f.Runs) != 2 {
		t.Fatalf("recovered: status %s, %d runs\n%s", f.Status, len(f.Runs), text)
	}
	if r := f.Runs[0]; r.Transactions != first.Transactions || r.Status != result.StatusComplete || len(r.Intervals) != len(first.Intervals) {
		t.Errorf("recovered: the first run changed: %d transactions, status %s", r.Transactions, r.Status)
	}
	killed := f.Runs[1]
	if killed.Status != result.StatusKilled || killed.Threads != 2 || len(killed.Intervals) < 2 {
		t.Fatalf("recovered: the killed run has status %s, %d threads, %d intervals", killed.Status, killed.Threads, len(killed.Intervals))
	}
	var txn int64
	for _, iv := range killed.Intervals {
		if !iv.Warmup {
			txn += iv.Transactions
		}
	}
	if killed.Transactions == 0 || killed.Transactions != txn || killed.Ops[0].Count != txn {
		t.Errorf("recovered: the killed run has %d transactions (op %d), its intervals %d", killed.Transactions, killed.Ops[0].Count, txn)
	}
	if killed.Reads != killed.Queries || killed.Reads == 0 {
		t.Errorf("recovered: the killed run has %d reads of %d queries (oltp_point_select only reads)", killed.Reads, killed.Queries)
	}
	for _, p := range []string{result.JournalPath(out), result.LockPath(out)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after recover: %v", p, err)
		}
	}
	// The recovered file compares like any other, its killed run marked.
	if text, code := dbarena("compare", out); code != 0 || !strings.Contains(text, "threads was killed") {
		t.Errorf("compare of the recovered file: exit %d\n%s", code, text)
	}
	// Nothing is left to recover: a usage error, the file untouched.
	text, code = dbarena("recover", out)
	if code != 2 || !strings.Contains(text, "no interval log") {
		t.Errorf("recover again: exit %d\n%s", code, text)
	}
}
