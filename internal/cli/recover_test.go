package cli_test

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/result"
)

// killedJournal runs oltp_read_write on SQLite into a result file and
// writes the interval log its process would have left had it been killed
// before the run ended: the header, the run's start and every interval.
// It returns the path given to --out (the file itself removed) and the
// file the run wrote.
func killedJournal(t *testing.T) (string, *result.File) {
	t.Helper()
	ctx := context.Background()
	u := sqliteURL(t)
	if o := dbarena(t, ctx, nil, "prepare", "oltp_read_write", "--table-size", "1000", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	if o := dbarena(t, ctx, nil, "run", "oltp_read_write", "--table-size", "1000", "--target", u, "--time", "1s", "--report-interval", "250ms", "--out", out); o.code != 0 {
		t.Fatalf("run: exit %d: %s", o.code, o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(out)
	j, err := result.CreateJournal(result.JournalPath(out), f)
	if err != nil {
		t.Fatal(err)
	}
	r := &f.Runs[0]
	ops := make([]string, len(r.Ops))
	for i, op := range r.Ops {
		ops[i] = op.Name
	}
	if err := j.Start(0, result.RunStart{Threads: r.Threads, StartedAt: r.StartedAt, WarmupS: r.WarmupS, Ops: ops}); err != nil {
		t.Fatal(err)
	}
	for k := range r.Intervals {
		if err := j.Interval(0, &r.Intervals[k]); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return out, f
}

// A recovered file reads like any other: compare, export and report find
// every figure the run's own file has (rates, statements by kind, ops),
// and say that the run was killed.
func TestRecoveredFileReads(t *testing.T) {
	ctx := context.Background()
	out, orig := killedJournal(t)
	if o := dbarena(t, ctx, nil, "recover", out); o.code != 0 {
		t.Fatalf("recover: exit %d: %s", o.code, o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	got, want := f.Runs[0], orig.Runs[0]
	if got.Status != result.StatusKilled || got.Transactions != want.Transactions || got.TPS != want.TPS ||
		got.Reads != want.Reads || got.Writes != want.Writes || got.Other != want.Other || got.Reads == 0 || len(got.Ops) != len(want.Ops) {
		t.Errorf("recovered run: %s, %d transactions, %v tps, reads %d writes %d other %d, %d ops; the run's own file: %d, %v, %d %d %d, %d ops",
			got.Status, got.Transactions, got.TPS, got.Reads, got.Writes, got.Other, len(got.Ops),
			want.Transactions, want.TPS, want.Reads, want.Writes, want.Other, len(want.Ops))
	}
	o := dbarena(t, ctx, nil, "compare", out)
	if o.code != 0 || !strings.Contains(o.stdout, "killed") {
		t.Errorf("compare of the recovered file: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = dbarena(t, ctx, nil, "export", out)
	if o.code != 0 {
		t.Fatalf("export: exit %d: %s", o.code, o.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(o.stdout)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("export: %v\n%s", err, o.stdout)
	}
	row := map[string]string{}
	for i, h := range rows[0] {
		row[h] = rows[1][i]
	}
	if row["status"] != "killed" || row["reads"] != strconv.FormatInt(want.Reads, 10) || row["writes"] != strconv.FormatInt(want.Writes, 10) || row["tps"] == "0" {
		t.Errorf("export of the recovered file: %v", row)
	}
	if o := dbarena(t, ctx, nil, "report", out, "-o", filepath.Join(t.TempDir(), "r.html")); o.code != 0 {
		t.Errorf("report of the recovered file: exit %d: %s", o.code, o.stderr)
	}
}

// An interval log with unreadable or repeated lines is recovered without
// them, with a note of how many and which; one this build cannot read
// (an unknown schema version) is refused as bad input, nothing written.
func TestRecoverDamagedLog(t *testing.T) {
	ctx := context.Background()
	out, orig := killedJournal(t)
	log := result.JournalPath(out)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines = lines[:len(lines)-1]
	// garbage as line 3, and every interval twice
	damaged := append([]string{lines[0], lines[1], "garbage\n"}, lines[2:]...)
	damaged = append(damaged, lines[2:]...)
	if err := os.WriteFile(log, []byte(strings.Join(damaged, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	o := dbarena(t, ctx, nil, "recover", out, "--keep-log")
	if o.code != 0 {
		t.Fatalf("recover: exit %d: %s", o.code, o.stderr)
	}
	if !strings.Contains(o.stderr, "1 unreadable line") || !strings.Contains(o.stderr, "line 3") || !strings.Contains(o.stderr, strconv.Itoa(len(lines)-2)+" repeated lines") {
		t.Errorf("stderr %q: want the skipped lines counted and numbered", o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Runs[0], orig.Runs[0]; got.Transactions != want.Transactions || got.Queries != want.Queries {
		t.Errorf("recovered %d transactions, %d queries; the run had %d, %d", got.Transactions, got.Queries, want.Transactions, want.Queries)
	}

	os.Remove(out)
	future := strings.Replace(lines[0], `"schema_version":2`, `"schema_version":99`, 1)
	if future == lines[0] {
		t.Fatalf("no schema_version in the header %s", lines[0])
	}
	if err := os.WriteFile(log, []byte(future+strings.Join(lines[1:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	o = dbarena(t, ctx, nil, "recover", out)
	if o.code != cli.ExitUsage || !strings.Contains(o.stderr, "schema_version 99") {
		t.Errorf("recover of a version-99 log: exit %d, stderr %q; want exit 2 naming the version", o.code, o.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused recover wrote %s: %v", out, err)
	}
	if _, err := os.Stat(log); err != nil {
		t.Errorf("a refused recover removed the log: %v", err)
	}
}
