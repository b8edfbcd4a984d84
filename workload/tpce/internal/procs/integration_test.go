package procs_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	_ "github.com/dbarena/dbarena/engine/mysql"
	_ "github.com/dbarena/dbarena/engine/postgres"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce"
	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/procs"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// The tests below run on one database per engine, loaded once by
// load.Prepare with one Load Unit (1,000 customers), one initial trade
// day and news items of 100 bytes: the options and seed of testConfig.
var testArgs = []string{"--customers", "1000", "--itd", "1", "--news-size", "100", "--seed-data", "3"}

// testConfig is the generator's configuration of testArgs.
var testConfig = gen.Config{Seed: 3, Customers: 1000, ITD: 1, ScaleFactor: gen.DefaultScaleFactor, NewsSize: 100}

// env is one prepared database with a client of every mode, each on its
// own connection, and a connection for the tests' own queries.
type env struct {
	w       *tpce.TPCE
	e       engine.Engine
	c       engine.SQLConn
	client  *txn.Client
	modes   map[procs.Mode]*procs.Client
	conns   map[procs.Mode]engine.SQLConn // the modes' clients' connections
	modeSeq []procs.Mode
	// maxInitial is the largest trade id of the initial data.
	maxInitial int64
}

// prepare loads the test database on target and installs the sequence
// and both modes' functions.
func prepare(t testing.TB, target engine.Target) *env {
	t.Helper()
	ctx := context.Background()
	e := enginetest.Open(t, target)
	w := tpce.New()
	if err := w.Define().Options.Parse(testArgs); err != nil {
		t.Fatal(err)
	}
	stats, err := load.Prepare(ctx, e, w, load.PrepareConfig{LoadThreads: 2})
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	t.Logf("prepared %d rows in %s", stats.Rows, stats.Duration)
	v := &env{w: w, e: e, c: enginetest.Connect(t, e), modes: map[procs.Mode]*procs.Client{}, conns: map[procs.Mode]engine.SQLConn{},
		modeSeq: []procs.Mode{procs.Procedure, procs.Frames}}
	v.maxInitial = v.int(t, "SELECT MAX(t_id) FROM trade")
	if err := txn.Install(ctx, v.c); err != nil {
		t.Fatal(err)
	}
	for _, m := range v.modeSeq {
		if err := procs.Install(ctx, v.c, m); err != nil {
			t.Fatal(err)
		}
	}
	if v.client, err = txn.New(ctx, enginetest.Connect(t, e)); err != nil {
		t.Fatal(err)
	}
	for _, m := range v.modeSeq {
		v.conns[m] = enginetest.Connect(t, e)
		if v.modes[m], err = procs.New(ctx, v.conns[m], m); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func (v *env) int(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := v.c.QueryRow(context.Background(), sql, args, &n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (v *env) float(t testing.TB, sql string, args ...any) float64 {
	t.Helper()
	var n float64
	if err := v.c.QueryRow(context.Background(), sql, args, &n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (v *env) str(t testing.TB, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := v.c.QueryRow(context.Background(), sql, args, &s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func (v *env) check(t testing.TB) {
	t.Helper()
	problems, err := v.w.Define().Check(context.Background(), v.c)
	if err != nil || len(problems) > 0 {
		t.Fatalf("check: %v %v", problems, err)
	}
}

// TestPostgres runs every test of the package on one PostgreSQL database
// (a prepare is most of the time): the read-only transactions first, then
// those that write.
func TestPostgres(t *testing.T) {
	t.Parallel()
	v := prepare(t, testdb.Isolated(t, testdb.Postgres(t)))
	t.Run("same_rows_in_every_mode", func(t *testing.T) { sameRows(t, v) })
	t.Run("queries_counted", func(t *testing.T) { queriesCounted(t, v) })
	t.Run("not_found", func(t *testing.T) { notFound(t, v) })
	t.Run("order_then_result", func(t *testing.T) { orderThenResult(t, v) })
	t.Run("intended_rollback", func(t *testing.T) { intendedRollback(t, v) })
	t.Run("no_permission", func(t *testing.T) { noPermission(t, v) })
	t.Run("limit_order_market_feed", func(t *testing.T) { limitOrderMarketFeed(t, v) })
	t.Run("trade_update", func(t *testing.T) { tradeUpdate(t, v) })
	t.Run("data_maintenance", func(t *testing.T) { dataMaintenance(t, v) })
	t.Run("trade_cleanup", func(t *testing.T) { tradeCleanup(t, v) })
	t.Run("concurrent", func(t *testing.T) { concurrent(t, v) })
	t.Run("broker_by_key", func(t *testing.T) { brokerByKey(t, v) })
	t.Run("parameter_types", func(t *testing.T) { parameterTypes(t, v) })
	t.Run("install_uninstall", func(t *testing.T) { installUninstall(t, v) })
	v.check(t)
}

// TestMariaDB runs the same tests on one MariaDB database.
func TestMariaDB(t *testing.T) {
	t.Parallel()
	v := prepare(t, testdb.Isolated(t, testdb.MySQL(t)))
	t.Run("same_rows_in_every_mode", func(t *testing.T) { sameRows(t, v) })
	t.Run("queries_counted", func(t *testing.T) { queriesCounted(t, v) })
	t.Run("not_found", func(t *testing.T) { notFound(t, v) })
	t.Run("order_then_result", func(t *testing.T) { orderThenResult(t, v) })
	t.Run("intended_rollback", func(t *testing.T) { intendedRollback(t, v) })
	t.Run("no_permission", func(t *testing.T) { noPermission(t, v) })
	t.Run("limit_order_market_feed", func(t *testing.T) { limitOrderMarketFeed(t, v) })
	t.Run("trade_update", func(t *testing.T) { tradeUpdate(t, v) })
	t.Run("data_maintenance", func(t *testing.T) { dataMaintenance(t, v) })
	t.Run("trade_cleanup", func(t *testing.T) { tradeCleanup(t, v) })
	t.Run("concurrent", func(t *testing.T) { concurrent(t, v) })
	t.Run("no_disk_temp_tables", func(t *testing.T) { noDiskTempTables(t, v) })
	t.Run("own_rows", func(t *testing.T) { ownRows(t, v) })
	t.Run("lock_errors_retried", func(t *testing.T) { lockErrorsRetried(t, v) })
	t.Run("install_uninstall", func(t *testing.T) { installUninstall(t, v) })
	v.check(t)
}

// readOnlyInputs draws n inputs of every read-only transaction from the
// customer emulator with a fixed seed, as txn inputs.
func readOnlyInputs(t testing.TB, n int) []any {
	t.Helper()
	cenv, err := ce.NewEnv(gen.NewModel(testConfig))
	if err != nil {
		t.Fatal(err)
	}
	g := cenv.NewGenerator(-1)
	r := gen.NewRand(1, 2, 3)
	var ins []any
	for range n {
		bv := g.BrokerVolume(r)
		cp := g.CustomerPosition(r)
		mw := g.MarketWatch(r)
		sd := g.SecurityDetail(r)
		tl := g.TradeLookup(r)
		ts := g.TradeStatus(r)
		ins = append(ins,
			txn.BrokerVolumeInput{BrokerList: bv.BrokerNames, SectorName: bv.SectorName},
			txn.CustomerPositionInput{CustID: cp.CustID, TaxID: cp.TaxID, GetHistory: cp.GetHistory, AcctIDIdx: cp.AcctIndex},
			txn.MarketWatchInput{AcctID: mw.AcctID, CustID: mw.CustID, IndustryName: mw.IndustryName,
				StartingCoID: mw.StartingCoID, EndingCoID: mw.EndingCoID, StartDay: mw.StartDay},
			txn.SecurityDetailInput{Symbol: sd.Symbol, MaxRowsToReturn: sd.MaxRowsToReturn, StartDay: sd.StartDay, AccessLOBFlag: sd.AccessLOBFlag},
			txn.TradeLookupInput{Frame: tl.Frame, TradeIDs: tl.TradeIDs, AcctID: tl.AcctID, Symbol: tl.Symbol,
				StartTradeDts: tl.StartTradeDTS, EndTradeDts: tl.EndTradeDTS, MaxTrades: tl.MaxTrades},
			txn.TradeStatusInput{AcctID: ts.AcctID},
		)
	}
	// Every frame of Trade-Lookup, whatever the draws.
	for frame := 1; frame <= 4; frame++ {
		tl := g.TradeLookup(r)
		for tl.Frame != frame {
			tl = g.TradeLookup(r)
		}
		ins = append(ins, txn.TradeLookupInput{Frame: tl.Frame, TradeIDs: tl.TradeIDs, AcctID: tl.AcctID, Symbol: tl.Symbol,
			StartTradeDts: tl.StartTradeDTS, EndTradeDts: tl.EndTradeDTS, MaxTrades: tl.MaxTrades})
	}
	return ins
}

// runner is what the txn client and the procs clients have in common.
type txnRunner interface {
	BrokerVolume(context.Context, txn.BrokerVolumeInput) ([]txn.BrokerVolume, error)
	CustomerPosition(context.Context, txn.CustomerPositionInput) (*txn.CustomerPositionOutput, error)
	MarketFeed(context.Context, txn.MarketFeedInput) ([]txn.Triggered, error)
	MarketWatch(context.Context, txn.MarketWatchInput) (*txn.MarketWatchOutput, error)
	SecurityDetail(context.Context, txn.SecurityDetailInput) (*txn.SecurityDetailOutput, error)
	TradeLookup(context.Context, txn.TradeLookupInput) (*txn.TradeLookupOutput, error)
	TradeOrder(context.Context, txn.TradeOrderInput) (*txn.TradeOrderOutput, error)
	TradeResult(context.Context, txn.TradeResultInput) (*txn.TradeResultOutput, error)
	TradeStatus(context.Context, txn.TradeStatusInput) (*txn.TradeStatusOutput, error)
	TradeUpdate(context.Context, txn.TradeUpdateInput) (*txn.TradeUpdateOutput, error)
	DataMaintenance(context.Context, txn.DataMaintenanceInput) (int64, error)
	TradeCleanup(context.Context, txn.TradeCleanupInput) (int, error)
}

var (
	_ txnRunner = (*txn.Client)(nil)
	_ txnRunner = (*procs.Client)(nil)
)

// runOne runs one read-only input on r and returns its output and how
// many rows it holds.
func runOne(ctx context.Context, r txnRunner, in any) (out any, rows int, err error) {
	switch in := in.(type) {
	case txn.BrokerVolumeInput:
		o, err := r.BrokerVolume(ctx, in)
		return o, len(o), err
	case txn.CustomerPositionInput:
		o, err := r.CustomerPosition(ctx, in)
		return o, len(o.Accounts) + len(o.History), err
	case txn.MarketWatchInput:
		o, err := r.MarketWatch(ctx, in)
		return o, o.Symbols, err
	case txn.SecurityDetailInput:
		o, err := r.SecurityDetail(ctx, in)
		if o == nil {
			return o, 0, err
		}
		return o, len(o.Competitors) + len(o.Financials) + len(o.Days) + len(o.News), err
	case txn.TradeLookupInput:
		o, err := r.TradeLookup(ctx, in)
		return o, len(o.Trades) + len(o.History), err
	case txn.TradeStatusInput:
		o, err := r.TradeStatus(ctx, in)
		return o, len(o.Trades), err
	}
	return nil, 0, fmt.Errorf("no read-only transaction takes a %T", in)
}

// sameRows: for inputs drawn with a fixed seed, each read-only
// transaction returns the same rows in client, procedure and frames mode
// (deeply equal outputs: every row, time and amount).
// Market-Watch's percentage, a sum of products whose order follows the
// symbols' query, may differ in its last bits.
func sameRows(t *testing.T, v *env) {
	ctx := context.Background()
	rows := map[string]int{}
	for i, in := range readOnlyInputs(t, 8) {
		want, n, err := runOne(ctx, v.client, in)
		if err != nil {
			t.Fatalf("input %d %T %+v, client mode: %v", i, in, in, err)
		}
		name := fmt.Sprintf("%T", in)
		if tl, ok := in.(txn.TradeLookupInput); ok {
			name = fmt.Sprintf("%s frame %d", name, tl.Frame)
		}
		rows[name] += n
		for _, m := range v.modeSeq {
			got, _, err := runOne(ctx, v.modes[m], in)
			if err != nil {
				t.Fatalf("input %d %s %+v, %s mode: %v", i, name, in, m, err)
			}
			if mw, ok := got.(*txn.MarketWatchOutput); ok {
				w := want.(*txn.MarketWatchOutput)
				if mw.Symbols != w.Symbols || math.Abs(mw.PctChange-w.PctChange) > 1e-9*math.Max(1, math.Abs(w.PctChange)) {
					t.Errorf("input %d %s, %s mode: %+v, client mode %+v", i, name, m, mw, w)
				}
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("input %d %s %+v, %s mode:\n got %+v\nwant %+v", i, name, in, m, got, want)
			}
		}
	}
	t.Logf("rows compared: %v", rows)
	for name, n := range rows {
		// No order is pending yet: Broker-Volume's rows are compared in
		// limit_order_market_feed.
		if n == 0 && name != "txn.BrokerVolumeInput" {
			t.Errorf("%s returned no rows in any draw: nothing was compared", name)
		}
	}
}

// queriesCounted: a transaction of one frame is one call in procedure
// mode, and the same call between BEGIN and COMMIT in frames mode.
func queriesCounted(t *testing.T, v *env) {
	ctx := context.Background()
	acct := v.int(t, "SELECT MIN(ca_id) FROM customer_account")
	for _, m := range v.modeSeq {
		cl := v.modes[m]
		before := cl.Queries
		if _, err := cl.TradeStatus(ctx, txn.TradeStatusInput{AcctID: acct}); err != nil {
			t.Fatal(err)
		}
		want := workload.Queries{Reads: before.Reads + 1, Writes: before.Writes, Other: before.Other}
		if m == procs.Frames {
			want.Other += 2
		}
		if cl.Queries != want {
			t.Errorf("%s mode: queries %+v → %+v, want %+v", m, before, cl.Queries, want)
		}
	}
	// A Trade-Order by the owner: one call in procedure mode; BEGIN,
	// frames 1, 3 and 4, COMMIT in frames mode.
	in := v.owner(t, acct)
	in.Symbol = v.str(t, "SELECT MIN(s_symb) FROM security")
	in.TradeTypeID, in.TradeQty, in.RequestedPrice = txn.TypeLimitBuy, 100, 1
	for _, m := range v.modeSeq {
		cl := v.modes[m]
		before := cl.Queries
		if _, err := cl.TradeOrder(ctx, in); err != nil {
			t.Fatal(err)
		}
		want := workload.Queries{Reads: before.Reads, Writes: before.Writes + 1, Other: before.Other}
		if m == procs.Frames {
			want.Reads, want.Other = want.Reads+2, want.Other+2
		}
		if cl.Queries != want {
			t.Errorf("%s mode, trade-order: queries %+v → %+v, want %+v", m, before, cl.Queries, want)
		}
	}
}

// notFound: a missing row is txn.ErrNotFound in every mode, as in client
// mode.
func notFound(t *testing.T, v *env) {
	ctx := context.Background()
	for _, r := range v.runners() {
		if _, err := r.r.TradeStatus(ctx, txn.TradeStatusInput{AcctID: -1}); !errors.Is(err, txn.ErrNotFound) {
			t.Errorf("%s: trade-status of account -1: %v, want ErrNotFound", r.name, err)
		}
		if _, err := r.r.TradeResult(ctx, txn.TradeResultInput{TradeID: -1, TradePrice: 20}); !errors.Is(err, txn.ErrNotFound) {
			t.Errorf("%s: trade-result of trade -1: %v, want ErrNotFound", r.name, err)
		}
		if _, err := r.r.SecurityDetail(ctx, txn.SecurityDetailInput{Symbol: "NO-SUCH", MaxRowsToReturn: 5}); !errors.Is(err, txn.ErrNotFound) {
			t.Errorf("%s: security-detail of NO-SUCH: %v, want ErrNotFound", r.name, err)
		}
	}
}

type namedRunner struct {
	name string
	r    txnRunner
}

// runners are the client-mode client and the two modes' clients, in that
// order.
func (v *env) runners() []namedRunner {
	rs := []namedRunner{{"client", v.client}}
	for _, m := range v.modeSeq {
		rs = append(rs, namedRunner{string(m), v.modes[m]})
	}
	return rs
}

// parameterTypes: the calls' parameters have their columns' types (a
// symbol is a VARCHAR, never a CHAR; prices are numeric; times
// timestamps), so that the functions' statements use their indexes.
func parameterTypes(t *testing.T, v *env) {
	ctx := context.Background()
	for _, m := range v.modeSeq {
		count := func(q string) int64 {
			var n int64
			if err := v.conns[m].QueryRow(ctx, q, nil, &n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		}
		calls := count("SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT missing, result FROM tpce_%'")
		char := count("SELECT COUNT(*) FROM pg_prepared_statements WHERE 'bpchar'::regtype = ANY(parameter_types)")
		varchar := count("SELECT COUNT(*) FROM pg_prepared_statements WHERE 'varchar'::regtype = ANY(parameter_types)")
		numeric := count("SELECT COUNT(*) FROM pg_prepared_statements WHERE 'numeric'::regtype = ANY(parameter_types)")
		if calls < 9 || char != 0 || varchar < 5 || numeric < 2 {
			t.Errorf("%s mode: %d calls prepared, %d with a CHAR parameter, %d with a VARCHAR one, %d with a numeric one",
				m, calls, char, varchar, numeric)
		}
	}
}
