package procs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/workload/tpce/internal/procs"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// lockWaitTimeout bounds a MariaDB session's lock waits to one second,
// the shortest InnoDB has, until the test ends.
func lockWaitTimeout(t *testing.T, c engine.SQLConn) {
	t.Helper()
	ctx := context.Background()
	if err := c.Exec(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Exec(ctx, "SET SESSION innodb_lock_wait_timeout = DEFAULT"); err != nil {
			t.Error(err)
		}
	})
}

// ownRows (MariaDB): the server-side Market-Feed and Data-Maintenance lock
// only the rows they read to change, as client mode's statements do. With
// another transaction holding a trade of another symbol (a Trade-Result
// in flight) and a news item of another company, a Market-Feed and a
// Data-Maintenance of news_item in every mode complete without waiting
// for it (a scan of the whole table would wait, here a second at most).
func ownRows(t *testing.T, v *env) {
	ctx := context.Background()
	symb := v.str(t, "SELECT MIN(lt_s_symb) FROM last_trade")
	other := v.int(t, "SELECT MAX(t_id) FROM trade WHERE t_s_symb <> ?", symb)
	co := v.int(t, "SELECT MIN(nx_co_id) FROM news_xref")
	news := v.int(t, "SELECT MIN(nx_ni_id) FROM news_xref WHERE nx_co_id <> ?", co)
	holder := enginetest.Connect(t, v.e)
	if err := holder.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := holder.Rollback(ctx); err != nil {
			t.Error(err)
		}
	}()
	for _, q := range []struct {
		sql string
		id  int64
	}{{"SELECT t_id FROM trade WHERE t_id = ? FOR UPDATE", other}, {"SELECT ni_id FROM news_item WHERE ni_id = ? FOR UPDATE", news}} {
		var id int64
		if err := holder.QueryRow(ctx, q.sql, []any{q.id}, &id); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	for _, m := range v.modeSeq {
		lockWaitTimeout(t, v.conns[m])
		cl := v.modes[m]
		if _, err := cl.MarketFeed(ctx, txn.MarketFeedInput{Entries: []txn.TickerEntry{{Symbol: symb, PriceQuote: 20, TradeQty: 100}}}); err != nil {
			t.Errorf("%s mode: Market-Feed of %s with trade %d (%s) locked elsewhere: %v", m, symb, other, v.str(t, "SELECT t_s_symb FROM trade WHERE t_id = ?", other), err)
		}
		if _, err := cl.DataMaintenance(ctx, txn.DataMaintenanceInput{TableName: "news_item", CoID: co}); err != nil {
			t.Errorf("%s mode: Data-Maintenance of company %d's news with news item %d locked elsewhere: %v", m, co, news, err)
		}
	}
}

// lockErrorsRetried (MariaDB): a lock wait timeout or a deadlock inside
// a server function fails the call with an error of engine.ClassDeadlock,
// the class of client mode's lock errors, which the runner's retry policy
// replays; the call leaves nothing behind (not the last trade it updated
// before it waited), and the same call run again completes. Another
// transaction holds the trade requests of the Market-Feed's symbol: the
// feed updates the symbol's last trade, then waits for them, until its
// session's lock wait timeout (one second); or the other transaction,
// heavier (it has changed more rows), then updates the same last trade,
// and the server picks the feed as the deadlock's victim.
func lockErrorsRetried(t *testing.T, v *env) {
	ctx := context.Background()
	acct := v.int(t, "SELECT MIN(ca_id) FROM customer_account")
	symb := v.str(t, "SELECT MAX(lt_s_symb) FROM last_trade")
	// A pending order on the symbol, which the feed's price does not
	// trigger.
	in := v.owner(t, acct)
	in.Symbol, in.TradeTypeID, in.TradeQty, in.RequestedPrice = symb, txn.TypeLimitBuy, 100, 1
	if o, err := v.client.TradeOrder(ctx, in); err != nil || o.Status != txn.StatusPending {
		t.Fatalf("limit order %+v: %v", o, err)
	}
	feed := txn.MarketFeedInput{Entries: []txn.TickerEntry{{Symbol: symb, PriceQuote: 30, TradeQty: 7}}}
	for _, deadlock := range []bool{false, true} {
		for _, m := range v.modeSeq {
			what := fmt.Sprintf("%s mode, lock wait timeout", m)
			if deadlock {
				what = fmt.Sprintf("%s mode, deadlock", m)
			}
			vol := v.int(t, "SELECT lt_vol FROM last_trade WHERE lt_s_symb = ?", symb)
			holder := enginetest.Connect(t, v.e)
			if err := holder.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := holder.Exec(ctx, "UPDATE customer_account SET ca_bal = ca_bal + 1 ORDER BY ca_id LIMIT 200"); err != nil {
				t.Fatal(err)
			}
			if err := holder.QueryRows(ctx, "SELECT tr_t_id FROM trade_request WHERE tr_s_symb = ? FOR UPDATE", []any{symb},
				func([]any) error { return nil }); err != nil {
				t.Fatal(err)
			}
			var feedErr error
			if !deadlock {
				lockWaitTimeout(t, v.conns[m])
				_, feedErr = v.modes[m].MarketFeed(ctx, feed)
			} else {
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, feedErr = v.modes[m].MarketFeed(ctx, feed)
				}()
				// Once the feed holds the last trade (a locking read that
				// does not wait fails), the holder asks for it too.
				probe := enginetest.Connect(t, v.e)
				for deadline := time.Now().Add(10 * time.Second); ; {
					var x int64
					err := probe.QueryRow(ctx, "SELECT lt_vol FROM last_trade WHERE lt_s_symb = ? FOR UPDATE NOWAIT", []any{symb}, &x)
					if err != nil {
						if probe.Dialect().Classify(err) != engine.ClassDeadlock {
							t.Fatalf("%s: probing the last trade: %v", what, err)
						}
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s: the Market-Feed never locked the last trade of %s", what, symb)
					}
					time.Sleep(5 * time.Millisecond)
				}
				if err := holder.Exec(ctx, "UPDATE last_trade SET lt_vol = lt_vol + 1 WHERE lt_s_symb = '"+symb+"'"); err != nil {
					t.Errorf("%s: the holder's update: %v", what, err)
				}
				<-done
			}
			if err := holder.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if class := v.c.Dialect().Classify(feedErr); feedErr == nil || class != engine.ClassDeadlock {
				t.Errorf("%s: Market-Feed failed with %v, class %v: want %v, which the runner retries", what, feedErr, class, engine.ClassDeadlock)
			}
			if got := v.int(t, "SELECT lt_vol FROM last_trade WHERE lt_s_symb = ?", symb); got != vol {
				t.Errorf("%s: lt_vol %d after the failed Market-Feed, %d before", what, got, vol)
			}
			if hits, err := v.modes[m].MarketFeed(ctx, feed); err != nil || len(hits) != 0 {
				t.Errorf("%s: the Market-Feed again: %v, %v", what, hits, err)
			}
			if got := v.int(t, "SELECT lt_vol FROM last_trade WHERE lt_s_symb = ?", symb); got != vol+7 {
				t.Errorf("%s: lt_vol %d after the Market-Feed again, %d before", what, got, vol)
			}
		}
	}
	if _, err := v.client.TradeCleanup(ctx, txn.TradeCleanupInput{StartTradeID: v.maxInitial + 1}); err != nil && !errors.Is(err, txn.ErrNotFound) {
		t.Fatal(err)
	}
	v.check(t)
}

// noDiskTempTables (MariaDB): the read-only transactions and Trade-Update
// make no internal temporary table on disk. JSON_ARRAYAGG(… ORDER BY …) of
// objects that may exceed 512 characters sorts them in an Aria table,
// files created and removed in the server's tmpdir at every call, which
// made the server-side modes several times slower than client mode under
// concurrency.
func noDiskTempTables(t *testing.T, v *env) {
	ctx := context.Background()
	ins := readOnlyInputs(t, 10)
	for _, r := range v.runners()[1:] {
		c := v.conns[procs.Mode(r.name)]
		disk := func() int64 {
			var name string
			var n int64
			if err := c.QueryRow(ctx, "SHOW SESSION STATUS LIKE 'Created_tmp_disk_tables'", nil, &name, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		for _, in := range ins {
			before := disk()
			if _, _, err := runOne(ctx, r.r, in); err != nil {
				t.Fatalf("%s mode, %T: %v", r.name, in, err)
			}
			if n := disk() - before; n != 0 {
				t.Errorf("%s mode, %T %+v: %d temporary tables on disk", r.name, in, in, n)
			}
		}
		before := disk()
		tl := ins[len(ins)-3].(txn.TradeLookupInput) // frame 2
		if _, err := r.r.TradeUpdate(ctx, txn.TradeUpdateInput{TradeLookupInput: tl, MaxUpdates: 1}); err != nil {
			t.Fatalf("%s mode, Trade-Update: %v", r.name, err)
		}
		if n := disk() - before; n != 0 {
			t.Errorf("%s mode, Trade-Update: %d temporary tables on disk", r.name, n)
		}
	}
}
