package gen

import (
	"math"
	"math/bits"
	"time"
)

// The initial trades of a Load Unit are simulated in time order; each
// table's row source re-runs the simulation from the start (Load Units
// and tables load in parallel), keeping only the open lots of each
// (account, security) and the brokers' counters.
//
// Trade ids and times. A Load Unit's trade slots are numbered from 0;
// slot j has t_id = j·LoadUnits + lu + 1, so that ids grow with time
// across the whole database, and trading time (j+½)·ITD days/Slots. The
// slots come in blocks of SkipBlock: in each block one slot, placed by
// (seed, lu, block), is the specification's aborted trade and has no row,
// so that every Load Unit has exactly InitialTrades() trades and 1 id in
// SkipBlock is missing.
//
// A trade's choices are drawn from the stream of (seed, lu, slot): the
// owner (PickCustomer within the Load Unit), one of the owner's accounts
// uniformly, a security of the account's basket uniformly, the type
// (market-buy 30%, market-sell 30%, limit-buy 20%, limit-sell 10%,
// stop-loss 10%), the quantity (100, 200, 400 or 800), LIFO (35%), margin
// (16% of buys), the executor (the owner 90%), the delays and the limit.
//
// Every initial trade completes (CMPT) at its slot's instant, which is
// t_dts, at the price Price(security, t_dts). A market order was
// submitted (SBMT) a delay of Exp(1 s), capped at 5 s, before; a limit
// order was pending (PNDG) from 1 s to 30 min before it was triggered and
// submitted, and its limit is up to 50 cents on the side of the trade
// price that triggers it. Delays never take a trade's history back to
// half its instant's offset from the start, so history times increase.
//
// Lots follow Trade-Result frame 2: a buy first covers short lots, a sell
// first closes long lots, newest first for LIFO trades, oldest first
// otherwise; each lot touched writes a holding_history row, and what is
// left of the quantity opens a new lot (negative for a short) with a
// holding_history row of its own. Tax (frame 3) is the customer's rate on
// the gain of the lots closed, for taxable accounts.

// SkipBlock is the number of trade id slots of which one is an aborted
// trade, without a row.
const SkipBlock = 101

// Trade statuses.
const (
	statusCompleted = "CMPT"
	statusSubmitted = "SBMT"
	statusPending   = "PNDG"
)

// tradeSlots is the number of id slots of a Load Unit: whole blocks.
func (c Config) tradeSlots() int64 {
	per := int64(SkipBlock - 1)
	return (c.InitialTrades() + per - 1) / per * SkipBlock
}

// skipPos is the position in block b of Load Unit lu of the aborted
// slot.
func skipPos(seed uint64, lu int, b int64) int64 {
	var r Rand
	r.Reset(seed, tagTradeSkip, uint64(lu)<<40|uint64(b))
	return int64(r.Intn(SkipBlock))
}

// tradeSlot is the slot of Load Unit lu's k-th trade (0-based).
func tradeSlot(seed uint64, lu int, k int64) int64 {
	b, i := k/(SkipBlock-1), k%(SkipBlock-1)
	slot := b*SkipBlock + i
	if i >= skipPos(seed, lu, b) {
		slot++
	}
	return slot
}

// TradeSkipped reports whether slot slot of Load Unit lu is an aborted
// trade (an id without a row).
func (c Config) TradeSkipped(lu int, slot int64) bool {
	return slot%SkipBlock == skipPos(c.Seed, lu, slot/SkipBlock)
}

// MaxInitialTradeID is the largest t_id of the initial trades: the
// largest id of the Load Units' last trades.
func (c Config) MaxInitialTradeID() int64 {
	lus := int64(c.LoadUnits())
	last := c.InitialTrades() - 1
	var max int64
	for lu := range c.LoadUnits() {
		if id := tradeSlot(c.Seed, lu, last)*lus + int64(lu) + 1; id > max {
			max = id
		}
	}
	return max
}

// slotOffset is slot j's instant in microseconds of trading time after
// Base: the middle of its share of the ITD days.
func (c Config) slotOffset(j int64) int64 {
	total := uint64(c.ITD) * uint64(TradingDay/time.Microsecond)
	hi, lo := bits.Mul64(uint64(2*j+1), total)
	q, _ := bits.Div64(hi, lo, uint64(2*c.tradeSlots()))
	return int64(q)
}

// InitialTradesEnd is the t_dts of the last initial trade of the
// database (the trades all lie between Base and it, and before
// InitialEnd).
func (c Config) InitialTradesEnd() time.Time {
	last := c.InitialTrades() - 1
	var max int64
	for lu := range c.LoadUnits() {
		if s := tradeSlot(c.Seed, lu, last); s > max {
			max = s
		}
	}
	return tradingTimeMicro(c.slotOffset(max))
}

// tradingTimeMicro is TradingTime of off microseconds.
func tradingTimeMicro(off int64) time.Time {
	return TradingTime(time.Duration(off) * time.Microsecond)
}

// tradeAccount is what the simulation needs of an account of its Load Unit.
type tradeAccount struct {
	id           int64
	basket       int32 // first position in sim.secs
	nBasket      int32
	broker       int32 // 0..BrokersPerLU-1
	tier         int8
	taxSt        int8
	tradeTaxRate int64
	cust         int32 // customer slot in the Load Unit
}

// tradeLot is an open lot: its opening trade, quantity (negative when short)
// and price in cents.
type tradeLot struct {
	tid   int64
	qty   int32
	price int32
}

// tradeHHRow is a holding_history row.
type tradeHHRow struct {
	lotTID, tid   int64
	before, after int32
}

// simTrade is the simulation's current trade.
type simTrade struct {
	id, slot   int64
	acct       *tradeAccount
	pos        int32 // position in sim.secs (the account's basket entry)
	tt         int
	qty        int64
	lifo, cash bool
	owner      bool
	// Instants: completion (t_dts), submission, pending (limit orders).
	dts, sbmt, pndg time.Time
	bid, price      int64
	chrg, comm, tax int64
	seAmt           int64
}

// tradeSim simulates one Load Unit's initial trades.
type tradeSim struct {
	m    *Model
	cfg  Config
	lu   int
	lus  int64
	n    int64 // trades
	lots bool  // track lots (holding tables, tax and amounts)

	accts     []tradeAccount
	custFirst [LoadUnit]int32
	custN     [LoadUnit]int8
	secs      []int64  // basket entries of all accounts
	symbs     []string // their symbols
	execName  [LoadUnit][2]string

	open       [][]tradeLot // per basket entry
	brokerN    [BrokersPerLU]int64
	brokerComm [BrokersPerLU]int64

	k         int64 // next trade
	block     int64
	blockSkip int64
	r         Rand
	t         simTrade
	hh        []tradeHHRow

	// Cache of the start of a trading day for tradingTime.
	dayIdx   int64
	dayStart time.Time
}

// newTradeSim prepares Load Unit lu's simulation; with lots it tracks
// holdings, taxes and settlement amounts.
func (m *Model) newTradeSim(lu int, lots bool) *tradeSim {
	s := &tradeSim{m: m, cfg: m.cfg, lu: lu, lus: int64(m.cfg.LoadUnits()), n: m.cfg.InitialTrades(), lots: lots, block: -1, dayIdx: -1}
	s.accts = make([]tradeAccount, 0, AccountsPerCustomer*LoadUnit)
	s.secs = make([]int64, 0, AccountsPerCustomer*LoadUnit*11)
	for c := range LoadUnit {
		cid := int64(lu)*LoadUnit + int64(c) + 1
		first, n := m.Accounts(cid)
		s.custFirst[c], s.custN[c] = int32(len(s.accts)), int8(n)
		tier := int8(m.Tier(cid))
		rate := m.CustomerTaxRate(cid)
		s.execName[c] = [2]string{m.ExecName(cid, true), m.ExecName(cid, false)}
		for k := range n {
			ca := first + int64(k)
			start := len(s.secs)
			s.secs = m.Basket(ca, s.secs)
			s.accts = append(s.accts, tradeAccount{
				id: ca, basket: int32(start), nBasket: int32(len(s.secs) - start),
				broker: int32(m.AccountBroker(ca) - int64(lu)*BrokersPerLU - 1),
				tier:   tier, taxSt: int8(m.AccountTaxStatus(ca)), tradeTaxRate: rate, cust: int32(c),
			})
		}
	}
	s.symbs = make([]string, len(s.secs))
	for i, sec := range s.secs {
		s.symbs[i] = Symbol(sec)
	}
	if lots {
		s.open = make([][]tradeLot, len(s.secs))
	}
	return s
}

// tradingTime is tradingTimeMicro, caching the day of the last call.
func (s *tradeSim) tradingTime(off int64) time.Time {
	const day = int64(TradingDay / time.Microsecond)
	d := off / day
	if d != s.dayIdx {
		s.dayIdx, s.dayStart = d, TradingTime(time.Duration(d)*TradingDay)
	}
	return s.dayStart.Add(time.Duration(off-d*day) * time.Microsecond)
}

// next simulates the next trade into s.t (and its holding_history rows
// into s.hh when lots are tracked); false when the Load Unit's trades
// are done.
func (s *tradeSim) next() bool {
	if s.k >= s.n {
		return false
	}
	const per = SkipBlock - 1
	b, i := s.k/per, s.k%per
	s.k++
	if b != s.block {
		s.block, s.blockSkip = b, skipPos(s.cfg.Seed, s.lu, b)
	}
	slot := b*SkipBlock + i
	if i >= s.blockSkip {
		slot++
	}
	t := &s.t
	t.slot = slot
	t.id = slot*s.lus + int64(s.lu) + 1

	r := &s.r
	r.Reset(s.cfg.Seed, tagTrade, uint64(s.lu)<<40|uint64(slot))
	cid := s.m.PickCustomer(r, s.lu)
	c := int(cid-1) % LoadUnit
	a := &s.accts[int(s.custFirst[c])+r.Intn(int(s.custN[c]))]
	t.acct = a
	t.pos = a.basket + int32(r.Intn(int(a.nBasket)))
	switch x := r.Intn(100); {
	case x < 30:
		t.tt = TypeMarketBuy
	case x < 60:
		t.tt = TypeMarketSell
	case x < 80:
		t.tt = TypeLimitBuy
	case x < 90:
		t.tt = TypeLimitSell
	default:
		t.tt = TypeStopLoss
	}
	tt := &TradeTypeTable[t.tt]
	t.qty = 100 << r.Intn(4)
	t.lifo = r.Intn(100) < 35
	t.cash = tt.IsSell || r.Intn(100) >= 16
	t.owner = r.Intn(100) < 90
	// Submission delay: Exp(1 s), at least 1 ms, at most 5 s.
	delay := int64(-math.Log(1-r.Float64()) * 1e6)
	delay = min(max(delay, 1000), 5_000_000)

	off := s.cfg.slotOffset(slot)
	sbmt := off - min(delay, off/2)
	t.dts = s.tradingTime(off)
	t.sbmt = s.tradingTime(sbmt)
	sec := s.secs[t.pos]
	t.price = s.m.Price(sec, t.dts)
	if tt.IsMarket {
		t.bid = s.m.Price(sec, t.sbmt)
	} else {
		wait := int64(r.Range(1_000, 1_800_000)) * 1000
		t.pndg = s.tradingTime(sbmt - min(wait, sbmt/2))
		limit := int64(r.Intn(51))
		if t.tt == TypeLimitSell {
			t.bid = t.price - limit
		} else {
			t.bid = t.price + limit
		}
	}
	t.chrg = ChargeCents(t.tt, int(a.tier))
	t.comm = CommissionCents(int(a.tier), t.tt, t.qty, t.price)
	s.brokerN[a.broker]++
	s.brokerComm[a.broker] += t.comm
	if s.lots {
		gain := s.walkLots(tt.IsSell)
		t.tax = 0
		if a.taxSt != 0 {
			t.tax = TaxCents(gain, a.tradeTaxRate)
		}
		t.seAmt = SettlementCents(tt.IsSell, t.qty, t.price, t.chrg, t.comm, t.tax, int(a.taxSt))
	}
	return true
}

// walkLots applies the current trade to its position's lots, writing
// s.hh, and returns the gain of the lots it closed (sell value less buy
// value) in cents.
func (s *tradeSim) walkLots(sell bool) (gain int64) {
	t := &s.t
	s.hh = s.hh[:0]
	lots := s.open[t.pos]
	need := int32(t.qty)
	price := int32(t.price)
	// A sell closes long lots, a buy covers short ones; dir is the sign
	// of the lots the trade closes.
	dir := int32(1)
	if !sell {
		dir = -1
	}
	if len(lots) > 0 && (lots[0].qty > 0) == (dir > 0) {
		for need > 0 && len(lots) > 0 {
			i := 0
			if t.lifo {
				i = len(lots) - 1
			}
			l := &lots[i]
			held := l.qty * dir // > 0
			closed := min(held, need)
			after := (held - closed) * dir
			s.hh = append(s.hh, tradeHHRow{lotTID: l.tid, tid: t.id, before: l.qty, after: after})
			// Selling long lots gains price - lot price a share; covering
			// short lots gains lot price - price.
			gain += int64(closed) * int64(price-l.price) * int64(dir)
			need -= closed
			if after != 0 {
				l.qty = after
			} else if t.lifo {
				lots = lots[:i]
			} else {
				lots = lots[1:]
			}
		}
	}
	if need > 0 {
		q := need * dir * -1
		s.hh = append(s.hh, tradeHHRow{lotTID: t.id, tid: t.id, before: 0, after: q})
		lots = append(lots, tradeLot{tid: t.id, qty: q, price: price})
	}
	s.open[t.pos] = lots
	return gain
}

// run simulates the remaining trades.
func (s *tradeSim) run() {
	for s.next() {
	}
}
