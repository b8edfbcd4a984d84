package script_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/all"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/script"
)

// pgbenchTables creates pgbench's four tables at scale 1 as pgbench -i
// does (1 branch, 10 tellers, 100,000 accounts, no history).
func pgbenchTables(t *testing.T, c engine.SQLConn) {
	t.Helper()
	for _, s := range []string{
		"CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88))",
		"CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84))",
		"CREATE TABLE pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84))",
		"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))",
		"INSERT INTO pgbench_branches (bid, bbalance) VALUES (1, 0)",
		"INSERT INTO pgbench_tellers (tid, bid, tbalance) SELECT t, 1, 0 FROM generate_series(1, 10) t",
		"INSERT INTO pgbench_accounts (aid, bid, abalance, filler) SELECT a, 1, 0, '' FROM generate_series(1, 100000) a",
	} {
		if err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// tpcbSums returns Σ abalance, Σ bbalance, Σ tbalance, Σ history delta
// and the number of history rows.
func tpcbSums(t *testing.T, c engine.SQLConn) [5]int64 {
	t.Helper()
	var s [5]int64
	err := c.QueryRow(context.Background(), `SELECT
		(SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts),
		(SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches),
		(SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers),
		(SELECT COALESCE(SUM(delta), 0) FROM pgbench_history),
		(SELECT COUNT(*) FROM pgbench_history)`, nil, &s[0], &s[1], &s[2], &s[3], &s[4])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func parse(t *testing.T, args ...string) *script.Script { return newScript(t, args...) }

// newScript returns the workload with args parsed and validated.
func newScript(t testing.TB, args ...string) *script.Script {
	t.Helper()
	w := script.New()
	if err := w.Define().Options.Parse(args); err != nil {
		t.Fatal(err)
	}
	if errs := w.Define().Validate(); len(errs) > 0 {
		t.Fatalf("%v", errs)
	}
	return w
}

// startWorker opens a run of w on c's engine, as the runner does, and
// returns its client on c.
func startWorker(ctx context.Context, w workload.Workload, c engine.SQLConn, env workload.WorkerEnv) (workload.Worker, error) {
	d := c.Dialect()
	run, err := w.Open(ctx, workload.RunEnv{Engine: d.Capabilities(), Dialect: d, Seed: env.Seed,
		Shard: workload.Shard{Index: 0, Count: 1}, Now: time.Now})
	if err != nil {
		return nil, err
	}
	return run.NewWorker(ctx, c, env)
}

// TestTPCBLikeOnPostgres runs the built-in tpcb-like, and pgbench's own
// text of it saved as a file, with 8 clients under each protocol; afterwards
// the balances of accounts, tellers and branches and the history's deltas
// add up to the same sum.
func TestTPCBLikeOnPostgres(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	c := enginetest.Connect(t, e)
	pgbenchTables(t, c)
	// pgbench's own text of its built-in script, saved as a file.
	text, err := exec.Command(pgbenchPath(t), "--show-script=tpcb-like").CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench --show-script=tpcb-like: %v\n%s", err, text)
	}
	if builtin, _ := script.Builtin("tpcb-like"); !strings.HasSuffix(string(text), builtin+"\n") {
		t.Errorf("the built-in tpcb-like is not pgbench's:\n%s\npgbench's:\n%s", builtin, text)
	}
	file := filepath.Join(t.TempDir(), "tpcb.sql")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, args := range [][]string{
		{"--builtin", "tpcb-like"},
		{"--file", file, "--protocol", "extended"},
		{"--file", file + "@3", "--builtin", "select-only@1", "--protocol", "prepared"},
	} {
		w := parse(t, args...)
		res, err := runner.Run(ctx, e, w, runner.Config{Threads: 8, Duration: 2 * time.Second, Seed: 5}, nil)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var n int64
		for _, op := range res.Ops {
			n += op.Count
		}
		t.Logf("%v: %d transactions, %d errors, %d retries", args, n, res.Errors, res.Retries)
		if n == 0 || res.Errors != 0 {
			t.Errorf("%v: %d transactions, %d errors", args, n, res.Errors)
		}
		if len(args) > 4 && (res.Ops[0].Count == 0 || res.Ops[1].Count == 0) {
			t.Errorf("%v: the weighted scripts ran %d and %d times", args, res.Ops[0].Count, res.Ops[1].Count)
		}
		total += res.Ops[0].Count
	}
	s := tpcbSums(t, c)
	if s[0] != s[1] || s[1] != s[2] || s[2] != s[3] {
		t.Errorf("Σ abalance %d, Σ bbalance %d, Σ tbalance %d, Σ delta %d: not equal", s[0], s[1], s[2], s[3])
	}
	if s[4] < total {
		t.Errorf("%d history rows after at least %d measured tpcb-like transactions", s[4], total)
	}
}

// TestScriptCommandsOnPostgres runs a script of every supported command
// on one client under each protocol and checks what it wrote.
func TestScriptCommandsOnPostgres(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "CREATE TABLE out (client int, step int, v bigint, d double precision, s text)"); err != nil {
		t.Fatal(err)
	}
	src := `\set n :start + 1
\if :n > 100
INSERT INTO out VALUES (:client_id, 0, 0, 0, 'wrong branch');
\elif :n = 11
\set v hash_fnv1a(10, 5432)
\sleep 0 ms
INSERT INTO out (client, step, v, d, s)
  VALUES (:client_id, 1, :v, 1.0 / 4, ':word');
\else
INSERT INTO out VALUES (:client_id, 0, 0, 0, 'wrong branch');
\endif
INSERT INTO out (client, step, v, d) VALUES (:client_id, 2, :scale * 1000 + :n, :half)
`
	file := filepath.Join(t.TempDir(), "steps.sql")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c2 := range []struct{ protocol, word string }{
		// The simple protocol writes variables into quoted strings too, as
		// pgbench's; parameters cannot be there.
		{"simple", "abc"}, {"extended", ":word"}, {"prepared", ":word"},
	} {
		t.Run(c2.protocol, func(t *testing.T) {
			if err := c.Exec(ctx, "DELETE FROM out"); err != nil {
				t.Fatal(err)
			}
			w := parse(t, "--file", file, "-D", "start=10", "-D", "word=abc", "-D", "half=0.5", "--scale", "3", "--protocol", c2.protocol)
			q := &workload.Queries{}
			k, err := startWorker(ctx, w, enginetest.Connect(t, e), workload.WorkerEnv{ID: 4, Seed: 1, Queries: q})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ {
				if op, err := k.Next(ctx); op != 0 || err != nil {
					t.Fatalf("Next = %d, %v", op, err)
				}
			}
			var rows []string
			err = c.QueryRows(ctx, "SELECT client || ' ' || step || ' ' || v || ' ' || COALESCE(d::text, '-') || ' ' || COALESCE(s, '-') FROM out ORDER BY step", nil, func(r []any) error {
				rows = append(rows, r[0].(string))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			row1 := "4 1 -7793829335365542153 0.25 " + c2.word
			want := []string{row1, row1, "4 2 3011 0.5 -", "4 2 3011 0.5 -"}
			if strings.Join(rows, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
			}
			if *q != (workload.Queries{Writes: 4}) {
				t.Errorf("queries counted %+v, want 4 writes", *q)
			}
		})
	}
}

// TestRuntimeErrorsNameTheCommand: a division by zero, an undefined
// variable and a failed query each fail their transaction with an error
// naming the script, command and position; the SQL error stays
// classifiable.
func TestRuntimeErrorsNameTheCommand(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	dir := t.TempDir()
	for _, c := range []struct {
		src, protocol, want string
	}{
		{"SELECT 1;\n\\set x 1 / 0\n", "simple", "script div.sql, command 1 (set at " + dir + "/div.sql:2:1): division by zero"},
		{"SELECT :nope;\n", "extended", "script div.sql, command 0 (sql at " + dir + "/div.sql:1:1): undefined variable \"nope\""},
		{"BEGIN;\nSELECT * FROM no_such_table;\nEND;\n", "prepared", "command 1 (sql at " + dir + "/div.sql:2:1)"},
	} {
		file := filepath.Join(dir, "div.sql")
		if err := os.WriteFile(file, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		w := parse(t, "--file", file, "--protocol", c.protocol)
		conn := enginetest.Connect(t, e)
		k, err := startWorker(ctx, w, conn, workload.WorkerEnv{Queries: &workload.Queries{}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = k.Next(ctx)
		var ce *script.CommandError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want a CommandError containing %q", c.src, err, c.want)
		}
		if strings.Contains(c.src, "no_such_table") {
			// The failed transaction was rolled back: the connection works.
			if err := conn.Exec(ctx, "SELECT 1"); err != nil {
				t.Errorf("after the failed script: %v", err)
			}
		}
	}
}

// TestReplayDrawsTheSameValues: a replayed transaction draws what its
// first attempt drew; the next transaction draws anew. debug() prints
// pgbench's line.
func TestReplayDrawsTheSameValues(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.SQLite(t))
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "CREATE TABLE drawn (a bigint, g bigint)"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "draw.sql")
	src := "\\set a random(1, 1000000000)\n\\set g debug(random_gaussian(1, 1000000000, 2.5))\nINSERT INTO drawn VALUES (:a, :g);\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w := parse(t, "--file", file+"@2", "--builtin", "select-only@0", "--protocol", "prepared")
	var debug strings.Builder
	script.SetDebugOutput(w, &debug)
	k, err := startWorker(ctx, w, c, workload.WorkerEnv{Seed: 9, Queries: &workload.Queries{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if op, err := k.(workload.Replayer).Replay(ctx); op != 0 || err != nil {
		t.Fatalf("Replay = %d, %v", op, err)
	}
	if _, err := k.Next(ctx); err != nil {
		t.Fatal(err)
	}
	var rows [][2]int64
	err = c.QueryRows(ctx, "SELECT a, g FROM drawn ORDER BY rowid", nil, func(r []any) error {
		rows = append(rows, [2]int64{r[0].(int64), r[1].(int64)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0] != rows[1] || rows[2] == rows[0] {
		t.Errorf("rows %v: want the first two equal, the third different", rows)
	}
	lines := strings.Split(strings.TrimSpace(debug.String()), "\n")
	if len(lines) != 3 || lines[0] != fmt.Sprintf("debug(script=0,command=1): int %d", rows[0][1]) || lines[0] != lines[1] {
		t.Errorf("debug output %q", lines)
	}
}

// TestShellCommands: with --allow-shell, \setshell stores a command's
// integer output and \shell runs a command, failing its transaction when
// the command fails.
func TestShellCommands(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.SQLite(t))
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "CREATE TABLE sh (m bigint)"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, s := range []struct {
		src, want string
	}{
		{"\\setshell n expr 41 + :x\n\\set m :n * 100 + 12\n\\shell test ::x = :colon\nINSERT INTO sh VALUES (:m);\n", ""},
		{"\\setshell n echo forty-one\n", `shell command "echo forty-one" must return an integer (not "forty-one")`},
		{"\\shell exit 3\n", `shell command "exit 3" failed: exit status 3`},
		{"\\shell echo :nope\n", `undefined variable "nope"`},
	} {
		file := filepath.Join(dir, "sh.sql")
		if err := os.WriteFile(file, []byte(s.src), 0o644); err != nil {
			t.Fatal(err)
		}
		w := script.New()
		if err := w.Define().Options.Parse([]string{"--file", file}); err != nil {
			t.Fatal(err)
		}
		if errs := w.Define().Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "\\setshell runs a command") && !strings.Contains(errs[0].Error(), "\\shell runs a command") {
			t.Errorf("without --allow-shell: %v", errs)
		}
		w = parse(t, "--file", file, "--allow-shell", "-D", "x=1", "-D", "colon=:x")
		k, err := startWorker(ctx, w, c, workload.WorkerEnv{Queries: &workload.Queries{}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = k.Next(ctx)
		if s.want == "" {
			if err != nil {
				t.Fatalf("%q: %v", s.src, err)
			}
			var m int64
			if err := c.QueryRow(ctx, "SELECT m FROM sh", nil, &m); err != nil || m != 4212 {
				t.Errorf("inserted %d, %v; want 4212", m, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), s.want) {
			t.Errorf("%q: error %v, want %q", s.src, err, s.want)
		}
	}
}

// pgbenchPath finds pgbench, which some tests compare with; they fail
// without it.
// pgbenchPath finds pgbench: on the PATH, else among the programs of
// a /usr/lib/postgresql/<version>/bin, where scripts/testservers
// installs PostgreSQL (Debian's postgresql-15, which ships pgbench) for
// the test servers. The test fails without it.
func pgbenchPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	for i := len(dirs) - 1; i >= 0; i-- {
		if st, err := os.Stat(dirs[i]); err == nil && st.Mode()&0o111 != 0 {
			return dirs[i]
		}
	}
	t.Fatal("this test compares with pgbench, which is neither on the PATH nor in /usr/lib/postgresql/*/bin: install PostgreSQL's programs (scripts/testservers start postgres does, apt-get install postgresql-15)")
	return ""
}

// TestInitPgbench prepares pgbench's tables with --init pgbench on every
// SQL engine, runs pgbench's tpcb-like on them (its END is the engine's
// COMMIT, which MariaDB needs; its BEGIN SQLite's BEGIN IMMEDIATE, which
// lets clients write concurrently), and checks the tpcb invariant; a broken balance
// is found. On PostgreSQL the tables have the rows and columns pgbench -i
// makes.
func TestInitPgbench(t *testing.T) {
	for _, db := range []struct {
		name    string
		target  func(t *testing.T) engine.Target
		threads int
	}{
		{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }, 8},
		{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }, 8},
		{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }, 4},
	} {
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			target := db.target(t)
			e := enginetest.Open(t, target)
			w := parse(t, "--init", "pgbench", "--scale", "2")
			if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			c := enginetest.Connect(t, e)
			if probs, err := w.Define().Check(ctx, c); err != nil || len(probs) > 0 {
				t.Fatalf("check after prepare: %v %v", probs, err)
			}
			text, _ := script.Builtin("tpcb-like")
			file := filepath.Join(t.TempDir(), "tpcb.sql")
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			run := parse(t, "--init", "pgbench", "--scale", "2", "--file", file, "--protocol", "prepared")
			if err := load.VerifyPrepared(ctx, c, e.Dialect(), run); err != nil {
				t.Fatalf("verify: %v", err)
			}
			res, err := runner.Run(ctx, e, run, runner.Config{Threads: db.threads, Duration: 2 * time.Second, Seed: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d transactions, %d errors, %d retries", res.Ops[0].Count, res.Errors, res.Retries)
			if res.Ops[0].Count == 0 || res.Errors != 0 {
				t.Errorf("%d transactions, %d errors", res.Ops[0].Count, res.Errors)
			}
			if probs, err := run.Define().Check(ctx, c); err != nil || len(probs) > 0 {
				t.Errorf("check after the run: %v %v", probs, err)
			}
			if err := c.Exec(ctx, "UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = 3"); err != nil {
				t.Fatal(err)
			}
			probs, err := run.Define().Check(ctx, c)
			if err != nil || len(probs) != 1 || probs[0].Check != "tpcb balances" {
				t.Errorf("check after breaking a balance: %v %v", probs, err)
			}
			if db.name == "postgres" {
				comparePgbenchInit(t, ctx, target, c)
			}
		})
	}
}

// comparePgbenchInit runs pgbench -i at the same scale in a schema of its
// own and compares its tables with the prepared ones: columns and types,
// row counts, and the rows but for the balances the run changed.
func comparePgbenchInit(t *testing.T, ctx context.Context, target engine.Target, c engine.SQLConn) {
	t.Helper()
	mine := target.URL.Query().Get("search_path")
	theirs := mine + "_pgbench"
	if err := c.Exec(ctx, "CREATE SCHEMA "+theirs); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Exec(ctx, "DROP SCHEMA "+theirs+" CASCADE"); err != nil {
			t.Error(err)
		}
	}()
	u := target.URL
	cmd := exec.CommandContext(ctx, pgbenchPath(t), "-i", "-q", "-s", "2", "-h", u.Hostname(), "-p", u.Port(),
		"-U", target.Username(), strings.TrimPrefix(u.Path, "/"))
	cmd.Env = append(os.Environ(), "PGPASSWORD="+target.Password.Reveal(), "PGOPTIONS=-c search_path="+theirs)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	columns := func(schema string) string {
		var cols []string
		err := c.QueryRows(ctx, "SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || COALESCE(character_maximum_length, 0) || ' ' || is_nullable FROM information_schema.columns WHERE table_schema = ? AND table_name LIKE 'pgbench%' ORDER BY table_name, ordinal_position", []any{schema}, func(r []any) error {
			cols = append(cols, r[0].(string))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(cols, "\n")
	}
	if a, b := columns(mine), columns(theirs); a != b {
		t.Errorf("columns:\n%s\npgbench -i:\n%s", a, b)
	}
	for _, q := range []string{
		"SELECT COUNT(*) FROM (SELECT aid, bid, filler FROM %[1]s.pgbench_accounts EXCEPT SELECT aid, bid, filler FROM %[2]s.pgbench_accounts) d",
		"SELECT COUNT(*) FROM (SELECT tid, bid, filler FROM %[1]s.pgbench_tellers EXCEPT SELECT tid, bid, filler FROM %[2]s.pgbench_tellers) d",
		"SELECT COUNT(*) FROM (SELECT bid, filler FROM %[1]s.pgbench_branches EXCEPT SELECT bid, filler FROM %[2]s.pgbench_branches) d",
		"SELECT (SELECT COUNT(*) FROM %[1]s.pgbench_accounts) - (SELECT COUNT(*) FROM %[2]s.pgbench_accounts)",
		"SELECT (SELECT COUNT(*) FROM %[1]s.pgbench_tellers) - (SELECT COUNT(*) FROM %[2]s.pgbench_tellers)",
	} {
		var n int64
		if err := c.QueryRow(ctx, fmt.Sprintf(q, mine, theirs), nil, &n); err != nil || n != 0 {
			t.Errorf("%s = %d, %v; want 0", fmt.Sprintf(q, mine, theirs), n, err)
		}
	}
}

// TestSerializationFailuresAreReplayed runs tpcb-like under SERIALIZABLE
// on PostgreSQL, where concurrent transactions on one branch fail to
// serialize: the failures are replayed (counted as retries, not errors)
// and the tpcb invariant holds afterwards.
func TestSerializationFailuresAreReplayed(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	w := parse(t, "--init", "pgbench", "--protocol", "prepared")
	if _, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	// Eight clients on one branch row: a transaction may fail many times
	// before it commits.
	maxRetries := 1000
	res, err := runner.Run(ctx, e, w, runner.Config{Threads: 8, Duration: 2 * time.Second, Seed: 4,
		Isolation: engine.Serializable, Retry: runner.RetryOverride{MaxRetries: &maxRetries}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d transactions, %d retries, %d errors", res.Ops[0].Count, res.Retries, res.Errors)
	if res.Ops[0].Count == 0 || res.Retries == 0 || res.Errors != 0 {
		t.Errorf("%d transactions, %d retries, %d errors: want transactions and retries, no error", res.Ops[0].Count, res.Retries, res.Errors)
	}
	// Every retried attempt failed at one command, counted among the
	// retries of that command.
	var retries int64
	for _, st := range res.Ops[0].Steps {
		retries += st.Retries
		if st.Count < res.Ops[0].Count || st.Failures != 0 {
			t.Errorf("%s: %d executions, %d failures; want at least %d executions and no failure", st.Name, st.Count, st.Failures, res.Ops[0].Count)
		}
	}
	if retries != res.Retries {
		t.Errorf("the commands' retries add up to %d, the run's are %d", retries, res.Retries)
	}
	if probs, err := w.Define().Check(ctx, enginetest.Connect(t, e)); err != nil || len(probs) > 0 {
		t.Errorf("check: %v %v", probs, err)
	}
}
