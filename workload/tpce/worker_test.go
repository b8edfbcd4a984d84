package tpce

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/mee"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// sqliteConn is a connection to a fresh, empty SQLite database.
func sqliteConn(t *testing.T) engine.SQLConn {
	t.Helper()
	return enginetest.Connect(t, enginetest.Open(t, testdb.SQLite(t)))
}

// fakeExec records the transactions a worker runs and answers as the
// database would, without one: trade ids from 1,000,001 on, an order
// that asks for it rolled back, and the failures and Market-Feed
// answers a test sets.
type fakeExec struct {
	calls  []string
	ids    int64
	orders []txn.TradeOrderInput
	trs    []txn.TradeResultInput
	feeds  []txn.TickerEntry
	dms    []txn.DataMaintenanceInput
	// fail is returned by the next TradeResult, then cleared.
	fail error
	// hits are what MarketFeed submits for an entry's symbol.
	hits map[string][]txn.Triggered
	q    workload.Queries
}

var _ executor = (*fakeExec)(nil)

func (f *fakeExec) call(name string) { f.calls = append(f.calls, name); f.q.Other++ }

func (f *fakeExec) BrokerVolume(context.Context, txn.BrokerVolumeInput) ([]txn.BrokerVolume, error) {
	f.call("broker_volume")
	return nil, nil
}

func (f *fakeExec) CustomerPosition(context.Context, txn.CustomerPositionInput) (*txn.CustomerPositionOutput, error) {
	f.call("customer_position")
	return nil, nil
}

func (f *fakeExec) MarketFeed(_ context.Context, in txn.MarketFeedInput) ([]txn.Triggered, error) {
	f.call("market_feed")
	f.feeds = append(f.feeds, in.Entries...)
	var out []txn.Triggered
	for _, e := range in.Entries {
		out = append(out, f.hits[e.Symbol]...)
		delete(f.hits, e.Symbol)
	}
	return out, nil
}

func (f *fakeExec) MarketWatch(context.Context, txn.MarketWatchInput) (*txn.MarketWatchOutput, error) {
	f.call("market_watch")
	return nil, nil
}

func (f *fakeExec) SecurityDetail(context.Context, txn.SecurityDetailInput) (*txn.SecurityDetailOutput, error) {
	f.call("security_detail")
	return nil, nil
}

func (f *fakeExec) TradeLookup(context.Context, txn.TradeLookupInput) (*txn.TradeLookupOutput, error) {
	f.call("trade_lookup")
	return nil, nil
}

func (f *fakeExec) TradeOrder(_ context.Context, in txn.TradeOrderInput) (*txn.TradeOrderOutput, error) {
	f.call("trade_order")
	f.ids++
	if in.RollItBack {
		return nil, fmt.Errorf("trade-order: %w", workload.ErrRollback)
	}
	f.orders = append(f.orders, in)
	return &txn.TradeOrderOutput{TradeID: 1_000_000 + f.ids}, nil
}

func (f *fakeExec) TradeResult(_ context.Context, in txn.TradeResultInput) (*txn.TradeResultOutput, error) {
	f.call("trade_result")
	if err := f.fail; err != nil {
		f.fail = nil
		return nil, err
	}
	f.trs = append(f.trs, in)
	return &txn.TradeResultOutput{}, nil
}

func (f *fakeExec) TradeStatus(context.Context, txn.TradeStatusInput) (*txn.TradeStatusOutput, error) {
	f.call("trade_status")
	return nil, nil
}

func (f *fakeExec) TradeUpdate(context.Context, txn.TradeUpdateInput) (*txn.TradeUpdateOutput, error) {
	f.call("trade_update")
	return nil, nil
}

func (f *fakeExec) DataMaintenance(_ context.Context, in txn.DataMaintenanceInput) (int64, error) {
	f.call("data_maintenance")
	f.dms = append(f.dms, in)
	return 1, nil
}

func (f *fakeExec) TradeCleanup(context.Context, txn.TradeCleanupInput) (int, error) {
	f.call("trade_cleanup")
	return 0, nil
}

func (f *fakeExec) TakeQueries() workload.Queries {
	q := f.q
	f.q = workload.Queries{}
	return q
}

// clock is a fake clock.
type clock struct{ t time.Time }

func newClock() *clock { return &clock{t: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// count is how many times the worker ran name.
func (f *fakeExec) count(name string) int {
	n := 0
	for _, c := range f.calls {
		if c == name {
			n++
		}
	}
	return n
}

// testModel is the model of 1,000 customers and one initial trade day.
func testModel(t *testing.T) (*gen.Model, *ce.Env) {
	t.Helper()
	m := gen.NewModel(gen.Config{Seed: 3, Customers: 1000, ITD: 1, ScaleFactor: gen.DefaultScaleFactor, NewsSize: 100})
	env, err := ce.NewEnv(m)
	if err != nil {
		t.Fatal(err)
	}
	return m, env
}

// next runs k.Next and returns the op's name.
func next(t *testing.T, k *worker) (string, error) {
	t.Helper()
	op, err := k.Next(context.Background())
	if op < 0 || op >= numOps {
		t.Fatalf("op %d", op)
	}
	return opNames[op], err
}

// The market's work comes before the deck: a market order becomes a
// Trade-Result once its delay (at most mee.MaxDelay) is over, and the
// worker runs it before dealing another card; every ten Trade-Results
// (each adds two ticker entries) make a Market-Feed of 20 entries, run
// one transaction per entry.
func TestWorkerRunsTheMarketFirst(t *testing.T) {
	m, env := testModel(t)
	f := &fakeExec{hits: map[string][]txn.Triggered{}}
	c := newClock()
	var q workload.Queries
	emu := mee.New(m, gen.NewRand(1, 2, 3))
	k := newWorker(env, f, emu, 1, 42, &q, c.now)

	// Nothing due: the deck deals, never the market's transactions.
	for range 50 {
		name, err := next(t, k)
		if name == "trade_result" || name == "market_feed" || name == "data_maintenance" {
			t.Fatalf("%s with nothing due", name)
		}
		if err != nil && !errors.Is(err, workload.ErrRollback) {
			t.Fatal(err)
		}
	}
	if q.Other != 50 {
		t.Errorf("%d statements counted, want 50", q.Other)
	}
	// The committed orders went to the market: at most 5 s later each
	// is a Trade-Result, run before any card.
	orders := len(f.orders)
	if orders == 0 || emu.Stats().Submitted != int64(orders) {
		t.Fatalf("%d orders committed, %d submitted to the market", orders, emu.Stats().Submitted)
	}
	f.calls = nil
	f.orders = nil
	c.advance(mee.MaxDelay)
	due := 0
	for range orders {
		name, err := next(t, k)
		if err != nil {
			t.Fatal(err)
		}
		if name != "trade_result" {
			// A market order became a Trade-Result; a limit order may
			// wait for its price.
			break
		}
		due++
	}
	if due == 0 {
		t.Fatal("no Trade-Result ran first")
	}

	// Ten market orders: ten Trade-Results, then one Market-Feed of 20
	// ticker entries, then the deck again.
	k2 := newWorker(env, f, mee.New(m, gen.NewRand(4, 5, 6)), 2, 43, &q, c.now)
	for i := range int64(10) {
		k2.emu.Submit(mee.Order{TradeID: 500 + i, Security: i, Type: mee.MarketBuy, Qty: 100}, c.now())
	}
	f.calls, f.trs, f.feeds = nil, nil, nil
	c.advance(mee.MaxDelay)
	for i := range 11 {
		name, err := next(t, k2)
		if err != nil {
			t.Fatal(err)
		}
		want := "trade_result"
		if i == 10 {
			want = "market_feed"
		}
		if name != want {
			t.Fatalf("transaction %d is %s, want %s (calls %v)", i, name, want, f.calls)
		}
	}
	if len(f.trs) != 10 || len(f.feeds) != mee.FeedEntries || f.count("market_feed") != mee.FeedEntries {
		t.Fatalf("%d Trade-Results, a feed of %d entries in %d transactions", len(f.trs), len(f.feeds), f.count("market_feed"))
	}
	var symbols []string
	for _, e := range f.feeds {
		symbols = append(symbols, e.Symbol)
		if e.PriceQuote < 20 || e.PriceQuote > 30 || e.TradeQty <= 0 {
			t.Errorf("ticker entry %+v", e)
		}
	}
	for i := range int64(10) {
		if !slices.Contains(symbols, gen.Symbol(i)) {
			t.Errorf("the feed lacks the trade of %s: %v", gen.Symbol(i), symbols)
		}
	}
	if name, _ := next(t, k2); name == "trade_result" || name == "market_feed" {
		t.Errorf("after the feed: %s, want a dealt card", name)
	}
}

// A feed that submits a limit order hands it to the market, which
// executes it at a price no worse than its limit.
func TestWorkerReleasesTriggeredOrders(t *testing.T) {
	m, env := testModel(t)
	f := &fakeExec{hits: map[string][]txn.Triggered{}}
	c := newClock()
	var q workload.Queries
	emu := mee.New(m, gen.NewRand(1, 2, 3))
	k := newWorker(env, f, emu, 1, 42, &q, c.now)
	symb := gen.Symbol(3)
	f.hits[symb] = []txn.Triggered{{TradeID: 77, Symbol: symb, TypeID: txn.TypeLimitSell, Qty: 400, BidPrice: 20.5}}
	k.cur = task{op: opMarketFeed, held: true, work: mee.Work{Kind: mee.WorkMarketFeed,
		MarketFeed: mee.MarketFeed{Entries: []mee.TickerEntry{{Symbol: symb, Price: 2100, Qty: 100}}}}}
	emu.Submit(mee.Order{TradeID: 1, Security: 1, Type: mee.MarketSell, Qty: 100}, c.now()) // keeps the heap non-empty
	if _, err := k.Replay(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := emu.Stats(); s.Released != 1 || k.cur.held {
		t.Fatalf("stats %+v, held %v", s, k.cur.held)
	}
	c.advance(mee.MaxDelay)
	var got []txn.TradeResultInput
	for range 2 {
		if name, err := next(t, k); name != "trade_result" || err != nil {
			t.Fatalf("%s %v", name, err)
		}
	}
	got = f.trs
	i := slices.IndexFunc(got, func(r txn.TradeResultInput) bool { return r.TradeID == 77 })
	if i < 0 || got[i].TradePrice < 20.5 {
		t.Errorf("Trade-Results %+v: want trade 77 at $20.50 or more", got)
	}
}

// Trade-Order's intended rollbacks return workload.ErrRollback and never
// reach the market.
func TestWorkerRollbacks(t *testing.T) {
	m, env := testModel(t)
	f := &fakeExec{}
	c := newClock()
	var q workload.Queries
	emu := mee.New(m, gen.NewRand(1, 2, 3))
	k := newWorker(env, f, emu, 1, 7, &q, c.now)
	rollbacks := 0
	for range 3 * ce.DeckSize {
		name, err := next(t, k)
		switch {
		case errors.Is(err, workload.ErrRollback):
			if name != "trade_order" {
				t.Fatalf("%s rolled back", name)
			}
			rollbacks++
		case err != nil:
			t.Fatal(err)
		}
	}
	if rollbacks == 0 || emu.Stats().Submitted != int64(len(f.orders)) || f.count("trade_order") != len(f.orders)+rollbacks {
		t.Errorf("%d rollbacks, %d orders committed, %d submitted", rollbacks, len(f.orders), emu.Stats().Submitted)
	}
	// Three decks: exactly the deck's proportions.
	for kind, op := range dealtOp {
		if got, want := f.count(opNames[op]), 3*ce.Cards[kind]; got != want {
			t.Errorf("%s dealt %d times, want %d", opNames[op], got, want)
		}
	}
}

// Worker 0 runs Data-Maintenance every minute, first after a minute,
// before anything else; the other workers never do.
func TestWorkerDataMaintenance(t *testing.T) {
	m, env := testModel(t)
	f := &fakeExec{}
	c := newClock()
	var q workload.Queries
	k0 := newWorker(env, f, mee.New(m, gen.NewRand(1, 2, 3)), 0, 7, &q, c.now)
	k1 := newWorker(env, f, mee.New(m, gen.NewRand(1, 2, 4)), 1, 7, &q, c.now)
	for range 3 {
		for _, k := range []*worker{k0, k1} {
			if name, _ := next(t, k); name == "data_maintenance" {
				t.Fatal("data-maintenance before its minute")
			}
		}
		c.advance(DataMaintenanceInterval)
		if name, err := next(t, k1); name == "data_maintenance" || err != nil && !errors.Is(err, workload.ErrRollback) {
			t.Fatalf("worker 1: %s %v", name, err)
		}
		if name, err := next(t, k0); name != "data_maintenance" || err != nil {
			t.Fatalf("worker 0 after a minute: %s %v", name, err)
		}
	}
	var tables []string
	for _, d := range f.dms {
		tables = append(tables, d.TableName)
	}
	if want := ce.MaintenanceTables[:3]; !slices.Equal(tables, want) {
		t.Errorf("tables %v, want %v (round-robin)", tables, want)
	}
}

// A Trade-Result that fails is replayed with the same input; when the
// runner gives up on it, the next transaction hands it back, so a shared
// emulator's one delivery goes to the next Trade-Result.
func TestWorkerReplayAndGiveUp(t *testing.T) {
	m, env := testModel(t)
	f := &fakeExec{}
	c := newClock()
	var q workload.Queries
	shared := mee.NewShared(m, gen.NewRand(1, 2, 3), 1)
	k := newWorker(env, f, shared, 1, 7, &q, c.now)
	other := newWorker(env, &fakeExec{}, shared, 2, 8, &q, c.now)
	shared.Submit(mee.Order{TradeID: 10, Security: 1, Type: mee.MarketBuy, Qty: 100}, c.now())
	shared.Submit(mee.Order{TradeID: 11, Security: 2, Type: mee.MarketBuy, Qty: 100}, c.now())
	c.advance(mee.MaxDelay)
	serialization := errors.New("could not serialize access")
	f.fail = serialization
	if name, err := next(t, k); name != "trade_result" || !errors.Is(err, serialization) {
		t.Fatalf("%s %v, want the failed Trade-Result", name, err)
	}
	first := k.cur.work.TradeResult.TradeID
	// Its delivery is in flight: the other worker gets nothing due.
	if name, _ := next(t, other); name == "trade_result" {
		t.Fatal("a second Trade-Result in flight with one delivery")
	}
	f.fail = serialization
	if op, err := k.Replay(context.Background()); opNames[op] != "trade_result" || !errors.Is(err, serialization) {
		t.Fatalf("replay: %s %v", opNames[op], err)
	}
	if op, err := k.Replay(context.Background()); err != nil || opNames[op] != "trade_result" || len(f.trs) != 1 || f.trs[0].TradeID != first {
		t.Fatalf("replay: %v, Trade-Results %+v, want trade %d", err, f.trs, first)
	}
	// Done: the other worker's turn.
	if name, err := next(t, other); name != "trade_result" || err != nil {
		t.Fatalf("the other worker: %s %v", name, err)
	}
	// A failure the runner gives up on: the next Next frees the delivery.
	shared.Submit(mee.Order{TradeID: 12, Security: 3, Type: mee.MarketBuy, Qty: 100}, c.now())
	shared.Submit(mee.Order{TradeID: 13, Security: 4, Type: mee.MarketBuy, Qty: 100}, c.now())
	c.advance(mee.MaxDelay)
	f.fail = serialization
	if name, _ := next(t, k); name != "trade_result" {
		t.Fatalf("%s, want a Trade-Result", name)
	}
	if name, _ := next(t, k); name != "trade_result" {
		t.Fatalf("after giving up: %s, want the next Trade-Result", name)
	}
	if s := shared.Stats(); s.InFlight != 0 || s.Completed != 4 {
		t.Errorf("stats %+v: want nothing in flight, 4 done", s)
	}
	// Close hands back what a worker holds.
	shared.Submit(mee.Order{TradeID: 14, Security: 5, Type: mee.MarketBuy, Qty: 100}, c.now())
	c.advance(mee.MaxDelay)
	f.fail = serialization
	_, _ = next(t, k)
	if err := k.Close(); err != nil || shared.Stats().InFlight != 0 {
		t.Errorf("close: %v, %d in flight", err, shared.Stats().InFlight)
	}
}

// The worker sets each transaction's isolation level before it, only
// when it changes.
func TestWorkerIsolation(t *testing.T) {
	m, env := testModel(t)
	f := &fakeExec{}
	c := newClock()
	var q workload.Queries
	k := newWorker(env, f, mee.New(m, gen.NewRand(1, 2, 3)), 1, 7, &q, c.now)
	var set []string
	k.setLevel = func(_ context.Context, level string) error { set = append(set, level); return nil }
	var ran []string
	for range 200 {
		name, _ := next(t, k)
		ran = append(ran, name)
	}
	for i := range ran {
		want := isolation[slices.Index(opNames[:], ran[i])]
		if i == 0 || want != isolation[slices.Index(opNames[:], ran[i-1])] {
			if len(set) == 0 || set[0] != want {
				t.Fatalf("transaction %d (%s): level set %v, want %s", i, ran[i], set, want)
			}
			set = set[1:]
		}
	}
	if len(set) != 0 {
		t.Errorf("levels set for nothing: %v", set)
	}
	if isolation[opTradeResult] != engine.Serializable || isolation[opTradeOrder] != engine.RepeatableRead || isolation[opTradeStatus] != engine.ReadCommitted {
		t.Errorf("levels %v", isolation)
	}
}

// span is a span of length with the given completed count per op name.
func span(length time.Duration, final bool, counts map[string]int64) workload.Span {
	s := workload.Span{Length: length, Final: final}
	for _, n := range opNames {
		h := hdr.New(1, 60_000_000, 3)
		for range counts[n] {
			_ = h.RecordValue(500_000) // 500 ms
		}
		s.Ops = append(s.Ops, workload.OpSpan{Name: n, Count: counts[n], Hist: h})
	}
	return s
}

func metrics(ms []result.Metric) map[string]result.Metric {
	out := map[string]result.Metric{}
	for _, m := range ms {
		out[m.Name] = m
	}
	return out
}

// TR/s is the Trade-Results of the span per second, the headline; the
// validity figures come with the whole run.
func TestMetrics(t *testing.T) {
	w := parse(t, "--customers", "1000", "--mee", "shared:3")
	counts := map[string]int64{"trade_result": 120}
	for kind, op := range dealtOp {
		counts[opNames[op]] = int64(ce.Cards[kind]) * 2
	}
	counts["trade_status"] += 40 // 380 → 420 of 1,820: 23.1% against 21.3%
	run := open(t, w)
	ms := run.Metrics(span(time.Minute, true, counts))
	if ms[0].Name != MetricTRps || ms[0].Value != 2 || ms[0].Unit != "/s" || !ms[0].Higher {
		t.Fatalf("headline %+v, want TR/s 2", ms[0])
	}
	got := metrics(ms)
	if n := got[MetricNominal]; n.Value != 100 || !*n.Pass {
		t.Errorf("nominal: %+v, want 100%% (2 TR/s for 1,000 customers)", n)
	}
	if e := got[MetricEmulator]; e.Value != 3 {
		t.Errorf("emulator %+v, want 3 in flight", e)
	}
	if to := got["mix trade_order"]; !*to.Pass || *to.Limit != 11.348 {
		t.Errorf("trade_order's mix %+v", to)
	}
	if ts := got["mix trade_status"]; *ts.Pass || ts.Value != 23.077 {
		t.Errorf("trade_status's mix %+v, want 23.077%% failing", ts)
	}
	if p := got["p90 trade_status"]; p.Value < 499 || p.Value > 501 || *p.Limit != 1000 || !*p.Pass {
		t.Errorf("p90 %+v", p)
	}
	if _, ok := got["p90 data_maintenance"]; ok {
		t.Error("a p90 limit for data_maintenance")
	}
	if win := got[MetricWindow]; win.Value != 60 || *win.Pass || *win.Limit != 7200 {
		t.Errorf("window %+v", win)
	}
	// Each rule as the specification states it: the band, the share and
	// its tolerance with the bounds, the limits.
	for name, want := range map[string]string{
		MetricNominal:      "80–102% of the nominal 2.00 TR/s (1000 customers / scale factor 500)",
		"mix trade_status": "21.3% ± 5% relative (20.28–22.42%)",
		"mix trade_order":  "11.3% ± 5% relative (10.78–11.92%)",
		"p90 trade_status": "≤ 1s",
		"p90 trade_result": "≤ 2s",
		MetricWindow:       "≥ 2h",
		metricCustomers:    "≥ 5000 customers",
		metricITD:          "= 300 initial trade days",
	} {
		if got := got[name].Rule; got != want {
			t.Errorf("%s: rule %q, want %q", name, got, want)
		}
	}
	half := metrics(run.Metrics(span(time.Minute, true, map[string]int64{"trade_result": 90})))
	if n := half[MetricNominal]; n.Value != 75 || *n.Pass {
		t.Errorf("75%% of nominal: %+v", n)
	}
	if m := metrics(open(t, parse(t)).Metrics(span(time.Second, true, nil)))[MetricEmulator]; m.Value != 0 {
		t.Errorf("an emulator per worker: %+v", m)
	}
}

// Spec.Metrics names exactly what a whole run's Metrics report when every
// op ran.
func TestMetricNames(t *testing.T) {
	w := parse(t)
	spec := w.Define()
	counts := map[string]int64{}
	for _, op := range spec.Ops {
		counts[op.Name] = 1
	}
	var got []string
	for _, m := range open(t, w).Metrics(span(time.Minute, true, counts)) {
		got = append(got, m.Name)
	}
	if !slices.Equal(got, spec.Metrics) {
		t.Errorf("Run.Metrics names %q, Spec.Metrics %q", got, spec.Metrics)
	}
}

// Every Trade-Result updates one of only ten brokers per Load Unit at
// serializable: on PostgreSQL, concurrent ones conflict often, so a
// Trade-Result gets more replays than the runner's default before it
// counts as an error (which stops a run under --max-errors 0).
func TestRetryDefaults(t *testing.T) {
	d := parse(t).Define().RunDefaults
	if d.Isolation != "" || d.Retry.MaxRetries != TradeResultRetries || d.Retry.MaxRetries <= workload.DefaultRetryPolicy().MaxRetries ||
		d.Retry.Base != workload.DefaultRetryPolicy().Base || d.Retry.Max != workload.DefaultRetryPolicy().Max {
		t.Errorf("run defaults %+v", d)
	}
}

// Workers run concurrently on the state a run shares (the customer
// emulator's environment, the model, the shared emulator), each on its
// own clock reading a shared fake time; run with -race.
func TestWorkersConcurrently(t *testing.T) {
	for _, mode := range []string{"worker", "shared:2"} {
		t.Run("mee="+mode, func(t *testing.T) {
			w := parse(t, "--customers", "1000", "--itd", "1", "--news-size", "100", "--mee", mode)
			var mu sync.Mutex
			now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
			tick := func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				now = now.Add(10 * time.Millisecond)
				return now
			}
			run, err := w.newRun(nil)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			done := make([]int, 4)
			for id := range 4 {
				emu := run.emulator(uint64(id)+100, id)
				f := &fakeExec{}
				var q workload.Queries
				k := newWorker(run.env, f, emu, id, uint64(id)+100, &q, tick)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 3000 {
						if _, err := k.Next(context.Background()); err != nil && !errors.Is(err, workload.ErrRollback) {
							t.Error(err)
							return
						}
					}
					done[id] = f.count("trade_result")
					_ = k.Close()
				}()
			}
			wg.Wait()
			// A shared emulator hands its work to whichever worker asks
			// when it is due: one worker may get none of it, the workers
			// together must.
			total := 0
			for id, n := range done {
				total += n
				if n == 0 && mode == "worker" {
					t.Errorf("worker %d ran no Trade-Result", id)
				}
			}
			if total == 0 {
				t.Error("the workers ran no Trade-Result")
			}
		})
	}
}

// A worker that reconnects gets its emulator back, with the orders it
// holds; another worker has its own.
func TestEmulatorKeptAcrossReconnects(t *testing.T) {
	w := parse(t, "--customers", "1000", "--itd", "1", "--news-size", "100")
	run, err := w.newRun(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := run.emulator(1, 0)
	again := run.emulator(2, 0)
	other := run.emulator(1, 1)
	if a != again || a == other {
		t.Errorf("worker 0's emulator %p, after reconnecting %p, worker 1's %p", a, again, other)
	}
}
