package gen

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// TradeTables are the tables the initial trades produce, in creation
// order. TradeRows gives a Load Unit's rows of each.
var TradeTables = []string{
	schema.Broker, schema.Trade, schema.TradeHistory, schema.TradeRequest, schema.Settlement,
	schema.CashTransaction, schema.HoldingSummary, schema.Holding, schema.HoldingHistory,
}

// Row count estimates of the tables that are not known exactly in
// advance. 40% of the orders are limit orders with three history rows,
// and 8% of the trades are margin buys without a cash transaction. The
// holding tables' formulas are fitted to simulations of one Load Unit at
// ITD 1, 5, 20 and 60 (holding_history 1.12, 1.22, 1.29 and 1.32 rows a
// trade; 37,134, 102,916, 213,748 and 371,601 open lots; 5.2, 8.4, 9.4
// and 9.7 summaries an account): positions accumulate lots as the trades
// go on.
const (
	historyPerTrade = 2.4
	cashPerTrade    = 0.92
)

func hhPerTrade(itd int) float64 { return 1.35 - 0.23/math.Sqrt(float64(itd)) }

// holdingsPerLU is fitted at ITD 5 and 60 (within 2% at ITD 20, 20% over
// at ITD 1; 0.049 a trade at ITD 300, where the notes give 0.051).
func holdingsPerLU(trades int64) float64 { return 44786 * math.Pow(float64(trades)/57600, 0.5168) }

func summariesPerLU(itd int) float64 {
	return 10 * AccountsPerCustomer * LoadUnit * (1 - 0.5/math.Sqrt(float64(itd)))
}

// TradeRowCount is the number of rows of table (one of TradeTables) of
// Load Unit lu, and whether it is exact: trade and settlement have
// exactly InitialTrades() rows, broker BrokersPerLU and trade_request
// none; the other tables' counts are estimates (the same for every Load
// Unit). An unknown table has 0, exact.
func (m *Model) TradeRowCount(table string, lu int) (n int64, exact bool) {
	t := m.cfg.InitialTrades()
	switch table {
	case schema.Trade, schema.Settlement:
		return t, true
	case schema.Broker:
		return BrokersPerLU, true
	case schema.TradeHistory:
		return int64(historyPerTrade * float64(t)), false
	case schema.CashTransaction:
		return int64(cashPerTrade * float64(t)), false
	case schema.HoldingHistory:
		return int64(hhPerTrade(m.cfg.ITD) * float64(t)), false
	case schema.HoldingSummary:
		return int64(summariesPerLU(m.cfg.ITD)), false
	case schema.Holding:
		return int64(holdingsPerLU(t)), false
	}
	return 0, true
}

// TradeRows returns the rows of table (one of TradeTables) of Load Unit
// lu, in the column order of package schema: int64 for integer columns,
// string for varchar, bool, float64 of exact cents for decimals,
// time.Time (UTC, whole microseconds) for timestamps and time.Time at
// midnight UTC for dates. Each source re-runs the Load Unit's simulation;
// rows are a pure function of (Config, table, lu). A source is not safe
// for concurrent use, and the slice Values returns is overwritten by the
// next call to Next. An unknown table gives a source whose Err says so.
func (m *Model) TradeRows(table string, lu int) engine.RowSource {
	if lu < 0 || lu >= m.cfg.LoadUnits() {
		return &tradeSource{err: fmt.Errorf("tpce: %s: Load Unit %d out of range [0, %d)", table, lu, m.cfg.LoadUnits())}
	}
	if m.cfg.tradeSlots() > math.MaxInt32 {
		return &tradeSource{err: fmt.Errorf("tpce: %s: %d initial trades a Load Unit are more than the simulation handles (ITD %d)", table, m.cfg.InitialTrades(), m.cfg.ITD)}
	}
	s := &tradeSource{table: table}
	switch table {
	case schema.Trade:
		s.row = make([]any, 15)
	case schema.TradeHistory:
		s.row = make([]any, 3)
	case schema.Settlement, schema.CashTransaction:
		s.row = make([]any, 4)
	case schema.HoldingHistory:
		s.row = make([]any, 4)
	case schema.Holding:
		s.row = make([]any, 6)
	case schema.HoldingSummary:
		s.row = make([]any, 3)
	case schema.Broker:
		s.row = make([]any, 5)
	case schema.TradeRequest:
		return &tradeSource{done: true}
	default:
		return &tradeSource{err: fmt.Errorf("tpce: no initial trade rows for table %q", table)}
	}
	track := table != schema.TradeHistory && table != schema.Broker
	s.sim = m.newTradeSim(lu, track)
	return s
}

// Values boxed once.
var (
	anyTrCompleted any = statusCompleted
	anyTrSubmitted any = statusSubmitted
	anyTrPending   any = statusPending
	anyTrActive    any = "ACTV"
	anyTrCash      any = "Cash Account"
	anyTrMargin    any = "Margin"
	anyTrTrue      any = true
	anyTrFalse     any = false
	anyTrTypeIDs       = func() (out [5]any) {
		for i, tt := range TradeTypeTable {
			out[i] = tt.ID
		}
		return out
	}()
)

// tradeSource is the row source of one table of one Load Unit.
type tradeSource struct {
	table string
	sim   *tradeSim
	row   []any
	err   error
	done  bool

	// Rows still to give of the current trade (trade_history,
	// holding_history), or the cursor over the final state (holding,
	// holding_summary, broker).
	i, n int
	// ended is set once the simulation has run to its end.
	ended bool
	pos   int   // final state: basket entry, or broker
	lot   int32 // holding: the next lot of the basket entry
	acct  int
	buf   []byte

	// The due date of the last trade's day.
	dueDay  int64
	dueDate any
}

// Values returns the current row.
func (s *tradeSource) Values() ([]any, error) { return s.row, nil }

// Err is the source's error: an unknown table or Load Unit.
func (s *tradeSource) Err() error { return s.err }

// trCents is a Decimal column's value of an amount in cents.
func trCents(c int64) any { return float64(c) / 100 }

// boxedCents is trCents, from a table of boxed values for small amounts
// (prices, limits and charges are below 40 dollars).
func (s *tradeSource) boxedCents(c int64) any {
	if c >= 0 && c < int64(len(anyTrCents)) {
		return anyTrCents[c]
	}
	return trCents(c)
}

// anyTrCents are the amounts below $40, boxed.
var anyTrCents = func() []any {
	out := make([]any, 4000)
	for i := range out {
		out[i] = trCents(int64(i))
	}
	return out
}()

// trDate is the date, at midnight UTC, of t plus days.
func trDate(t time.Time, days int) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d+days, 0, 0, 0, 0, time.UTC)
}

func trBool(b bool) any {
	if b {
		return anyTrTrue
	}
	return anyTrFalse
}

// Next advances to the next row.
func (s *tradeSource) Next() bool {
	if s.err != nil || s.done {
		return false
	}
	sim := s.sim
	switch s.table {
	case schema.Trade:
		if !sim.next() {
			return s.finish()
		}
		t := &sim.t
		row := s.row
		row[0] = t.id
		row[1] = timeOf(t.dts)
		row[2] = anyTrCompleted
		row[3] = anyTrTypeIDs[t.tt]
		row[4] = trBool(t.cash)
		row[5] = sim.symbs[t.pos]
		row[6] = anyTrQty(t.qty)
		row[7] = s.boxedCents(t.bid)
		row[8] = t.acct.anyID
		row[9] = sim.execName[t.acct.cust][trB2i(!t.owner)]
		row[10] = s.boxedCents(t.price)
		row[11] = s.boxedCents(t.chrg)
		row[12] = trCents(t.comm)
		row[13] = s.boxedCents(t.tax)
		row[14] = trBool(t.lifo)
		return true
	case schema.Settlement:
		if !sim.next() {
			return s.finish()
		}
		t := &sim.t
		s.row[0] = t.id
		if t.cash {
			s.row[1] = anyTrCash
		} else {
			s.row[1] = anyTrMargin
		}
		const calDay = int64(24 * time.Hour / time.Microsecond)
		if day := t.dts / calDay; day != s.dueDay || s.dueDate == nil {
			s.dueDay, s.dueDate = day, trDate(timeOf(t.dts), 2)
		}
		s.row[2] = s.dueDate
		s.row[3] = trCents(t.seAmt)
		return true
	case schema.CashTransaction:
		for {
			if !sim.next() {
				return s.finish()
			}
			t := &sim.t
			if !t.cash {
				continue
			}
			s.row[0] = t.id
			s.row[1] = timeOf(t.dts)
			s.row[2] = trCents(t.seAmt)
			s.buf = append(s.buf[:0], TradeTypeTable[t.tt].Name...)
			s.buf = append(s.buf, ' ')
			s.buf = strconv.AppendInt(s.buf, t.qty, 10)
			s.buf = append(s.buf, " shares of "...)
			s.buf = append(s.buf, sim.symbs[t.pos].(string)...)
			s.row[3] = string(s.buf)
			return true
		}
	case schema.TradeHistory:
		if s.i >= s.n {
			if !sim.next() {
				return s.finish()
			}
			s.i, s.n = 0, 2
			if !TradeTypeTable[sim.t.tt].IsMarket {
				s.i = -1
			}
		}
		t := &sim.t
		s.row[0] = t.id
		switch s.i {
		case -1:
			s.row[1], s.row[2] = timeOf(t.pndg), anyTrPending
		case 0:
			s.row[1], s.row[2] = timeOf(t.sbmt), anyTrSubmitted
		default:
			s.row[1], s.row[2] = timeOf(t.dts), anyTrCompleted
		}
		s.i++
		return true
	case schema.HoldingHistory:
		for s.i >= s.n {
			if !sim.next() {
				return s.finish()
			}
			s.i, s.n = 0, len(sim.hh)
		}
		h := &sim.hh[s.i]
		s.i++
		s.row[0], s.row[1], s.row[2], s.row[3] = h.lotTID, h.tid, int64(h.before), int64(h.after)
		return true
	case schema.Holding:
		if !s.ended {
			s.runToEnd()
			s.lot = -1
		}
		for s.acct < len(sim.accts) {
			a := &sim.accts[s.acct]
			if s.pos >= int(a.nBasket) {
				s.acct, s.pos, s.lot = s.acct+1, 0, -1
				continue
			}
			p := int(a.basket) + s.pos
			if s.lot < 0 {
				s.lot = sim.pos[p].head
			}
			if s.lot < 0 {
				s.pos++
				continue
			}
			l := &sim.lots[s.lot]
			s.lot = l.next
			if s.lot < 0 {
				s.pos++
			}
			s.row[0] = sim.slotID(int64(l.slot))
			s.row[1] = a.anyID
			s.row[2] = sim.symbs[p]
			s.row[3] = timeOf(wallMicro(sim.slotOffset(int64(l.slot))))
			s.row[4] = s.boxedCents(int64(l.price))
			s.row[5] = int64(l.qty)
			return true
		}
		return s.finish()
	case schema.HoldingSummary:
		s.runToEnd()
		for s.acct < len(sim.accts) {
			a := &sim.accts[s.acct]
			if s.pos < int(a.nBasket) {
				p := int(a.basket) + s.pos
				s.pos++
				var q int64
				for i := sim.pos[p].head; i >= 0; i = sim.lots[i].next {
					q += int64(sim.lots[i].qty)
				}
				if q == 0 {
					continue
				}
				s.row[0], s.row[1], s.row[2] = a.anyID, sim.symbs[p], q
				return true
			}
			s.acct, s.pos = s.acct+1, 0
		}
		return s.finish()
	case schema.Broker:
		s.runToEnd()
		if s.pos >= BrokersPerLU {
			return s.finish()
		}
		b := int64(sim.lu)*BrokersPerLU + int64(s.pos) + 1
		s.row[0], s.row[1], s.row[2] = b, anyTrActive, sim.m.BrokerName(b)
		s.row[3], s.row[4] = sim.brokerN[s.pos], trCents(sim.brokerComm[s.pos])
		s.pos++
		return true
	}
	return false
}

// anyTrQtys are the quantities of a trade, boxed.
var anyTrQtys = [4]any{int64(100), int64(200), int64(400), int64(800)}

// anyTrQty is qty, boxed.
func anyTrQty(qty int64) any {
	switch qty {
	case 100:
		return anyTrQtys[0]
	case 200:
		return anyTrQtys[1]
	case 400:
		return anyTrQtys[2]
	case 800:
		return anyTrQtys[3]
	}
	return qty
}

// runToEnd runs the simulation to its end once.
func (s *tradeSource) runToEnd() {
	if !s.ended {
		s.sim.run()
		s.ended = true
	}
}

// finish ends the source and lets go of the simulation.
func (s *tradeSource) finish() bool {
	s.done, s.sim = true, nil
	return false
}

func trB2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
