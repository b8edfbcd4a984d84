package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/internal/testdb"
)

// sqlConn opens a SQL connection to tg, closed (with its engine) when
// the test ends.
func sqlConn(t *testing.T, tg engine.Target) engine.SQLConn {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	c, err := engine.ConnectSQL(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sqlExec runs statements on an SQLite target.
func sqlExec(t *testing.T, tg engine.Target, stmts ...string) {
	t.Helper()
	c := sqlConn(t, tg)
	for _, s := range stmts {
		if err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// sqlCount is the single number a query returns on an SQLite target.
func sqlCount(t *testing.T, tg engine.Target, query string) int64 {
	t.Helper()
	var n int64
	if err := sqlConn(t, tg).QueryRow(context.Background(), query, nil, &n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// A table the user put in place of a prepared one: check notices its
// shape, cleanup drops only the untouched table and says why it left the
// other, with the setup exit code; the user's rows survive.
func TestCleanupLeavesUserTable(t *testing.T) {
	ctx := context.Background()
	tg := testdb.SQLite(t)
	target := tg.URL.String()
	opts := []string{"--target", target, "--tables", "2", "--table-size", "100"}
	if o := dbarena(t, ctx, nil, append([]string{"prepare", "oltp_read_write"}, opts...)...); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	sqlExec(t, tg, "DROP TABLE sbtest2", "CREATE TABLE sbtest2 (id int primary key, note text)", "INSERT INTO sbtest2 VALUES (1, 'mine')")
	if o := dbarena(t, ctx, nil, append([]string{"check", "oltp_read_write"}, opts...)...); o.code != cli.ExitSetup || !strings.Contains(o.stderr, "sbtest2") {
		t.Errorf("check: exit %d %q; want %d naming sbtest2", o.code, o.stderr, cli.ExitSetup)
	}
	o := dbarena(t, ctx, nil, append([]string{"cleanup", "oltp_read_write"}, opts...)...)
	if o.code != cli.ExitSetup || !strings.Contains(o.stderr, "not dropped: sbtest2 is not the one dbarena created (") {
		t.Errorf("cleanup: exit %d %q; want %d and \"not dropped: sbtest2 is not the one dbarena created (…)\"", o.code, o.stderr, cli.ExitSetup)
	}
	if !strings.Contains(o.stdout, "dropped sbtest1") {
		t.Errorf("cleanup said %q, want it to drop sbtest1", o.stdout)
	}
	if n := sqlCount(t, tg, "SELECT COUNT(*) FROM sbtest2 WHERE note = 'mine'"); n != 1 {
		t.Errorf("the user's sbtest2 has %d of its rows, want 1", n)
	}
	// The record of the replaced table is gone: the table is foreign now.
	o = dbarena(t, ctx, nil, append([]string{"cleanup", "oltp_read_write"}, opts...)...)
	if o.code != cli.ExitSetup || !strings.Contains(o.stderr, "not created by dbarena") {
		t.Errorf("second cleanup: exit %d %q", o.code, o.stderr)
	}
}

// The records of an older dbarena hold no identity: dbarena cannot tell
// a table they name from a copy of it, so cleanup leaves it, saying so,
// as it leaves one of another shape; it drops neither.
func TestCleanupOlderRecords(t *testing.T) {
	ctx := context.Background()
	tg := testdb.SQLite(t)
	sqlExec(t, tg,
		"CREATE TABLE dbarena_tables (table_name VARCHAR(128) NOT NULL PRIMARY KEY, workload VARCHAR(128) NOT NULL, state VARCHAR(16) NOT NULL, created_at VARCHAR(40) NOT NULL)",
		"CREATE TABLE sbtest1 (id INTEGER, k INTEGER DEFAULT 0 NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE sbtest2 (id int primary key, note text)",
		"INSERT INTO sbtest2 VALUES (1, 'mine')",
		"INSERT INTO dbarena_tables VALUES ('sbtest1', 'oltp_read_write', 'ready', '2026-01-01T00:00:00Z')",
		"INSERT INTO dbarena_tables VALUES ('sbtest2', 'oltp_read_write', 'ready', '2026-01-01T00:00:00Z')",
	)
	o := dbarena(t, ctx, nil, "cleanup", "oltp_read_write", "--target", tg.URL.String(), "--tables", "2")
	if o.code != cli.ExitSetup || !strings.Contains(o.stderr, "not dropped: sbtest2 is not the one dbarena created (columns are (id int, note text)") {
		t.Errorf("cleanup: exit %d %q", o.code, o.stderr)
	}
	if !strings.Contains(o.stderr, "not dropped: sbtest1: dbarena cannot tell it from a copy of the table it created (dbarena_tables holds no identity of it") {
		t.Errorf("cleanup said %q, want sbtest1 left as a table it cannot tell from a copy", o.stderr)
	}
	if strings.Contains(o.stdout, "dropped") {
		t.Errorf("cleanup dropped a table: %q", o.stdout)
	}
	if n := sqlCount(t, tg, "SELECT COUNT(*) FROM sbtest2 WHERE note = 'mine'"); n != 1 {
		t.Errorf("the user's sbtest2 has %d of its rows, want 1", n)
	}
	if n := sqlCount(t, tg, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'sbtest1'"); n != 1 {
		t.Errorf("sbtest1 is gone")
	}
}

// Options that define the data are checked against those it was prepared
// with, before any work, by run and by a plan's cells; options that only
// shape the run are not.
func TestDataOptionsChecked(t *testing.T) {
	ctx := context.Background()
	tg := testdb.SQLite(t)
	target := tg.URL.String()
	if o := dbarena(t, ctx, nil, "prepare", "oltp_read_write", "--target", target, "--table-size", "1000"); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	o := dbarena(t, ctx, nil, "run", "oltp_point_select", "--target", target, "--table-size", "5000", "--time", "1s")
	want := "--table-size 5000: does not match the data: prepared with --table-size 1000"
	if o.code != cli.ExitUsage || !strings.Contains(o.stderr, want) || !strings.Contains(o.stderr, "pass --table-size 1000") {
		t.Errorf("run: exit %d %q; want %d and %q", o.code, o.stderr, cli.ExitUsage, want)
	}
	if strings.Contains(o.stdout, "tps:") {
		t.Errorf("the run measured something:\n%s", o.stdout)
	}
	o = dbarena(t, ctx, nil, "run", "oltp_insert", "--target", target, "--auto-inc=false", "--time", "1s")
	if o.code != cli.ExitUsage || !strings.Contains(o.stderr, "--auto-inc false: does not match the data: prepared with --auto-inc=true") {
		t.Errorf("run --auto-inc=false: exit %d %q", o.code, o.stderr)
	}
	// The same data with another access pattern runs; oltp_insert grows
	// the tables, which is no mismatch.
	for _, args := range [][]string{
		{"run", "oltp_point_select", "--table-size", "1000", "--rand-type", "uniform", "--time", "1s"},
		{"run", "oltp_insert", "--table-size", "1000", "--time", "1s"},
		{"run", "oltp_point_select", "--table-size", "1000", "--time", "1s"},
	} {
		if o := dbarena(t, ctx, nil, append(args, "--target", target)...); o.code != 0 {
			t.Errorf("%v: exit %d: %s", args, o.code, o.stderr)
		}
	}
	if o := dbarena(t, ctx, nil, "check", "oltp_read_write", "--target", target, "--table-size", "2000"); o.code != cli.ExitUsage || !strings.Contains(o.stderr, "--table-size 2000: does not match the data") {
		t.Errorf("check: exit %d %q", o.code, o.stderr)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	plan := `name: mismatch
duration: 1s
threads: [1]
targets:
  - label: lite
    url: "` + target + `"
workloads:
  - name: oltp_point_select
    options:
      table_size: 2000
`
	if err := os.WriteFile(file, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	o = dbarena(t, ctx, nil, "plan", "run", file, "-o", out)
	if o.code == 0 || !strings.Contains(o.stdout+o.stderr, "--table-size 2000: does not match the data: prepared with --table-size 1000") {
		t.Errorf("plan: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "*__r*.json")); len(m) != 0 {
		t.Errorf("the plan wrote result files %v", m)
	}
}
