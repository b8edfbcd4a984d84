package txn

import (
	"context"
	"time"
)

// TickerEntry is one trade the market reports to Market-Feed.
type TickerEntry struct {
	Symbol     string
	PriceQuote float64
	TradeQty   int64
}

// MarketFeedInput is Market-Feed's input: the ticker's entries (20 in the
// specification).
type MarketFeedInput struct {
	Entries []TickerEntry
}

// Triggered is a limit order a ticker entry crossed: submitted now, it
// goes to the market.
type Triggered struct {
	TradeID  int64
	Symbol   string
	TypeID   string
	Qty      int64
	BidPrice float64
}

const (
	mfLastTrade = `UPDATE last_trade SET lt_price = ?, lt_vol = lt_vol + ?, lt_dts = ? WHERE lt_s_symb = ?`
	mfRequests  = `SELECT tr_t_id, tr_bid_price, tr_tt_id, tr_qty FROM trade_request
WHERE tr_s_symb = ? AND ((tr_tt_id = '` + TypeStopLoss + `' AND tr_bid_price >= ?)
 OR (tr_tt_id = '` + TypeLimitSell + `' AND tr_bid_price <= ?)
 OR (tr_tt_id = '` + TypeLimitBuy + `' AND tr_bid_price >= ?))`
	mfSubmit  = `UPDATE trade SET t_dts = ?, t_st_id = ? WHERE t_id = ?`
	mfRequest = `DELETE FROM trade_request WHERE tr_t_id = ?`
)

// MarketFeed applies the ticker, one transaction per entry: the entry's
// last trade is updated, and the pending orders on its symbol that its
// price crosses (stop-loss at or above their limit, limit-sell at or
// below, limit-buy at or above) are submitted: status SBMT, history, and
// their trade_request deleted. It returns the orders submitted, for the
// market to execute.
func (c *Client) MarketFeed(ctx context.Context, in MarketFeedInput) ([]Triggered, error) {
	var out []Triggered
	for _, e := range in.Entries {
		err := c.inTx(ctx, func() error {
			// With Pipeline: the BEGIN, the price and the triggered
			// requests in one round trip; their changes with the COMMIT.
			now := c.now()
			if err := c.queueExec(ctx, mfLastTrade, e.PriceQuote, e.TradeQty, now, e.Symbol); err != nil {
				return err
			}
			var hits []Triggered
			r := Triggered{Symbol: e.Symbol}
			if err := c.queueEach(ctx, mfRequests+c.fu, []any{e.Symbol, e.PriceQuote, e.PriceQuote, e.PriceQuote},
				[]any{&r.TradeID, &r.BidPrice, &r.TypeID, &r.Qty}, func() error { hits = append(hits, r); return nil }); err != nil {
				return err
			}
			if err := c.flush(ctx); err != nil {
				return err
			}
			for _, h := range hits {
				if err := c.queueExec(ctx, mfSubmit, now, StatusSubmitted, h.TradeID); err != nil {
					return err
				}
				if err := c.queueExec(ctx, mfRequest, h.TradeID); err != nil {
					return err
				}
				if err := c.queueExec(ctx, toHistory, h.TradeID, now, StatusSubmitted); err != nil {
					return err
				}
			}
			out = append(out, hits...)
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// TradeCleanupInput is Trade-Cleanup's input: the first trade id of the
// run-time trades (above the initial ones).
type TradeCleanupInput struct {
	StartTradeID int64
}

const (
	tcRequests  = `SELECT tr_t_id FROM trade_request ORDER BY tr_t_id`
	tcCancel    = `UPDATE trade SET t_st_id = ?, t_dts = ? WHERE t_id = ?`
	tcDelete    = `DELETE FROM trade_request`
	tcSubmitted = `SELECT t_id FROM trade WHERE t_id >= ? AND t_st_id = ?`
)

// TradeCleanup cancels what a previous run left in flight: every pending
// request gets its SBMT and CNCL history and status CNCL, trade_request is
// emptied, and every run-time trade still submitted is canceled. It
// returns the number of trades canceled.
func (c *Client) TradeCleanup(ctx context.Context, in TradeCleanupInput) (int, error) {
	n := 0
	err := c.inTx(ctx, func() error {
		now := c.now()
		var ids []int64
		var id int64
		if _, err := c.each(ctx, tcRequests, nil, []any{&id}, func() error { ids = append(ids, id); return nil }); err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := c.exec(ctx, toHistory, id, now, StatusSubmitted); err != nil {
				return err
			}
			if err := c.cancel(ctx, id, now.Add(time.Microsecond)); err != nil {
				return err
			}
		}
		if _, err := c.exec(ctx, tcDelete); err != nil {
			return err
		}
		n = len(ids)
		ids = ids[:0]
		if _, err := c.each(ctx, tcSubmitted, []any{in.StartTradeID, StatusSubmitted}, []any{&id},
			func() error { ids = append(ids, id); return nil }); err != nil {
			return err
		}
		for _, id := range ids {
			if err := c.cancel(ctx, id, now); err != nil {
				return err
			}
		}
		n += len(ids)
		return nil
	})
	return n, err
}

func (c *Client) cancel(ctx context.Context, id int64, now time.Time) error {
	if _, err := c.exec(ctx, tcCancel, StatusCanceled, now, id); err != nil {
		return err
	}
	_, err := c.exec(ctx, toHistory, id, now, StatusCanceled)
	return err
}
