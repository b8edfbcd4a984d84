package script_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/script"
)

// sqlEngines are the test servers of every SQL engine.
var sqlEngines = []struct {
	name   string
	target func(testing.TB) engine.Target
}{
	{"postgres", testdb.Postgres}, {"mysql", testdb.MySQL}, {"sqlite", testdb.SQLite},
}

// runOnce writes src to a file, makes a client of it with args and runs
// one transaction.
func runOnce(t *testing.T, e engine.Engine, src string, args ...string) error {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w := parse(t, append([]string{"--file", file}, args...)...)
	k, err := startWorker(context.Background(), w, enginetest.Connect(t, e), workload.WorkerEnv{ID: 1, Seed: 1, Queries: &workload.Queries{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Next(context.Background())
	return err
}

// TestGsetAsetOnEveryEngine: \gset stores the one row of its query,
// \aset the last row of each query, with their prefixes, on every SQL
// engine under every protocol; a \gset without exactly one row, a column
// that is no variable name and an \aset without rows (which sets
// nothing) fail as pgbench's.
func TestGsetAsetOnEveryEngine(t *testing.T) {
	ctx := context.Background()
	for _, db := range sqlEngines {
		t.Run("engine="+db.name, func(t *testing.T) {
			e := enginetest.Open(t, testdb.Isolated(t, db.target(t)))
			c := enginetest.Connect(t, e)
			for _, s := range []string{
				"CREATE TABLE t (id int, v int)",
				"INSERT INTO t VALUES (1, 10), (2, 20)",
				"CREATE TABLE res (a bigint, b bigint, c bigint)",
			} {
				if err := c.Exec(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			for _, protocol := range []string{"simple", "extended", "prepared"} {
				t.Run("protocol="+protocol, func(t *testing.T) {
					if err := c.Exec(ctx, "DELETE FROM res"); err != nil {
						t.Fatal(err)
					}
					src := `SELECT v AS first_v FROM t WHERE id = :one \gset
\set x :first_v + 1
SELECT v, id
  FROM t ORDER BY id \aset p_
SELECT v AS none_v FROM t WHERE id > 100 \aset
INSERT INTO res VALUES (:x, :p_v, :p_id);
`
					if err := runOnce(t, e, src, "-D", "one=1", "--protocol", protocol); err != nil {
						t.Fatal(err)
					}
					var a, b, cc int64
					if err := c.QueryRow(ctx, "SELECT a, b, c FROM res", nil, &a, &b, &cc); err != nil || a != 11 || b != 20 || cc != 2 {
						t.Errorf("stored (%d, %d, %d), %v; want (11, 20, 2)", a, b, cc, err)
					}
					if protocol == "simple" {
						// A compound: \aset takes every query's rows,
						// \gset the last query's one row, on every engine.
						if err := c.Exec(ctx, "DELETE FROM res"); err != nil {
							t.Fatal(err)
						}
						src := `SELECT 1 AS a, 7 AS b \; SELECT 2 AS a FROM t WHERE id > 100 \; SELECT 3 AS a \aset
SELECT v AS g FROM t \; SELECT v AS g FROM t WHERE id = 2 \gset
INSERT INTO res VALUES (:a, :b, :g);
`
						if err := runOnce(t, e, src); err != nil {
							t.Fatal(err)
						}
						if err := c.QueryRow(ctx, "SELECT a, b, c FROM res", nil, &a, &b, &cc); err != nil || a != 3 || b != 7 || cc != 20 {
							t.Errorf("compound stored (%d, %d, %d), %v; want (3, 7, 20)", a, b, cc, err)
						}
					}
					for _, f := range []struct{ src, want string }{
						{"SELECT v FROM t \\gset\n", "command 0 (sql at "},
						{"SELECT v FROM t \\gset\n", `\gset: query 0: expected one row, got 2`},
						{"SELECT v FROM t WHERE id > 100 \\gset\n", `\gset: query 0: expected one row, got 0`},
						{"UPDATE t SET v = v WHERE id = 1 \\gset\n", `\gset: query 0: expected one row, got 0`},
						{"SELECT 1 + 1 \\gset\n", `\gset: invalid variable name: "`},
						{"SELECT v, id FROM t \\aset x-\n", `\aset: invalid variable name: "x-v"`},
						{"SELECT v AS none_v FROM t WHERE id > 100 \\aset\n\\set y :none_v\n", `command 1 (set at`},
					} {
						err := runOnce(t, e, f.src, "--protocol", protocol)
						var ce *script.CommandError
						if !errors.As(err, &ce) || !strings.Contains(err.Error(), f.want) {
							t.Errorf("%q: error %v, want a CommandError containing %q", f.src, err, f.want)
						}
					}
				})
			}
		})
	}
}

// TestGsetAsetCompoundOnPostgres: under the simple protocol a compound
// command's \gset takes the last query's one row (the others' rows are
// ignored) and its \aset every query's rows, the later winning; a NULL
// is stored as the empty text, as pgbench's.
func TestGsetAsetCompoundOnPostgres(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "CREATE TABLE out (a int, b int, g int, n text)"); err != nil {
		t.Fatal(err)
	}
	src := `SELECT 1 AS a \; SELECT 2 AS b, 3 AS a \; SELECT 4 AS a WHERE false \aset
SELECT 5 AS g, 1 AS a, 1 AS b FROM generate_series(1, 3) \; SELECT 6 AS g \gset
SELECT NULL AS n \gset
INSERT INTO out VALUES (:a, :b, :g, '<' || ':n' || '>');
`
	if err := runOnce(t, e, src); err != nil {
		t.Fatal(err)
	}
	var a, b, g int64
	var n string
	if err := c.QueryRow(ctx, "SELECT a, b, g, n FROM out", nil, &a, &b, &g, &n); err != nil || a != 3 || b != 2 || g != 6 || n != "<>" {
		t.Errorf("stored (%d, %d, %d, %q), %v; want (3, 2, 6, \"<>\")", a, b, g, n, err)
	}
	err := runOnce(t, e, "SELECT 5 AS g \\; SELECT 1 WHERE false \\gset\n")
	if want := `\gset: query 1: expected one row, got 0`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("compound \\gset whose last query has no row: %v, want %q", err, want)
	}
}

// An \aset whose compound fails at a later query keeps the values of the
// queries before it, as pgbench stores each result as it reads it: the
// worker's next transaction still has them.
func TestAsetKeepsValuesBeforeAFailure(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	c := enginetest.Connect(t, e)
	for _, s := range []string{"CREATE TABLE flag (x int)", "CREATE TABLE out (a int)"} {
		if err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	// While flag is empty the compound's first query sets a and its
	// second divides by zero; once flag has a row, the first sets
	// nothing and the second succeeds.
	src := `SELECT 5 AS a WHERE NOT EXISTS (SELECT FROM flag) \; SELECT 1 / (SELECT count(*) FROM flag) AS q \aset
INSERT INTO out VALUES (:a);
`
	file := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w := parse(t, "--file", file, "--protocol", "simple")
	k, err := startWorker(ctx, w, enginetest.Connect(t, e), workload.WorkerEnv{ID: 1, Seed: 1, Queries: &workload.Queries{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Next(ctx); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("first transaction: %v, want division by zero", err)
	}
	if err := c.Exec(ctx, "INSERT INTO flag VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Next(ctx); err != nil {
		t.Fatalf("second transaction: %v (a should be kept from the first)", err)
	}
	var a int64
	if err := c.QueryRow(ctx, "SELECT a FROM out", nil, &a); err != nil || a != 5 {
		t.Errorf("stored a = %d, %v; want 5", a, err)
	}
}
