package txn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// TradeOrderInput is Trade-Order's input. The security is Symbol, or the
// company CoName's issue Issue when Symbol is empty. RequestedPrice is a
// limit order's limit (a market order trades at the last price).
type TradeOrderInput struct {
	AcctID         int64
	ExecFName      string
	ExecLName      string
	ExecTaxID      string
	IsLIFO         bool
	CoName         string
	Issue          string
	Symbol         string
	TradeTypeID    string
	RequestedPrice float64
	TradeQty       int64
	TypeIsMargin   bool
	RollItBack     bool
}

// TradeOrderOutput is what Trade-Order returns, and what the market needs
// of the order.
type TradeOrderOutput struct {
	TradeID        int64
	Symbol         string
	TradeTypeID    string
	TradeQty       int64
	RequestedPrice float64 // the limit, or the market price of a market order
	IsMarket       bool
	IsSell         bool
	Status         string // SBMT for a market order, PNDG for a limit order
	BuyValue       float64
	SellValue      float64
	TaxAmount      float64
	CommRate       float64
	ChargeAmount   float64
	AcctAssets     float64 // margin orders only
}

const (
	toAccount   = `SELECT ca_name, ca_b_id, ca_c_id, ca_tax_st FROM customer_account WHERE ca_id = ?`
	toCustomer  = `SELECT c_f_name, c_l_name, c_tier, c_tax_id FROM customer WHERE c_id = ?`
	toBroker    = `SELECT b_name FROM broker WHERE b_id = ?`
	toPerm      = `SELECT ap_acl FROM account_permission WHERE ap_ca_id = ? AND ap_f_name = ? AND ap_l_name = ? AND ap_tax_id = ?`
	toCompany   = `SELECT co_id FROM company WHERE co_name = ?`
	toSecByCo   = `SELECT s_ex_id, s_name, s_symb FROM security WHERE s_co_id = ? AND s_issue = ?`
	toSecBySymb = `SELECT s_co_id, s_ex_id, s_name FROM security WHERE s_symb = ?`
	toCoName    = `SELECT co_name FROM company WHERE co_id = ?`
	toLastPrice = `SELECT lt_price FROM last_trade WHERE lt_s_symb = ?`
	toType      = `SELECT tt_is_mrkt, tt_is_sell FROM trade_type WHERE tt_id = ?`
	toHsQty     = `SELECT hs_qty FROM holding_summary WHERE hs_ca_id = ? AND hs_s_symb = ?`
	toLotsLIFO  = `SELECT h_qty, h_price FROM holding WHERE h_ca_id = ? AND h_s_symb = ? ORDER BY h_dts DESC, h_t_id DESC`
	toLotsFIFO  = `SELECT h_qty, h_price FROM holding WHERE h_ca_id = ? AND h_s_symb = ? ORDER BY h_dts, h_t_id`
	toTaxRate   = `SELECT COALESCE(SUM(tx_rate), 0) FROM taxrate, customer_taxrate WHERE cx_c_id = ? AND tx_id = cx_tx_id`
	toCommRate  = `SELECT cr_rate FROM commission_rate
WHERE cr_c_tier = ? AND cr_tt_id = ? AND cr_ex_id = ? AND cr_from_qty <= ? AND cr_to_qty >= ?`
	toCharge    = `SELECT ch_chrg FROM charge WHERE ch_c_tier = ? AND ch_tt_id = ?`
	toBalance   = `SELECT ca_bal FROM customer_account WHERE ca_id = ?`
	toHoldValue = `SELECT COALESCE(SUM(hs_qty * lt_price), 0) FROM holding_summary, last_trade WHERE hs_ca_id = ? AND lt_s_symb = hs_s_symb`
	toTrade     = `INSERT INTO trade (t_id, t_dts, t_st_id, t_tt_id, t_is_cash, t_s_symb, t_qty, t_bid_price, t_ca_id, t_exec_name,
t_trade_price, t_chrg, t_comm, t_tax, t_lifo) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, 0, ?)`
	toRequest = `INSERT INTO trade_request (tr_t_id, tr_tt_id, tr_s_symb, tr_qty, tr_bid_price, tr_b_id) VALUES (?, ?, ?, ?, ?, ?)`
	toHistory = `INSERT INTO trade_history (th_t_id, th_dts, th_st_id) VALUES (?, ?, ?)`
)

// TradeOrder places an order: frame 1 reads the account, customer and
// broker; frame 2 checks a non-owner executor's permission (none: the
// transaction is rolled back and ErrNoPermission returned); frame 3
// prices the order (the lots it would sell or cover, the tax, commission
// rate and charge, the assets of a margin account); frame 4 inserts the
// trade, a limit order's trade_request and the history; frame 5 rolls
// back when RollItBack (the specification's intended rollback: the error
// wraps workload.ErrRollback), frame 6 commits.
func (c *Client) TradeOrder(ctx context.Context, in TradeOrderInput) (*TradeOrderOutput, error) {
	o := &TradeOrderOutput{TradeTypeID: in.TradeTypeID, TradeQty: in.TradeQty, RequestedPrice: in.RequestedPrice}
	err := c.inTx(ctx, func() error {
		if err := c.tradeOrder(ctx, in, o); err != nil {
			return err
		}
		if in.RollItBack {
			// The server does the order's work, then rolls it back.
			if err := c.flush(ctx); err != nil {
				return err
			}
			return fmt.Errorf("trade-order of trade %d: %w", o.TradeID, workload.ErrRollback)
		}
		return nil
	})
	return o, err
}

// tradeOrder runs the frames. With Pipeline the statements that depend
// only on what is known go together: the BEGIN with the account's row;
// the customer, the broker, the trade type, and the security, its last
// price and the holding summary (or the company by name) and the margin
// figures in one round trip; the permission (when the executor is not
// the owner) in one; the company name (or the security by company), the
// charge and the commission rate in one (the last price and the holding
// summary join them when the order named a company); the lots in one, the
// tax rate in one when they are needed; the new trade id in one; the
// inserts go with the COMMIT.
func (c *Client) tradeOrder(ctx context.Context, in TradeOrderInput, o *TradeOrderOutput) error {
	// Frame 1.
	var caName sql.NullString
	var bID, cID, taxSt, tier int64
	var fName, lName, taxID, bName string
	if err := c.must(ctx, "customer_account", toAccount, []any{in.AcctID}, &caName, &bID, &cID, &taxSt); err != nil {
		return err
	}
	if err := c.queueRow(ctx, "customer", toCustomer, []any{cID}, &fName, &lName, &tier, &taxID); err != nil {
		return err
	}
	if err := c.queueRow(ctx, "broker", toBroker, []any{bID}, &bName); err != nil {
		return err
	}
	// Frame 3's reads that need only the input.
	var coID int64
	var exID, sName string
	var marketPrice float64
	var hsQty int64
	o.Symbol = in.Symbol
	if err := c.queueRow(ctx, "trade_type", toType, []any{in.TradeTypeID}, &o.IsMarket, &o.IsSell); err != nil {
		return err
	}
	var err error
	if in.Symbol == "" {
		err = c.queueRow(ctx, "company", toCompany, []any{in.CoName}, &coID)
	} else {
		err = c.symbolReads(ctx, in.AcctID, in.Symbol, &marketPrice, &hsQty)
		if err == nil {
			err = c.queueRow(ctx, "security", toSecBySymb, []any{in.Symbol}, &coID, &exID, &sName)
		}
	}
	if err != nil {
		return err
	}
	var bal, held float64
	if in.TypeIsMargin {
		if err := c.queueRow(ctx, "customer_account", toBalance, []any{in.AcctID}, &bal); err != nil {
			return err
		}
		if err := c.queueRow(ctx, "holdings", toHoldValue, []any{in.AcctID}, &held); err != nil {
			return err
		}
	}
	if err := c.flush(ctx); err != nil {
		return err
	}
	o.AcctAssets = bal + held
	// Frame 2.
	if in.ExecLName != lName || in.ExecFName != fName || in.ExecTaxID != taxID {
		var acl string
		err := c.row(ctx, toPerm, []any{in.AcctID, in.ExecFName, in.ExecLName, in.ExecTaxID}, &acl)
		if errors.Is(err, engine.ErrNoRows) {
			return fmt.Errorf("%w: %s %s on account %d", ErrNoPermission, in.ExecFName, in.ExecLName, in.AcctID)
		}
		if err != nil {
			return err
		}
	}
	// Frame 3.
	if in.Symbol == "" {
		if err := c.queueRow(ctx, "security", toSecByCo, []any{coID, in.Issue}, &exID, &sName, &o.Symbol); err != nil {
			return err
		}
	} else {
		var co string
		if err := c.queueRow(ctx, "company", toCoName, []any{coID}, &co); err != nil {
			return err
		}
		if err := c.queueRow(ctx, "commission_rate", toCommRate, []any{tier, in.TradeTypeID, exID, in.TradeQty, in.TradeQty}, &o.CommRate); err != nil {
			return err
		}
	}
	if err := c.queueRow(ctx, "charge", toCharge, []any{tier, in.TradeTypeID}, &o.ChargeAmount); err != nil {
		return err
	}
	if err := c.flush(ctx); err != nil {
		return err
	}
	if in.Symbol == "" {
		if err := c.symbolReads(ctx, in.AcctID, o.Symbol, &marketPrice, &hsQty); err != nil {
			return err
		}
		if err := c.queueRow(ctx, "commission_rate", toCommRate, []any{tier, in.TradeTypeID, exID, in.TradeQty, in.TradeQty}, &o.CommRate); err != nil {
			return err
		}
		if err := c.flush(ctx); err != nil {
			return err
		}
	}
	if o.IsMarket {
		o.RequestedPrice = marketPrice
	}
	lots := toLotsFIFO
	if in.IsLIFO {
		lots = toLotsLIFO
	}
	needed := in.TradeQty
	var hq int64
	var hp float64
	walk := func(sign int64) error {
		_, err := c.each(ctx, lots, []any{in.AcctID, o.Symbol}, []any{&hq, &hp}, func() error {
			if needed == 0 {
				return nil
			}
			q := min(sign*hq, needed)
			o.BuyValue += float64(q) * hp
			o.SellValue += float64(q) * o.RequestedPrice
			needed -= q
			return nil
		})
		return err
	}
	if o.IsSell && hsQty > 0 {
		err = walk(1)
	} else if !o.IsSell && hsQty < 0 {
		err = walk(-1)
	}
	if err != nil {
		return err
	}
	if o.SellValue > o.BuyValue && (taxSt == 1 || taxSt == 2) {
		var rate float64
		if err := c.must(ctx, "taxrate", toTaxRate, []any{cID}, &rate); err != nil {
			return err
		}
		o.TaxAmount = round2((o.SellValue - o.BuyValue) * rate)
	}
	o.Status = StatusPending
	if o.IsMarket {
		o.Status = StatusSubmitted
	}
	// Frame 4: the inserts go with the COMMIT (inTx).
	if o.TradeID, err = c.newTradeID(ctx); err != nil {
		return err
	}
	comm := round2(o.CommRate / 100 * float64(in.TradeQty) * o.RequestedPrice)
	now := c.now()
	exec := in.ExecFName + " " + in.ExecLName
	if err := c.queueExec(ctx, toTrade, o.TradeID, now, o.Status, in.TradeTypeID, !in.TypeIsMargin, o.Symbol, in.TradeQty,
		o.RequestedPrice, in.AcctID, exec, o.ChargeAmount, comm, in.IsLIFO); err != nil {
		return err
	}
	if !o.IsMarket {
		if err := c.queueExec(ctx, toRequest, o.TradeID, in.TradeTypeID, o.Symbol, in.TradeQty, o.RequestedPrice, bID); err != nil {
			return err
		}
	}
	return c.queueExec(ctx, toHistory, o.TradeID, now, o.Status)
}

// symbolReads queues what frame 3 reads of a symbol: its last price and
// the account's holding summary (none: 0).
func (c *Client) symbolReads(ctx context.Context, acct int64, symb string, price *float64, hsQty *int64) error {
	if err := c.queueRow(ctx, "last_trade", toLastPrice, []any{symb}, price); err != nil {
		return err
	}
	*hsQty = 0
	return c.queueOptional(ctx, toHsQty, []any{acct, symb}, hsQty)
}

// newTradeID returns the next trade id (see the package documentation).
func (c *Client) newTradeID(ctx context.Context) (int64, error) {
	var id int64
	err := c.row(ctx, c.nextID, nil, &id)
	return id, err
}
