package tpce

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/mee"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// Op indexes, in Ops order.
const (
	opBrokerVolume = iota
	opCustomerPosition
	opMarketFeed
	opMarketWatch
	opSecurityDetail
	opTradeLookup
	opTradeOrder
	opTradeResult
	opTradeStatus
	opTradeUpdate
	opDataMaintenance
	numOps
)

// opNames are the ops' names, stable across versions: result files and
// compare refer to them.
var opNames = [numOps]string{
	"broker_volume", "customer_position", "market_feed", "market_watch", "security_detail",
	"trade_lookup", "trade_order", "trade_result", "trade_status", "trade_update", "data_maintenance",
}

// dealtOp is the op of each kind the deck deals.
var dealtOp = [ce.Kinds]int{
	ce.KindBrokerVolume:     opBrokerVolume,
	ce.KindCustomerPosition: opCustomerPosition,
	ce.KindMarketWatch:      opMarketWatch,
	ce.KindSecurityDetail:   opSecurityDetail,
	ce.KindTradeLookup:      opTradeLookup,
	ce.KindTradeOrder:       opTradeOrder,
	ce.KindTradeStatus:      opTradeStatus,
	ce.KindTradeUpdate:      opTradeUpdate,
}

// isolation is each op's isolation level, DBT-5's choice (it cites the
// specification's clause 7.4.1.3): read committed for the readers and
// Data-Maintenance, repeatable read for Market-Feed, Trade-Order and
// Trade-Update, serializable for Trade-Result.
var isolation = [numOps]string{
	opBrokerVolume:     engine.ReadCommitted,
	opCustomerPosition: engine.ReadCommitted,
	opMarketFeed:       engine.RepeatableRead,
	opMarketWatch:      engine.ReadCommitted,
	opSecurityDetail:   engine.ReadCommitted,
	opTradeLookup:      engine.ReadCommitted,
	opTradeOrder:       engine.RepeatableRead,
	opTradeResult:      engine.Serializable,
	opTradeStatus:      engine.ReadCommitted,
	opTradeUpdate:      engine.RepeatableRead,
	opDataMaintenance:  engine.ReadCommitted,
}

// DataMaintenanceInterval is how often worker 0 runs Data-Maintenance.
const DataMaintenanceInterval = 60 * time.Second

// Tags of the workers' random streams (gen.NewRand's tag).
const (
	tagCustomer    = 0x4345 // "CE": the deck and the inputs
	tagMaintenance = 0x444d // "DM"
	tagMarket      = 0x4d4b // "MK": the emulator's delays and fillers
)

// task is the transaction a worker runs: dealt (in), Data-Maintenance
// (in) or the market's (work); Replay runs it again.
type task struct {
	op   int
	in   ce.Input
	work mee.Work
	// held: work was handed out by the emulator and not yet reported
	// Done. fed counts the entries of a Market-Feed already committed
	// (each entry is a transaction of its own).
	held bool
	fed  int
}

// worker is one customer emulator with its market exchange emulator, on
// one connection. Only its goroutine uses it.
type worker struct {
	ex  executor
	q   *workload.Queries
	r   *gen.Rand
	g   *ce.Generator
	emu mee.Emulator
	now func() time.Time
	// setLevel sets the isolation level of the transactions that follow
	// and counts the statement it sends, if any; nil when the engine has
	// one level only (SQLite): then level stays "".
	setLevel func(ctx context.Context, level string) error
	level    string
	// dm is worker 0's Data-Maintenance, due at nextDM; nil on the
	// others.
	dm     *ce.Maintenance
	dmRand *gen.Rand
	nextDM time.Time

	cur   task
	queue []mee.Work // handed out by the emulator, not yet run
}

var (
	_ workload.Worker   = (*worker)(nil)
	_ workload.Replayer = (*worker)(nil)
	_ workload.Closer   = (*worker)(nil)
)

// newWorker returns worker id drawing from seed, running its
// transactions with ex and sending its trades to emu; worker 0 also runs
// Data-Maintenance, first DataMaintenanceInterval after now().
func newWorker(env *ce.Env, ex executor, emu mee.Emulator, id int, seed uint64, q *workload.Queries, now func() time.Time) *worker {
	k := &worker{
		ex: ex, q: q, emu: emu, now: now,
		r: gen.NewRand(seed, tagCustomer, uint64(id)),
		g: env.NewGenerator(-1),
	}
	if id == 0 {
		k.dm = env.NewMaintenance()
		k.dmRand = gen.NewRand(seed, tagMaintenance, 0)
		k.nextDM = now().Add(DataMaintenanceInterval)
	}
	return k
}

// Next runs one transaction: Data-Maintenance when it is due (worker 0),
// else the market's work that is due (a Trade-Result, or a Market-Feed
// of mee.FeedEntries ticker entries), else the deck's next card.
func (k *worker) Next(ctx context.Context) (int, error) {
	k.release()
	now := k.now()
	switch {
	case k.dm != nil && !now.Before(k.nextDM):
		k.nextDM = now.Add(DataMaintenanceInterval)
		k.cur = task{op: opDataMaintenance, in: k.dm.Next(k.dmRand)}
	default:
		if len(k.queue) == 0 {
			k.queue = append(k.queue[:0], k.emu.Due(now)...)
		}
		if len(k.queue) > 0 {
			w := k.queue[0]
			k.queue = k.queue[1:]
			op := opTradeResult
			if w.Kind == mee.WorkMarketFeed {
				op = opMarketFeed
			}
			k.cur = task{op: op, work: w, held: true}
		} else {
			in := k.g.Next(k.r)
			k.cur = task{op: dealtOp[in.Kind()], in: in}
		}
	}
	return k.Replay(ctx)
}

// Replay runs the current transaction again (the runner's retry policy
// calls it after a serialization failure or a deadlock): the same input,
// and for a Market-Feed the entries not yet committed.
func (k *worker) Replay(ctx context.Context) (int, error) {
	t := &k.cur
	err := k.isolate(ctx, isolation[t.op])
	if err == nil {
		err = k.run(ctx, t)
	}
	k.q.Add(k.ex.TakeQueries())
	return t.op, err
}

// isolate sets the connection's isolation level to level, when the
// engine has levels and it is another than the current one.
func (k *worker) isolate(ctx context.Context, level string) error {
	if k.setLevel == nil || level == k.level {
		return nil
	}
	if err := k.setLevel(ctx, level); err != nil {
		return fmt.Errorf("setting the isolation level %s: %w", level, err)
	}
	k.level = level
	return nil
}

// release reports the current work Done when it is still held: it
// failed and the runner gave up on it (the trade stays submitted, for
// the next run's Trade-Cleanup).
func (k *worker) release() {
	if k.cur.held {
		k.cur.held = false
		k.emu.Done(k.cur.work, k.now())
	}
}

// Close hands back the work the worker holds, so that a shared
// emulator's deliveries are free for the other workers; the trades stay
// as they are in the database.
func (k *worker) Close() error {
	k.release()
	now := k.now()
	for _, w := range k.queue {
		k.emu.Done(w, now)
	}
	k.queue = nil
	return nil
}

// run runs t once.
func (k *worker) run(ctx context.Context, t *task) error {
	switch t.op {
	case opTradeResult:
		tr := t.work.TradeResult
		if _, err := k.ex.TradeResult(ctx, txn.TradeResultInput{TradeID: tr.TradeID, TradePrice: dollars(tr.Price)}); err != nil {
			return err
		}
		t.held = false
		k.emu.Done(t.work, k.now())
		return nil
	case opMarketFeed:
		return k.marketFeed(ctx, t)
	}
	switch in := t.in.(type) {
	case ce.BrokerVolume:
		_, err := k.ex.BrokerVolume(ctx, txn.BrokerVolumeInput{BrokerList: in.BrokerNames, SectorName: in.SectorName})
		return err
	case ce.CustomerPosition:
		_, err := k.ex.CustomerPosition(ctx, txn.CustomerPositionInput{CustID: in.CustID, TaxID: in.TaxID, GetHistory: in.GetHistory, AcctIDIdx: in.AcctIndex})
		return err
	case ce.MarketWatch:
		_, err := k.ex.MarketWatch(ctx, txn.MarketWatchInput{AcctID: in.AcctID, CustID: in.CustID, IndustryName: in.IndustryName,
			StartingCoID: in.StartingCoID, EndingCoID: in.EndingCoID, StartDay: in.StartDay})
		return err
	case ce.SecurityDetail:
		_, err := k.ex.SecurityDetail(ctx, txn.SecurityDetailInput{Symbol: in.Symbol, MaxRowsToReturn: in.MaxRowsToReturn, StartDay: in.StartDay, AccessLOBFlag: in.AccessLOBFlag})
		return err
	case ce.TradeLookup:
		_, err := k.ex.TradeLookup(ctx, txn.TradeLookupInput{Frame: in.Frame, TradeIDs: in.TradeIDs, AcctID: in.AcctID, Symbol: in.Symbol,
			StartTradeDts: in.StartTradeDTS, EndTradeDts: in.EndTradeDTS, MaxTrades: in.MaxTrades})
		return err
	case ce.TradeUpdate:
		_, err := k.ex.TradeUpdate(ctx, txn.TradeUpdateInput{TradeLookupInput: txn.TradeLookupInput{Frame: in.Frame, TradeIDs: in.TradeIDs,
			AcctID: in.AcctID, Symbol: in.Symbol, StartTradeDts: in.StartTradeDTS, EndTradeDts: in.EndTradeDTS, MaxTrades: in.MaxTrades},
			MaxUpdates: in.MaxUpdates})
		return err
	case ce.TradeStatus:
		_, err := k.ex.TradeStatus(ctx, txn.TradeStatusInput{AcctID: in.AcctID})
		return err
	case ce.TradeOrder:
		return k.tradeOrder(ctx, in)
	case ce.DataMaintenance:
		_, err := k.ex.DataMaintenance(ctx, txn.DataMaintenanceInput{TableName: in.TableName, AcctID: in.AcctID, CID: in.CustID,
			CoID: in.CoID, TxID: in.TxID, Symbol: in.Symbol, DayOfMonth: in.DayOfMonth, VolIncr: int64(in.VolIncr)})
		return err
	}
	return fmt.Errorf("tpce: no transaction for %s", t.in.Kind())
}

// tradeOrder places an order and, once it is committed, sends it to the
// market. An intended rollback (1 in ce.RollbackOneIn) returns an error
// wrapping workload.ErrRollback.
func (k *worker) tradeOrder(ctx context.Context, in ce.TradeOrder) error {
	out, err := k.ex.TradeOrder(ctx, txn.TradeOrderInput{
		AcctID: in.AcctID, ExecFName: in.ExecFirstName, ExecLName: in.ExecLastName, ExecTaxID: in.ExecTaxID,
		IsLIFO: in.IsLIFO, CoName: in.CoName, Issue: in.Issue, Symbol: in.Symbol, TradeTypeID: in.TradeTypeID,
		RequestedPrice: dollars(in.RequestedPrice), TradeQty: in.TradeQty, TypeIsMargin: in.TypeIsMargin, RollItBack: in.RollItBack,
	})
	if err != nil {
		return err
	}
	k.emu.Submit(mee.FromTradeOrder(out.TradeID, in), k.now())
	return nil
}

// marketFeed applies the feed's entries not yet committed, one
// transaction each, and releases the trades each one submitted to the
// market.
func (k *worker) marketFeed(ctx context.Context, t *task) error {
	entries := t.work.MarketFeed.Entries
	for t.fed < len(entries) {
		e := entries[t.fed]
		hits, err := k.ex.MarketFeed(ctx, txn.MarketFeedInput{Entries: []txn.TickerEntry{{Symbol: e.Symbol, PriceQuote: dollars(e.Price), TradeQty: e.Qty}}})
		if err != nil {
			return err
		}
		t.fed++
		if len(hits) > 0 {
			orders := make([]mee.Order, 0, len(hits))
			for _, h := range hits {
				s, ok := gen.SecurityIndex(h.Symbol)
				if !ok {
					return fmt.Errorf("tpce: market-feed submitted trade %d of symbol %q, which is no security of the data", h.TradeID, h.Symbol)
				}
				orders = append(orders, mee.Order{TradeID: h.TradeID, Security: s, Type: mee.TradeType(h.TypeID), Qty: h.Qty, Limit: cents(h.BidPrice)})
			}
			k.emu.Release(orders, k.now())
		}
	}
	t.held = false
	k.emu.Done(t.work, k.now())
	return nil
}

// dollars converts cents to the dollars the transactions take.
func dollars(c int64) float64 { return float64(c) / 100 }

// cents converts a price in dollars to cents.
func cents(d float64) int64 { return int64(math.Round(d * 100)) }
