package gen

import (
	"fmt"
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

// Estimated shares of the trades, per table, of the rows that are not
// known exactly in advance: 40% of the orders are limit orders with three
// history rows, 8% of the trades are margin buys without a cash
// transaction. The holding tables' shares are measured at ITD 5 (see
// TestTradeCounts).
const (
	historyPerTrade  = 2.4
	cashPerTrade     = 0.92
	hhPerTrade       = 1.34
	summaryPerAcct   = 9.0
	holdingsPerTrade = 0.1
)

// TradeRowCount is the number of rows of table (one of TradeTables) of a
// Load Unit, and whether it is exact: trade and settlement have exactly
// InitialTrades() rows, broker BrokersPerLU and trade_request none; the
// other tables' counts are estimates. An unknown table has 0, exact.
func (m *Model) TradeRowCount(table string) (n int64, exact bool) {
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
		return int64(hhPerTrade * float64(t)), false
	case schema.HoldingSummary:
		return int64(summaryPerAcct * AccountsPerCustomer * LoadUnit), false
	case schema.Holding:
		return int64(holdingsPerTrade * float64(t)), false
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
	lots := table != schema.TradeHistory && table != schema.Broker
	s.sim = m.newTradeSim(lu, lots)
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
	ended  bool
	pos    int // final state: position (basket entry) or broker
	lotIdx int
	acct   int
	buf    []byte
}

func (s *tradeSource) Values() ([]any, error) { return s.row, nil }
func (s *tradeSource) Err() error             { return s.err }

// cents is a Decimal column's value of an amount in cents.
func trCents(c int64) any { return float64(c) / 100 }

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
		row[1] = t.dts
		row[2] = anyTrCompleted
		row[3] = anyTrTypeIDs[t.tt]
		row[4] = trBool(t.cash)
		row[5] = sim.symbs[t.pos]
		row[6] = t.qty
		row[7] = trCents(t.bid)
		row[8] = t.acct.id
		row[9] = sim.execName[t.acct.cust][trB2i(!t.owner)]
		row[10] = trCents(t.price)
		row[11] = trCents(t.chrg)
		row[12] = trCents(t.comm)
		row[13] = trCents(t.tax)
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
		s.row[2] = trDate(t.dts, 2)
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
			s.row[1] = t.dts
			s.row[2] = trCents(t.seAmt)
			s.buf = append(s.buf[:0], TradeTypeTable[t.tt].Name...)
			s.buf = append(s.buf, ' ')
			s.buf = strconv.AppendInt(s.buf, t.qty, 10)
			s.buf = append(s.buf, " shares of "...)
			s.buf = append(s.buf, sim.symbs[t.pos]...)
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
			s.row[1], s.row[2] = t.pndg, anyTrPending
		case 0:
			s.row[1], s.row[2] = t.sbmt, anyTrSubmitted
		default:
			s.row[1], s.row[2] = t.dts, anyTrCompleted
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
		s.runToEnd()
		for s.acct < len(sim.accts) {
			a := &sim.accts[s.acct]
			if s.pos < int(a.nBasket) {
				lots := sim.open[int(a.basket)+s.pos]
				if s.lotIdx < len(lots) {
					l := &lots[s.lotIdx]
					s.lotIdx++
					s.row[0] = l.tid
					s.row[1] = a.id
					s.row[2] = sim.symbs[int(a.basket)+s.pos]
					s.row[3] = sim.tradingTime(sim.cfg.slotOffset((l.tid - 1) / sim.lus))
					s.row[4] = trCents(int64(l.price))
					s.row[5] = int64(l.qty)
					return true
				}
				s.pos, s.lotIdx = s.pos+1, 0
				continue
			}
			s.acct, s.pos = s.acct+1, 0
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
				for _, l := range sim.open[p] {
					q += int64(l.qty)
				}
				if q == 0 {
					continue
				}
				s.row[0], s.row[1], s.row[2] = a.id, sim.symbs[p], q
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
