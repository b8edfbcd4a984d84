package oltp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	_ "github.com/dbarena/dbarena/engine/mysql"
	_ "github.com/dbarena/dbarena/engine/postgres"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/oltp/internal/oltptest"
)

// The tests below run the workload against real databases from
// internal/testdb: a fresh SQLite file per test, a fresh schema on the
// PostgreSQL test server, a fresh database on the MariaDB test server.
// Statements are counted by a wrapper around the real engine.SQLConn.
// workload/oltp/mongo's tests run the same cases (oltptest.RunCases) on
// the MongoDB test server.

// testDB opens an empty database for one test.
type testDB struct {
	name string
	open func(t *testing.T) engine.Engine
}

var testDBs = []testDB{
	{"sqlite", func(t *testing.T) engine.Engine { return enginetest.Open(t, testdb.SQLite(t)) }},
	{"postgres", func(t *testing.T) engine.Engine { return enginetest.Open(t, testdb.Isolated(t, testdb.Postgres(t))) }},
	{"mysql", func(t *testing.T) engine.Engine { return enginetest.Open(t, testdb.Isolated(t, testdb.MySQL(t))) }},
}

// forEachDB runs f as one subtest per database, named engine=<name>.
func forEachDB(t *testing.T, f func(t *testing.T, open func(t *testing.T) engine.Engine)) {
	for _, db := range testDBs {
		t.Run("engine="+db.name, func(t *testing.T) { f(t, db.open) })
	}
}

func connect(t *testing.T, e engine.Engine) engine.SQLConn {
	t.Helper()
	c, err := engine.ConnectSQL(context.Background(), e)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// startWorker opens a run of w on e, as the runner does, and returns its
// worker on c.
func startWorker(ctx context.Context, e engine.Engine, w workload.Workload, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	run, err := w.Open(ctx, workload.RunEnv{Engine: e.Dialect().Capabilities(), Dialect: e.Dialect(), Seed: env.Seed,
		Shard: workload.Shard{Index: 0, Count: 1}, Now: time.Now})
	if err != nil {
		return nil, err
	}
	return run.NewWorker(ctx, c, env)
}

// load creates and fills w's tables the way a loader does: CREATE, every
// batch through BulkLoad, then the indexes.
func load(t *testing.T, e engine.Engine, w workload.Workload) {
	t.Helper()
	ctx := context.Background()
	c := connect(t, e)
	for _, tb := range w.Define().Tables(e.Dialect()) {
		tb = tb.Resolve()
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+tb.Name); err != nil {
			t.Fatal(err)
		}
		cat := c.Catalog()
		if err := cat.CreateTable(ctx, tb.Schema); err != nil {
			t.Fatalf("create %s: %v", tb.Name, err)
		}
		for b := 0; b < tb.Batches; b++ {
			if _, err := cat.BulkLoad(ctx, tb.Schema, tb.Rows(b)); err != nil {
				t.Fatalf("load %s batch %d: %v", tb.Name, b, err)
			}
		}
		if err := cat.FinishTable(ctx, tb.Schema); err != nil {
			t.Fatalf("finish %s: %v", tb.Name, err)
		}
	}
}

// stmtRecord is one statement sent by a worker.
type stmtRecord struct {
	kind  string // "BEGIN", "COMMIT", "ROLLBACK" or the SQL with its table number replaced by N
	table int
	args  []any
}

// countingConn wraps a real connection and records every statement sent
// through it. failOn, when set, makes the matching prepared statement fail
// instead of running (after the real database saw everything before it).
type countingConn struct {
	engine.SQLConn
	log    []stmtRecord
	failOn func(kind string) bool
}

var errInjected = errors.New("injected failure")

var tableNum = regexp.MustCompile(`sbtest(\d+)`)

func (c *countingConn) Prepare(ctx context.Context, sql string) (engine.Stmt, error) {
	s, err := c.SQLConn.Prepare(ctx, sql)
	if err != nil {
		return nil, err
	}
	m := tableNum.FindStringSubmatch(sql)
	n, _ := strconv.Atoi(m[1])
	return &countingStmt{Stmt: s, c: c, kind: tableNum.ReplaceAllString(sql, "sbtestN"), table: n}, nil
}

func (c *countingConn) Begin(ctx context.Context) error {
	c.log = append(c.log, stmtRecord{kind: "BEGIN"})
	return c.SQLConn.Begin(ctx)
}

func (c *countingConn) Commit(ctx context.Context) error {
	c.log = append(c.log, stmtRecord{kind: "COMMIT"})
	return c.SQLConn.Commit(ctx)
}

func (c *countingConn) Rollback(ctx context.Context) error {
	c.log = append(c.log, stmtRecord{kind: "ROLLBACK"})
	return c.SQLConn.Rollback(ctx)
}

type countingStmt struct {
	engine.Stmt
	c     *countingConn
	kind  string
	table int
}

func (s *countingStmt) record(args []any) error {
	s.c.log = append(s.c.log, stmtRecord{kind: s.kind, table: s.table, args: append([]any(nil), args...)})
	if s.c.failOn != nil && s.c.failOn(s.kind) {
		return errInjected
	}
	return nil
}

func (s *countingStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	if err := s.record(args); err != nil {
		return 0, err
	}
	return s.Stmt.Exec(ctx, args...)
}

func (s *countingStmt) Query(ctx context.Context, args ...any) (int64, error) {
	if err := s.record(args); err != nil {
		return 0, err
	}
	return s.Stmt.Query(ctx, args...)
}

// classify counts records the way sysbench does.
func classify(log []stmtRecord) (q workload.Queries) {
	for _, r := range log {
		switch {
		case strings.HasPrefix(r.kind, "SELECT"):
			q.Reads++
		case strings.HasPrefix(r.kind, "INSERT"), strings.HasPrefix(r.kind, "UPDATE"), strings.HasPrefix(r.kind, "DELETE"):
			q.Writes++
		default:
			q.Other++
		}
	}
	return q
}

// Statement kinds as the wrapper names them.
const (
	kPoint    = "SELECT c FROM sbtestN WHERE id=?"
	kSimple   = "SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?"
	kSum      = "SELECT SUM(k) FROM sbtestN WHERE id BETWEEN ? AND ?"
	kOrder    = "SELECT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c"
	kDistinct = "SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c"
	kIdxUpd   = "UPDATE sbtestN SET k=k+1 WHERE id=?"
	kNonIdx   = "UPDATE sbtestN SET c=? WHERE id=?"
	kDelete   = "DELETE FROM sbtestN WHERE id=?"
	kInsert   = "INSERT INTO sbtestN (id, k, c, pad) VALUES (?, ?, ?, ?)"
	kInsertAI = "INSERT INTO sbtestN (k, c, pad) VALUES (?, ?, ?)"
)

// expand builds an expected event from (kind, count) pairs.
func expand(parts ...any) []string {
	var out []string
	for i := 0; i < len(parts); i += 2 {
		for j := 0; j < parts[i+1].(int); j++ {
			out = append(out, parts[i].(string))
		}
	}
	return out
}

func TestEventStatements(t *testing.T) {
	forEachDB(t, func(t *testing.T, open func(*testing.T) engine.Engine) {
		rwDefault := expand("BEGIN", 1, kPoint, 10, kSimple, 1, kSum, 1, kOrder, 1, kDistinct, 1, kIdxUpd, 1, kNonIdx, 1, kDelete, 1, kInsert, 1, "COMMIT", 1)
		cases := []struct {
			test  string
			args  []string
			want  []string // statements of every event, in order
			reads int64
			write int64
			other int64
		}{
			{"oltp_point_select", nil, expand(kPoint, 1), 1, 0, 0},
			{"oltp_point_select", []string{"--point-selects=5", "--skip-trx"}, expand(kPoint, 1), 1, 0, 0},
			{"oltp_read_only", nil, expand("BEGIN", 1, kPoint, 10, kSimple, 1, kSum, 1, kOrder, 1, kDistinct, 1, "COMMIT", 1), 14, 0, 2},
			{"oltp_read_only", []string{"--point-selects=3", "--range-selects=false"}, expand("BEGIN", 1, kPoint, 3, "COMMIT", 1), 3, 0, 2},
			{"oltp_read_only", []string{"--skip-trx", "--simple-ranges=2", "--sum-ranges=0", "--order-ranges=3", "--distinct-ranges=0"},
				expand(kPoint, 10, kSimple, 2, kOrder, 3), 15, 0, 0},
			{"oltp_read_write", nil, rwDefault, 14, 4, 2},
			{"oltp_read_write", []string{"--point-selects=2", "--simple-ranges=2", "--sum-ranges=0", "--order-ranges=3", "--index-updates=2", "--non-index-updates=0", "--delete-inserts=3"},
				expand("BEGIN", 1, kPoint, 2, kSimple, 2, kOrder, 3, kDistinct, 1, kIdxUpd, 2, kDelete, 1, kInsert, 1, kDelete, 1, kInsert, 1, kDelete, 1, kInsert, 1, "COMMIT", 1), 8, 8, 2},
			{"oltp_read_write", []string{"--skip-trx", "--range-selects=false"},
				expand(kPoint, 10, kIdxUpd, 1, kNonIdx, 1, kDelete, 1, kInsert, 1), 10, 4, 0},
			{"oltp_read_write", []string{"--auto-inc=false", "--create-secondary=false"}, rwDefault, 14, 4, 2},
			{"oltp_write_only", nil, expand("BEGIN", 1, kIdxUpd, 1, kNonIdx, 1, kDelete, 1, kInsert, 1, "COMMIT", 1), 0, 4, 2},
			{"oltp_write_only", []string{"--skip-trx", "--index-updates=0", "--non-index-updates=2"}, expand(kNonIdx, 2, kDelete, 1, kInsert, 1), 0, 4, 0},
			{"oltp_update_index", nil, expand(kIdxUpd, 1), 0, 1, 0},
			{"oltp_update_index", []string{"--index-updates=3"}, expand(kIdxUpd, 3), 0, 3, 0},
			{"oltp_update_non_index", nil, expand(kNonIdx, 1), 0, 1, 0},
			{"oltp_update_non_index", []string{"--non-index-updates=2"}, expand(kNonIdx, 2), 0, 2, 0},
			{"oltp_insert", nil, expand(kInsertAI, 1), 0, 1, 0},
			{"oltp_insert", []string{"--auto-inc=false"}, expand(kInsert, 1), 0, 1, 0},
			{"oltp_delete", nil, expand(kDelete, 1), 0, 1, 0},
		}
		for _, c := range cases {
			args := append([]string{"--tables=3", "--table-size=500", "--range-size=20"}, c.args...)
			t.Run(c.test+"/"+strings.Join(c.args, ","), func(t *testing.T) {
				ctx := context.Background()
				e := open(t)
				w := newTest(t, c.test, args...)
				load(t, e, w)
				cc := &countingConn{SQLConn: connect(t, e)}
				var q workload.Queries
				wk, err := startWorker(ctx, e, w, cc, workload.WorkerEnv{ID: 0, Seed: 99, Queries: &q})
				if err != nil {
					t.Fatal(err)
				}
				const events = 60
				tablesSeen := map[int]bool{}
				for ev := 0; ev < events; ev++ {
					cc.log = cc.log[:0]
					before := q
					op, err := wk.Next(ctx)
					if err != nil {
						t.Fatalf("event %d: %v", ev, err)
					}
					if op != 0 {
						t.Fatalf("op = %d", op)
					}
					got := make([]string, len(cc.log))
					for i, r := range cc.log {
						got[i] = r.kind
					}
					if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
						t.Fatalf("event %d sent\n  %s\nwant\n  %s", ev, strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
					}
					// Counted like sysbench, both by the wrapper and by the worker.
					wq := classify(cc.log)
					if wq.Reads != c.reads || wq.Writes != c.write || wq.Other != c.other {
						t.Fatalf("event %d: wrapper counted %+v, want %d/%d/%d", ev, wq, c.reads, c.write, c.other)
					}
					d := workload.Queries{Reads: q.Reads - before.Reads, Writes: q.Writes - before.Writes, Other: q.Other - before.Other}
					if d != wq {
						t.Fatalf("event %d: worker counted %+v, wrapper %+v", ev, d, wq)
					}
					checkArgs(t, w, cc.log, tablesSeen)
				}
				if len(tablesSeen) != 3 {
					t.Errorf("events touched tables %v, want all of 1..3", tablesSeen)
				}
			})
		}
	})
}

// checkArgs checks one event's arguments: each statement group uses one
// table, ids are in [1, table-size] (or client-generated for inserts),
// ranges span range-size ids, delete+insert reuse the id.
func checkArgs(t *testing.T, w *Test, log []stmtRecord, tablesSeen map[int]bool) {
	t.Helper()
	size := int64(w.opts.tableSize)
	inRange := func(v any) bool { x := v.(int64); return x >= 1 && x <= size }
	groupTable := map[string]int{}
	for i, r := range log {
		if r.table == 0 {
			continue
		}
		tablesSeen[r.table] = true
		group := r.kind
		if r.kind == kInsert || r.kind == kDelete {
			group = "delete-insert"
		}
		if prev, ok := groupTable[group]; ok && prev != r.table {
			t.Fatalf("%s on tables %d and %d in one event", group, prev, r.table)
		}
		groupTable[group] = r.table
		switch r.kind {
		case kPoint, kIdxUpd, kDelete:
			if !inRange(r.args[0]) {
				t.Fatalf("%s id %v out of range", r.kind, r.args[0])
			}
		case kSimple, kSum, kOrder, kDistinct:
			lo, hi := r.args[0].(int64), r.args[1].(int64)
			if !inRange(lo) || hi-lo != int64(w.opts.rangeSize)-1 {
				t.Fatalf("%s range [%d, %d], want range-size %d", r.kind, lo, hi, w.opts.rangeSize)
			}
		case kNonIdx:
			if !MatchesTemplate(r.args[0].(string), CGroups) || !inRange(r.args[1]) {
				t.Fatalf("%s args %v", r.kind, r.args)
			}
		case kInsert, kInsertAI:
			a := r.args
			if r.kind == kInsert {
				if w.v.delIns && (i == 0 || log[i-1].kind != kDelete || log[i-1].args[0] != a[0]) {
					t.Fatalf("insert id %v does not follow a delete of that id", a[0])
				}
				if a[0].(int64) < 1 {
					t.Fatalf("insert id %v < 1", a[0])
				}
				a = a[1:]
			}
			if !inRange(a[0]) || !MatchesTemplate(a[1].(string), CGroups) || !MatchesTemplate(a[2].(string), PadGroups) {
				t.Fatalf("%s args %v", r.kind, r.args)
			}
		}
	}
}

func TestReadWritePctMix(t *testing.T) {
	forEachDB(t, func(t *testing.T, open func(*testing.T) engine.Engine) {
		for _, pct := range []int{80, 0, 100, 35} {
			t.Run(fmt.Sprintf("read-percent=%d", pct), func(t *testing.T) {
				ctx := context.Background()
				e := open(t)
				w := newTest(t, "oltp_read_write_pct", "--table-size=300", fmt.Sprintf("--read-percent=%d", pct), fmt.Sprintf("--write-percent=%d", 100-pct))
				load(t, e, w)
				cc := &countingConn{SQLConn: connect(t, e)}
				var q workload.Queries
				wk, err := startWorker(ctx, e, w, cc, workload.WorkerEnv{Seed: 5, Queries: &q})
				if err != nil {
					t.Fatal(err)
				}
				const events = 2000
				ops := [2]int{}
				for i := 0; i < events; i++ {
					cc.log = cc.log[:0]
					op, err := wk.Next(ctx)
					if err != nil {
						t.Fatal(err)
					}
					ops[op]++
					want := kPoint
					if op == 1 {
						want = kIdxUpd
					}
					if len(cc.log) != 3 || cc.log[0].kind != "BEGIN" || cc.log[1].kind != want || cc.log[2].kind != "COMMIT" {
						t.Fatalf("op %d sent %v", op, cc.log)
					}
				}
				if q.Reads != int64(ops[0]) || q.Writes != int64(ops[1]) || q.Other != 2*events {
					t.Errorf("queries %+v for ops %v", q, ops)
				}
				got := float64(ops[0]) / events
				if d := got - float64(pct)/100; d < -0.03 || d > 0.03 {
					t.Errorf("point selects %.3f of events, want %.2f", got, float64(pct)/100)
				}
			})
		}
		t.Run("skip-trx", func(t *testing.T) {
			ctx := context.Background()
			e := open(t)
			w := newTest(t, "oltp_read_write_pct", "--table-size=300", "--skip-trx")
			load(t, e, w)
			cc := &countingConn{SQLConn: connect(t, e)}
			wk, err := startWorker(ctx, e, w, cc, workload.WorkerEnv{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 50; i++ {
				cc.log = cc.log[:0]
				if _, err := wk.Next(ctx); err != nil {
					t.Fatal(err)
				}
				if len(cc.log) != 1 {
					t.Fatalf("sent %v", cc.log)
				}
			}
		})
	})
}

// TestRunThenCheck runs every test for a few hundred events, by two
// workers on their own connections, and then checks the data.
func TestRunThenCheck(t *testing.T) {
	forEachDB(t, func(t *testing.T, open func(*testing.T) engine.Engine) {
		for _, c := range oltptest.RunCases {
			t.Run(c.Test+"/"+strings.Join(c.Args, ","), func(t *testing.T) {
				ctx := context.Background()
				e := open(t)
				args := append([]string{"--tables=2", "--table-size=2000", "--seed-data=3"}, c.Args...)
				w := newTest(t, c.Test, args...)
				load(t, e, w)
				oltptest.RunEvents(t, e, w, 200, func() engine.Conn { return connect(t, e) })
				probs, err := w.Define().Check(ctx, connect(t, e))
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range probs {
					t.Errorf("problem: %s: %s", p.Check, p.Detail)
				}
				var n int64
				if err := connect(t, e).QueryRow(ctx, "SELECT COUNT(*) FROM sbtest1", nil, &n); err != nil {
					t.Fatal(err)
				}
				switch c.Test {
				case "oltp_insert":
					if n <= int64(w.opts.tableSize) && w.opts.autoInc || n == 0 {
						t.Errorf("oltp_insert left %d rows", n)
					}
				case "oltp_delete":
					if n >= 2000 {
						t.Errorf("oltp_delete left %d rows", n)
					}
				}
			})
		}
	})
}

func TestCheckFindsProblems(t *testing.T) {
	forEachDB(t, func(t *testing.T, open func(*testing.T) engine.Engine) {
		ctx := context.Background()
		e := open(t)
		w := newTest(t, "oltp_read_write", "--tables=3", "--table-size=300")
		load(t, e, w)
		c := connect(t, e)
		if probs, err := w.Define().Check(ctx, c); err != nil || len(probs) != 0 {
			t.Fatalf("fresh data: %v %v", probs, err)
		}
		for _, s := range []string{
			"UPDATE sbtest1 SET c = 'short' WHERE id = 5",
			"UPDATE sbtest1 SET pad = '12345678901-1234567890x-12345678901-12345678901-12345678901' WHERE id = 6",
			"DELETE FROM sbtest1 WHERE id = 7",
			"UPDATE sbtest1 SET k = 0 WHERE id = 8",
			"INSERT INTO sbtest1 (id, k, c, pad) VALUES (301, 1, '" + strings.Repeat("1", 119) + "', '" + strings.Repeat("2", 59) + "')",
			"DROP TABLE sbtest3",
		} {
			if err := c.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		probs, err := w.Define().Check(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		got := oltptest.Found(t, probs, "sbtest1 c_length", "sbtest1 c_pattern", "sbtest1 k_positive", "sbtest1 id_range", "sbtest3 table_exists")
		// 300 - 1 deleted + 1 inserted: the count is right, the ids are not.
		if got["sbtest1 row_count"] {
			t.Error("unexpected row_count problem")
		}
		if got["sbtest2 c_length"] || len(probs) == 0 {
			t.Error("sbtest2 is intact")
		}
	})
}

// TestRollbackOnError makes the INSERT of a delete+insert pair fail and
// checks that the worker rolled back the DELETE and returned the error.
func TestRollbackOnError(t *testing.T) {
	forEachDB(t, func(t *testing.T, open func(*testing.T) engine.Engine) {
		ctx := context.Background()
		e := open(t)
		w := newTest(t, "oltp_write_only", "--table-size=300")
		load(t, e, w)
		cc := &countingConn{SQLConn: connect(t, e), failOn: func(k string) bool { return k == kInsert }}
		wk, err := startWorker(ctx, e, w, cc, workload.WorkerEnv{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wk.Next(ctx); !errors.Is(err, errInjected) {
			t.Fatalf("Next = %v, want the injected error", err)
		}
		if last := cc.log[len(cc.log)-1].kind; last != "ROLLBACK" {
			t.Fatalf("last statement %q, want ROLLBACK", last)
		}
		cc.failOn = nil
		if _, err := wk.Next(ctx); err != nil {
			t.Fatalf("next event after rollback: %v", err)
		}
		if probs, err := w.Define().Check(ctx, cc); err != nil || len(probs) != 0 {
			t.Fatalf("after rollback: %v %v", probs, err)
		}
	})
}

func TestRetryable(t *testing.T) {
	retryable := newTest(t, "oltp_read_write").Define().Retryable
	if retryable == nil || !retryable(engine.ClassUniqueViolation) || retryable(engine.ClassOther) || retryable(engine.ClassConnLost) {
		t.Error("Retryable must accept exactly unique violations")
	}
}
