package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"math"
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
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// The tests below run against real databases from internal/testdb: a
// fresh SQLite file, a fresh schema on the PostgreSQL test server and a
// fresh database on the MariaDB test server, each loaded with one
// warehouse by load.Prepare.

type testDB struct {
	name       string
	target     func(t *testing.T) engine.Target
	procedures bool
	// pipelines: the engine sends a batch in one round trip, so client
	// mode with --pipeline=false takes another path.
	pipelines bool
}

var testDBs = []testDB{
	{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }, false, false},
	{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }, true, true},
	{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }, true, false},
}

// modesOf are the option sets TestTransactions runs on db.
func modesOf(db testDB) [][]string {
	modes := [][]string{{"--mode", ModeClient}}
	if db.pipelines {
		modes = append(modes, []string{"--mode", ModeClient, "--pipeline=false"})
	}
	if db.procedures {
		modes = append(modes, []string{"--mode", ModeProcedure})
	}
	return modes
}

// preparedDB returns an engine with one warehouse loaded.
func preparedDB(t *testing.T, db testDB, args ...string) (engine.Engine, *TPCC) {
	t.Helper()
	e := enginetest.Open(t, db.target(t))
	w := parse(t, append([]string{"--warehouses", "1", "--seed-data", "3"}, args...)...)
	if _, err := load.Prepare(context.Background(), e, w, load.PrepareConfig{LoadThreads: 2}); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return e, w
}

// sqlRunner reads values for the assertions.
type sqlRunner struct {
	t *testing.T
	c engine.SQLConn
}

func (s sqlRunner) int(q string, args ...any) int64 {
	s.t.Helper()
	var n sql.NullInt64
	if err := s.c.QueryRow(context.Background(), q, args, &n); err != nil {
		s.t.Fatalf("%s %v: %v", q, args, err)
	}
	return n.Int64
}

func (s sqlRunner) float(q string, args ...any) float64 {
	s.t.Helper()
	var f sql.NullFloat64
	if err := s.c.QueryRow(context.Background(), q, args, &f); err != nil {
		s.t.Fatalf("%s %v: %v", q, args, err)
	}
	return f.Float64
}

func (s sqlRunner) str(q string, args ...any) string {
	s.t.Helper()
	var v string
	if err := s.c.QueryRow(context.Background(), q, args, &v); err != nil {
		s.t.Fatalf("%s %v: %v", q, args, err)
	}
	return v
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.005 }

// TestOnEveryEngine prepares one warehouse per engine (with --fk where
// the engine adds foreign keys) and, on that one database: runs each
// transaction with chosen inputs, in client mode and, where the engine
// has them, as stored procedures, checking its effect on the rows it
// touches; then runs the workload through the runner in every mode,
// followed by the consistency checks; then breaks the data and expects
// the checks to name the broken condition; then cleans up.
func TestOnEveryEngine(t *testing.T) {
	for _, db := range testDBs {
		t.Run(db.name, func(t *testing.T) {
			// With --fk where the engine has foreign keys: the
			// transactions run under them.
			var fk []string
			if db.name != "sqlite" {
				fk = []string{"--fk"}
			}
			e, w := preparedDB(t, db, fk...)
			if fk != nil {
				wantForeignKeys(t, db, enginetest.Connect(t, e))
			}
			for _, args := range modesOf(db) {
				ok := t.Run("transactions "+strings.Join(args[1:], " "), func(t *testing.T) {
					testTransactions(t, e, w, args...)
				})
				if !ok {
					return
				}
			}
			t.Run("run then check", func(t *testing.T) { testRunThenCheck(t, db, e, w) })
		})
	}
}

// setModes sets w's mode options to args, the others back to their
// defaults as if never set (an explicit --pipeline is refused where the
// engine does not pipeline).
func setModes(t *testing.T, w *TPCC, args ...string) {
	t.Helper()
	fs := w.Define().Options
	for _, name := range []string{"mode", "pipeline"} {
		f := fs.Lookup(name)
		if err := f.Value.Set(f.DefValue); err != nil {
			t.Fatal(err)
		}
		f.Changed = false
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
}

func testTransactions(t *testing.T, e engine.Engine, w *TPCC, args ...string) {
	ctx := context.Background()
	setModes(t, w, args...)
	spec := w.Define()
	if err := spec.Install(ctx, enginetest.Connect(t, e)); err != nil {
		t.Fatal(err)
	}
	q := sqlRunner{t, enginetest.Connect(t, e)}
	wt, err := open(t, w).NewWorker(ctx, enginetest.Connect(t, e), workload.WorkerEnv{Seed: 1, Queries: &workload.Queries{}})
	if err != nil {
		t.Fatal(err)
	}
	tm := wt.(*terminal)

	t.Run("new_order", func(t *testing.T) {
		q.t = t
		const d, c = 3, 17
		next := q.int("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", d)
		items := []int64{5, 77, 77, 1000}
		qtys := []int64{3, 9, 2, 10}
		stockBefore := map[int64]int64{}
		for _, it := range items {
			stockBefore[it] = q.int("SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = ?", it)
		}
		ytdBefore := q.int("SELECT s_ytd FROM stock WHERE s_w_id = 1 AND s_i_id = 77")
		cntBefore := q.int("SELECT s_order_cnt FROM stock WHERE s_w_id = 1 AND s_i_id = 77")
		in := &newOrderInput{dID: d, cID: c, allLocal: 1, entry: time.Now()}
		for i, it := range items {
			in.lines = append(in.lines, orderLine{iID: it, supplyWID: 1, qty: qtys[i]})
		}
		if err := tm.newOrderWith(ctx, in); err != nil {
			t.Fatal(err)
		}
		if got := q.int("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", d); got != next+1 {
			t.Errorf("d_next_o_id %d, want %d", got, next+1)
		}
		if got := q.int("SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ? AND o_carrier_id IS NULL AND o_ol_cnt = 4 AND o_all_local = 1", d, next); got != c {
			t.Errorf("order %d: customer %d, want %d", next, got, c)
		}
		if n := q.int("SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = ? AND no_o_id = ?", d, next); n != 1 {
			t.Errorf("%d new_order rows", n)
		}
		if n := q.int("SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ? AND ol_delivery_d IS NULL", d, next); n != 4 {
			t.Errorf("%d order lines, want 4", n)
		}
		var want float64
		for i, it := range items {
			want += float64(qtys[i]) * q.float("SELECT i_price FROM item WHERE i_id = ?", it)
		}
		if got := q.float("SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ?", d, next); !near(got, want) {
			t.Errorf("sum(ol_amount) %.2f, want %.2f", got, want)
		}
		dist := q.str("SELECT s_dist_03 FROM stock WHERE s_w_id = 1 AND s_i_id = 1000")
		if got := q.str("SELECT ol_dist_info FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ? AND ol_i_id = 1000", d, next); got != dist {
			t.Errorf("ol_dist_info %q, want s_dist_03 %q", got, dist)
		}
		// Stock: quantity - qty, or + 91 when that leaves less than 10;
		// item 77 twice, the second line on what the first left.
		after := func(s, qty int64) int64 {
			if s-qty >= 10 {
				return s - qty
			}
			return s - qty + 91
		}
		wantQty := map[int64]int64{5: after(stockBefore[5], 3), 77: after(after(stockBefore[77], 9), 2), 1000: after(stockBefore[1000], 10)}
		for it, wq := range wantQty {
			if got := q.int("SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = ?", it); got != wq {
				t.Errorf("item %d: s_quantity %d, want %d", it, got, wq)
			}
		}
		if got := q.int("SELECT s_ytd FROM stock WHERE s_w_id = 1 AND s_i_id = 77"); got != ytdBefore+11 {
			t.Errorf("s_ytd %d, want %d", got, ytdBefore+11)
		}
		if got := q.int("SELECT s_order_cnt FROM stock WHERE s_w_id = 1 AND s_i_id = 77"); got != cntBefore+2 {
			t.Errorf("s_order_cnt %d, want %d", got, cntBefore+2)
		}
	})

	t.Run("new_order_rollback", func(t *testing.T) {
		q.t = t
		next := q.int("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 4")
		s10 := q.int("SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 10")
		orders := q.int("SELECT COUNT(*) FROM orders")
		in := &newOrderInput{dID: 4, cID: 5, allLocal: 1, entry: time.Now(), rollback: true,
			lines: []orderLine{{iID: 10, supplyWID: 1, qty: 5}, {iID: unusedItem, supplyWID: 1, qty: 1}}}
		if err := tm.newOrderWith(ctx, in); !errors.Is(err, workload.ErrRollback) {
			t.Fatalf("got %v, want workload.ErrRollback", err)
		}
		if got := q.int("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 4"); got != next {
			t.Errorf("d_next_o_id %d after rollback, want %d", got, next)
		}
		if got := q.int("SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 10"); got != s10 {
			t.Errorf("s_quantity %d after rollback, want %d", got, s10)
		}
		if got := q.int("SELECT COUNT(*) FROM orders"); got != orders {
			t.Errorf("%d orders after rollback, want %d", got, orders)
		}
	})

	t.Run("payment", func(t *testing.T) {
		q.t = t
		wYTD := q.float("SELECT w_ytd FROM warehouse WHERE w_id = 1")
		dYTD := q.float("SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 2")
		hist := q.int("SELECT COUNT(*) FROM history")
		// By id, a good-credit customer.
		cID := q.int("SELECT MIN(c_id) FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_credit = 'GC'")
		bal := q.float("SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = ?", cID)
		payCnt := q.int("SELECT c_payment_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = ?", cID)
		paid := q.int("SELECT COUNT(*) FROM history WHERE h_c_w_id = 1 AND h_c_d_id = 4 AND h_c_id = ? AND h_d_id = 2 AND h_amount > 123.44 AND h_amount < 123.46", cID)
		in := &paymentInput{dID: 2, cWID: 1, cDID: 4, cID: cID, amount: 123.45, date: time.Now()}
		if err := tm.paymentWith(ctx, in); err != nil {
			t.Fatal(err)
		}
		if got := q.float("SELECT w_ytd FROM warehouse WHERE w_id = 1"); !near(got, wYTD+123.45) {
			t.Errorf("w_ytd %.2f, want %.2f", got, wYTD+123.45)
		}
		if got := q.float("SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 2"); !near(got, dYTD+123.45) {
			t.Errorf("d_ytd %.2f, want %.2f", got, dYTD+123.45)
		}
		if got := q.float("SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = ?", cID); !near(got, bal-123.45) {
			t.Errorf("c_balance %.2f, want %.2f", got, bal-123.45)
		}
		if got := q.int("SELECT c_payment_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = ?", cID); got != payCnt+1 {
			t.Errorf("c_payment_cnt %d, want %d", got, payCnt+1)
		}
		if got := q.int("SELECT COUNT(*) FROM history WHERE h_c_w_id = 1 AND h_c_d_id = 4 AND h_c_id = ? AND h_d_id = 2 AND h_amount > 123.44 AND h_amount < 123.46", cID); got != paid+1 {
			t.Errorf("%d history rows for the payment", got)
		}
		if got := q.int("SELECT COUNT(*) FROM history"); got != hist+1 {
			t.Errorf("%d history rows, want %d", got, hist+1)
		}

		// By last name: the customer at ceil(n/2) in c_first order.
		last := q.str("SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 5 GROUP BY c_last HAVING COUNT(*) >= 3 ORDER BY c_last LIMIT 1")
		var ids []int64
		err := q.c.QueryRows(ctx, "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 5 AND c_last = ? ORDER BY c_first", []any{last}, func(row []any) error {
			id, err := strconv.ParseInt(strings.TrimSpace(toString(row[0])), 10, 64)
			ids = append(ids, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		middle, _ := customerByName(ids)
		cnt := q.int("SELECT c_payment_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = 5 AND c_id = ?", middle)
		if err := tm.paymentWith(ctx, &paymentInput{dID: 5, cWID: 1, cDID: 5, cLast: last, amount: 10, date: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if got := q.int("SELECT c_payment_cnt FROM customer WHERE c_w_id = 1 AND c_d_id = 5 AND c_id = ?", middle); got != cnt+1 {
			t.Errorf("%q (%d customers): customer %d paid %d times, want %d", last, len(ids), middle, got, cnt+1)
		}

		// A bad-credit customer gets the payment prepended to c_data.
		bc := q.int("SELECT MIN(c_id) FROM customer WHERE c_w_id = 1 AND c_d_id = 6 AND c_credit = 'BC'")
		if err := tm.paymentWith(ctx, &paymentInput{dID: 7, cWID: 1, cDID: 6, cID: bc, amount: 42.5, date: time.Now()}); err != nil {
			t.Fatal(err)
		}
		data := q.str("SELECT c_data FROM customer WHERE c_w_id = 1 AND c_d_id = 6 AND c_id = ?", bc)
		if want := strconv.FormatInt(bc, 10) + " 6 1 7 1 42.5"; !strings.HasPrefix(data, want) || len(data) > 500 {
			t.Errorf("c_data %.40q…, want it to start with %q", data, want)
		}
	})

	t.Run("order_status_and_stock_level", func(t *testing.T) {
		q.t = t
		sum := q.int("SELECT SUM(d_next_o_id) FROM district")
		hist := q.int("SELECT COUNT(*) FROM history")
		if err := tm.orderStatusWith(ctx, 3, 17, ""); err != nil {
			t.Fatal(err)
		}
		if err := tm.orderStatusWith(ctx, 5, 0, q.str("SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 5 AND c_id = 1")); err != nil {
			t.Fatal(err)
		}
		if err := tm.stockLevelWith(ctx, 15); err != nil {
			t.Fatal(err)
		}
		if q.int("SELECT SUM(d_next_o_id) FROM district") != sum || q.int("SELECT COUNT(*) FROM history") != hist {
			t.Error("a read-only transaction changed the data")
		}
	})

	t.Run("delivery", func(t *testing.T) {
		q.t = t
		type order struct{ o, c int64 }
		oldest := map[int64]order{}
		balance := map[int64]float64{}
		for d := int64(1); d <= 10; d++ {
			o := q.int("SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = ?", d)
			c := q.int("SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ?", d, o)
			oldest[d] = order{o, c}
			balance[d] = q.float("SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_id = ?", d, c) +
				q.float("SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ?", d, o)
		}
		newOrders := q.int("SELECT COUNT(*) FROM new_order")
		if err := tm.deliveryWith(ctx, 7, time.Now()); err != nil {
			t.Fatal(err)
		}
		if got := q.int("SELECT COUNT(*) FROM new_order"); got != newOrders-10 {
			t.Errorf("%d new_order rows, want %d", got, newOrders-10)
		}
		for d, o := range oldest {
			if n := q.int("SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = ? AND no_o_id = ?", d, o.o); n != 0 {
				t.Errorf("district %d: order %d still undelivered", d, o.o)
			}
			if got := q.int("SELECT o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ?", d, o.o); got != 7 {
				t.Errorf("district %d: o_carrier_id %d, want 7", d, got)
			}
			if n := q.int("SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ? AND ol_delivery_d IS NULL", d, o.o); n != 0 {
				t.Errorf("district %d: %d lines without delivery date", d, n)
			}
			if got := q.float("SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_id = ?", d, o.c); !near(got, balance[d]) {
				t.Errorf("district %d: c_balance %.2f, want %.2f", d, got, balance[d])
			}
		}
	})

	t.Run("consistent", func(t *testing.T) {
		problems, err := spec.Check(ctx, q.c)
		if err != nil || len(problems) > 0 {
			t.Errorf("Check: %v %v", problems, err)
		}
	})
}

func toString(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}

// testRunThenCheck runs the workload through the runner with several
// terminals in every mode, then the consistency checks, then breaks the
// data and expects the checks to name the broken condition.
func testRunThenCheck(t *testing.T, db testDB, e engine.Engine, w *TPCC) {
	modes := []string{ModeClient}
	if db.procedures {
		modes = append(modes, ModeProcedure)
	}
	const threads = 4
	ctx := context.Background()
	setModes(t, w)
	for _, mode := range modes {
		if err := w.Define().Options.Set("mode", mode); err != nil {
			t.Fatal(err)
		}

		res, err := runner.Run(ctx, e, w, runner.Config{Threads: threads, Duration: 2 * time.Second, Seed: 9}, nil)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if res.Transactions == 0 || res.Errors != 0 {
			t.Fatalf("%s: %d transactions, %d errors", mode, res.Transactions, res.Errors)
		}
		if len(res.Counters) != 1 || res.Counters[0].End <= res.Counters[0].Start {
			t.Errorf("%s: counters %+v", mode, res.Counters)
		}
		nopm, ok := metric(res.Metrics, MetricNOPM)
		client, _ := metric(res.Metrics, MetricNOPMClient)
		// The database counts what dbarena counted plus the
		// New-Orders in flight when the phase ended: the runner
		// reads the counters before the workers start and after
		// they stop: at most one per worker. Both rates are
		// rounded to 0.01 and the bound's duration to 1 ms, so a
		// difference of exactly one New-Order per worker may
		// come out up to 0.02 above the bound.
		if d := nopm.Value - client.Value; !ok || nopm.Value <= 0 || d < -0.02 || d > threads*60/res.DurationS+0.02 {
			t.Errorf("%s: NOPM %v, NO/min %v", mode, nopm.Value, client.Value)
		}
		c := enginetest.Connect(t, e)
		if problems, err := w.Define().Check(ctx, c); err != nil || len(problems) > 0 {
			t.Fatalf("%s: check after the run: %v %v", mode, problems, err)
		}
	}
	if !db.pipelines {
		// An explicit --pipeline where the engine sends one statement
		// per round trip is refused before the run.
		setModes(t, w, "--pipeline")
		_, err := runner.Run(ctx, e, w, runner.Config{Threads: 1, Duration: time.Second, Seed: 9}, nil)
		var oe *workload.OptionError
		if !errors.As(err, &oe) || oe.Flag != "pipeline" {
			t.Errorf("run --pipeline on %s = %v, want an error naming --pipeline", db.name, err)
		}
		setModes(t, w)
	}
	c := enginetest.Connect(t, e)
	if err := c.Exec(ctx, "UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 2"); err != nil {
		t.Fatal(err)
	}
	problems, err := w.Define().Check(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range problems {
		names = append(names, p.Check)
	}
	if got := strings.Join(names, "; "); !strings.Contains(got, "condition 1:") || !strings.Contains(got, "condition 9:") {
		t.Errorf("after d_ytd + 1: problems %q, want conditions 1 and 9", got)
	}
	if _, err := load.Cleanup(ctx, e, w); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// TestForeignKeys prepares with --fk: the specification's ten foreign keys
// exist afterwards (PostgreSQL and MariaDB), and SQLite refuses the
// option.
func TestForeignKeys(t *testing.T) {
	// PostgreSQL and MySQL/MariaDB get their foreign keys in
	// TestRunThenCheck, which prepares with --fk and runs on them.
	e := enginetest.Open(t, testdb.SQLite(t))
	w := parse(t, "--warehouses", "1", "--fk")
	_, err := load.Prepare(context.Background(), e, w, load.PrepareConfig{LoadThreads: 2})
	var oe *workload.OptionError
	if !errors.As(err, &oe) || oe.Flag != "fk" {
		t.Fatalf("prepare --fk on sqlite = %v, want an error naming --fk", err)
	}
}

// wantForeignKeys asserts that --fk gave the nine tables their ten
// foreign keys.
func wantForeignKeys(t *testing.T, db testDB, c engine.SQLConn) {
	t.Helper()
	schemaFn := map[string]string{"postgres": "current_schema()", "mysql": "DATABASE()"}[db.name]
	n := sqlRunner{t, c}.int("SELECT count(*) FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY' AND table_schema = " + schemaFn)
	if n != 10 {
		t.Errorf("%d foreign keys, want 10", n)
	}
}
