package txn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbarena/dbarena/engine"
)

// MaxTrades is the most trades Trade-Lookup and Trade-Update read.
const MaxTrades = 20

// TradeLookupInput is Trade-Lookup's input. Frame 1 takes TradeIDs;
// frame 2 AcctID, StartTradeDts and EndTradeDts; frame 3 Symbol,
// StartTradeDts and EndTradeDts; frame 4 AcctID and StartTradeDts.
// MaxTrades bounds frames 2 and 3 (at most 20).
type TradeLookupInput struct {
	Frame         int
	TradeIDs      []int64
	AcctID        int64
	Symbol        string
	StartTradeDts time.Time
	EndTradeDts   time.Time
	MaxTrades     int
}

// TradeInfo is one trade as Trade-Lookup and Trade-Update read it, with
// its settlement, cash transaction (cash trades) and up to 3 history
// rows.
type TradeInfo struct {
	TradeID    int64
	AcctID     int64 // frame 3
	Dts        time.Time
	BidPrice   float64
	ExecName   string
	IsCash     bool
	IsMarket   bool // frame 1
	TradePrice float64
	Qty        int64  // frame 3
	TypeID     string // frame 3
	SettleAmt  float64
	SettleDue  time.Time
	CashType   string
	CashAmt    float64
	CashDts    time.Time
	CashName   string
	HistDts    []time.Time
	HistStatus []string
}

// HoldingHistoryRow is one holding_history row of frame 4.
type HoldingHistoryRow struct {
	HoldingTradeID, TradeID int64
	BeforeQty, AfterQty     int64
}

// TradeLookupOutput is what Trade-Lookup returns.
type TradeLookupOutput struct {
	Trades  []TradeInfo
	TradeID int64 // frame 4: the first trade at or after the start; 0 for none
	History []HoldingHistoryRow
}

const (
	tlTrade1 = `SELECT t_bid_price, t_exec_name, t_is_cash, tt_is_mrkt, t_trade_price, t_dts
FROM trade, trade_type WHERE t_id = ? AND t_tt_id = tt_id`
	tlTrades2 = `SELECT t_id, t_dts, t_bid_price, t_exec_name, t_is_cash, t_trade_price FROM trade
WHERE t_ca_id = ? AND t_dts >= ? AND t_dts <= ? ORDER BY t_dts LIMIT %d`
	tlTrades3 = `SELECT t_id, t_dts, t_ca_id, t_exec_name, t_is_cash, t_trade_price, t_qty, t_tt_id FROM trade
WHERE t_s_symb = ? AND t_dts >= ? AND t_dts <= ? ORDER BY t_dts LIMIT %d`
	tlSettlement = `SELECT se_amt, se_cash_due_date, se_cash_type FROM settlement WHERE se_t_id = ?`
	tlCash       = `SELECT ct_amt, ct_dts, ct_name FROM cash_transaction WHERE ct_t_id = ?`
	tlHistory    = `SELECT th_dts, th_st_id FROM trade_history WHERE th_t_id = ? ORDER BY th_dts LIMIT 3`
	tlFirst      = `SELECT t_id FROM trade WHERE t_ca_id = ? AND t_dts >= ? ORDER BY t_dts LIMIT 1`
	tlHoldings   = `SELECT hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty FROM holding_history
WHERE hh_h_t_id IN (SELECT hh_h_t_id FROM holding_history WHERE hh_t_id = ?) ORDER BY hh_h_t_id, hh_t_id LIMIT 20`
)

// TradeLookup reads trades by id (frame 1), by account or symbol in a
// time window (frames 2, 3), or an account's first trade after a time
// and its holdings' history (frame 4).
func (c *Client) TradeLookup(ctx context.Context, in TradeLookupInput) (*TradeLookupOutput, error) {
	out := &TradeLookupOutput{}
	err := c.inTx(ctx, func() error {
		switch in.Frame {
		case 1, 2, 3:
			trades, err := c.lookupTrades(ctx, in.Frame, in.TradeIDs, in.AcctID, in.Symbol, in.StartTradeDts, in.EndTradeDts, in.MaxTrades)
			out.Trades = trades
			return err
		case 4:
			err := c.row(ctx, tlFirst, []any{in.AcctID, in.StartTradeDts.UTC()}, &out.TradeID)
			if errors.Is(err, engine.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			var h HoldingHistoryRow
			_, err = c.each(ctx, tlHoldings, []any{out.TradeID}, []any{&h.HoldingTradeID, &h.TradeID, &h.BeforeQty, &h.AfterQty},
				func() error { out.History = append(out.History, h); return nil })
			return err
		}
		return fmt.Errorf("tpce: trade-lookup frame %d, want 1 to 4", in.Frame)
	})
	return out, err
}

// lookupTrades reads the trades of frame 1, 2 or 3, then their details.
// With Pipeline the details may still be queued when it returns: a flush
// (or the COMMIT) reads them.
func (c *Client) lookupTrades(ctx context.Context, frame int, ids []int64, acct int64, symbol string, start, end time.Time, max int) ([]TradeInfo, error) {
	var trades []TradeInfo
	if max <= 0 || max > MaxTrades {
		max = MaxTrades
	}
	var tp sql.NullFloat64
	switch frame {
	case 1:
		if len(ids) > MaxTrades {
			return nil, fmt.Errorf("tpce: %d trade ids, at most %d", len(ids), MaxTrades)
		}
		var err error
		if trades, err = c.tradesByID(ctx, ids); err != nil {
			return nil, err
		}
	case 2:
		var t TradeInfo
		if _, err := c.each(ctx, fmt.Sprintf(tlTrades2, max), []any{acct, start.UTC(), end.UTC()},
			[]any{&t.TradeID, &t.Dts, &t.BidPrice, &t.ExecName, &t.IsCash, &tp},
			func() error { t.TradePrice = tp.Float64; trades = append(trades, t); return nil }); err != nil {
			return trades, err
		}
	case 3:
		var t TradeInfo
		if _, err := c.each(ctx, fmt.Sprintf(tlTrades3, max), []any{symbol, start.UTC(), end.UTC()},
			[]any{&t.TradeID, &t.Dts, &t.AcctID, &t.ExecName, &t.IsCash, &tp, &t.Qty, &t.TypeID},
			func() error { t.TradePrice = tp.Float64; trades = append(trades, t); return nil }); err != nil {
			return trades, err
		}
	}
	return trades, c.allDetails(ctx, trades)
}

// tradesByID is frame 1's reads of the trades by id, queued together:
// the trades do not depend on each other.
func (c *Client) tradesByID(ctx context.Context, ids []int64) ([]TradeInfo, error) {
	trades := make([]TradeInfo, len(ids))
	tps := make([]sql.NullFloat64, len(ids))
	for i, id := range ids {
		t := &trades[i]
		t.TradeID = id
		if err := c.queueRow(ctx, "trade", tlTrade1, []any{id}, &t.BidPrice, &t.ExecName, &t.IsCash, &t.IsMarket, &tps[i], &t.Dts); err != nil {
			return nil, err
		}
	}
	if err := c.flush(ctx); err != nil {
		return nil, err
	}
	for i := range trades {
		trades[i].TradePrice = tps[i].Float64
	}
	return trades, nil
}

// allDetails queues every trade's settlement, cash transaction (cash
// trades) and up to 3 history rows; a trade not completed yet has no
// settlement nor cash transaction. Each depends only on the trade's id.
// With Pipeline they are left queued: the caller's next flush (or the
// COMMIT) sends them.
func (c *Client) allDetails(ctx context.Context, trades []TradeInfo) error {
	for i := range trades {
		t := &trades[i]
		// At most one row each; none for a trade not completed yet.
		if err := c.queueOptional(ctx, tlSettlement, []any{t.TradeID}, &t.SettleAmt, &t.SettleDue, &t.CashType); err != nil {
			return err
		}
		if t.IsCash {
			if err := c.queueOptional(ctx, tlCash, []any{t.TradeID}, &t.CashAmt, &t.CashDts, &t.CashName); err != nil {
				return err
			}
		}
		var dts time.Time
		var st string
		t.HistDts, t.HistStatus = t.HistDts[:0], t.HistStatus[:0]
		if err := c.queueEach(ctx, tlHistory, []any{t.TradeID}, []any{&dts, &st}, func() error {
			t.HistDts = append(t.HistDts, dts)
			t.HistStatus = append(t.HistStatus, st)
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// nothing is the row callback of a query whose row is scanned into place.
func nothing() error { return nil }

// TradeUpdateInput is Trade-Update's input: the inputs of Trade-Lookup's
// frames 1 to 3 and the most trades to change.
type TradeUpdateInput struct {
	TradeLookupInput
	MaxUpdates int
}

// TradeUpdateOutput is what Trade-Update returns: the trades (after the
// change) and how many rows it changed.
type TradeUpdateOutput struct {
	Trades  []TradeInfo
	Updated int64
}

const (
	tuExecName = `UPDATE trade SET t_exec_name = ? WHERE t_id = ?`
	tuCashType = `UPDATE settlement SET se_cash_type = ? WHERE se_t_id = ?`
	tuCashName = `UPDATE cash_transaction SET ct_name = ? WHERE ct_t_id = ?`
)

// TradeUpdate reads trades as Trade-Lookup's frames 1 to 3 do and changes
// up to MaxUpdates of them: frame 1 toggles " X " in the executor's name,
// frame 2 the settlement's cash type ("Cash Account"/"Cash",
// "Margin Account"/"Margin"), frame 3 the case of "shares of" in the cash
// transaction's name.
func (c *Client) TradeUpdate(ctx context.Context, in TradeUpdateInput) (*TradeUpdateOutput, error) {
	if in.Frame < 1 || in.Frame > 3 {
		return nil, fmt.Errorf("tpce: trade-update frame %d, want 1 to 3", in.Frame)
	}
	out := &TradeUpdateOutput{}
	err := c.inTx(ctx, func() error {
		trades, err := c.lookupTrades(ctx, in.Frame, in.TradeIDs, in.AcctID, in.Symbol, in.StartTradeDts, in.EndTradeDts, in.MaxTrades)
		out.Trades = trades
		if err != nil {
			return err
		}
		if err := c.flush(ctx); err != nil { // the details the changes read
			return err
		}
		for i := range trades {
			if out.Updated >= int64(in.MaxUpdates) {
				break
			}
			t := &trades[i]
			var n int64
			switch in.Frame {
			case 1:
				if strings.Contains(t.ExecName, " X ") {
					t.ExecName = strings.Replace(t.ExecName, " X ", " ", 1)
				} else {
					t.ExecName = strings.Replace(t.ExecName, " ", " X ", 1)
				}
				n, err = c.exec(ctx, tuExecName, t.ExecName, t.TradeID)
			case 2:
				if t.CashType == "" {
					continue
				}
				switch t.CashType {
				case "Cash Account":
					t.CashType = "Cash"
				case "Cash":
					t.CashType = "Cash Account"
				case "Margin Account":
					t.CashType = "Margin"
				default:
					t.CashType = "Margin Account"
				}
				n, err = c.exec(ctx, tuCashType, t.CashType, t.TradeID)
			case 3:
				if !t.IsCash || t.CashName == "" {
					continue
				}
				if strings.Contains(t.CashName, " shares of ") {
					t.CashName = strings.Replace(t.CashName, " shares of ", " Shares of ", 1)
				} else {
					t.CashName = strings.Replace(t.CashName, " Shares of ", " shares of ", 1)
				}
				n, err = c.exec(ctx, tuCashName, t.CashName, t.TradeID)
			}
			if err != nil {
				return err
			}
			out.Updated += n
		}
		return nil
	})
	return out, err
}
