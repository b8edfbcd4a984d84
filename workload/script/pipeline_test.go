package script_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/script"
)

// TestPipelinesOnPostgres: a pipeline's commands are sent together, as
// pgbench's: without BEGIN its statements up to a sync are one implicit
// transaction, so a failing statement takes back the ones before it,
// but not those before a \syncpipeline, and the statements after the
// next \syncpipeline still run; the failure names the queued command. With BEGIN … END and \set inside, the script runs as it
// would without the pipeline.
func TestPipelinesOnPostgres(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	c := enginetest.Connect(t, e)
	for _, s := range []string{"CREATE TABLE acc (id int PRIMARY KEY, v int)", "INSERT INTO acc VALUES (1, 0), (2, 0)", "CREATE TABLE log (id int, x int)"} {
		if err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	for _, protocol := range []string{"extended", "prepared"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			if err := c.Exec(ctx, "DELETE FROM log; UPDATE acc SET v = 0"); err != nil {
				t.Fatal(err)
			}
			write := func(name, src string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			ok := write("ok.sql", `\set id 2
\startpipeline
BEGIN;
UPDATE acc SET v = v + 1 WHERE id = :id;
\set x :id * 10
INSERT INTO log VALUES (:id, :x);
\syncpipeline
SELECT v FROM acc WHERE id = :id;
END;
\endpipeline
`)
			fails := write("fails.sql", `\startpipeline
INSERT INTO log VALUES (1, 1);
\syncpipeline
INSERT INTO log VALUES (2, 2);
SELECT 1 / (:zero + 0);
INSERT INTO log VALUES (3, 3);
\endpipeline
`)
			w := parse(t, "--file", ok, "--file", fails+"@0", "-D", "zero=0", "--protocol", protocol)
			q := &workload.Queries{}
			k, err := startWorker(ctx, w, enginetest.Connect(t, e), workload.WorkerEnv{Seed: 1, Queries: q})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				if _, err := k.Next(ctx); err != nil {
					t.Fatal(err)
				}
			}
			var v, n, sum int64
			if err := c.QueryRow(ctx, "SELECT (SELECT v FROM acc WHERE id = 2), COUNT(*), SUM(x) FROM log", nil, &v, &n, &sum); err != nil || v != 3 || n != 3 || sum != 60 {
				t.Errorf("after three transactions: v %d, %d log rows, Σ x %d (%v); want 3, 3, 60", v, n, sum, err)
			}
			if *q != (workload.Queries{Reads: 3, Writes: 6, Other: 6}) {
				t.Errorf("queries counted %+v, want 3 reads, 6 writes, 6 other", *q)
			}

			if err := c.Exec(ctx, "DELETE FROM log"); err != nil {
				t.Fatal(err)
			}
			w = parse(t, "--file", fails, "-D", "zero=0", "--protocol", protocol)
			rec := histogram.NewRecorder(1)
			env := workload.WorkerEnv{Seed: 1, Queries: &workload.Queries{}, Steps: rec.EnableSteps([]int{len(w.Define().Ops[0].Steps)})}
			k, err = startWorker(ctx, w, enginetest.Connect(t, e), env)
			if err != nil {
				t.Fatal(err)
			}
			_, err = k.Next(ctx)
			rec.Failure(0, false, *env.Queries)
			iv := histogram.NewInterval(1)
			rec.Collect(iv)
			// The queued commands ran (were queued); the failure is
			// \endpipeline's, as pgbench -r counts it.
			for i, want := range []struct{ count, failures int64 }{{1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {0, 1}} {
				if got := iv.Steps[i]; got.Hist.TotalCount() != want.count || got.Failures != want.failures {
					t.Errorf("command %d: %d executions, %d failures; want %d, %d", i, got.Hist.TotalCount(), got.Failures, want.count, want.failures)
				}
			}
			var ce *script.CommandError
			if !errors.As(err, &ce) || ce.Command != 4 || ce.Pos.Line != 5 || !strings.Contains(err.Error(), "division by zero") {
				t.Errorf("failed pipeline: %v; want the division by zero of command 4 at line 5", err)
			}
			logged := func() string {
				t.Helper()
				var ids []string
				if err := c.QueryRows(ctx, "SELECT id::text FROM log ORDER BY id", nil, func(r []any) error {
					ids = append(ids, r[0].(string))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				return strings.Join(ids, ",")
			}
			if got := logged(); got != "1" {
				t.Errorf("rows left %q; want the one before the sync", got)
			}

			// A failure before a \syncpipeline: that segment is taken back,
			// and the segment after the sync point, sent in the same round
			// trip, still runs, as under pgbench.
			if err := c.Exec(ctx, "DELETE FROM log"); err != nil {
				t.Fatal(err)
			}
			early := write("early.sql", `\startpipeline
INSERT INTO log VALUES (1, 1);
SELECT 1 / (:zero + 0);
\syncpipeline
INSERT INTO log VALUES (2, 2);
\endpipeline
`)
			w = parse(t, "--file", early, "-D", "zero=0", "--protocol", protocol)
			k, err = startWorker(ctx, w, enginetest.Connect(t, e), workload.WorkerEnv{Seed: 1, Queries: &workload.Queries{}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = k.Next(ctx)
			if !errors.As(err, &ce) || ce.Command != 2 || !strings.Contains(err.Error(), "division by zero") {
				t.Errorf("failed pipeline: %v; want the division by zero of command 2", err)
			}
			if got := logged(); got != "2" {
				t.Errorf("rows left %q; want the one after the sync point", got)
			}
		})
	}
}

// TestPipelinesRefusedWithoutThem: on engines without pipelines a
// script with one is refused before the run starts, by Spec.Supports
// (which ForFamily applies), naming the option that gave the script and
// where the pipeline starts; opening a run there is refused too.
func TestPipelinesRefusedWithoutThem(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "pipe.sql")
	if err := os.WriteFile(file, []byte("SELECT 1;\n  \\startpipeline\nSELECT 1;\n\\endpipeline\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, db := range sqlEngines[1:] {
		t.Run("engine="+db.name, func(t *testing.T) {
			e := enginetest.Open(t, testdb.Isolated(t, db.target(t)))
			w := parse(t, "--file", file, "--protocol", "prepared")
			want := "--file " + file + ": " + file + ":2:3: \\startpipeline: this engine has no pipelines"
			_, err := runner.Run(ctx, e, w, runner.Config{Threads: 1, Duration: time.Second, Seed: 1}, nil)
			var oe *workload.OptionError
			if !errors.As(err, &oe) || oe.Flag != "file" || oe.Value != file || !strings.Contains(err.Error(), want) {
				t.Errorf("runner.Run: %v, want an option error containing %q", err, want)
			}
			if _, err := startWorker(ctx, w, enginetest.Connect(t, e), workload.WorkerEnv{Queries: &workload.Queries{}}); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Open: %v, want an error containing %q", err, want)
			}
		})
	}
}

// TestPipelineStateErrors: branches of \if that open a pipeline twice,
// end one that is not open, or leave one open fail the transaction
// with pgbench's words, naming the command.
func TestPipelineStateErrors(t *testing.T) {
	e := enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t)))
	for _, c := range []struct{ src, want string }{
		{"\\startpipeline\n\\if 1\n\\endpipeline\n\\endif\n\\if 0\n\\startpipeline\n\\endif\n\\endpipeline\n", "command 7 (endpipeline at "},
		{"\\startpipeline\n\\if 1\n\\endpipeline\n\\endif\n\\if 0\n\\startpipeline\n\\endif\n\\endpipeline\n", "not in pipeline mode"},
		{"\\if 1\n\\startpipeline\n\\endif\nSELECT 1;\n\\if 0\n\\endpipeline\n\\endif\n", "end of script reached with the pipeline open"},
	} {
		err := runOnce(t, e, c.src, "--protocol", "prepared")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.src, err, c.want)
		}
	}
}
