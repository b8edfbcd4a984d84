package txn

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// TradeResultInput is Trade-Result's input: the trade the market executed
// and its price.
type TradeResultInput struct {
	TradeID    int64
	TradePrice float64
}

// TradeResultOutput is what Trade-Result returns.
type TradeResultOutput struct {
	AcctID     int64
	AcctBal    float64 // after the trade (cash accounts)
	BrokerID   int64
	BuyValue   float64
	SellValue  float64
	TaxAmount  float64
	CommAmount float64
	SettleAmt  float64
	SettleDue  time.Time
}

const (
	trTrade     = `SELECT t_ca_id, t_tt_id, t_s_symb, t_qty, t_chrg, t_lifo, t_is_cash FROM trade WHERE t_id = ?`
	trType      = `SELECT tt_name, tt_is_sell, tt_is_mrkt FROM trade_type WHERE tt_id = ?`
	trAccount   = `SELECT ca_b_id, ca_c_id, ca_tax_st FROM customer_account WHERE ca_id = ?`
	trHsInsert  = `INSERT INTO holding_summary (hs_ca_id, hs_s_symb, hs_qty) VALUES (?, ?, ?)`
	trHsUpdate  = `UPDATE holding_summary SET hs_qty = ? WHERE hs_ca_id = ? AND hs_s_symb = ?`
	trHsDelete  = `DELETE FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?`
	trLotsLIFO  = `SELECT h_t_id, h_qty, h_price FROM holding WHERE h_ca_id = ? AND h_s_symb = ? ORDER BY h_dts DESC, h_t_id DESC`
	trLotsFIFO  = `SELECT h_t_id, h_qty, h_price FROM holding WHERE h_ca_id = ? AND h_s_symb = ? ORDER BY h_dts, h_t_id`
	trHHInsert  = `INSERT INTO holding_history (hh_h_t_id, hh_t_id, hh_before_qty, hh_after_qty) VALUES (?, ?, ?, ?)`
	trHUpdate   = `UPDATE holding SET h_qty = ? WHERE h_t_id = ?`
	trHDelete   = `DELETE FROM holding WHERE h_t_id = ?`
	trHInsert   = `INSERT INTO holding (h_t_id, h_ca_id, h_s_symb, h_dts, h_price, h_qty) VALUES (?, ?, ?, ?, ?, ?)`
	trTax       = `UPDATE trade SET t_tax = ? WHERE t_id = ?`
	trSecurity  = `SELECT s_ex_id, s_name FROM security WHERE s_symb = ?`
	trTier      = `SELECT c_tier FROM customer WHERE c_id = ?`
	trComplete  = `UPDATE trade SET t_comm = ?, t_dts = ?, t_st_id = ?, t_trade_price = ? WHERE t_id = ?`
	trBroker    = `UPDATE broker SET b_comm_total = b_comm_total + ?, b_num_trades = b_num_trades + 1 WHERE b_id = ?`
	trSettle    = `INSERT INTO settlement (se_t_id, se_cash_type, se_cash_due_date, se_amt) VALUES (?, ?, ?, ?)`
	trBalUpdate = `UPDATE customer_account SET ca_bal = ca_bal + ? WHERE ca_id = ?`
	trCash      = `INSERT INTO cash_transaction (ct_t_id, ct_dts, ct_amt, ct_name) VALUES (?, ?, ?, ?)`
)

// lot is one holding row of the lot walk.
type lot struct {
	id    int64
	qty   int64
	price float64
}

// TradeResult completes a trade the market executed, in one transaction:
// frame 1 reads the trade, its type and the holding summary; frame 2
// moves the holdings (the summary inserted, updated or deleted; the lots
// walked LIFO or FIFO, each change recorded in holding_history; what is
// left becomes a new lot, short for a sale); frame 3 the tax of a gain in
// a taxable account; frame 4 the commission rate; frame 5 completes the
// trade, its history and the broker's totals; frame 6 the settlement and,
// for a cash trade, the account's balance and cash transaction.
func (c *Client) TradeResult(ctx context.Context, in TradeResultInput) (*TradeResultOutput, error) {
	o := &TradeResultOutput{}
	err := c.inTx(ctx, func() error { return c.tradeResult(ctx, in, o) })
	return o, err
}

// tradeResult runs the frames. With Pipeline the statements that depend
// only on what is known go together: after the trade's row, one round
// trip reads its type, holding summary and account; one writes the
// holding summary and reads the lots; one writes the lots and reads the
// security, the tier and the tax rate; one reads the commission rate; one
// writes the trade, its history, the broker, the settlement and the cash,
// reads the balance and commits. The BEGIN goes with the trade's row.
func (c *Client) tradeResult(ctx context.Context, in TradeResultInput, o *TradeResultOutput) error {
	// Frame 1.
	var ttID, symb, ttName string
	var qty int64
	var charge float64
	var lifo, isCash, isSell, isMarket bool
	if err := c.must(ctx, "trade", trTrade+c.fu, []any{in.TradeID}, &o.AcctID, &ttID, &symb, &qty, &charge, &lifo, &isCash); err != nil {
		return err
	}
	var hsQty, cID, taxSt int64
	if err := c.queueRow(ctx, "trade_type", trType, []any{ttID}, &ttName, &isSell, &isMarket); err != nil {
		return err
	}
	if err := c.queueOptional(ctx, toHsQty, []any{o.AcctID, symb}, &hsQty); err != nil {
		return err
	}
	// Frame 2.
	if err := c.queueRow(ctx, "customer_account", trAccount+c.fu, []any{o.AcctID}, &o.BrokerID, &cID, &taxSt); err != nil {
		return err
	}
	if err := c.flush(ctx); err != nil {
		return err
	}
	now := c.now()
	sign := int64(1) // +1 for a sale of long lots, -1 to cover short ones
	after := hsQty + qty
	if isSell {
		after = hsQty - qty
	} else {
		sign = -1
	}
	var err error
	switch {
	case hsQty == 0:
		err = c.queueExec(ctx, trHsInsert, o.AcctID, symb, after)
	case after != 0:
		err = c.queueExec(ctx, trHsUpdate, after, o.AcctID, symb)
	}
	if err != nil {
		return err
	}
	var lots []lot
	if hsQty*sign > 0 {
		q := trLotsFIFO
		if lifo {
			q = trLotsLIFO
		}
		var l lot
		if err := c.queueEach(ctx, q+c.fu, []any{o.AcctID, symb}, []any{&l.id, &l.qty, &l.price},
			func() error { lots = append(lots, l); return nil }); err != nil {
			return err
		}
	}
	if err := c.flush(ctx); err != nil {
		return err
	}
	needed := qty
	for _, l := range lots {
		if needed == 0 {
			break
		}
		held := l.qty * sign // shares of the lot this trade can close
		q := min(held, needed)
		rest := l.qty - q*sign
		if err := c.queueExec(ctx, trHHInsert, l.id, in.TradeID, l.qty, rest); err != nil {
			return err
		}
		if rest != 0 {
			err = c.queueExec(ctx, trHUpdate, rest, l.id)
		} else {
			err = c.queueExec(ctx, trHDelete, l.id)
		}
		if err != nil {
			return err
		}
		if isSell {
			o.BuyValue += float64(q) * l.price
			o.SellValue += float64(q) * in.TradePrice
		} else {
			o.SellValue += float64(q) * l.price
			o.BuyValue += float64(q) * in.TradePrice
		}
		needed -= q
	}
	if needed > 0 {
		newQty := needed
		if isSell {
			newQty = -needed
		}
		if err := c.queueExec(ctx, trHHInsert, in.TradeID, in.TradeID, 0, newQty); err != nil {
			return err
		}
		if err := c.queueExec(ctx, trHInsert, in.TradeID, o.AcctID, symb, now, in.TradePrice, newQty); err != nil {
			return err
		}
		if isSell {
			o.SellValue += float64(needed) * in.TradePrice
		} else {
			o.BuyValue += float64(needed) * in.TradePrice
		}
	}
	if hsQty != 0 && after == 0 {
		if err := c.queueExec(ctx, trHsDelete, o.AcctID, symb); err != nil {
			return err
		}
	}
	// Frame 3's tax rate and frame 4's security and tier.
	taxed := (taxSt == 1 || taxSt == 2) && o.SellValue > o.BuyValue
	var taxRate float64
	if taxed {
		if err := c.queueRow(ctx, "taxrate", toTaxRate, []any{cID}, &taxRate); err != nil {
			return err
		}
	}
	var exID, sName string
	var tier int64
	if err := c.queueRow(ctx, "security", trSecurity, []any{symb}, &exID, &sName); err != nil {
		return err
	}
	if err := c.queueRow(ctx, "customer", trTier, []any{cID}, &tier); err != nil {
		return err
	}
	if err := c.flush(ctx); err != nil {
		return err
	}
	// Frame 4's commission rate.
	var rate float64
	if err := c.queueRow(ctx, "commission_rate", toCommRate, []any{tier, ttID, exID, qty, qty}, &rate); err != nil {
		return err
	}
	if err := c.flush(ctx); err != nil {
		return err
	}
	// Frame 3's tax.
	if taxed {
		o.TaxAmount = round2((o.SellValue - o.BuyValue) * taxRate)
		if err := c.queueExec(ctx, trTax, o.TaxAmount, in.TradeID); err != nil {
			return err
		}
	}
	// Frame 5.
	o.CommAmount = round2(rate / 100 * float64(qty) * in.TradePrice)
	if err := c.queueExec(ctx, trComplete, o.CommAmount, now, StatusCompleted, in.TradePrice, in.TradeID); err != nil {
		return err
	}
	if err := c.queueExec(ctx, toHistory, in.TradeID, now, StatusCompleted); err != nil {
		return err
	}
	// The broker table is a few pages, which the planner would scan
	// whole; under serializable isolation with predicate locks that
	// locks every broker, and concurrent Trade-Results of different
	// brokers fail each other (the reference notes' known problem 5).
	if err := c.queueIndexScans(ctx); err != nil {
		return err
	}
	if err := c.queueExec(ctx, trBroker, o.CommAmount, o.BrokerID); err != nil {
		return err
	}
	// Frame 6.
	value := round2(float64(qty) * in.TradePrice)
	if isSell {
		o.SettleAmt = value - charge - o.CommAmount
	} else {
		o.SettleAmt = -(value + charge + o.CommAmount)
	}
	if taxSt == 1 {
		o.SettleAmt -= o.TaxAmount
	}
	o.SettleAmt = round2(o.SettleAmt)
	o.SettleDue = time.Date(now.Year(), now.Month(), now.Day()+2, 0, 0, 0, 0, time.UTC)
	cashType := "Margin"
	if isCash {
		cashType = "Cash Account"
	}
	if err := c.queueExec(ctx, trSettle, in.TradeID, cashType, o.SettleDue, o.SettleAmt); err != nil {
		return err
	}
	if isCash {
		if err := c.queueExec(ctx, trBalUpdate, o.SettleAmt, o.AcctID); err != nil {
			return err
		}
		name := ttName + " " + strconv.FormatInt(qty, 10) + " shares of " + sName
		if len(name) > 100 {
			name = name[:100]
		}
		if err := c.queueExec(ctx, trCash, in.TradeID, now, o.SettleAmt, name); err != nil {
			return err
		}
	}
	// The last statements go with the COMMIT (inTx).
	if err := c.queueRow(ctx, "customer_account", toBalance, []any{o.AcctID}, &o.AcctBal); err != nil {
		return fmt.Errorf("trade-result of trade %d: %w", in.TradeID, err)
	}
	return nil
}
