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
// (16% of buys), the executor (the owner 75% of the time on the 40% of
// accounts that permit another person: 90% in all), the delays and the
// limit.
//
// Every initial trade completes (CMPT) at its slot's instant, which is
// t_dts, at the price Price(security, t_dts). A market order was
// submitted (SBMT) a delay of Exp(1 s) (see submitDelay), capped at 5 s,
// before; a limit
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
	var top int64
	for lu := range c.LoadUnits() {
		top = max(top, tradeSlot(c.Seed, lu, last)*lus+int64(lu)+1)
	}
	return top
}

// slotOffset is slot j's instant in microseconds of trading time after
// Base: the middle of its share of the ITD days.
func (c Config) slotOffset(j int64) int64 {
	return slotOffset(j, uint64(c.ITD)*uint64(TradingDay/time.Microsecond), 2*uint64(c.tradeSlots()))
}

// slotOffset is (2j+1)·itdMicro/slots2, without overflow.
func slotOffset(j int64, itdMicro, slots2 uint64) int64 {
	hi, lo := bits.Mul64(uint64(2*j+1), itdMicro)
	q, _ := bits.Div64(hi, lo, slots2)
	return int64(q)
}

// InitialTradesEnd is the t_dts of the last initial trade of the
// database (the trades all lie between Base and it, and before
// InitialEnd).
func (c Config) InitialTradesEnd() time.Time {
	last := c.InitialTrades() - 1
	var top int64
	for lu := range c.LoadUnits() {
		top = max(top, tradeSlot(c.Seed, lu, last))
	}
	return tradingTimeMicro(c.slotOffset(top))
}

// tradingTimeMicro is TradingTime of off microseconds.
func tradingTimeMicro(off int64) time.Time {
	return Base.Add(time.Duration(wallMicro(off)) * time.Microsecond)
}

// wallMicro converts off microseconds of trading time after Base into
// microseconds of wall-clock time after Base, as TradingTime does: whole
// weeks of five trading days, then the remaining weekdays (Base is a
// Monday; UTC days are 24 hours).
func wallMicro(off int64) int64 {
	const day = int64(TradingDay / time.Microsecond)
	const calDay = int64(24 * time.Hour / time.Microsecond)
	d := off / day
	return (d/5*7+d%5)*calDay + off%day
}

// tradeAccount is what the simulation needs of an account of its Load
// Unit.
type tradeAccount struct {
	id       int64
	anyID    any    // id, boxed
	execName [2]any // t_exec_name when the owner executes, and when not
	basket   int32  // first position in tradeSim.secs
	nBasket  int32
	broker   int32 // 0..BrokersPerLU-1
	tier     int8
	taxSt    int8
	taxRate  int64
}

// tradeLot is an open lot: the slot of its opening trade, its quantity
// (negative when short; a trade's at most) and price in cents, in its
// position's list of lots, oldest first (prev and next are indexes in
// tradeSim.lots, -1 at the ends). 16 bytes: prices are below $327.67
// (Price's are $20 to $30).
type tradeLot struct {
	slot       int32
	prev, next int32
	qty, price int16
}

// position is a basket entry's price phase, open lots (the first and
// last, -1 when none) and exchange, together so that a trade reads one
// place.
type position struct {
	phase      time.Duration
	head, tail int32
	exchange   int8
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
	pos        int32 // position in tradeSim.secs (the account's basket entry)
	tt         int
	qty        int64
	lifo, cash bool
	owner      bool
	// Instants, in microseconds of wall-clock time after Base:
	// completion (t_dts), submission and, for limit orders, pending.
	dts, sbmt, pndg int64
	bid, price      int64
	chrg, comm, tax int64
	seAmt           int64
}

// tradeSim simulates one Load Unit's initial trades.
type tradeSim struct {
	m     *Model
	cfg   Config
	lu    int
	lus   int64
	n     int64 // trades
	track bool  // track lots (holding tables, tax and amounts)

	accts     []tradeAccount
	custFirst [LoadUnit]int32
	custN     [LoadUnit]int8
	secs      []int64 // basket entries of all accounts
	symbs     []any   // their symbols, boxed strings

	pos  []position // per basket entry
	lots []tradeLot
	free int32 // first free lot, -1 when none
	// charge is TradeCharge by type and tier; commission is
	// CommissionRate by tier, type, exchange and quantity (100, 200, 400,
	// 800).
	charge     [5][4]int64
	commission [4][5][Exchanges][4]int64
	brokerN    [BrokersPerLU]int64
	brokerComm [BrokersPerLU]int64

	k         int64 // next trade
	block     int64
	blockSkip int64
	slots2    uint64 // 2·tradeSlots
	itdMicro  uint64
	r         Rand
	picker    *tradePicker
	// The trading day wall caches: its first offset and wall instant.
	dayOff, dayWall int64
	t               simTrade
	hh              []tradeHHRow
}

// newTradeSim prepares Load Unit lu's simulation; with track it tracks
// lots, taxes and settlement amounts.
func (m *Model) newTradeSim(lu int, track bool) *tradeSim {
	s := &tradeSim{m: m, cfg: m.cfg, lu: lu, lus: int64(m.cfg.LoadUnits()), n: m.cfg.InitialTrades(), track: track,
		block: -1, free: -1, slots2: 2 * uint64(m.cfg.tradeSlots()),
		itdMicro: uint64(m.cfg.ITD) * uint64(TradingDay/time.Microsecond)}
	for tt, typ := range TradeTypeTable {
		for tier := 1; tier <= 3; tier++ {
			s.charge[tt][tier] = TradeCharge(typ.ID, tier)
			for e := range Exchanges {
				for qi := range 4 {
					s.commission[tier][tt][e][qi] = CommissionRate(tier, typ.ID, e, 100<<qi)
				}
			}
		}
	}
	s.picker = newTradePicker(m)
	s.accts = make([]tradeAccount, 0, AccountsPerCustomer*LoadUnit)
	s.secs = make([]int64, 0, AccountsPerCustomer*LoadUnit*11)
	for c := range LoadUnit {
		cid := int64(lu)*LoadUnit + int64(c) + 1
		first, n := m.Accounts(cid)
		s.custFirst[c], s.custN[c] = int32(len(s.accts)), int8(n)
		tier := int8(m.Tier(cid))
		_, _, rate := m.CustomerTax(cid)
		owner := m.ExecName(first, true)
		for k := range n {
			ca := first + int64(k)
			start := len(s.secs)
			s.secs = m.Basket(ca, s.secs)
			s.accts = append(s.accts, tradeAccount{
				id: ca, anyID: ca, execName: [2]any{owner, m.ExecName(ca, false)}, basket: int32(start), nBasket: int32(len(s.secs) - start),
				broker: int32(m.AccountBroker(ca) - int64(lu)*BrokersPerLU - 1),
				tier:   tier, taxSt: int8(m.AccountTaxStatus(ca)), taxRate: rate,
			})
		}
	}
	s.symbs = make([]any, len(s.secs))
	s.pos = make([]position, len(s.secs))
	for i, sec := range s.secs {
		s.symbs[i] = Symbol(sec)
		s.pos[i] = position{phase: pricePhase(m.cfg.Seed, sec), head: -1, tail: -1, exchange: int8(m.SecurityExchange(sec))}
	}
	return s
}

// pricePhase is security sec's phase in Model.Price.
func pricePhase(seed uint64, sec int64) time.Duration {
	return time.Duration(mix(seed^tagPrice, uint64(sec)) % uint64(900*time.Second))
}

// price is Model.Price of the security of basket entry pos at wall
// microseconds after Base, with the phase computed once
// (TestTradeInvariants checks every trade's prices against Model.Price).
func (s *tradeSim) price(pos int32, wall int64) int64 {
	const period = 900 * time.Second
	x := float64((time.Duration(wall)*time.Microsecond+s.pos[pos].phase)%period) / float64(period)
	if x < 0 {
		x++
	}
	tri := 2 * x
	if x >= 0.5 {
		tri = 2 - 2*x
	}
	return 2000 + int64(math.Round(tri*1000))
}

// slotOffset is slot j's instant in microseconds of trading time.
func (s *tradeSim) slotOffset(j int64) int64 { return slotOffset(j, s.itdMicro, s.slots2) }

// wall is wallMicro(off), with the trading day of the last call cached.
func (s *tradeSim) wall(off int64) int64 {
	const day = int64(TradingDay / time.Microsecond)
	if off < s.dayOff || off >= s.dayOff+day {
		s.dayOff = off / day * day
		s.dayWall = wallMicro(s.dayOff)
	}
	return s.dayWall + off - s.dayOff
}

// slotID is the t_id of slot j.
func (s *tradeSim) slotID(j int64) int64 { return j*s.lus + int64(s.lu) + 1 }

// timeOf is the instant of wall microseconds after Base.
func timeOf(wall int64) time.Time { return Base.Add(time.Duration(wall) * time.Microsecond) }

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
	t.id = s.slotID(slot)

	r := &s.r
	r.Reset(s.cfg.Seed, tagTrade, uint64(s.lu)<<40|uint64(slot))
	cid := s.picker.pick(r, s.lu)
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
	qi := r.Intn(4)
	t.qty = 100 << qi
	t.lifo = r.Intn(100) < 35
	t.cash = tt.IsSell || r.Intn(100) >= 16
	t.owner = r.Intn(100) < 75 // 90% in all: 40% of accounts permit another person
	delay := submitDelay(r)

	off := s.slotOffset(slot)
	sbmt := off - min(delay, off/2)
	t.dts = s.wall(off)
	t.sbmt = s.wall(sbmt)
	t.price = s.price(t.pos, t.dts)
	if tt.IsMarket {
		t.bid = s.price(t.pos, t.sbmt)
	} else {
		wait := int64(r.Range(1_000, 1_800_000)) * 1000
		t.pndg = s.wall(sbmt - min(wait, sbmt/2))
		limit := int64(r.Intn(51))
		if t.tt == TypeLimitSell {
			t.bid = t.price - limit
		} else {
			t.bid = t.price + limit
		}
	}
	t.chrg = s.charge[t.tt][a.tier]
	t.comm = CommissionCents(s.commission[a.tier][t.tt][s.pos[t.pos].exchange][qi], t.qty, t.price)
	s.brokerN[a.broker]++
	s.brokerComm[a.broker] += t.comm
	if s.track {
		gain := s.walkLots(tt.IsSell)
		t.tax = 0
		if a.taxSt != 0 {
			t.tax = TaxCents(gain, a.taxRate)
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
	list := &s.pos[t.pos]
	need := int32(t.qty)
	price := int32(t.price)
	// A sell closes long lots, a buy covers short ones; dir is the sign
	// of the lots the trade closes.
	dir := int32(1)
	if !sell {
		dir = -1
	}
	if list.head >= 0 && (s.lots[list.head].qty > 0) == (dir > 0) {
		for need > 0 && list.head >= 0 {
			i := list.head
			if t.lifo {
				i = list.tail
			}
			l := &s.lots[i]
			held := int32(l.qty) * dir // > 0
			closed := min(held, need)
			after := (held - closed) * dir
			s.hh = append(s.hh, tradeHHRow{lotTID: s.slotID(int64(l.slot)), tid: t.id, before: int32(l.qty), after: after})
			// Selling long lots gains price - lot price a share; covering
			// short lots gains lot price - price.
			gain += int64(closed) * int64(price-int32(l.price)) * int64(dir)
			need -= closed
			if after != 0 {
				l.qty = int16(after)
				continue
			}
			// Unlink the closed lot and free it.
			if l.prev >= 0 {
				s.lots[l.prev].next = l.next
			} else {
				list.head = l.next
			}
			if l.next >= 0 {
				s.lots[l.next].prev = l.prev
			} else {
				list.tail = l.prev
			}
			l.next, s.free = s.free, i
		}
	}
	if need > 0 {
		q := need * dir * -1
		s.hh = append(s.hh, tradeHHRow{lotTID: t.id, tid: t.id, before: 0, after: q})
		i := s.free
		if i >= 0 {
			s.free = s.lots[i].next
		} else {
			i = int32(len(s.lots))
			s.lots = append(s.lots, tradeLot{})
		}
		s.lots[i] = tradeLot{slot: int32(t.slot), qty: int16(q), price: int16(price), prev: list.tail, next: -1}
		if list.tail >= 0 {
			s.lots[list.tail].next = i
		} else {
			list.head = i
		}
		list.tail = i
	}
	return gain
}

// run simulates the remaining trades.
func (s *tradeSim) run() {
	for s.next() {
	}
}
