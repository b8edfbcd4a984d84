package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/internal/cli"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
	_ "github.com/dbarena/dbarena/server/all"
	_ "github.com/dbarena/dbarena/workload/all"
	_ "github.com/dbarena/dbarena/workload/all/mongo"
)

type outcome struct {
	code           int
	stdout, stderr string
}

// dbarena runs the CLI in-process with a private data directory.
func dbarena(t *testing.T, ctx context.Context, env map[string]string, args ...string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	if env == nil {
		env = map[string]string{}
	}
	if _, ok := env["DBARENA_HOME"]; !ok {
		env["DBARENA_HOME"] = t.TempDir()
	}
	st := &cli.State{
		Stdout: &out, Stderr: &errb,
		Getenv:  func(k string) string { return env[k] },
		Now:     time.Now,
		Version: "test", Commit: "none",
	}
	code := cli.Main(ctx, st, args)
	return outcome{code, out.String(), errb.String()}
}

func sqliteURL(t *testing.T) string {
	return "sqlite://" + filepath.Join(t.TempDir(), "t.db")
}

// withPassword is the target's URL with its password put back, as a user
// would type it.
func withPassword(tg engine.Target) string {
	u := *tg.URL
	if tg.Password.IsSet() {
		u.User = url.UserPassword(tg.Username(), tg.Password.Reveal())
	}
	return u.String()
}

// tpccTemplate is one SQLite database prepared with one TPC-C warehouse,
// made by the first test that asks for it; tpccSQLite gives each test a
// copy.
var tpccTemplate struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes tpccTemplate's database after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if tpccTemplate.dir != "" {
		os.RemoveAll(tpccTemplate.dir)
	}
	os.Exit(code)
}

// tpccSQLite is a SQLite target prepared with one TPC-C warehouse: a copy
// of tpccTemplate in the test's own directory.
func tpccSQLite(t *testing.T) string {
	t.Helper()
	tpccTemplate.once.Do(func() {
		dir, err := os.MkdirTemp("", "dbarena-cli-tpcc-")
		if err != nil {
			tpccTemplate.err = err
			return
		}
		tpccTemplate.dir = dir
		if o := dbarena(t, context.Background(), nil, "prepare", "tpcc", "--target", "sqlite://"+filepath.Join(dir, "t.db")); o.code != 0 {
			tpccTemplate.err = fmt.Errorf("prepare tpcc: exit %d: %s", o.code, o.stderr)
		}
	})
	if tpccTemplate.err != nil {
		t.Fatal(tpccTemplate.err)
	}
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(tpccTemplate.dir, "t.db*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return "sqlite://" + filepath.Join(dir, "t.db")
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	sq := sqliteURL(t)
	tp := tpccSQLite(t)
	mg := withPassword(testdb.Isolated(t, testdb.Mongo(t)))
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"unknown workload", []string{"run", "nope"}, cli.ExitUsage, `unknown workload "nope"`},
		{"no workload", []string{"run"}, cli.ExitUsage, "run needs a workload"},
		{"unknown command", []string{"frobnicate"}, cli.ExitUsage, "frobnicate"},
		{"unknown option", []string{"run", "oltp_read_write", "--bogus", "1"}, cli.ExitUsage, "--bogus"},
		{"bad option value", []string{"run", "oltp_read_write", "--tables", "x"}, cli.ExitUsage, "--tables"},
		{"invalid option", []string{"run", "oltp_read_write", "--tables", "0", "--target", sq}, cli.ExitUsage, "--tables 0"},
		{"threads 0", []string{"run", "oltp_read_write", "--threads", "0", "--target", sq}, cli.ExitUsage, "--threads 0"},
		{"threads list with 0", []string{"run", "oltp_read_write", "--threads", "1,0", "--target", sq}, cli.ExitUsage, "--threads 0"},
		{"time -1", []string{"run", "oltp_read_write", "--time", "-1", "--target", sq}, cli.ExitUsage, "--time -1s"},
		{"time garbage", []string{"run", "oltp_read_write", "--time", "soon", "--target", sq}, cli.ExitUsage, "--time"},
		{"several problems at once", []string{"run", "oltp_read_write", "--threads", "0", "--time", "-1", "--tables", "0", "--target", sq}, cli.ExitUsage, "--threads 0"},
		{"out dir missing", []string{"run", "oltp_read_write", "--out", "/nonexistent/dir/r.json", "--target", sq}, cli.ExitUsage, "--out /nonexistent/dir/r.json"},
		{"malformed url", []string{"run", "oltp_read_write", "--target", "postgres//u:hunter2@h"}, cli.ExitUsage, "target"},
		{"unknown scheme", []string{"run", "oltp_read_write", "--target", "oracle://u@h/db"}, cli.ExitUsage, `unknown target scheme "oracle"`},
		{"unreachable host", []string{"run", "oltp_read_write", "--target", "postgres://u:hunter2@127.0.0.1:1/db", "--connect-timeout", "3s"}, cli.ExitTarget, "127.0.0.1:1"},
		{"not prepared", []string{"run", "oltp_read_write", "--target", sq}, cli.ExitSetup, "not prepared"},
		{"check not prepared", []string{"check", "oltp_read_write", "--target", sq}, cli.ExitSetup, "not prepared"},
		{"tpcc warehouses 0", []string{"prepare", "tpcc", "--warehouses", "0", "--target", sq}, cli.ExitUsage, "--warehouses 0: must be at least 1"},
		{"tpcc procedures on sqlite", []string{"run", "tpcc", "--mode", "procedure", "--time", "1s", "--target", tp}, cli.ExitUsage, "--mode procedure: sqlite has no stored procedures"},
		{"tpcc warehouses differ", []string{"run", "tpcc", "--warehouses", "2", "--time", "1s", "--target", tp}, cli.ExitUsage, "--warehouses 2: does not match the data: prepared with --warehouses 1"},
		{"isolation unknown", []string{"run", "airline", "--isolation", "snapshot", "--target", sq}, cli.ExitUsage, "--isolation snapshot: must be read-committed, repeatable-read or serializable"},
		{"isolation the engine lacks", []string{"run", "tpcc", "--isolation", "read-committed", "--time", "1s", "--target", tp}, cli.ExitUsage, "--isolation read-committed:"},
		{"max-retries negative", []string{"run", "payments", "--max-retries", "-1", "--target", sq}, cli.ExitUsage, "--max-retries -1: must not be negative"},
		{"retry back-off above its maximum", []string{"run", "airline", "--retry-backoff", "2s", "--retry-backoff-max", "1s", "--target", sq}, cli.ExitUsage, "--retry-backoff 2s: must be between 0 and --retry-backoff-max (1s)"},
		{"tpcc mode nonsense", []string{"run", "tpcc", "--mode", "nonsense", "--target", sq}, cli.ExitUsage, "--mode nonsense: must be client or procedure"},
		{"tpcc on mongodb", []string{"prepare", "tpcc", "--target", mg}, cli.ExitUsage, "tpcc has no implementation for mongodb targets"},
		{"tpce mee nonsense", []string{"run", "tpce", "--customers", "1000", "--itd", "1", "--mee", "nonsense", "--target", sq}, cli.ExitUsage, "--mee nonsense: must be worker (or per-worker), shared or shared:N"},
		{"write concern on sqlite", []string{"run", "oltp_read_write", "--write-concern", "majority", "--target", sq}, cli.ExitUsage, "--write-concern majority: only MongoDB targets take it"},
		{"read preference contradicts url", []string{"run", "oltp_read_write", "--read-preference", "secondary", "--target", mg + "&readPreference=primary"}, cli.ExitUsage, "--read-preference secondary: the target URL says readPreference=primary"},
		{"mongodb without database", []string{"run", "oltp_read_write", "--target", "mongodb://u:hunter2@127.0.0.1:1/"}, cli.ExitUsage, "database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := dbarena(t, ctx, nil, tc.args...)
			if o.code != tc.code || !strings.Contains(o.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", o.code, o.stderr, tc.code, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(o.stderr), "\n"); n > 0 && tc.name != "several problems at once" {
				t.Errorf("want a one-line error, got %q", o.stderr)
			}
			if strings.Contains(o.stderr+o.stdout, "hunter2") {
				t.Errorf("password printed: %q", o.stderr)
			}
		})
	}
	t.Run("several problems reported together", func(t *testing.T) {
		o := dbarena(t, ctx, nil, "run", "oltp_read_write", "--threads", "0", "--time", "-1", "--tables", "0", "--target", sq)
		for _, w := range []string{"--threads 0", "--time -1s", "--tables 0"} {
			if !strings.Contains(o.stderr, w) {
				t.Errorf("stderr %q lacks %q", o.stderr, w)
			}
		}
	})
}

func TestWrongPassword(t *testing.T) {
	for name, tg := range map[string]engine.Target{"postgres": testdb.Postgres(t), "mysql": testdb.MySQL(t), "mongodb": testdb.Mongo(t)} {
		t.Run(name, func(t *testing.T) {
			bad := tg
			bad.Password = engine.NewSecret("Wr0ng-Pa55")
			o := dbarena(t, context.Background(), nil, "run", "oltp_point_select", "--target", withPassword(bad))
			if o.code != cli.ExitTarget {
				t.Errorf("exit %d (%s), want %d", o.code, o.stderr, cli.ExitTarget)
			}
			if strings.Contains(o.stderr+o.stdout, "Wr0ng-Pa55") {
				t.Errorf("password printed: %s", o.stderr)
			}
			if !strings.Contains(o.stderr, tg.Username()) || !strings.Contains(o.stderr, "127.0.0.1") {
				t.Errorf("error %q should name the user and host", o.stderr)
			}
		})
	}
}

// Tables that exist but were not created by dbarena are never touched, and
// tables of another shape are refused.
func TestForeignAndMisshapenTables(t *testing.T) {
	ctx := context.Background()
	tg := testdb.SQLite(t)
	eng, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	c, err := engine.ConnectSQL(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Exec(ctx, "CREATE TABLE sbtest1 (id INTEGER PRIMARY KEY, note TEXT)"); err != nil {
		t.Fatal(err)
	}
	target := tg.URL.String()
	for _, cmd := range []string{"prepare", "cleanup", "run"} {
		o := dbarena(t, ctx, nil, cmd, "oltp_point_select", "--target", target)
		if o.code != cli.ExitSetup || !strings.Contains(o.stderr, "sbtest1") || !strings.Contains(o.stderr, "not created by dbarena") {
			t.Errorf("%s: exit %d %q; want %d naming sbtest1 as not ours", cmd, o.code, o.stderr, cli.ExitSetup)
		}
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'sbtest1'", nil, &n); err != nil || n != 1 {
		t.Fatalf("the foreign table is gone (%v)", err)
	}

	// Recorded as ours but with other columns: run refuses with the shape.
	for _, s := range []string{
		"CREATE TABLE IF NOT EXISTS dbarena_tables (table_name VARCHAR(128) NOT NULL PRIMARY KEY, workload VARCHAR(128) NOT NULL, state VARCHAR(16) NOT NULL, created_at VARCHAR(40) NOT NULL)",
		"DROP TABLE sbtest1",
		"CREATE TABLE sbtest1 (id INTEGER PRIMARY KEY, k INTEGER, c TEXT)",
		"INSERT INTO dbarena_tables VALUES ('sbtest1', 'oltp_point_select', 'ready', '2026-01-01T00:00:00Z')",
	} {
		if err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	o := dbarena(t, ctx, nil, "run", "oltp_point_select", "--target", target)
	if o.code != cli.ExitSetup || !strings.Contains(o.stderr, "another shape") {
		t.Errorf("run on a misshapen table: exit %d %q", o.code, o.stderr)
	}
}

// The whole cycle on every engine: prepare, a thread sweep into a result
// file, check, cleanup; the password appears nowhere.
func TestCycle(t *testing.T) {
	targets := map[string]engine.Target{
		"sqlite":   testdb.SQLite(t),
		"postgres": testdb.Isolated(t, testdb.Postgres(t)),
		"mysql":    testdb.Isolated(t, testdb.MySQL(t)),
		// Transaction pooling: the URL selects pgx's exec mode. PgBouncer
		// passes no search_path, so this one uses the public schema of
		// its database; no other test loads sbtest tables there.
		"pgbouncer": testdb.PgBouncer(t),
		"mongodb":   testdb.Isolated(t, testdb.Mongo(t)),
	}
	for name, tg := range targets {
		engineName := name
		if name == "pgbouncer" {
			engineName = "postgres"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			target := "lbl=" + withPassword(tg)
			secret := tg.Password.Reveal()
			opts := []string{"--tables", "2", "--table-size", "500"}
			if name == "mongodb" {
				opts = append(opts, "--write-concern", "majority")
			}
			var all strings.Builder
			step := func(want int, args ...string) outcome {
				t.Helper()
				o := dbarena(t, ctx, nil, append(args, append([]string{"--target", target}, opts...)...)...)
				all.WriteString(o.stdout + o.stderr)
				if o.code != want {
					t.Fatalf("%v: exit %d, want %d\n%s%s", args, o.code, want, o.stdout, o.stderr)
				}
				return o
			}
			o := step(cli.ExitOK, "prepare", "oltp_read_write")
			// Where the time went, and each table's size on disk.
			sizes := regexp.MustCompile(`(?m)^table +rows +data +indexes +total\n` +
				`sbtest1 +500 +[0-9.]+ [kMG]?B +[0-9.]+ [kMG]?B +[0-9.]+ [kMG]?B\n` +
				`sbtest2 +500 +.*\ntotal +1000 +`)
			if !strings.Contains(o.stdout, "loader time ") || !sizes.MatchString(o.stdout) {
				t.Errorf("prepare's output lacks the loader time or the table sizes:\n%s", o.stdout)
			}
			step(cli.ExitSetup, "prepare", "oltp_read_write") // already prepared
			out := filepath.Join(t.TempDir(), "r.json")
			o = step(cli.ExitOK, "run", "oltp_read_write", "--threads", "1,2", "--time", "1s", "--report-interval", "500ms", "--out", out)
			if !strings.Contains(o.stdout, "thds: 2 tps:") || !strings.Contains(o.stdout, "Sweep:") {
				t.Errorf("output lacks live lines or sweep table:\n%s", o.stdout)
			}
			f, err := result.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if f.Status != result.StatusComplete || len(f.Runs) != 2 || f.Runs[1].Threads != 2 {
				t.Fatalf("result: status %s, %d runs", f.Status, len(f.Runs))
			}
			r := f.Runs[0]
			// sysbench's accounting with defaults: 14 reads, 4 writes, 2 other.
			if r.Transactions == 0 || r.Reads != 14*r.Transactions+14*r.Retries && r.Retries == 0 || r.Other != 2*r.Transactions {
				t.Errorf("run 1: %d transactions, %d reads, %d writes, %d other", r.Transactions, r.Reads, r.Writes, r.Other)
			}
			if f.Target.Label != "lbl" || f.Target.Engine != engineName || f.Target.ServerVersion == "" || len(f.Target.Settings) == 0 {
				t.Errorf("target = %+v", f.Target)
			}
			if name == "mongodb" && f.Target.Settings["client.writeConcern"] != "w=majority" {
				t.Errorf("client.writeConcern = %q, want w=majority (--write-concern)", f.Target.Settings["client.writeConcern"])
			}
			if f.Workload.Options["tables"] != "2" || f.Client.Cores == 0 {
				t.Errorf("workload options %v, client %+v", f.Workload.Options, f.Client)
			}
			step(cli.ExitOK, "check", "oltp_read_write")
			o = step(cli.ExitOK, "cleanup", "oltp_read_write")
			if !strings.Contains(o.stdout, "sbtest1, sbtest2") {
				t.Errorf("cleanup said %q", o.stdout)
			}
			step(cli.ExitSetup, "run", "oltp_read_write", "--time", "1s")

			b, _ := os.ReadFile(out)
			if secret != "" && (strings.Contains(string(b), secret) || strings.Contains(all.String(), secret)) {
				t.Errorf("the password appears in the output or the result file")
			}
		})
	}
}

// Ctrl-C during a run: the summary is printed, the result file is written
// marked interrupted, and the exit code says so.
func TestInterruptWritesResult(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"DBARENA_HOME": home}
	if o := dbarena(t, context.Background(), env, "prepare", "oltp_point_select", "--table-size", "1000"); o.code != 0 {
		t.Fatalf("prepare: %d %s", o.code, o.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	o := dbarena(t, ctx, env, "run", "oltp_point_select", "--table-size", "1000", "--time", "60s", "--out", out)
	if o.code != cli.ExitInterrupted {
		t.Fatalf("exit %d, want %d: %s", o.code, cli.ExitInterrupted, o.stderr)
	}
	if !strings.Contains(o.stdout, "SQL statistics") {
		t.Errorf("no summary printed:\n%s", o.stdout)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != result.StatusInterrupted || len(f.Runs) != 1 || f.Runs[0].Transactions == 0 {
		t.Errorf("result status %s, runs %d", f.Status, len(f.Runs))
	}
}

// The embedded default needs no --target and is prepared on first use, in
// the data directory, where it stays.
func TestEmbeddedDefault(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"DBARENA_HOME": home}
	out := filepath.Join(t.TempDir(), "r.json")
	o := dbarena(t, context.Background(), env, "run", "oltp_read_write", "--time", "1s", "--table-size", "1000", "--out", out)
	if o.code != 0 || !strings.Contains(o.stdout, "preparing it now") {
		t.Fatalf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "default.db")); err != nil {
		t.Errorf("default database not in the data directory: %v", err)
	}
	o = dbarena(t, context.Background(), env, "run", "oltp_read_write", "--time", "1s", "--table-size", "1000")
	if o.code != 0 || strings.Contains(o.stdout, "preparing it now") {
		t.Errorf("second run prepared again or failed: %d\n%s", o.code, o.stdout)
	}
	var f map[string]any
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &f); err != nil || f["schema_version"] != float64(2) {
		t.Errorf("result file: %v %v", err, f["schema_version"])
	}
}

func TestList(t *testing.T) {
	o := dbarena(t, context.Background(), nil, "list")
	for _, w := range []string{"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_update_index",
		"oltp_update_non_index", "oltp_insert", "oltp_delete", "oltp_read_write_pct", "--table-size", "(default 10000)", "--rand-type", "postgres, sqlite"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("list output lacks %q", w)
		}
	}
}

// list shows a test the options it uses; the sysbench options it accepts
// but ignores are named once, as such.
func TestListOptionsATestUses(t *testing.T) {
	o := dbarena(t, context.Background(), nil, "list")
	start := strings.Index(o.stdout, "oltp_point_select (version")
	if start < 0 {
		t.Fatalf("no oltp_point_select in:\n%s", o.stdout)
	}
	sec := o.stdout[start:]
	sec = sec[:strings.Index(sec, "\n\n")]
	for _, ignored := range []string{"--point-selects", "--range-size", "--simple-ranges", "--index-updates", "--delete-inserts", "--skip-trx"} {
		if strings.Contains(sec, "\n    "+ignored+" ") {
			t.Errorf("oltp_point_select lists %s, which it ignores:\n%s", ignored, sec)
		}
	}
	for _, want := range []string{"\n    --table-size ", "\n    --rand-type ",
		"accepted for sysbench compatibility, unused by this test: --delete-inserts, --distinct-ranges,", " --point-selects,"} {
		if !strings.Contains(sec, want) {
			t.Errorf("oltp_point_select's options lack %q:\n%s", want, sec)
		}
	}
	rw := o.stdout[strings.Index(o.stdout, "oltp_read_write (version"):]
	rw = rw[:strings.Index(rw, "\n\n")]
	if !strings.Contains(rw, "\n    --point-selects ") || strings.Contains(rw, "compatibility") {
		t.Errorf("oltp_read_write does not list all its options:\n%s", rw)
	}
}

// Every OLTP variant on every engine: prepare, run, check, cleanup.
func TestEveryVariant(t *testing.T) {
	variants := []string{"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_update_index",
		"oltp_update_non_index", "oltp_insert", "oltp_delete", "oltp_read_write_pct"}
	targets := map[string]func(t *testing.T) engine.Target{
		"sqlite":   func(t *testing.T) engine.Target { return testdb.SQLite(t) },
		"postgres": func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) },
		"mysql":    func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) },
	}
	for name, target := range targets {
		t.Run("engine="+name, func(t *testing.T) {
			t.Parallel()
			for _, v := range variants {
				t.Run("workload="+v, func(t *testing.T) {
					tg := withPassword(target(t))
					for _, args := range [][]string{
						{"prepare", v},
						{"run", v, "--threads", "2", "--events", "200", "--tolerate-errors"},
						{"check", v},
						{"cleanup", v},
					} {
						o := dbarena(t, context.Background(), nil, append(args, "--target", tg, "--tables", "2", "--table-size", "300")...)
						if o.code == cli.ExitStalled && strings.Contains(o.stdout, "! disturbed:") {
							// Other work starved the run on a shared host
							// (its intervals say so): once more.
							t.Logf("%v: stalled on a disturbed host; again", args)
							o = dbarena(t, context.Background(), nil, append(args, "--target", tg, "--tables", "2", "--table-size", "300")...)
						}
						if o.code != 0 {
							t.Fatalf("%v: exit %d\n%s%s", args, o.code, o.stdout, o.stderr)
						}
						if args[0] == "run" && !strings.Contains(o.stdout, "errors:                              0 ") {
							t.Errorf("%v: errors in a clean run:\n%s", args, o.stdout)
						}
					}
				})
			}
		})
	}
}

// A host that accepts the TCP connection but never answers (a hung
// server, a wrong port behind a proxy) fails within --connect-timeout.
func TestConnectTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // never read from, never written to
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	}()
	addr := ln.Addr().String()
	for _, scheme := range []string{"postgres", "mysql"} {
		t.Run(scheme, func(t *testing.T) {
			start := time.Now()
			o := dbarena(t, context.Background(), nil, "run", "oltp_point_select", "--target", scheme+"://u:hunter2@"+addr+"/db", "--connect-timeout", "1s")
			took := time.Since(start)
			if o.code != cli.ExitTarget || !strings.Contains(o.stderr, addr) {
				t.Errorf("exit %d %q; want %d naming %s", o.code, o.stderr, cli.ExitTarget, addr)
			}
			if took > 8*time.Second {
				t.Errorf("gave up after %v with --connect-timeout 1s", took)
			}
			if strings.Contains(o.stderr, "hunter2") {
				t.Errorf("password printed: %s", o.stderr)
			}
		})
	}
}

// Server metrics are sampled every interval on a server of this host:
// plausible values, in the live lines and the result file, with the
// host's operating-system knobs among the settings.
func TestServerMetricsInResult(t *testing.T) {
	for name, tg := range map[string]engine.Target{
		"postgres": testdb.Isolated(t, testdb.Postgres(t)),
		"mysql":    testdb.Isolated(t, testdb.MySQL(t)),
		"mongodb":  testdb.Isolated(t, testdb.Mongo(t)),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			target := withPassword(tg)
			opts := []string{"--target", target, "--tables", "1", "--table-size", "1000"}
			if o := dbarena(t, ctx, nil, append([]string{"prepare", "oltp_write_only"}, opts...)...); o.code != cli.ExitOK {
				t.Fatalf("prepare: %s", o.stderr)
			}
			out := filepath.Join(t.TempDir(), "r.json")
			o := dbarena(t, ctx, nil, append([]string{"run", "oltp_write_only", "--threads", "2", "--time", "3s", "--out", out}, opts...)...)
			if o.code != cli.ExitOK {
				t.Fatalf("run: exit %d: %s", o.code, o.stderr)
			}
			if !strings.Contains(o.stdout, "| srv cpu ") || !strings.Contains(o.stdout, "server CPU:") {
				t.Errorf("no server metrics in the output:\n%s", o.stdout)
			}
			f, err := result.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			m := f.Target.Monitor
			if m == nil || m.ServerPID == 0 || !slices.Contains(m.Sources, "process") || !slices.Contains(m.Sources, "host") {
				t.Fatalf("monitor = %+v", m)
			}
			if f.Target.Settings["os.vm.dirty_ratio"] == "" || f.Target.Settings["os.transparent_hugepage.enabled"] == "" {
				t.Errorf("the host's knobs are missing from the settings")
			}
			r := f.Runs[0]
			cores := float64(runtime.NumCPU())
			for i, iv := range r.Intervals {
				cpu, ok := iv.Server["server_cpu_pct"]
				if !ok || cpu < 0 || cpu > 100*cores {
					t.Errorf("interval %d: server_cpu_pct %v (present %v), want within [0, %v]", i, cpu, ok, 100*cores)
				}
				if h := iv.Server["host_cpu_pct"]; h < 0 || h > 100 {
					t.Errorf("interval %d: host_cpu_pct %v", i, h)
				}
			}
			if r.ServerCPUPerTxnUS <= 0 {
				t.Errorf("server CPU per transaction = %v", r.ServerCPUPerTxnUS)
			}
			switch name {
			case "postgres":
				if r.Server["pg_wal_mb_s"] <= 0 || r.Server["pg_commits_s"] <= 0 || r.Server["pg_tup_updated_s"] <= 0 {
					t.Errorf("after a write workload: %v", r.Server)
				}
			case "mysql":
				if r.Server["mysql_com_update_s"] <= 0 || r.Server["mysql_log_mb_s"] <= 0 {
					t.Errorf("after a write workload: %v", r.Server)
				}
			}
		})
	}
}

// The isolation level and the retry policy are run options of every
// workload: `dbarena run airline --isolation serializable` sets them, and
// the result file keeps them with the workload's options.
func TestRunIsolationAndRetries(t *testing.T) {
	ctx := context.Background()
	u := sqliteURL(t)
	out := filepath.Join(t.TempDir(), "air.json")
	if o := dbarena(t, ctx, nil, "prepare", "airline", "--schedules", "5", "--aircraft", "2", "--target", u); o.code != 0 {
		t.Fatalf("prepare: exit %d: %s", o.code, o.stderr)
	}
	o := dbarena(t, ctx, nil, "run", "airline", "--schedules", "5", "--aircraft", "2", "--target", u, "--threads", "2", "--time", "1s",
		"--isolation", "serializable", "--max-retries", "3", "--retry-backoff", "1ms", "--out", out)
	if o.code != 0 {
		t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	f, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	opts := f.Workload.Options
	if opts["isolation"] != "serializable" || opts["max-retries"] != "3" || opts["retry-backoff"] != "1ms" || opts["retry-backoff-max"] != "500ms" || opts["schedules"] != "5" {
		t.Errorf("options in the result: %v", opts)
	}
	if f.Status != result.StatusComplete || f.Runs[0].Transactions == 0 {
		t.Errorf("status %s, %d transactions", f.Status, f.Runs[0].Transactions)
	}
}

// The last line of an error hides the value of every engine's password
// variable, wherever the message shows it.
func TestErrorLineScrubsPasswordVariables(t *testing.T) {
	env := map[string]string{"PGPASSWORD": "pg-hunter2", "MYSQL_PWD": "my-hunter2"}
	o := dbarena(t, context.Background(), env, "run", "oltp_read_write", "--target", "oracle://u@h/pg-hunter2/my-hunter2")
	if o.code != cli.ExitUsage || !strings.Contains(o.stderr, `oracle://u@h/xxxxx/xxxxx: scheme: unknown target scheme "oracle"`) {
		t.Errorf("exit %d, stderr %q", o.code, o.stderr)
	}
	if strings.Contains(o.stderr+o.stdout, "hunter2") {
		t.Errorf("password printed: %q", o.stderr)
	}
}

// A MariaDB server reached through a mysql:// (or mariadb://) URL without
// a label is named mariadb where the command names its target: the run's
// header and the result file's label; its engine stays mysql. A label
// given is kept.
func TestMariaDBNamedInRun(t *testing.T) {
	ctx := context.Background()
	tg := testdb.Isolated(t, testdb.MySQL(t))
	url := withPassword(tg)
	opts := []string{"oltp_point_select", "--tables", "1", "--table-size", "100"}
	if o := dbarena(t, ctx, nil, append([]string{"prepare", "--target", url}, opts...)...); o.code != cli.ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	for _, tc := range []struct{ target, label string }{
		{url, "mariadb"},
		{"mariadb" + strings.TrimPrefix(url, "mysql"), "mariadb"},
		{"mysql=" + url, "mysql"},
	} {
		out := filepath.Join(t.TempDir(), "r.json")
		o := dbarena(t, ctx, nil, append([]string{"run", "--target", tc.target, "--time", "1s", "--out", out}, opts...)...)
		if o.code != cli.ExitOK {
			t.Fatalf("run: exit %d\n%s%s", o.code, o.stdout, o.stderr)
		}
		f, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(f.Target.ServerVersion, "MariaDB") {
			t.Fatalf("the test server is %q, not MariaDB", f.Target.ServerVersion)
		}
		if want := "running oltp_point_select on " + tc.label + "=mysql://"; !strings.Contains(o.stdout, want) {
			t.Errorf("--target %s: the header is not %q:\n%s", tg.Redacted(), want, o.stdout)
		}
		if f.Target.Label != tc.label || f.Target.Engine != "mysql" {
			t.Errorf("--target %s: label %q, engine %q; want %q, mysql", tg.Redacted(), f.Target.Label, f.Target.Engine, tc.label)
		}
	}
}
