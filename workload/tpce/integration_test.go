package tpce

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	_ "github.com/dbarena/dbarena/engine/mysql"
	_ "github.com/dbarena/dbarena/engine/postgres"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/check"
)

// The tests below run against real databases from internal/testdb: a
// fresh SQLite file, a fresh schema on the PostgreSQL test server and a
// fresh database on the MariaDB test server, each loaded by
// load.Prepare with one Load Unit (1,000 customers), one initial trade
// day and news items of 100 bytes.

var testDBs = []struct {
	name   string
	target func(t *testing.T) engine.Target
}{
	{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }},
	{"postgres", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.Postgres(t)) }},
	{"mysql", func(t *testing.T) engine.Target { return testdb.Isolated(t, testdb.MySQL(t)) }},
}

// testArgs are the options of the prepared test databases.
var testArgs = []string{"--customers", "1000", "--itd", "1", "--news-size", "100", "--seed-data", "3"}

// q runs the statements of a test on one connection.
type q struct {
	t *testing.T
	c engine.SQLConn
}

func (q q) int(sql string) int64 {
	q.t.Helper()
	var n int64
	if err := q.c.QueryRow(context.Background(), sql, nil, &n); err != nil {
		q.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (q q) str(sql string) string {
	q.t.Helper()
	var s string
	if err := q.c.QueryRow(context.Background(), sql, nil, &s); err != nil {
		q.t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func (q q) exec(sql string) {
	q.t.Helper()
	if err := q.c.Exec(context.Background(), sql); err != nil {
		q.t.Fatalf("%s: %v", sql, err)
	}
}

// corruption is one change to a consistent database and the one rule it
// breaks.
type corruption struct {
	name string
	do   func(q q, w *TPCE)
	want string // the rule; "" for a change that breaks none
	// afterRun: the change adds a trade above the initial ones, as a run
	// does, which turns the rules that hold only at load off.
	afterRun bool
}

// aboveInitial inserts a trade with an id above the initial ones, in
// status SBMT (as a run's Trade-Order leaves it), copied from trade
// from, and returns its id.
func aboveInitial(q q, w *TPCE, from int64) int64 {
	id := max(newSource(w.config()).maxInitialTradeID(), q.int("SELECT MAX(t_id) FROM trade")) + 1000
	q.exec(fmt.Sprintf(`INSERT INTO trade SELECT %d, t_dts, 'SBMT', t_tt_id, t_is_cash, t_s_symb, t_qty, t_bid_price,
		t_ca_id, t_exec_name, NULL, t_chrg, t_comm, t_tax, t_lifo FROM trade WHERE t_id = %d`, id, from))
	return id
}

var corruptions = []corruption{
	{"remove a settlement", func(q q, _ *TPCE) {
		q.exec(fmt.Sprintf("DELETE FROM settlement WHERE se_t_id = %d", q.int("SELECT MIN(t_id) FROM trade")))
	}, check.RuleSettlement, false},
	{"settlement without its trade", func(q q, w *TPCE) {
		first := q.int("SELECT MIN(t_id) FROM trade")
		id := aboveInitial(q, w, first)
		q.exec(fmt.Sprintf(`INSERT INTO settlement SELECT %d, se_cash_type, se_cash_due_date, se_amt FROM settlement WHERE se_t_id = %d`, id, first))
	}, check.RuleSettlementOrphan, true},
	{"remove a history row", func(q q, _ *TPCE) {
		q.exec(fmt.Sprintf("DELETE FROM trade_history WHERE th_st_id = 'SBMT' AND th_t_id = %d", q.int("SELECT MIN(t_id) FROM trade")))
	}, check.RuleHistory, false},
	{"remove a cash transaction", func(q q, _ *TPCE) {
		q.exec(fmt.Sprintf("DELETE FROM cash_transaction WHERE ct_t_id = %d", q.int("SELECT MIN(ct_t_id) FROM cash_transaction")))
	}, check.RuleCash, false},
	{"cash transaction of a margin trade", func(q q, _ *TPCE) {
		id := q.int("SELECT MIN(t_id) FROM trade WHERE NOT t_is_cash")
		q.exec(fmt.Sprintf("INSERT INTO cash_transaction SELECT t_id, t_dts, 1, 'margin' FROM trade WHERE t_id = %d", id))
	}, check.RuleCash, false},
	{"change an hs_qty", func(q q, _ *TPCE) {
		ca := q.int("SELECT MIN(hs_ca_id) FROM holding_summary")
		symb := q.str(fmt.Sprintf("SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = %d", ca))
		q.exec(fmt.Sprintf("UPDATE holding_summary SET hs_qty = hs_qty + 100 WHERE hs_ca_id = %d AND hs_s_symb = '%s'", ca, symb))
	}, check.RuleHoldingSummary, false},
	{"change b_num_trades", func(q q, _ *TPCE) {
		q.exec("UPDATE broker SET b_num_trades = b_num_trades + 1 WHERE b_id = 3")
	}, check.RuleBroker, false},
	{"change b_comm_total", func(q q, _ *TPCE) {
		q.exec("UPDATE broker SET b_comm_total = b_comm_total - 0.01 WHERE b_id = 4")
	}, check.RuleBroker, false},
	{"change a trade's charge", func(q q, _ *TPCE) {
		q.exec(fmt.Sprintf("UPDATE trade SET t_chrg = t_chrg + 1 WHERE t_id = %d", q.int("SELECT MAX(t_id) FROM trade")))
	}, check.RuleCharge, false},
	{"insert a trade_request", func(q q, _ *TPCE) {
		q.exec(requestOf(q.int("SELECT MIN(t_id) FROM trade")))
	}, check.RuleTradeRequest, false},
	{"a pending request after a run", func(q q, w *TPCE) {
		q.exec(requestOf(aboveInitial(q, w, q.int("SELECT MIN(t_id) FROM trade"))))
	}, "", true},
	{"delete a customer_account", func(q q, _ *TPCE) {
		// An account without trades, so that only the count changes.
		ca := q.int("SELECT MIN(ca_id) FROM customer_account ca WHERE NOT EXISTS (SELECT 1 FROM trade t WHERE t.t_ca_id = ca.ca_id)")
		q.exec(fmt.Sprintf("DELETE FROM account_permission WHERE ap_ca_id = %d", ca))
		q.exec(fmt.Sprintf("DELETE FROM customer_account WHERE ca_id = %d", ca))
	}, check.RowsRule("customer_account", 5000, "5 per customer"), false},
	{"delete a charge", func(q q, _ *TPCE) {
		q.exec("DELETE FROM charge WHERE ch_c_tier = 3 AND ch_tt_id = 'TMB'")
	}, check.RowsRule("charge", 15, ""), false},
	{"delete a security's daily_market rows", func(q q, _ *TPCE) {
		q.exec(fmt.Sprintf("DELETE FROM daily_market WHERE dm_s_symb = '%s'", q.str("SELECT MAX(s_symb) FROM security")))
	}, check.PerRule("daily_market", 1305, "security"), false},
}

// requestOf is the statement that inserts a trade_request for trade id.
func requestOf(id int64) string {
	return fmt.Sprintf("INSERT INTO trade_request SELECT t_id, t_tt_id, t_s_symb, t_qty, t_bid_price, 1 FROM trade WHERE t_id = %d", id)
}

// inTx runs fn in a transaction on c that is rolled back after it.
func inTx(t *testing.T, c engine.SQLConn, fn func()) {
	t.Helper()
	ctx := context.Background()
	if err := c.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	fn()
}

// checkBreaks runs the corruptions cs in one transaction, rolled back
// after, and fails unless check reports exactly the rules they break.
func checkBreaks(t *testing.T, c engine.SQLConn, w *TPCE, cs ...corruption) {
	t.Helper()
	var want []string
	for _, cr := range cs {
		if cr.want != "" && !slices.Contains(want, cr.want) {
			want = append(want, cr.want)
		}
	}
	inTx(t, c, func() {
		for _, cr := range cs {
			cr.do(q{t, c}, w)
		}
		problems, err := w.Define().Check(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range problems {
			got = append(got, p.Check)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("problems %v; want exactly the rules %q", problems, want)
		}
	})
}

// TestOnEveryEngine prepares one Load Unit on every engine, once (a
// prepare is most of the test's time); check passes, and each
// corruption, made in a transaction that is rolled back, makes it report
// exactly the rule it breaks. On PostgreSQL every corruption is checked
// alone; on the slower engines the corruptions are checked together,
// those that hold at load apart from those after a run. Then every
// transaction runs on the same data (transactions, which writes), then
// a short run through the runner (run): they come last.
func TestOnEveryEngine(t *testing.T) {
	for _, db := range testDBs {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e := enginetest.Open(t, db.target(t))
			w := parse(t, testArgs...)
			stats, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 2})
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			t.Logf("prepared %d rows in %s", stats.Rows, stats.Duration)
			var done, total int
			progress := workload.WithCheckProgress(ctx, func(d, n int, _ string) { done, total = d, n })
			problems, err := load.Check(progress, e, w)
			if err != nil || len(problems) > 0 {
				t.Fatalf("check after prepare: %v %v", problems, err)
			}
			if done == 0 || done != total {
				t.Errorf("check reported %d of %d checks done", done, total)
			}
			c := enginetest.Connect(t, e)
			t.Run("trade_request_has_its_key", func(t *testing.T) {
				inTx(t, c, func() {
					id := q{t, c}.int("SELECT MIN(t_id) FROM trade")
					q{t, c}.exec(requestOf(id))
					if err := c.Exec(ctx, requestOf(id)); err == nil {
						t.Error("a second trade_request with the same tr_t_id was accepted: no primary key")
					}
				})
			})
			if db.name == "postgres" {
				for _, cr := range corruptions {
					t.Run(strings.ReplaceAll(cr.name, " ", "_"), func(t *testing.T) { checkBreaks(t, c, w, cr) })
				}
			} else {
				for _, afterRun := range []bool{false, true} {
					t.Run(fmt.Sprint("together,after_run=", afterRun), func(t *testing.T) {
						var cs []corruption
						for _, cr := range corruptions {
							if cr.afterRun == afterRun {
								cs = append(cs, cr)
							}
						}
						checkBreaks(t, c, w, cs...)
					})
				}
			}
			t.Run("transactions", func(t *testing.T) { transactions(t, db.name, e, w) })
			t.Run("run", func(t *testing.T) { runThenCheck(t, db.name, e, w) })
		})
	}
}
