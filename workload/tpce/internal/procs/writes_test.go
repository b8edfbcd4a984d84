package procs_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/procs"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// cents rounds to cents, for differences of amounts read as floats.
func cents(x float64) float64 { return math.Round(x*100) / 100 }

// position is what a test reads of an account and its broker.
type position struct {
	hsQty, lots, lotQty, brokerTrades int64
	bal, brokerComm                   float64
}

func (v *env) position(t testing.TB, acct int64, symb string) position {
	t.Helper()
	var p position
	if v.int(t, "SELECT COUNT(*) FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?", acct, symb) > 0 {
		p.hsQty = v.int(t, "SELECT hs_qty FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?", acct, symb)
	}
	p.lots = v.int(t, "SELECT COUNT(*) FROM holding WHERE h_ca_id = ? AND h_s_symb = ?", acct, symb)
	p.lotQty = v.int(t, "SELECT COALESCE(SUM(h_qty), 0) FROM holding WHERE h_ca_id = ? AND h_s_symb = ?", acct, symb)
	p.bal = v.float(t, "SELECT ca_bal FROM customer_account WHERE ca_id = ?", acct)
	p.brokerTrades = v.int(t, "SELECT b_num_trades FROM broker, customer_account WHERE ca_id = ? AND b_id = ca_b_id", acct)
	p.brokerComm = v.float(t, "SELECT b_comm_total FROM broker, customer_account WHERE ca_id = ? AND b_id = ca_b_id", acct)
	return p
}

// move is what one trade changed: the position's changes and the rows the
// trade wrote.
type move struct {
	HsQty, Lots, LotQty, BrokerTrades int64
	Bal, BrokerComm                   float64
	Trade                             string // the trade's row, its history, settlement and cash transaction
	HoldingHistory                    int64
}

func (v *env) tradeRows(t testing.TB, id int64) string {
	t.Helper()
	var b strings.Builder
	row := func(sql string) {
		err := v.c.QueryRows(context.Background(), sql, []any{id}, func(r []any) error {
			for _, x := range r {
				if f, ok := x.(float64); ok {
					x = cents(f)
				}
				b.WriteString(fmtAny(x))
				b.WriteByte('|')
			}
			b.WriteByte(';')
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	row(`SELECT t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, t_bid_price, t_exec_name, t_trade_price, t_chrg, t_comm, t_tax, t_lifo
FROM trade WHERE t_id = ?`)
	row(`SELECT th_dts, th_st_id FROM trade_history WHERE th_t_id = ? ORDER BY th_dts, th_st_id`)
	row(`SELECT se_cash_type, se_cash_due_date, se_amt FROM settlement WHERE se_t_id = ?`)
	row(`SELECT ct_dts, ct_amt, ct_name FROM cash_transaction WHERE ct_t_id = ?`)
	row(`SELECT tr_tt_id, tr_s_symb, tr_qty, tr_bid_price FROM trade_request WHERE tr_t_id = ?`)
	return b.String()
}

func fmtAny(x any) string {
	switch x := x.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return string(x)
	}
	return fmt.Sprint(x)
}

// owner is the order input of an account's owner.
func (v *env) owner(t testing.TB, acct int64) txn.TradeOrderInput {
	t.Helper()
	in := txn.TradeOrderInput{AcctID: acct}
	cust := v.int(t, "SELECT ca_c_id FROM customer_account WHERE ca_id = ?", acct)
	in.ExecFName = v.str(t, "SELECT c_f_name FROM customer WHERE c_id = ?", cust)
	in.ExecLName = v.str(t, "SELECT c_l_name FROM customer WHERE c_id = ?", cust)
	in.ExecTaxID = v.str(t, "SELECT c_tax_id FROM customer WHERE c_id = ?", cust)
	return in
}

// setNow sets every client's clock to now.
func (v *env) setNow(now time.Time) {
	v.client.Now = func() time.Time { return now }
	for _, cl := range v.modes {
		cl.Now = func() time.Time { return now }
	}
}

// orderThenResult: a Trade-Order then its Trade-Result moves holdings,
// cash and broker totals, and writes the trade's rows, exactly as client
// mode does. Each mode runs the same four trades from the same holdings
// (a margin buy and its sale, LIFO, then a short sale beyond the holding
// and its cover); a first short sale and cover in client mode leaves the
// holding one lot, as each mode's last trade does.
func orderThenResult(t *testing.T, v *env) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	v.setNow(now)
	defer func() {
		v.client.Now = time.Now
		for _, cl := range v.modes {
			cl.Now = time.Now
		}
	}()
	acct := v.int(t, `SELECT MIN(hs_ca_id) FROM holding_summary, customer_account
WHERE ca_id = hs_ca_id AND ca_tax_st = 1 AND hs_qty > 0`)
	symb := v.str(t, "SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ? AND hs_qty > 0", acct)
	coName := v.str(t, "SELECT co_name FROM company, security WHERE s_symb = ? AND co_id = s_co_id", symb)
	issue := v.str(t, "SELECT s_issue FROM security WHERE s_symb = ?", symb)
	held := v.position(t, acct, symb).hsQty

	type step struct {
		in    txn.TradeOrderInput
		price float64
	}
	order := func(typ string, qty int64, lifo, margin, byName bool) txn.TradeOrderInput {
		in := v.owner(t, acct)
		in.TradeTypeID, in.TradeQty, in.IsLIFO, in.TypeIsMargin = typ, qty, lifo, margin
		if byName {
			in.CoName, in.Issue = coName, issue
		} else {
			in.Symbol = symb
		}
		return in
	}
	shortAndCover := []step{
		{order(txn.TypeMarketSell, held+100, false, false, false), 26},
		{order(txn.TypeMarketBuy, held+100, true, false, true), 25},
	}
	steps := append([]step{
		{order(txn.TypeMarketBuy, 200, true, true, false), 25},
		{order(txn.TypeMarketSell, 200, true, false, true), 26},
	}, shortAndCover...)

	type record struct {
		Orders  []txn.TradeOrderOutput
		Results []txn.TradeResultOutput
		Moves   []move
	}
	trade := func(t *testing.T, r txnRunner, s step) (txn.TradeOrderOutput, txn.TradeResultOutput, move) {
		t.Helper()
		before := v.position(t, acct, symb)
		o, err := r.TradeOrder(ctx, s.in)
		if err != nil {
			t.Fatalf("trade-order %+v: %v", s.in, err)
		}
		res, err := r.TradeResult(ctx, txn.TradeResultInput{TradeID: o.TradeID, TradePrice: s.price})
		if err != nil {
			t.Fatalf("trade-result of %d: %v", o.TradeID, err)
		}
		after := v.position(t, acct, symb)
		m := move{HsQty: after.hsQty - before.hsQty, Lots: after.lots, LotQty: after.lotQty - before.lotQty,
			BrokerTrades: after.brokerTrades - before.brokerTrades, Bal: cents(after.bal - before.bal),
			BrokerComm: cents(after.brokerComm - before.brokerComm), Trade: v.tradeRows(t, o.TradeID),
			HoldingHistory: v.int(t, "SELECT COUNT(*) FROM holding_history WHERE hh_t_id = ?", o.TradeID)}
		if res.AcctBal != after.bal {
			t.Errorf("trade-result returned balance %.2f, the account has %.2f", res.AcctBal, after.bal)
		}
		oo, rr := *o, *res
		oo.TradeID = 0
		if s.in.TypeIsMargin {
			oo.AcctAssets = cents(oo.AcctAssets - before.bal) // the holdings' value
		}
		rr.AcctBal = 0
		return oo, rr, m
	}
	for _, s := range shortAndCover {
		trade(t, v.client, s)
	}
	var want record
	for i, r := range v.runners() {
		var got record
		for _, s := range steps {
			o, res, m := trade(t, r.r, s)
			got.Orders = append(got.Orders, o)
			got.Results = append(got.Results, res)
			got.Moves = append(got.Moves, m)
		}
		if i == 0 {
			want = got
			t.Logf("client mode: %+v", want)
			if want.Results[1].TaxAmount == 0 || want.Orders[0].AcctAssets == 0 || want.Moves[1].Bal <= 0 {
				t.Errorf("the trades test no tax, margin or cash: %+v", want)
			}
			continue
		}
		for k := range steps {
			if !reflect.DeepEqual(got.Orders[k], want.Orders[k]) {
				t.Errorf("%s mode, trade %d: order\n got %+v\nwant %+v", r.name, k, got.Orders[k], want.Orders[k])
			}
			if !reflect.DeepEqual(got.Results[k], want.Results[k]) {
				t.Errorf("%s mode, trade %d: result\n got %+v\nwant %+v", r.name, k, got.Results[k], want.Results[k])
			}
			if !reflect.DeepEqual(got.Moves[k], want.Moves[k]) {
				t.Errorf("%s mode, trade %d: moved\n got %+v\nwant %+v", r.name, k, got.Moves[k], want.Moves[k])
			}
		}
	}
	v.check(t)
}

// counts are the rows of the tables Trade-Order writes.
func (v *env) counts(t testing.TB) [3]int64 {
	return [3]int64{v.int(t, "SELECT COUNT(*) FROM trade"), v.int(t, "SELECT COUNT(*) FROM trade_history"),
		v.int(t, "SELECT COUNT(*) FROM trade_request")}
}

// intendedRollback: Trade-Order's intended rollback returns the order and
// an error wrapping workload.ErrRollback, and leaves no trace.
func intendedRollback(t *testing.T, v *env) {
	ctx := context.Background()
	acct := v.int(t, "SELECT MIN(hs_ca_id) FROM holding_summary")
	symb := v.str(t, "SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ?", acct)
	for _, m := range v.modeSeq {
		for _, typ := range []string{txn.TypeMarketBuy, txn.TypeLimitSell} {
			before := v.counts(t)
			in := v.owner(t, acct)
			in.Symbol, in.TradeTypeID, in.TradeQty, in.RequestedPrice, in.RollItBack = symb, typ, 100, 27, true
			o, err := v.modes[m].TradeOrder(ctx, in)
			if !errors.Is(err, workload.ErrRollback) || o == nil || o.TradeID == 0 {
				t.Fatalf("%s mode, %s: %+v, %v; want the order and ErrRollback", m, typ, o, err)
			}
			if after := v.counts(t); after != before {
				t.Errorf("%s mode, %s: trade, trade_history, trade_request rows %v → %v", m, typ, before, after)
			}
			if n := v.int(t, "SELECT COUNT(*) FROM trade WHERE t_id = ?", o.TradeID); n != 0 {
				t.Errorf("%s mode: rolled-back trade %d is there", m, o.TradeID)
			}
		}
	}
}

// noPermission: an executor the account does not know is
// txn.ErrNoPermission, and nothing is written.
func noPermission(t *testing.T, v *env) {
	ctx := context.Background()
	acct := v.int(t, "SELECT MIN(hs_ca_id) FROM holding_summary")
	symb := v.str(t, "SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ?", acct)
	for _, r := range v.runners() {
		before := v.counts(t)
		in := txn.TradeOrderInput{AcctID: acct, ExecFName: "No", ExecLName: "Body", ExecTaxID: "000-00-0000",
			Symbol: symb, TradeTypeID: txn.TypeMarketBuy, TradeQty: 100}
		if _, err := r.r.TradeOrder(ctx, in); !errors.Is(err, txn.ErrNoPermission) {
			t.Errorf("%s: %v, want ErrNoPermission", r.name, err)
		}
		if after := v.counts(t); after != before {
			t.Errorf("%s: rows %v → %v", r.name, before, after)
		}
	}
}

// limitOrderMarketFeed: a limit order waits in trade_request until a
// ticker entry crosses its limit, in every mode as in client mode; then
// Broker-Volume returns the same volumes in every mode for pending
// orders of many brokers.
func limitOrderMarketFeed(t *testing.T, v *env) {
	ctx := context.Background()
	acct := v.int(t, "SELECT MIN(hs_ca_id) FROM holding_summary WHERE hs_qty > 0")
	symb := v.str(t, "SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ? AND hs_qty > 0", acct)
	var want []txn.Triggered
	for i, r := range v.runners() {
		in := v.owner(t, acct)
		in.Symbol, in.TradeTypeID, in.TradeQty, in.RequestedPrice = symb, txn.TypeLimitBuy, 100, 29.5
		o, err := r.r.TradeOrder(ctx, in)
		if err != nil || o.Status != txn.StatusPending || v.int(t, "SELECT COUNT(*) FROM trade_request WHERE tr_t_id = ?", o.TradeID) != 1 {
			t.Fatalf("%s: limit order %+v: %v", r.name, o, err)
		}
		hits, err := r.r.MarketFeed(ctx, txn.MarketFeedInput{Entries: []txn.TickerEntry{{Symbol: symb, PriceQuote: 30, TradeQty: 100}}})
		if err != nil || len(hits) != 0 {
			t.Fatalf("%s: price above the limit triggered %v: %v", r.name, hits, err)
		}
		hits, err = r.r.MarketFeed(ctx, txn.MarketFeedInput{Entries: []txn.TickerEntry{
			{Symbol: symb, PriceQuote: 29, TradeQty: 100}, {Symbol: symb, PriceQuote: 28, TradeQty: 50}}})
		if err != nil || len(hits) != 1 || hits[0].TradeID != o.TradeID {
			t.Fatalf("%s: triggered %v, want trade %d: %v", r.name, hits, o.TradeID, err)
		}
		if st := v.str(t, "SELECT t_st_id FROM trade WHERE t_id = ?", o.TradeID); st != txn.StatusSubmitted ||
			v.int(t, "SELECT COUNT(*) FROM trade_request WHERE tr_t_id = ?", o.TradeID) != 0 {
			t.Errorf("%s: after the trigger, status %s and the request is still there", r.name, st)
		}
		if vol := v.int(t, "SELECT lt_vol FROM last_trade WHERE lt_s_symb = ?", symb); vol <= 0 {
			t.Errorf("%s: lt_vol %d", r.name, vol)
		}
		if _, err := r.r.TradeResult(ctx, txn.TradeResultInput{TradeID: o.TradeID, TradePrice: 29}); err != nil {
			t.Fatal(err)
		}
		hits[0].TradeID = 0
		if i == 0 {
			want = hits
		} else if !reflect.DeepEqual(hits, want) {
			t.Errorf("%s: triggered %+v, client mode %+v", r.name, hits, want)
		}
	}
	v.check(t)

	// Pending orders of many accounts, then Broker-Volume on every
	// sector with every broker.
	accts := v.ints(t, "SELECT MIN(ca_id) FROM customer_account GROUP BY ca_b_id ORDER BY 1")
	symbols := v.strs(t, "SELECT s_symb FROM security ORDER BY s_symb LIMIT 40")
	for i, a := range accts {
		for k := range 3 {
			in := v.owner(t, a)
			in.Symbol, in.TradeTypeID, in.TradeQty, in.RequestedPrice = symbols[(i*3+k)%len(symbols)], txn.TypeLimitSell, int64(100*(k+1)), 20+float64(i)
			if _, err := v.client.TradeOrder(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
	}
	brokers := v.strs(t, "SELECT b_name FROM broker ORDER BY b_id")
	var volumes int
	for _, sector := range v.strs(t, "SELECT sc_name FROM sector ORDER BY sc_id") {
		in := txn.BrokerVolumeInput{BrokerList: brokers, SectorName: sector}
		want, err := v.client.BrokerVolume(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		volumes += len(want)
		for _, m := range v.modeSeq {
			got, err := v.modes[m].BrokerVolume(ctx, in)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s mode, sector %s: %+v, %v; client mode %+v", m, sector, got, err, want)
			}
		}
	}
	if volumes == 0 {
		t.Error("no broker volume: nothing compared")
	}
}

func (v *env) ints(t testing.TB, sql string) []int64 {
	t.Helper()
	var out []int64
	if err := v.c.QueryRows(context.Background(), sql, nil, func(r []any) error { out = append(out, r[0].(int64)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func (v *env) strs(t testing.TB, sql string) []string {
	t.Helper()
	var out []string
	if err := v.c.QueryRows(context.Background(), sql, nil, func(r []any) error { out = append(out, r[0].(string)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// tradeUpdate: each frame of Trade-Update changes the same trades in the
// same way in every mode. Every change toggles, so each mode runs it
// twice: the first run starts from the data as loaded and must return
// what client mode's first run returned; the second restores the data.
func tradeUpdate(t *testing.T, v *env) {
	ctx := context.Background()
	cenv, err := ce.NewEnv(gen.NewModel(testConfig))
	if err != nil {
		t.Fatal(err)
	}
	g := cenv.NewGenerator(-1)
	r := gen.NewRand(4, 5, 6)
	for frame := 1; frame <= 3; frame++ {
		tu := g.TradeUpdate(r)
		for tu.Frame != frame {
			tu = g.TradeUpdate(r)
		}
		in := txn.TradeUpdateInput{TradeLookupInput: txn.TradeLookupInput{Frame: tu.Frame, TradeIDs: tu.TradeIDs, AcctID: tu.AcctID,
			Symbol: tu.Symbol, StartTradeDts: tu.StartTradeDTS, EndTradeDts: tu.EndTradeDTS, MaxTrades: tu.MaxTrades}, MaxUpdates: tu.MaxUpdates}
		var want *txn.TradeUpdateOutput
		for i, rn := range v.runners() {
			got, err := rn.r.TradeUpdate(ctx, in)
			if err != nil {
				t.Fatalf("%s, frame %d: %v", rn.name, frame, err)
			}
			if i == 0 {
				want = got
				if want.Updated == 0 {
					t.Errorf("frame %d changed nothing: %+v", frame, in)
				}
			} else if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, frame %d:\n got %+v\nwant %+v", rn.name, frame, got, want)
			}
			back, err := rn.r.TradeUpdate(ctx, in)
			if err != nil || back.Updated != want.Updated {
				t.Fatalf("%s, frame %d, second run: %d updated, %v", rn.name, frame, back.Updated, err)
			}
		}
	}
	v.check(t)
}

// dataMaintenance: every table's change changes as many rows in every
// mode; the toggles toggle.
func dataMaintenance(t *testing.T, v *env) {
	ctx := context.Background()
	in := txn.DataMaintenanceInput{
		AcctID: v.int(t, "SELECT MIN(ap_ca_id) FROM account_permission"),
		CID:    v.int(t, "SELECT MIN(wl_c_id) FROM watch_list"),
		CoID:   v.int(t, "SELECT MIN(nx_co_id) FROM news_xref"),
		TxID:   v.str(t, "SELECT MIN(tx_id) FROM taxrate WHERE tx_name LIKE '% Tax %' OR tx_name LIKE '% tax %'"),
		Symbol: v.str(t, "SELECT MIN(dm_s_symb) FROM daily_market"),
	}
	in.DayOfMonth = v.ts(t, "SELECT MIN(dm_date) FROM daily_market WHERE dm_s_symb = ?", in.Symbol).Day()
	in.VolIncr = 7
	rate := func() string { return v.str(t, "SELECT co_sp_rate FROM company WHERE co_id = ?", in.CoID) }
	for _, table := range txn.MaintainedTables {
		in := in
		in.TableName = table
		var want int64
		for i, r := range v.runners() {
			r0 := rate()
			n, err := r.r.DataMaintenance(ctx, in)
			if err != nil {
				t.Fatalf("%s, %s: %v", r.name, table, err)
			}
			if i == 0 {
				want = n
				if n == 0 {
					t.Errorf("%s: nothing changed", table)
				}
			} else if n != want {
				t.Errorf("%s, %s: %d rows, client mode %d", r.name, table, n, want)
			}
			if table == "company" && rate() == r0 {
				t.Errorf("%s: co_sp_rate stayed %s", r.name, r0)
			}
		}
	}
	if _, err := v.modes[procs.Procedure].DataMaintenance(ctx, txn.DataMaintenanceInput{TableName: "nonsense"}); err == nil ||
		!strings.Contains(err.Error(), `"nonsense"`) {
		t.Errorf("data-maintenance of table nonsense: %v", err)
	}
	v.check(t)
}

func (v *env) ts(t testing.TB, sql string, args ...any) time.Time {
	t.Helper()
	var x time.Time
	if err := v.c.QueryRow(context.Background(), sql, args, &x); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return x
}

// tradeCleanup: the pending orders and the run's submitted trades are
// canceled, in every mode.
func tradeCleanup(t *testing.T, v *env) {
	ctx := context.Background()
	start := v.maxInitial + 1
	acct := v.int(t, "SELECT MIN(hs_ca_id) FROM holding_summary")
	symb := v.str(t, "SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ?", acct)
	for _, m := range v.modeSeq {
		in := v.owner(t, acct)
		in.Symbol, in.TradeTypeID, in.TradeQty = symb, txn.TypeMarketBuy, 100
		if _, err := v.modes[m].TradeOrder(ctx, in); err != nil { // submitted, never executed
			t.Fatal(err)
		}
		in.TradeTypeID, in.RequestedPrice = txn.TypeLimitBuy, 10
		if _, err := v.modes[m].TradeOrder(ctx, in); err != nil {
			t.Fatal(err)
		}
		pending := v.int(t, "SELECT COUNT(*) FROM trade_request")
		submitted := v.int(t, "SELECT COUNT(*) FROM trade WHERE t_id >= ? AND t_st_id = ?", start, txn.StatusSubmitted)
		n, err := v.modes[m].TradeCleanup(ctx, txn.TradeCleanupInput{StartTradeID: start})
		if err != nil || int64(n) != pending+submitted || pending < 1 || submitted < 1 {
			t.Errorf("%s mode: %d canceled, %v; want %d pending + %d submitted", m, n, err, pending, submitted)
		}
		if left := v.int(t, "SELECT COUNT(*) FROM trade_request") + v.int(t, "SELECT COUNT(*) FROM trade WHERE t_id >= ? AND t_st_id IN (?, ?)",
			start, txn.StatusSubmitted, txn.StatusPending); left != 0 {
			t.Errorf("%s mode: %d requests or trades left in flight", m, left)
		}
	}
	v.check(t)
}

// installUninstall: Install is idempotent; Uninstall drops dbarena's
// functions and nothing else; a client cannot be made without them.
func installUninstall(t *testing.T, v *env) {
	ctx := context.Background()
	pg := v.c.Dialect().Name() == "postgres"
	mine, dropMine := "CREATE FUNCTION tpce_mine() RETURNS integer LANGUAGE sql AS 'SELECT 1'", "DROP FUNCTION tpce_mine()"
	count := `SELECT COUNT(*) FROM pg_proc WHERE pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
AND proname = ANY (string_to_array(?, ','))`
	installed := int64(len(procs.Names))
	if !pg {
		mine, dropMine = "CREATE FUNCTION tpce_mine() RETURNS INT DETERMINISTIC RETURN 1", "DROP FUNCTION tpce_mine"
		count = `SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = DATABASE()
AND FIND_IN_SET(routine_name, ?) > 0`
		installed -= 3 // the PL/pgSQL helpers tpce_ts, tpce_round2 and tpce_replace1
	}
	if err := v.c.Exec(ctx, mine); err != nil {
		t.Fatal(err)
	}
	defer v.c.Exec(ctx, dropMine)
	ours := func() int64 { return v.int(t, count, strings.Join(procs.Names, ",")) }
	if n := ours(); n != installed {
		t.Errorf("%d functions after installing both modes, want %d", n, installed)
	}
	for range 2 {
		if err := procs.Install(ctx, v.c, procs.Procedure); err != nil {
			t.Fatal(err)
		}
	}
	if n := ours(); n != installed {
		t.Errorf("%d functions after installing procedure mode twice, want %d (both modes stay)", n, installed)
	}
	for range 2 {
		if err := procs.Uninstall(ctx, v.c); err != nil {
			t.Fatal(err)
		}
	}
	if n := ours(); n != 0 {
		t.Errorf("%d functions left after Uninstall", n)
	}
	if v.int(t, "SELECT tpce_mine()") != 1 {
		t.Error("tpce_mine is gone")
	}
	for _, m := range v.modeSeq {
		if _, err := procs.New(ctx, v.c, m); err == nil || !strings.Contains(err.Error(), "installed") {
			t.Errorf("%s mode without its functions: %v", m, err)
		}
		if err := procs.Install(ctx, v.c, m); err != nil {
			t.Fatal(err)
		}
		if _, err := procs.New(ctx, v.c, m); err != nil {
			t.Error(err)
		}
	}
	if err := procs.Install(ctx, v.c, "compiled"); err == nil || !strings.Contains(err.Error(), `"compiled"`) {
		t.Errorf("install of mode compiled: %v", err)
	}
}

// TestUnsupportedEngines: SQLite has no server-side code: ErrUnsupported.
func TestUnsupportedEngines(t *testing.T) {
	ctx := context.Background()
	for _, db := range []struct {
		name   string
		target func(t *testing.T) engine.Target
	}{
		{"sqlite", func(t *testing.T) engine.Target { return testdb.SQLite(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			c := enginetest.Connect(t, enginetest.Open(t, db.target(t)))
			if err := procs.Install(ctx, c, procs.Procedure); !errors.Is(err, procs.ErrUnsupported) {
				t.Errorf("install: %v, want ErrUnsupported", err)
			}
			if err := procs.Uninstall(ctx, c); !errors.Is(err, procs.ErrUnsupported) {
				t.Errorf("uninstall: %v, want ErrUnsupported", err)
			}
			if _, err := procs.New(ctx, c, procs.Frames); !errors.Is(err, procs.ErrUnsupported) {
				t.Errorf("new: %v, want ErrUnsupported", err)
			}
		})
	}
}

// brokerByKey: on PostgreSQL, Trade-Result's frame 5 updates the broker by
// its key. The table is a page or two, which the planner scanned whole; at
// serializable isolation that predicate-locks every broker, and concurrent
// Trade-Results of different brokers failed each other. Frames mode, whose
// COMMIT the client sends, shows the open transaction's predicate locks;
// procedure mode runs the same frame text.
func brokerByKey(t *testing.T, v *env) {
	ctx := context.Background()
	g := enginetest.NewCommitGate(enginetest.Connect(t, v.e))
	cl, err := procs.New(ctx, g, procs.Frames)
	if err != nil {
		t.Fatal(err)
	}
	var pid int64
	if err := g.QueryRow(ctx, "SELECT pg_backend_pid()", nil, &pid); err != nil {
		t.Fatal(err)
	}
	if err := engine.SetIsolation(ctx, g, engine.Serializable); err != nil {
		t.Fatal(err)
	}
	acct := v.int(t, "SELECT MIN(hs_ca_id) FROM holding_summary WHERE hs_qty > 0")
	in := v.owner(t, acct)
	in.Symbol = v.str(t, "SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ? AND hs_qty > 0", acct)
	in.TradeTypeID, in.TradeQty, in.IsLIFO = txn.TypeMarketBuy, 100, true
	o, err := cl.TradeOrder(ctx, in)
	if err != nil {
		t.Fatalf("trade-order: %v", err)
	}
	g.Arm()
	done := make(chan error, 1)
	go func() {
		_, err := cl.TradeResult(ctx, txn.TradeResultInput{TradeID: o.TradeID, TradePrice: 20})
		done <- err
	}()
	select {
	case <-g.Reached():
	case err := <-done:
		t.Fatalf("the trade-result ended before its COMMIT: %v", err)
	}
	// The scan of the table locks it whole (a relation lock); the lookup
	// by key locks the index page it read.
	const locks = "SELECT COUNT(*) FROM pg_locks WHERE pid = ? AND mode = 'SIReadLock' AND locktype = ? AND relation = ?::regclass"
	whole := v.int(t, locks, pid, "relation", "broker")
	key := v.int(t, locks, pid, "page", v.str(t, "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = 'broker'::regclass AND indisprimary"))
	g.Release()
	if err := <-done; err != nil {
		t.Fatalf("trade-result: %v", err)
	}
	if whole != 0 || key != 1 {
		t.Errorf("the broker update predicate-locked %d tables broker and %d pages of its key; want one page of the key", whole, key)
	}
}
