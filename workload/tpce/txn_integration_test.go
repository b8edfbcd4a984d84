package tpce

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
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// env is one prepared database: the workload, a client and a second
// connection for the tests' own queries.
type env struct {
	t  *testing.T
	w  *TPCE
	e  engine.Engine
	cl *txn.Client
	c  engine.SQLConn // the tests' own queries
	cc engine.SQLConn // the client's connection
	db string         // the engine's test name
}

// transactions runs the transactions on e, prepared with w by
// TestOnEveryEngine (named db), after its checks.
func transactions(t *testing.T, db string, e engine.Engine, w *TPCE) {
	ctx := context.Background()
	c := enginetest.Connect(t, e)
	if err := txn.Install(ctx, c); err != nil {
		t.Fatalf("install: %v", err)
	}
	cc := enginetest.Connect(t, e)
	cl, err := txn.New(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	// Trade ids come from a sequence where the server has them.
	if want := map[bool]string{true: "max+1", false: "sequence"}[db == "sqlite"]; cl.IDSource() != want {
		t.Errorf("trade ids from %s, want %s", cl.IDSource(), want)
	}
	v := &env{t: t, w: w, e: e, cl: cl, c: c, cc: cc, db: db}
	t.Run("read_only", func(t *testing.T) { readOnly(t, v) })
	t.Run("pipelined", func(t *testing.T) { pipelined(t, v) })
	t.Run("writes", func(t *testing.T) { writes(t, v) })
	t.Run("data_maintenance", func(t *testing.T) { maintenance(t, v) })
	if db == "postgres" { // the catalogue of prepared statements' parameter types is PostgreSQL's
		t.Run("parameter_types", func(t *testing.T) { paramTypes(t, v) })
	}
	t.Run("install_uninstall", func(t *testing.T) { install(t, v) })
	v.t = t
	v.check()
}

func (v *env) int(sql string, args ...any) int64 {
	v.t.Helper()
	var n int64
	if err := v.c.QueryRow(context.Background(), sql, args, &n); err != nil {
		v.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (v *env) float(sql string, args ...any) float64 {
	v.t.Helper()
	var n float64
	if err := v.c.QueryRow(context.Background(), sql, args, &n); err != nil {
		v.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (v *env) str(sql string, args ...any) string {
	v.t.Helper()
	var s string
	if err := v.c.QueryRow(context.Background(), sql, args, &s); err != nil {
		v.t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func (v *env) ts(sql string, args ...any) time.Time {
	v.t.Helper()
	var s time.Time
	if err := v.c.QueryRow(context.Background(), sql, args, &s); err != nil {
		v.t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func (v *env) exec(sql string) {
	v.t.Helper()
	if err := v.c.Exec(context.Background(), sql); err != nil {
		v.t.Fatalf("%s: %v", sql, err)
	}
}

func (v *env) check() {
	v.t.Helper()
	problems, err := v.w.Define().Check(context.Background(), v.c)
	if err != nil || len(problems) > 0 {
		v.t.Fatalf("check: %v %v", problems, err)
	}
}

// checkStep checks the data after one write transaction on PostgreSQL,
// where the check is quick; on the other engines the check at the end of
// transactions covers the same writes (a full check after every step
// there took a third of the package's time).
func (v *env) checkStep() {
	v.t.Helper()
	if v.db == "postgres" {
		v.check()
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.005 }

func readOnly(t *testing.T, v *env) {
	ctx := context.Background()
	v.t = t
	t.Run("trade_status", func(t *testing.T) {
		v.t = t
		acct := v.int("SELECT t_ca_id FROM trade GROUP BY t_ca_id HAVING COUNT(*) >= 50 ORDER BY t_ca_id LIMIT 1")
		before := v.cl.Queries
		out, err := v.cl.TradeStatus(ctx, txn.TradeStatusInput{AcctID: acct})
		if err != nil {
			t.Fatal(err)
		}
		if q := v.cl.Queries; q.Reads-before.Reads != 2 || q.Writes != before.Writes || q.Other-before.Other != 2 {
			t.Errorf("queries counted %+v → %+v, want 2 reads and BEGIN, COMMIT", before, q)
		}
		if len(out.Trades) != 50 {
			t.Fatalf("%d trades, want 50", len(out.Trades))
		}
		for i := 1; i < len(out.Trades); i++ {
			if out.Trades[i].Dts.After(out.Trades[i-1].Dts) {
				t.Fatalf("trade %d at %s after trade %d at %s", i, out.Trades[i].Dts, i-1, out.Trades[i-1].Dts)
			}
		}
		newest := v.ts("SELECT t_dts FROM trade WHERE t_ca_id = ? ORDER BY t_dts DESC LIMIT 1", acct)
		if !out.Trades[0].Dts.Equal(newest) {
			t.Errorf("first trade at %s, newest is %s", out.Trades[0].Dts, newest)
		}
		if got, want := out.Trades[49].Dts, v.ts(`SELECT t_dts FROM trade WHERE t_ca_id = ? ORDER BY t_dts DESC LIMIT 1 OFFSET 49`, acct); !got.Equal(want) {
			t.Errorf("50th trade at %s, want %s", got, want)
		}
		tr := out.Trades[0]
		if want := v.str("SELECT s_name FROM security WHERE s_symb = ?", tr.Symbol); tr.SecName != want {
			t.Errorf("s_name %q, want %q", tr.SecName, want)
		}
		if want := v.str("SELECT b_name FROM broker, customer_account WHERE ca_id = ? AND b_id = ca_b_id", acct); out.BrokerName != want {
			t.Errorf("broker %q, want %q", out.BrokerName, want)
		}
		if want := v.str("SELECT c_l_name FROM customer, customer_account WHERE ca_id = ? AND c_id = ca_c_id", acct); out.CustLName != want {
			t.Errorf("customer %q, want %q", out.CustLName, want)
		}
	})
	t.Run("customer_position", func(t *testing.T) {
		v.t = t
		cust := v.int("SELECT MIN(hs_ca_id) FROM holding_summary")
		cust = v.int("SELECT ca_c_id FROM customer_account WHERE ca_id = ?", cust)
		tax := v.str("SELECT c_tax_id FROM customer WHERE c_id = ?", cust)
		out, err := v.cl.CustomerPosition(ctx, txn.CustomerPositionInput{TaxID: tax, GetHistory: true})
		if err != nil {
			t.Fatal(err)
		}
		if out.CustID != cust {
			t.Fatalf("customer %d by tax id %q, want %d", out.CustID, tax, cust)
		}
		if n := v.int("SELECT COUNT(*) FROM customer_account WHERE ca_c_id = ?", cust); int64(len(out.Accounts)) != min(n, 10) {
			t.Errorf("%d accounts, want %d", len(out.Accounts), min(n, 10))
		}
		var any bool
		for i, a := range out.Accounts {
			if i > 0 && a.AssetsTot < out.Accounts[i-1].AssetsTot {
				t.Errorf("accounts not by total assets: %v", out.Accounts)
			}
			bal := v.float("SELECT ca_bal FROM customer_account WHERE ca_id = ?", a.AcctID)
			var assets float64
			if v.int("SELECT COUNT(*) FROM holding_summary WHERE hs_ca_id = ?", a.AcctID) > 0 {
				assets = v.float(`SELECT SUM(hs_qty * (SELECT lt_price FROM last_trade WHERE lt_s_symb = hs_s_symb)) FROM holding_summary WHERE hs_ca_id = ?`, a.AcctID)
				any = true
			}
			if !near(a.CashBal, bal) || !near(a.AssetsTot, assets) {
				t.Errorf("account %d: balance %.2f assets %.2f, want %.2f and %.2f", a.AcctID, a.CashBal, a.AssetsTot, bal, assets)
			}
		}
		if !any {
			t.Error("no account with holdings: the sums were not tested")
		}
		acct := out.Accounts[0].AcctID
		n := v.int("SELECT COUNT(*) FROM trade_history WHERE th_t_id IN (SELECT t_id FROM trade WHERE t_ca_id = ?)", acct)
		if len(out.History) == 0 && n > 0 || len(out.History) > 30 {
			t.Errorf("%d history rows (account has %d)", len(out.History), n)
		}
		for _, h := range out.History {
			if got := v.int("SELECT t_ca_id FROM trade WHERE t_id = ?", h.TradeID); got != acct {
				t.Errorf("history of trade %d of account %d, want account %d", h.TradeID, got, acct)
			}
		}
		byID, err := v.cl.CustomerPosition(ctx, txn.CustomerPositionInput{CustID: cust})
		if err != nil {
			t.Fatal(err)
		}
		if byID.TaxID != tax || len(byID.Accounts) != len(out.Accounts) || byID.History != nil {
			t.Errorf("by id: %+v, by tax id: %+v", byID, out)
		}
	})
	t.Run("security_detail", func(t *testing.T) {
		v.t = t
		symb := v.str("SELECT MIN(s_symb) FROM security")
		start := v.ts("SELECT dm_date FROM daily_market WHERE dm_s_symb = ? ORDER BY dm_date LIMIT 1", symb).AddDate(0, 0, 10)
		for _, lob := range []bool{false, true} {
			out, err := v.cl.SecurityDetail(ctx, txn.SecurityDetailInput{Symbol: symb, MaxRowsToReturn: 15, StartDay: start, AccessLOBFlag: lob})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Days) != 15 || out.Days[0].Date.Before(start) || len(out.Financials) != 20 || len(out.Competitors) != 3 || len(out.News) != 2 {
				t.Fatalf("%d days (first %v, start %v), %d financials, %d competitors, %d news", len(out.Days), out.Days[0].Date, start, len(out.Financials), len(out.Competitors), len(out.News))
			}
			for i := 1; i < len(out.Days); i++ {
				if !out.Days[i].Date.After(out.Days[i-1].Date) {
					t.Errorf("days not in order: %v then %v", out.Days[i-1].Date, out.Days[i].Date)
				}
			}
			if want := v.float("SELECT lt_price FROM last_trade WHERE lt_s_symb = ?", symb); !near(out.LastPrice, want) {
				t.Errorf("last price %.2f, want %.2f", out.LastPrice, want)
			}
			if want := v.str("SELECT co_name FROM company, security WHERE s_symb = ? AND co_id = s_co_id", symb); out.CoName != want {
				t.Errorf("company %q, want %q", out.CoName, want)
			}
			for _, n := range out.News {
				if lob && len(n.Item) != 100 || !lob && (n.Item != nil || n.Headline == "") {
					t.Errorf("lob=%v: news item of %d bytes, headline %q", lob, len(n.Item), n.Headline)
				}
			}
		}
	})
	t.Run("market_watch", func(t *testing.T) {
		v.t = t
		day := v.ts("SELECT dm_date FROM daily_market ORDER BY dm_date DESC LIMIT 1").AddDate(0, 0, -30)
		for day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
			day = day.AddDate(0, 0, -1)
		}
		cust := int64(7)
		out, err := v.cl.MarketWatch(ctx, txn.MarketWatchInput{CustID: cust, StartDay: day})
		if err != nil {
			t.Fatal(err)
		}
		q := `SELECT SUM(s_num_out * %s) FROM watch_list, watch_item, security, last_trade, daily_market
			WHERE wl_c_id = ? AND wi_wl_id = wl_id AND s_symb = wi_s_symb AND lt_s_symb = s_symb AND dm_s_symb = s_symb AND dm_date = ?`
		newCap, oldCap := v.float(fmt.Sprintf(q, "lt_price"), cust, day), v.float(fmt.Sprintf(q, "dm_close"), cust, day)
		want := 100 * (newCap/oldCap - 1)
		n := v.int("SELECT COUNT(*) FROM watch_list, watch_item WHERE wl_c_id = ? AND wi_wl_id = wl_id", cust)
		if math.Abs(out.PctChange-want) > 1e-6 || int64(out.Symbols) != n || n == 0 {
			t.Errorf("%.6f%% over %d symbols, want %.6f%% over %d", out.PctChange, out.Symbols, want, n)
		}
		acct := v.int("SELECT MIN(hs_ca_id) FROM holding_summary")
		out, err = v.cl.MarketWatch(ctx, txn.MarketWatchInput{AcctID: acct, StartDay: day})
		if err != nil || int64(out.Symbols) != v.int("SELECT COUNT(*) FROM holding_summary WHERE hs_ca_id = ?", acct) {
			t.Errorf("holdings: %+v %v", out, err)
		}
		ind := v.str("SELECT MIN(in_name) FROM industry, company WHERE co_in_id = in_id")
		out, err = v.cl.MarketWatch(ctx, txn.MarketWatchInput{IndustryName: ind, StartingCoID: 1, EndingCoID: 5000, StartDay: day})
		if err != nil || int64(out.Symbols) != v.int("SELECT COUNT(*) FROM industry, company, security WHERE in_name = ? AND co_in_id = in_id AND s_co_id = co_id", ind) {
			t.Errorf("industry: %+v %v", out, err)
		}
	})
	t.Run("broker_volume", func(t *testing.T) {
		v.t = t
		// Two pending requests of broker 1 and one of broker 2, on trades
		// of one sector's securities; removed after.
		sector := v.str("SELECT MIN(sc_name) FROM sector")
		q := `SELECT MIN(t_id) FROM trade, security, company, industry, sector
			WHERE s_symb = t_s_symb AND co_id = s_co_id AND in_id = co_in_id AND sc_id = in_sc_id AND sc_name = ? AND t_id > ?`
		var ids []int64
		var last int64
		for range 3 {
			last = v.int(q, sector, last)
			ids = append(ids, last)
		}
		for i, id := range ids {
			v.exec(fmt.Sprintf("INSERT INTO trade_request SELECT t_id, t_tt_id, t_s_symb, %d, 25.5, %d FROM trade WHERE t_id = %d", 100*(i+1), 1+i/2, id))
		}
		defer v.exec("DELETE FROM trade_request")
		b1, b2 := v.str("SELECT b_name FROM broker WHERE b_id = 1"), v.str("SELECT b_name FROM broker WHERE b_id = 2")
		out, err := v.cl.BrokerVolume(ctx, txn.BrokerVolumeInput{BrokerList: []string{b1, b2, "nobody"}, SectorName: sector})
		if err != nil {
			t.Fatal(err)
		}
		want := []txn.BrokerVolume{{Broker: b2, Volume: 300 * 25.5}, {Broker: b1, Volume: 300 * 25.5}}
		if b1 < b2 {
			want[0], want[1] = want[1], want[0]
		}
		if len(out) != 2 || out[0].Broker != want[0].Broker || !near(out[0].Volume, want[0].Volume) || !near(out[1].Volume, want[1].Volume) {
			t.Errorf("volumes %+v, want %+v", out, want)
		}
	})
	t.Run("trade_lookup", func(t *testing.T) {
		v.t = t
		first := v.int("SELECT MIN(t_id) FROM trade")
		var ids []int64
		for id := first; len(ids) < 20; id++ {
			if v.int("SELECT COUNT(*) FROM trade WHERE t_id = ?", id) == 1 {
				ids = append(ids, id)
			}
		}
		out, err := v.cl.TradeLookup(ctx, txn.TradeLookupInput{Frame: 1, TradeIDs: ids})
		if err != nil || len(out.Trades) != 20 {
			t.Fatalf("frame 1: %d trades, %v", len(out.Trades), err)
		}
		for _, tr := range out.Trades {
			if want := v.float("SELECT se_amt FROM settlement WHERE se_t_id = ?", tr.TradeID); !near(tr.SettleAmt, want) {
				t.Errorf("trade %d: settlement %.2f, want %.2f", tr.TradeID, tr.SettleAmt, want)
			}
			if tr.IsCash != (tr.CashName != "") || len(tr.HistStatus) < 2 || tr.HistStatus[len(tr.HistStatus)-1] != txn.StatusCompleted {
				t.Errorf("trade %d: cash %v %q, history %v", tr.TradeID, tr.IsCash, tr.CashName, tr.HistStatus)
			}
		}
		acct := v.int("SELECT t_ca_id FROM trade WHERE t_id = ?", first)
		from, to := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
		n := v.int("SELECT COUNT(*) FROM trade WHERE t_ca_id = ?", acct)
		out, err = v.cl.TradeLookup(ctx, txn.TradeLookupInput{Frame: 2, AcctID: acct, StartTradeDts: from, EndTradeDts: to, MaxTrades: 20})
		if err != nil || int64(len(out.Trades)) != min(n, 20) || !out.Trades[0].Dts.Equal(v.ts("SELECT t_dts FROM trade WHERE t_ca_id = ? ORDER BY t_dts LIMIT 1", acct)) {
			t.Errorf("frame 2: %d trades of %d, %v", len(out.Trades), n, err)
		}
		symb := v.str("SELECT t_s_symb FROM trade WHERE t_id = ?", first)
		out, err = v.cl.TradeLookup(ctx, txn.TradeLookupInput{Frame: 3, Symbol: symb, StartTradeDts: from, EndTradeDts: to, MaxTrades: 20})
		n = v.int("SELECT COUNT(*) FROM trade WHERE t_s_symb = ?", symb)
		if err != nil || int64(len(out.Trades)) != min(n, 20) {
			t.Errorf("frame 3: %d trades of %d, %v", len(out.Trades), n, err)
		}
		for i := 1; i < len(out.Trades); i++ {
			if out.Trades[i].Dts.Before(out.Trades[i-1].Dts) {
				t.Errorf("frame 3: trades not in time order")
			}
		}
		out, err = v.cl.TradeLookup(ctx, txn.TradeLookupInput{Frame: 4, AcctID: acct, StartTradeDts: from})
		if err != nil || out.TradeID == 0 || len(out.History) > 20 {
			t.Errorf("frame 4: %+v %v", out, err)
		}
		if got := v.ts("SELECT t_dts FROM trade WHERE t_id = ?", out.TradeID); !got.Equal(v.ts("SELECT t_dts FROM trade WHERE t_ca_id = ? ORDER BY t_dts LIMIT 1", acct)) {
			t.Errorf("frame 4: trade %d at %s is not the account's first", out.TradeID, got)
		}
	})
}

// account is what a test reads of an account before and after a trade.
type account struct {
	hsQty, lotQty, lots, brokerTrades int64
	bal, brokerComm                   float64
}

func (v *env) account(acct int64, symb string) account {
	v.t.Helper()
	var a account
	if v.int("SELECT COUNT(*) FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?", acct, symb) > 0 {
		a.hsQty = v.int("SELECT hs_qty FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?", acct, symb)
	}
	a.lots = v.int("SELECT COUNT(*) FROM holding WHERE h_ca_id = ? AND h_s_symb = ?", acct, symb)
	a.lotQty = v.int("SELECT COALESCE(SUM(h_qty), 0) FROM holding WHERE h_ca_id = ? AND h_s_symb = ?", acct, symb)
	a.bal = v.float("SELECT ca_bal FROM customer_account WHERE ca_id = ?", acct)
	a.brokerTrades = v.int("SELECT b_num_trades FROM broker, customer_account WHERE ca_id = ? AND b_id = ca_b_id", acct)
	a.brokerComm = v.float("SELECT b_comm_total FROM broker, customer_account WHERE ca_id = ? AND b_id = ca_b_id", acct)
	return a
}

// owner is the order input of an account's owner.
func (v *env) owner(acct int64) txn.TradeOrderInput {
	in := txn.TradeOrderInput{AcctID: acct}
	cust := v.int("SELECT ca_c_id FROM customer_account WHERE ca_id = ?", acct)
	in.ExecFName = v.str("SELECT c_f_name FROM customer WHERE c_id = ?", cust)
	in.ExecLName = v.str("SELECT c_l_name FROM customer WHERE c_id = ?", cust)
	in.ExecTaxID = v.str("SELECT c_tax_id FROM customer WHERE c_id = ?", cust)
	return in
}

func writes(t *testing.T, v *env) {
	ctx := context.Background()
	v.t = t
	maxInitial := v.int("SELECT MAX(t_id) FROM trade")
	acct := v.int("SELECT MIN(hs_ca_id) FROM holding_summary WHERE hs_qty > 0")
	symb := v.str("SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ? AND hs_qty > 0", acct)
	trades := v.int("SELECT COUNT(*) FROM trade")

	// buySell buys 200 shares of symb for acct, then sells them all and
	// 100 more, on cl, and checks what each result moved.
	buySell := func(t *testing.T, cl *txn.Client, acct int64, symb string) {
		taxSt := v.int("SELECT ca_tax_st FROM customer_account WHERE ca_id = ?", acct)

		// trade places an order, has the market execute it at price and
		// checks what the result moved.
		trade := func(t *testing.T, in txn.TradeOrderInput, price float64) (*txn.TradeOrderOutput, *txn.TradeResultOutput) {
			v.t = t
			before := v.account(acct, symb)
			o, err := cl.TradeOrder(ctx, in)
			if err != nil {
				t.Fatalf("trade-order: %v", err)
			}
			if o.TradeID <= maxInitial || o.Status != txn.StatusSubmitted {
				t.Fatalf("order %+v", o)
			}
			r, err := cl.TradeResult(ctx, txn.TradeResultInput{TradeID: o.TradeID, TradePrice: price})
			if err != nil {
				t.Fatalf("trade-result: %v", err)
			}
			after := v.account(acct, symb)
			q := in.TradeQty
			if o.IsSell {
				q = -q
			}
			if after.hsQty != before.hsQty+q || after.lotQty != after.hsQty {
				t.Errorf("hs_qty %d → %d, lots %d, trade of %d", before.hsQty, after.hsQty, after.lotQty, q)
			}
			if after.brokerTrades != before.brokerTrades+1 || !near(after.brokerComm, before.brokerComm+r.CommAmount) {
				t.Errorf("broker %d, %.2f → %d, %.2f; commission %.2f", before.brokerTrades, before.brokerComm, after.brokerTrades, after.brokerComm, r.CommAmount)
			}
			value := float64(in.TradeQty) * price
			want := -(value + o.ChargeAmount + r.CommAmount)
			if o.IsSell {
				want = value - o.ChargeAmount - r.CommAmount
				if taxSt == 1 {
					want -= r.TaxAmount
				}
			}
			if !near(r.SettleAmt, want) || !near(v.float("SELECT se_amt FROM settlement WHERE se_t_id = ?", o.TradeID), want) {
				t.Errorf("settlement %.2f, want %.2f", r.SettleAmt, want)
			}
			if !near(after.bal, before.bal+want) || !near(r.AcctBal, after.bal) {
				t.Errorf("ca_bal %.2f → %.2f (returned %.2f), settlement %.2f", before.bal, after.bal, r.AcctBal, want)
			}
			if rate := v.float("SELECT SUM(tx_rate) FROM taxrate, customer_taxrate, customer_account WHERE ca_id = ? AND cx_c_id = ca_c_id AND tx_id = cx_tx_id", acct); (taxSt == 1 || taxSt == 2) && r.SellValue > r.BuyValue {
				if want := math.Round((r.SellValue-r.BuyValue)*rate*100) / 100; !near(r.TaxAmount, want) || !near(v.float("SELECT t_tax FROM trade WHERE t_id = ?", o.TradeID), want) {
					t.Errorf("tax %.2f, want %.2f", r.TaxAmount, want)
				}
			} else if r.TaxAmount != 0 {
				t.Errorf("tax %.2f without a taxable gain", r.TaxAmount)
			}
			if got := v.str("SELECT t_st_id FROM trade WHERE t_id = ?", o.TradeID); got != txn.StatusCompleted {
				t.Errorf("trade status %s", got)
			}
			v.checkStep()
			return o, r
		}
		t.Run("trade_order_result_buy", func(t *testing.T) {
			in := v.owner(acct)
			in.Symbol, in.TradeTypeID, in.TradeQty, in.IsLIFO = symb, txn.TypeMarketBuy, 200, true
			before := v.account(acct, symb)
			o, _ := trade(t, in, 25)
			after := v.account(acct, symb)
			if after.lots != before.lots+1 || v.int("SELECT h_qty FROM holding WHERE h_t_id = ?", o.TradeID) != 200 {
				t.Errorf("lots %d → %d; want a new lot of 200", before.lots, after.lots)
			}
		})
		t.Run("trade_order_result_sell_short", func(t *testing.T) {
			in := v.owner(acct)
			before := v.account(acct, symb)
			in.CoName = v.str("SELECT co_name FROM company, security WHERE s_symb = ? AND co_id = s_co_id", symb)
			in.Issue = v.str("SELECT s_issue FROM security WHERE s_symb = ?", symb)
			in.TradeTypeID, in.TradeQty = txn.TypeMarketSell, before.hsQty+100
			cost := v.float("SELECT SUM(h_qty * h_price) FROM holding WHERE h_ca_id = ? AND h_s_symb = ?", acct, symb)
			o, r := trade(t, in, 26)
			if !near(r.BuyValue, cost) || !near(r.SellValue, float64(in.TradeQty)*26) {
				t.Errorf("buy value %.2f, sell value %.2f; want the lots' cost %.2f and %.2f", r.BuyValue, r.SellValue, cost, float64(in.TradeQty)*26)
			}
			after := v.account(acct, symb)
			if after.lots != 1 || after.hsQty != -100 || v.int("SELECT h_qty FROM holding WHERE h_t_id = ?", o.TradeID) != -100 {
				t.Errorf("after selling all and 100 more: %d lots, hs_qty %d", after.lots, after.hsQty)
			}
			if n := v.int("SELECT COUNT(*) FROM holding_history WHERE hh_t_id = ?", o.TradeID); n != before.lots+1 {
				t.Errorf("%d holding_history rows, want %d", n, before.lots+1)
			}
		})
	}
	buySell(t, v.cl, acct, symb)
	// The same with the statements that do not depend on each other sent
	// together (--pipeline), on another account.
	p, err := txn.New(ctx, enginetest.Connect(t, v.e))
	if err != nil {
		t.Fatal(err)
	}
	p.Pipeline = true
	acct2 := v.int("SELECT MIN(hs_ca_id) FROM holding_summary WHERE hs_qty > 0 AND hs_ca_id > ?", acct)
	symb2 := v.str("SELECT MIN(hs_s_symb) FROM holding_summary WHERE hs_ca_id = ? AND hs_qty > 0", acct2)
	t.Run("pipelined", func(t *testing.T) { buySell(t, p, acct2, symb2) })
	v.t = t

	t.Run("limit_order_market_feed", func(t *testing.T) {
		v.t = t
		in := v.owner(acct)
		in.Symbol, in.TradeTypeID, in.TradeQty, in.RequestedPrice = symb, txn.TypeLimitBuy, 100, 29.5
		o, err := v.cl.TradeOrder(ctx, in)
		if err != nil || o.Status != txn.StatusPending || v.int("SELECT COUNT(*) FROM trade_request WHERE tr_t_id = ?", o.TradeID) != 1 {
			t.Fatalf("limit order %+v: %v", o, err)
		}
		hits, err := v.cl.MarketFeed(ctx, txn.MarketFeedInput{Entries: []txn.TickerEntry{{Symbol: symb, PriceQuote: 30, TradeQty: 100}}})
		if err != nil || len(hits) != 0 {
			t.Fatalf("price above the limit triggered %v: %v", hits, err)
		}
		hits, err = v.cl.MarketFeed(ctx, txn.MarketFeedInput{Entries: []txn.TickerEntry{{Symbol: symb, PriceQuote: 29, TradeQty: 100}}})
		if err != nil || len(hits) != 1 || hits[0].TradeID != o.TradeID {
			t.Fatalf("triggered %v, want trade %d: %v", hits, o.TradeID, err)
		}
		if v.int("SELECT COUNT(*) FROM trade_request") != 0 || v.str("SELECT t_st_id FROM trade WHERE t_id = ?", o.TradeID) != txn.StatusSubmitted {
			t.Fatal("the triggered order is still pending")
		}
		if v.float("SELECT lt_price FROM last_trade WHERE lt_s_symb = ?", symb) != 29 {
			t.Error("last_trade not updated")
		}
		// The buy covers the account's short lot of 100: the lot and the
		// summary go.
		short := v.int("SELECT h_t_id FROM holding WHERE h_ca_id = ? AND h_s_symb = ?", acct, symb)
		if _, err := v.cl.TradeResult(ctx, txn.TradeResultInput{TradeID: o.TradeID, TradePrice: 29}); err != nil {
			t.Fatal(err)
		}
		if a := v.account(acct, symb); a.hsQty != 0 || a.lots != 0 || v.int("SELECT COUNT(*) FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?", acct, symb) != 0 {
			t.Errorf("after covering the short lot: %+v", a)
		}
		if v.int("SELECT hh_before_qty FROM holding_history WHERE hh_h_t_id = ? AND hh_t_id = ?", short, o.TradeID) != -100 ||
			v.int("SELECT hh_after_qty FROM holding_history WHERE hh_h_t_id = ? AND hh_t_id = ?", short, o.TradeID) != 0 {
			t.Error("the covered lot's history is not -100 → 0")
		}
		v.checkStep()
	})
	t.Run("intended_rollback", func(t *testing.T) {
		v.t = t
		n := v.int("SELECT COUNT(*) FROM trade")
		in := v.owner(acct)
		in.Symbol, in.TradeTypeID, in.TradeQty, in.RequestedPrice, in.RollItBack = symb, txn.TypeLimitSell, 400, 21, true
		o, err := v.cl.TradeOrder(ctx, in)
		if !errors.Is(err, workload.ErrRollback) {
			t.Fatalf("rollback: %v", err)
		}
		if v.int("SELECT COUNT(*) FROM trade") != n || v.int("SELECT COUNT(*) FROM trade_request") != 0 ||
			v.int("SELECT COUNT(*) FROM trade_history WHERE th_t_id = ?", o.TradeID) != 0 {
			t.Error("the rolled back order left rows")
		}
		in.RollItBack = false
		in.ExecFName, in.ExecTaxID = "Nobody", "000-00-0000"
		if _, err := v.cl.TradeOrder(ctx, in); !errors.Is(err, txn.ErrNoPermission) {
			t.Errorf("a stranger's order: %v", err)
		}
		if v.int("SELECT COUNT(*) FROM trade") != n {
			t.Error("the refused order left rows")
		}
	})
	t.Run("trade_update", func(t *testing.T) {
		v.t = t
		id := v.int("SELECT MIN(t_id) FROM trade")
		name := v.str("SELECT t_exec_name FROM trade WHERE t_id = ?", id)
		out, err := v.cl.TradeUpdate(ctx, txn.TradeUpdateInput{TradeLookupInput: txn.TradeLookupInput{Frame: 1, TradeIDs: []int64{id}}, MaxUpdates: 1})
		if err != nil || out.Updated != 1 {
			t.Fatalf("frame 1: %+v %v", out, err)
		}
		if got := v.str("SELECT t_exec_name FROM trade WHERE t_id = ?", id); got == name || got != out.Trades[0].ExecName {
			t.Errorf("exec name %q → %q", name, got)
		}
		from, to := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
		acctOf := v.int("SELECT t_ca_id FROM trade WHERE t_id = ?", id)
		out, err = v.cl.TradeUpdate(ctx, txn.TradeUpdateInput{TradeLookupInput: txn.TradeLookupInput{Frame: 2, AcctID: acctOf, StartTradeDts: from, EndTradeDts: to}, MaxUpdates: 20})
		if err != nil || out.Updated == 0 {
			t.Errorf("frame 2: %+v %v", out, err)
		}
		out, err = v.cl.TradeUpdate(ctx, txn.TradeUpdateInput{TradeLookupInput: txn.TradeLookupInput{Frame: 3, Symbol: symb, StartTradeDts: from, EndTradeDts: to}, MaxUpdates: 20})
		if err != nil {
			t.Errorf("frame 3: %+v %v", out, err)
		}
		v.checkStep()
	})
	t.Run("trade_cleanup", func(t *testing.T) {
		v.t = t
		in := v.owner(acct)
		in.Symbol, in.TradeTypeID, in.TradeQty, in.RequestedPrice = symb, txn.TypeStopLoss, 100, 20.5
		o, err := v.cl.TradeOrder(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		n, err := v.cl.TradeCleanup(ctx, txn.TradeCleanupInput{StartTradeID: maxInitial + 1})
		if err != nil || n != 1 {
			t.Fatalf("canceled %d: %v", n, err)
		}
		if v.int("SELECT COUNT(*) FROM trade_request") != 0 || v.str("SELECT t_st_id FROM trade WHERE t_id = ?", o.TradeID) != txn.StatusCanceled {
			t.Error("the pending order is not canceled")
		}
		v.checkStep()
	})
	v.t = t
	if got := v.int("SELECT COUNT(*) FROM trade"); got != trades+6 {
		t.Errorf("%d trades, want %d + 6", got, trades)
	}
	if v.db == "postgres" {
		t.Run("broker_by_key", func(t *testing.T) { brokerByKey(t, v, acct2, symb2) })
	}
}

func maintenance(t *testing.T, v *env) {
	ctx := context.Background()
	v.t = t
	cust := v.int("SELECT MIN(c_id) FROM customer WHERE c_email_2 IS NOT NULL")
	in := txn.DataMaintenanceInput{
		AcctID: v.int("SELECT MIN(ca_id) FROM customer_account WHERE ca_c_id = ?", cust), CID: cust, CoID: 3,
		TxID: "US2", Symbol: v.str("SELECT MIN(s_symb) FROM security"), DayOfMonth: 15, VolIncr: 7,
	}
	sp := v.str("SELECT co_sp_rate FROM company WHERE co_id = 3")
	vol := v.int("SELECT SUM(dm_vol) FROM daily_market WHERE dm_s_symb = ?", in.Symbol)
	for _, table := range txn.MaintainedTables {
		in.TableName = table
		n, err := v.cl.DataMaintenance(ctx, in)
		if err != nil || n == 0 {
			t.Errorf("%s: %d rows changed, %v", table, n, err)
		}
	}
	if got := v.str("SELECT co_sp_rate FROM company WHERE co_id = 3"); got == sp {
		t.Errorf("co_sp_rate still %q", got)
	}
	if got := v.int("SELECT SUM(dm_vol) FROM daily_market WHERE dm_s_symb = ?", in.Symbol); got <= vol || (got-vol)%7 != 0 {
		t.Errorf("dm_vol sum %d → %d, want a multiple of 7 more", vol, got)
	}
	if _, err := v.cl.DataMaintenance(ctx, txn.DataMaintenanceInput{TableName: "broker"}); err == nil || !strings.Contains(err.Error(), `"broker"`) {
		t.Errorf("an unknown table: %v", err)
	}
	if _, err := v.cl.SecurityDetail(ctx, txn.SecurityDetailInput{Symbol: in.Symbol, MaxRowsToReturn: 21}); err == nil {
		t.Error("security-detail of 21 rows accepted")
	}
	v.checkStep()
}

// install checks that Install is idempotent and that the ids it numbers
// follow the trades, and that Uninstall drops only what Install made.
func install(t *testing.T, v *env) {
	ctx := context.Background()
	v.t = t
	if err := txn.Install(ctx, v.c); err != nil {
		t.Fatalf("second install: %v", err)
	}
	if err := txn.Uninstall(ctx, v.c); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	cl, err := txn.New(ctx, v.c)
	if err != nil {
		t.Fatal(err)
	}
	if cl.IDSource() != "max+1" {
		t.Errorf("after uninstall, trade ids from %s", cl.IDSource())
	}
	if err := txn.Uninstall(ctx, v.c); err != nil {
		t.Errorf("uninstall of nothing: %v", err)
	}
}

// pipelined checks that the transactions that batch their independent
// statements return the same as when they send them one by one.
func pipelined(t *testing.T, v *env) {
	ctx := context.Background()
	v.t = t
	p, err := txn.New(ctx, enginetest.Connect(t, v.e))
	if err != nil {
		t.Fatal(err)
	}
	p.Pipeline = true
	same := func(what string, a, b any, errA, errB error) {
		t.Helper()
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, pipelined: %v", what, errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: %+v, pipelined %+v", what, a, b)
		}
	}
	acct := v.int("SELECT MIN(hs_ca_id) FROM holding_summary")
	a, errA := v.cl.TradeStatus(ctx, txn.TradeStatusInput{AcctID: acct})
	b, errB := p.TradeStatus(ctx, txn.TradeStatusInput{AcctID: acct})
	same("trade-status", a, b, errA, errB)
	symb := v.str("SELECT MAX(s_symb) FROM security")
	day := v.ts("SELECT dm_date FROM daily_market WHERE dm_s_symb = ? ORDER BY dm_date LIMIT 1", symb).AddDate(0, 0, 100)
	for _, lob := range []bool{false, true} {
		in := txn.SecurityDetailInput{Symbol: symb, MaxRowsToReturn: 5, StartDay: day, AccessLOBFlag: lob}
		a, errA := v.cl.SecurityDetail(ctx, in)
		b, errB := p.SecurityDetail(ctx, in)
		same("security-detail", a, b, errA, errB)
	}
	if _, err := p.SecurityDetail(ctx, txn.SecurityDetailInput{Symbol: "NOSUCH", MaxRowsToReturn: 5, StartDay: day}); !errors.Is(err, txn.ErrNotFound) {
		t.Errorf("security-detail of an unknown symbol: %v", err)
	}
	if _, err := p.TradeStatus(ctx, txn.TradeStatusInput{AcctID: -1}); !errors.Is(err, txn.ErrNotFound) {
		t.Errorf("trade-status of an unknown account: %v", err)
	}
	ind := v.str("SELECT MAX(in_name) FROM industry, company WHERE co_in_id = in_id")
	for _, in := range []txn.MarketWatchInput{{CustID: 11}, {AcctID: acct}, {IndustryName: ind, StartingCoID: 1, EndingCoID: 500}} {
		in.StartDay = day
		a, errA := v.cl.MarketWatch(ctx, in)
		b, errB := p.MarketWatch(ctx, in)
		same(fmt.Sprintf("market-watch %+v", in), a, b, errA, errB)
		if a != nil && a.Symbols == 0 {
			t.Errorf("market-watch %+v priced no symbol", in)
		}
	}
	tax := v.str("SELECT c_tax_id FROM customer WHERE c_id = ?", v.int("SELECT MIN(c_id) FROM customer"))
	for _, in := range []txn.CustomerPositionInput{{TaxID: tax, GetHistory: true}, {CustID: v.int("SELECT MAX(c_id) FROM customer"), GetHistory: true, AcctIDIdx: 1}} {
		a, errA := v.cl.CustomerPosition(ctx, in)
		b, errB := p.CustomerPosition(ctx, in)
		same(fmt.Sprintf("customer-position %+v", in), a, b, errA, errB)
		if a != nil && (len(a.Accounts) == 0 || len(a.History) == 0) {
			t.Errorf("customer-position %+v: %d accounts, %d history rows", in, len(a.Accounts), len(a.History))
		}
	}
	// Trade-Lookup's frames 1 to 3 read the trades' details in one batch;
	// frame 1 its trades too. Trade-Update reads the same way: what it
	// returns (after its changes) is what a lookup one by one finds next.
	first := v.int("SELECT MIN(t_id) FROM trade")
	var ids []int64
	for id := first; len(ids) < txn.MaxTrades; id++ {
		if v.int("SELECT COUNT(*) FROM trade WHERE t_id = ?", id) == 1 {
			ids = append(ids, id)
		}
	}
	cashAcct := v.int("SELECT t_ca_id FROM trade WHERE t_is_cash ORDER BY t_id LIMIT 1")
	tsymb := v.str("SELECT t_s_symb FROM trade WHERE t_id = ?", first)
	from, to := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	lookups := []txn.TradeLookupInput{
		{Frame: 1, TradeIDs: ids},
		{Frame: 2, AcctID: cashAcct, StartTradeDts: from, EndTradeDts: to, MaxTrades: txn.MaxTrades},
		{Frame: 3, Symbol: tsymb, StartTradeDts: from, EndTradeDts: to, MaxTrades: txn.MaxTrades},
	}
	for _, in := range lookups {
		a, errA := v.cl.TradeLookup(ctx, in)
		b, errB := p.TradeLookup(ctx, in)
		same(fmt.Sprintf("trade-lookup frame %d", in.Frame), a, b, errA, errB)
		if len(a.Trades) == 0 || a.Trades[0].HistStatus == nil {
			t.Errorf("trade-lookup frame %d: %d trades, the first with history %v", in.Frame, len(a.Trades), a.Trades)
		}
		u, errU := p.TradeUpdate(ctx, txn.TradeUpdateInput{TradeLookupInput: in, MaxUpdates: txn.MaxTrades})
		after, errL := v.cl.TradeLookup(ctx, in)
		if errU == nil && u.Updated == 0 {
			t.Errorf("trade-update frame %d, pipelined: nothing updated", in.Frame)
		}
		if errU == nil && errL == nil {
			same(fmt.Sprintf("trade-update frame %d (pipelined) and the lookup after it", in.Frame), after.Trades, u.Trades, errL, errU)
		} else {
			t.Errorf("trade-update frame %d, pipelined: %v; the lookup after it: %v", in.Frame, errU, errL)
		}
	}
	if _, err := p.TradeLookup(ctx, txn.TradeLookupInput{Frame: 1, TradeIDs: []int64{first, -1}}); !errors.Is(err, txn.ErrNotFound) {
		t.Errorf("trade-lookup frame 1 of an unknown trade: %v", err)
	}
	// The client still works after the failed batches.
	if _, err := p.TradeStatus(ctx, txn.TradeStatusInput{AcctID: acct}); err != nil {
		t.Errorf("after failures: %v", err)
	}
	if v.db == "postgres" {
		t.Run("isolation_with_begin", func(t *testing.T) { levelWithBegin(t, v, p, acct) })
	}
}

// levelWithBegin: pipelining on PostgreSQL, the isolation level goes with
// each BEGIN, no statement of its own. A serializable transaction's
// predicate locks outlive it while a serializable transaction that
// overlaps it is open: one is kept open, and the locks on
// customer_account tell at what level Trade-Status read it.
func levelWithBegin(t *testing.T, v *env, p *txn.Client, acct int64) {
	ctx := context.Background()
	v.t = t
	x := enginetest.Connect(t, v.e)
	var one int64
	if err := x.Exec(ctx, "BEGIN ISOLATION LEVEL SERIALIZABLE"); err != nil {
		t.Fatal(err)
	}
	defer x.Exec(ctx, "ROLLBACK")
	if err := x.QueryRow(ctx, "SELECT 1", nil, &one); err != nil { // takes its snapshot
		t.Fatal(err)
	}
	locks := func() int64 {
		return v.int("SELECT COUNT(*) FROM pg_locks WHERE mode = 'SIReadLock' AND relation = 'customer_account'::regclass")
	}
	for _, c := range []struct {
		level string
		locks bool
	}{{engine.ReadCommitted, false}, {engine.Serializable, true}, {engine.ReadCommitted, false}} {
		before, sent := locks(), p.Queries
		if err := p.SetIsolation(ctx, c.level); err != nil {
			t.Fatal(err)
		}
		if p.Queries != sent {
			t.Errorf("setting %s: statements %+v → %+v, want none sent", c.level, sent, p.Queries)
		}
		if _, err := p.TradeStatus(ctx, txn.TradeStatusInput{AcctID: acct}); err != nil {
			t.Fatal(err)
		}
		if got := locks() > before; got != c.locks {
			t.Errorf("trade-status at %s: predicate locks on customer_account %d → %d", c.level, before, locks())
		}
	}
}

// paramTypes checks on PostgreSQL that no statement the client prepared
// takes a CHAR (bpchar) parameter, which would make the server cast the
// VARCHAR column it is compared with and scan the table instead of using
// its index, and that the symbols and names are VARCHAR parameters.
func paramTypes(t *testing.T, v *env) {
	ctx := context.Background()
	count := func(q string) int64 {
		var n int64
		if err := v.cc.QueryRow(ctx, q, nil, &n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	all := count("SELECT COUNT(*) FROM pg_prepared_statements")
	char := count("SELECT COUNT(*) FROM pg_prepared_statements WHERE 'bpchar'::regtype = ANY(parameter_types)")
	varchar := count("SELECT COUNT(*) FROM pg_prepared_statements WHERE 'varchar'::regtype = ANY(parameter_types)")
	if all < 50 || char != 0 || varchar < 10 {
		t.Errorf("%d prepared statements, %d with a CHAR parameter, %d with a VARCHAR one", all, char, varchar)
	}
}

// brokerByKey: on PostgreSQL a Trade-Result updates its broker by the
// key. The table is a page or two, which the planner scanned whole; at
// serializable isolation that predicate-locks every broker, and
// concurrent Trade-Results of different brokers failed each other.
func brokerByKey(t *testing.T, v *env, acct int64, symb string) {
	ctx := context.Background()
	v.t = t
	g := enginetest.NewCommitGate(enginetest.Connect(t, v.e))
	cl, err := txn.New(ctx, g)
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
	in := v.owner(acct)
	in.Symbol, in.TradeTypeID, in.TradeQty, in.IsLIFO = symb, txn.TypeMarketBuy, 100, true
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
	// The scan of the table locks it whole (a relation lock); the
	// lookup by key locks the index page it read.
	const locks = "SELECT COUNT(*) FROM pg_locks WHERE pid = ? AND mode = 'SIReadLock' AND locktype = ? AND relation = ?::regclass"
	whole := v.int(locks, pid, "relation", "broker")
	key := v.int(locks, pid, "page", v.str("SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = 'broker'::regclass AND indisprimary"))
	g.Release()
	if err := <-done; err != nil {
		t.Fatalf("trade-result: %v", err)
	}
	if whole != 0 || key != 1 {
		t.Errorf("the broker update predicate-locked %d tables broker and %d pages of its key; want one page of the key", whole, key)
	}
	v.check()
}
