package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
)

// `dbarena run --tries` whose every try failed (each past
// --query-timeout) is not complete: its result file says failed, with
// every try kept, and dbarena exits 5.
func TestRunEveryTryFailed(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	out := filepath.Join(t.TempDir(), "r.json")
	if o := dbarena(t, ctx, nil, "prepare", "docolap", "--events", "2000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	o := dbarena(t, ctx, nil, "run", "docolap", "--events", "2000", "--target", u, "--tries", "2", "--query-timeout", "1ns", "--out", out)
	if o.code != cli.ExitRunFailed || !strings.Contains(o.stderr, "every try failed") {
		t.Fatalf("exit %d, want %d: %s%s", o.code, cli.ExitRunFailed, o.stdout, o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[0]
	if f.Status != result.StatusFailed || r.Status != result.StatusFailed || r.Tries == nil || len(r.Tries.Queries) == 0 || len(r.Tries.Queries[0].Tries) != 2 {
		t.Errorf("file %s, run %s, tries %+v: want failed with every try", f.Status, r.Status, r.Tries)
	}
}

// `dbarena run` against a server that stops answering (another session
// takes an exclusive lock on the workload's table early in the run, and
// holds it) ends stalled: the result file keeps every figure, with status
// stalled, and dbarena exits 8.
func TestRunStalled(t *testing.T) {
	ctx := context.Background()
	tg := testdb.Isolated(t, testdb.Postgres(t))
	u := withPassword(tg)
	if o := dbarena(t, ctx, nil, "prepare", "oltp_point_select", "--tables", "1", "--table-size", "1000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	eng, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	admin, err := engine.ConnectSQL(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr syncBuffer
	st := &cli.State{Stdout: &stdout, Stderr: &stderr, Now: time.Now, Version: "test", Commit: "none",
		Getenv: func(k string) string { return map[string]string{"DBARENA_HOME": t.TempDir()}[k] }}
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, st, []string{"run", "oltp_point_select", "--tables", "1", "--table-size", "1000", "--target", u,
			"--threads", "2", "--time", "4s", "--report-interval", "250ms", "--stop-grace", "100ms", "--out", out})
	}()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(stdout.String(), "running oltp_point_select") {
		if time.Now().After(deadline) {
			t.Fatalf("the run did not start:\n%s%s", stdout.String(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // into the first interval
	if err := admin.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := admin.Exec(ctx, "LOCK TABLE sbtest1 IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	code := <-done
	if err := admin.Commit(ctx); err != nil {
		t.Error(err)
	}
	if code != cli.ExitStalled || !strings.Contains(stderr.String(), "the run stalled") {
		t.Fatalf("exit %d, want %d: %s%s", code, cli.ExitStalled, stdout.String(), stderr.String())
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[0]
	if f.Status != result.StatusStalled || r.Status != result.StatusStalled || r.Transactions == 0 || len(r.Intervals) != 16 || r.Unfinished == 0 {
		t.Errorf("file %s, run %s, %d transactions, %d intervals, %d unfinished: want stalled with every figure", f.Status, r.Status, r.Transactions, len(r.Intervals), r.Unfinished)
	}
}
