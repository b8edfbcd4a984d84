package procs

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// TradeStatus lists an account's 50 newest trades and the names of its
// customer and broker (txn.Client.TradeStatus).
func (c *Client) TradeStatus(ctx context.Context, in txn.TradeStatusInput) (*txn.TradeStatusOutput, error) {
	out := &txn.TradeStatusOutput{}
	err := c.run(ctx, func() error { return c.call(ctx, nameTradeStatus, out, in.AcctID) })
	return out, err
}

// BrokerVolume sums the pending orders' value per broker of the list on
// the sector's securities, largest first (txn.Client.BrokerVolume). The
// broker list crosses the wire as a JSON array.
func (c *Client) BrokerVolume(ctx context.Context, in txn.BrokerVolumeInput) ([]txn.BrokerVolume, error) {
	if len(in.BrokerList) == 0 {
		return nil, fmt.Errorf("tpce: broker-volume needs brokers")
	}
	names, err := json.Marshal(in.BrokerList)
	if err != nil {
		return nil, err
	}
	var out []txn.BrokerVolume
	err = c.run(ctx, func() error { return c.call(ctx, nameBrokerVolume, &out, string(names), in.SectorName) })
	return out, err
}

// CustomerPosition reads a customer, their accounts' balances and assets
// and optionally the recent trades of one account
// (txn.Client.CustomerPosition).
func (c *Client) CustomerPosition(ctx context.Context, in txn.CustomerPositionInput) (*txn.CustomerPositionOutput, error) {
	out := &txn.CustomerPositionOutput{CustID: in.CustID}
	if c.mode == Procedure {
		err := c.call(ctx, nameCustomerPosition, out, in.CustID, in.TaxID, in.GetHistory, in.AcctIDIdx)
		return out, err
	}
	err := c.run(ctx, func() error {
		if err := c.call(ctx, nameCPFrame1, out, in.CustID, in.TaxID); err != nil {
			return err
		}
		if !in.GetHistory || len(out.Accounts) == 0 {
			return nil
		}
		acct := out.Accounts[in.AcctIDIdx%len(out.Accounts)].AcctID
		return c.call(ctx, nameCPFrame2, out, acct)
	})
	return out, err
}

// MarketWatch computes the change of a symbol list's market cap between
// the close of StartDay and the last trades (txn.Client.MarketWatch).
func (c *Client) MarketWatch(ctx context.Context, in txn.MarketWatchInput) (*txn.MarketWatchOutput, error) {
	out := &txn.MarketWatchOutput{}
	if in.CustID == 0 && in.IndustryName == "" && in.AcctID == 0 {
		return out, fmt.Errorf("tpce: market-watch needs a customer, an industry or an account")
	}
	err := c.run(ctx, func() error {
		return c.call(ctx, nameMarketWatch, out, in.AcctID, in.CustID, in.IndustryName, in.StartingCoID, in.EndingCoID, in.StartDay.UTC())
	})
	return out, err
}

// SecurityDetail reads everything about one security
// (txn.Client.SecurityDetail).
func (c *Client) SecurityDetail(ctx context.Context, in txn.SecurityDetailInput) (*txn.SecurityDetailOutput, error) {
	if in.MaxRowsToReturn < 1 || in.MaxRowsToReturn > 20 {
		return nil, fmt.Errorf("tpce: security-detail: max rows %d, want 1 to 20", in.MaxRowsToReturn)
	}
	out := &txn.SecurityDetailOutput{}
	err := c.run(ctx, func() error {
		return c.call(ctx, nameSecurityDetail, out, in.Symbol, in.MaxRowsToReturn, in.StartDay.UTC(), in.AccessLOBFlag)
	})
	return out, err
}

// lookupArgs are the arguments of Trade-Lookup's and Trade-Update's
// functions; the trade ids cross the wire as comma-separated text.
func lookupArgs(in txn.TradeLookupInput) ([]any, error) {
	if len(in.TradeIDs) > txn.MaxTrades {
		return nil, fmt.Errorf("tpce: %d trade ids, at most %d", len(in.TradeIDs), txn.MaxTrades)
	}
	max := in.MaxTrades
	if max <= 0 || max > txn.MaxTrades {
		max = txn.MaxTrades
	}
	return []any{int64(in.Frame), idList(in.TradeIDs), in.AcctID, in.Symbol, in.StartTradeDts.UTC(), in.EndTradeDts.UTC(), int64(max)}, nil
}

// TradeLookup reads trades by id (frame 1), by account or symbol in a
// time window (frames 2, 3), or an account's first trade after a time and
// its holdings' history (frame 4) (txn.Client.TradeLookup).
func (c *Client) TradeLookup(ctx context.Context, in txn.TradeLookupInput) (*txn.TradeLookupOutput, error) {
	out := &txn.TradeLookupOutput{}
	if in.Frame < 1 || in.Frame > 4 {
		return out, fmt.Errorf("tpce: trade-lookup frame %d, want 1 to 4", in.Frame)
	}
	args, err := lookupArgs(in)
	if err != nil {
		return out, err
	}
	err = c.run(ctx, func() error { return c.call(ctx, nameTradeLookup, out, args...) })
	return out, err
}

// TradeUpdate reads trades as Trade-Lookup's frames 1 to 3 do and changes
// up to MaxUpdates of them (txn.Client.TradeUpdate).
func (c *Client) TradeUpdate(ctx context.Context, in txn.TradeUpdateInput) (*txn.TradeUpdateOutput, error) {
	if in.Frame < 1 || in.Frame > 3 {
		return nil, fmt.Errorf("tpce: trade-update frame %d, want 1 to 3", in.Frame)
	}
	out := &txn.TradeUpdateOutput{}
	args, err := lookupArgs(in.TradeLookupInput)
	if err != nil {
		return out, err
	}
	args = append(args, int64(in.MaxUpdates))
	err = c.run(ctx, func() error { return c.call(ctx, nameTradeUpdate, out, args...) })
	return out, err
}

// toResult is Trade-Order's output as its functions return it: the
// output, or noperm when frame 2 found no permission.
type toResult struct {
	*txn.TradeOrderOutput
	NoPerm bool `json:"noperm"`
}

// TradeOrder places an order (txn.Client.TradeOrder): frames 1 to 4,
// then the intended rollback of RollItBack (the error wraps
// workload.ErrRollback) or the commit. An executor without permission is
// ErrNoPermission, and nothing is written. In procedure mode the order is
// one call in autocommit, but an order to be rolled back is called
// between BEGIN and ROLLBACK.
func (c *Client) TradeOrder(ctx context.Context, in txn.TradeOrderInput) (*txn.TradeOrderOutput, error) {
	o := &txn.TradeOrderOutput{TradeTypeID: in.TradeTypeID, TradeQty: in.TradeQty, RequestedPrice: in.RequestedPrice}
	explicit := c.mode == Frames || in.RollItBack
	if explicit {
		if err := c.begin(ctx); err != nil {
			return nil, err
		}
	}
	var err error
	if c.mode == Procedure {
		err = c.tradeOrderProc(ctx, in, o)
	} else {
		err = c.tradeOrderFrames(ctx, in, o)
	}
	switch {
	case !explicit:
		return o, err
	case err != nil:
		return o, c.rollback(ctx, err)
	case in.RollItBack:
		return o, c.rollback(ctx, fmt.Errorf("trade-order of trade %d: %w", o.TradeID, workload.ErrRollback))
	}
	return o, c.commit(ctx)
}

func noPermission(in txn.TradeOrderInput) error {
	return fmt.Errorf("%w: %s %s on account %d", txn.ErrNoPermission, in.ExecFName, in.ExecLName, in.AcctID)
}

func (c *Client) tradeOrderProc(ctx context.Context, in txn.TradeOrderInput, o *txn.TradeOrderOutput) error {
	r := toResult{TradeOrderOutput: o}
	if err := c.call(ctx, nameTradeOrder, &r, in.AcctID, in.ExecFName, in.ExecLName, in.ExecTaxID, in.IsLIFO,
		in.CoName, in.Issue, in.Symbol, in.TradeTypeID, in.RequestedPrice, in.TradeQty, in.TypeIsMargin, c.now()); err != nil {
		return err
	}
	if r.NoPerm {
		return noPermission(in)
	}
	return nil
}

func (c *Client) tradeOrderFrames(ctx context.Context, in txn.TradeOrderInput, o *txn.TradeOrderOutput) error {
	var f1 struct {
		BrokerID, CustID, TaxStatus, Tier int64
		FName, LName, TaxID               string
	}
	if err := c.call(ctx, nameTOFrame1, &f1, in.AcctID); err != nil {
		return err
	}
	if in.ExecLName != f1.LName || in.ExecFName != f1.FName || in.ExecTaxID != f1.TaxID {
		var f2 toResult
		if err := c.call(ctx, nameTOFrame2, &f2, in.AcctID, in.ExecFName, in.ExecLName, in.ExecTaxID); err != nil {
			return err
		}
		if f2.NoPerm {
			return noPermission(in)
		}
	}
	if err := c.call(ctx, nameTOFrame3, o, in.AcctID, f1.CustID, f1.TaxStatus, f1.Tier, in.IsLIFO, in.CoName, in.Issue,
		in.Symbol, in.TradeTypeID, in.RequestedPrice, in.TradeQty, in.TypeIsMargin); err != nil {
		return err
	}
	o.Status = txn.StatusPending
	if o.IsMarket {
		o.Status = txn.StatusSubmitted
	}
	comm := round2(o.CommRate / 100 * float64(in.TradeQty) * o.RequestedPrice)
	return c.call(ctx, nameTOFrame4, o, in.AcctID, f1.BrokerID, o.Symbol, in.TradeTypeID, in.TradeQty, o.RequestedPrice,
		in.TypeIsMargin, in.ExecFName, in.ExecLName, o.ChargeAmount, comm, in.IsLIFO, o.IsMarket, o.Status, c.now())
}

// TradeResult completes a trade the market executed, in one transaction
// (txn.Client.TradeResult).
func (c *Client) TradeResult(ctx context.Context, in txn.TradeResultInput) (*txn.TradeResultOutput, error) {
	o := &txn.TradeResultOutput{}
	if c.mode == Procedure {
		return o, c.call(ctx, nameTradeResult, o, in.TradeID, in.TradePrice, c.now())
	}
	err := c.run(ctx, func() error { return c.tradeResultFrames(ctx, in, o) })
	return o, err
}

func (c *Client) tradeResultFrames(ctx context.Context, in txn.TradeResultInput, o *txn.TradeResultOutput) error {
	now := c.now()
	var f1 struct {
		AcctID, Qty, HsQty             int64
		TypeID, Symbol, TypeName       string
		Charge                         float64
		Lifo, IsCash, IsSell, IsMarket bool
	}
	if err := c.call(ctx, nameTRFrame1, &f1, in.TradeID); err != nil {
		return err
	}
	o.AcctID = f1.AcctID
	var f2 struct {
		BrokerID, CustID, TaxStatus int64
		BuyValue, SellValue         float64
	}
	if err := c.call(ctx, nameTRFrame2, &f2, in.TradeID, in.TradePrice, now, f1.AcctID, f1.Symbol, f1.Qty, f1.IsSell,
		f1.Lifo, f1.HsQty); err != nil {
		return err
	}
	o.BrokerID, o.BuyValue, o.SellValue = f2.BrokerID, f2.BuyValue, f2.SellValue
	if (f2.TaxStatus == 1 || f2.TaxStatus == 2) && o.SellValue > o.BuyValue {
		if err := c.call(ctx, nameTRFrame3, o, in.TradeID, f2.CustID, o.BuyValue, o.SellValue); err != nil {
			return err
		}
	}
	var f4 struct {
		SecName  string
		CommRate float64
	}
	if err := c.call(ctx, nameTRFrame4, &f4, f1.Symbol, f2.CustID, f1.TypeID, f1.Qty); err != nil {
		return err
	}
	o.CommAmount = round2(f4.CommRate / 100 * float64(f1.Qty) * in.TradePrice)
	if err := c.call(ctx, nameTRFrame5, nil, in.TradeID, o.CommAmount, now, in.TradePrice, f2.BrokerID); err != nil {
		return err
	}
	value := round2(float64(f1.Qty) * in.TradePrice)
	if f1.IsSell {
		o.SettleAmt = value - f1.Charge - o.CommAmount
	} else {
		o.SettleAmt = -(value + f1.Charge + o.CommAmount)
	}
	if f2.TaxStatus == 1 {
		o.SettleAmt -= o.TaxAmount
	}
	o.SettleAmt = round2(o.SettleAmt)
	o.SettleDue = time.Date(now.Year(), now.Month(), now.Day()+2, 0, 0, 0, 0, time.UTC)
	cashType := "Margin"
	if f1.IsCash {
		cashType = "Cash Account"
	}
	name := fmt.Sprintf("%s %d shares of %s", f1.TypeName, f1.Qty, f4.SecName)
	if len(name) > 100 {
		name = name[:100]
	}
	return c.call(ctx, nameTRFrame6, o, in.TradeID, f1.AcctID, cashType, o.SettleDue, o.SettleAmt, f1.IsCash, name, now)
}

// MarketFeed applies the ticker, one transaction (one call) per entry,
// and returns the limit orders it submitted (txn.Client.MarketFeed).
func (c *Client) MarketFeed(ctx context.Context, in txn.MarketFeedInput) ([]txn.Triggered, error) {
	var out []txn.Triggered
	for _, e := range in.Entries {
		var hits []txn.Triggered
		err := c.run(ctx, func() error {
			return c.call(ctx, nameMarketFeed, &hits, e.Symbol, e.PriceQuote, e.TradeQty, c.now())
		})
		if err != nil {
			return out, err
		}
		out = append(out, hits...)
	}
	return out, nil
}

// TradeCleanup cancels what a previous run left in flight and returns the
// number of trades canceled (txn.Client.TradeCleanup).
func (c *Client) TradeCleanup(ctx context.Context, in txn.TradeCleanupInput) (int, error) {
	var n int
	err := c.run(ctx, func() error { return c.call(ctx, nameTradeCleanup, &n, in.StartTradeID, c.now()) })
	return n, err
}

// DataMaintenance makes the specification's small change to one table and
// returns the number of rows changed (txn.Client.DataMaintenance).
func (c *Client) DataMaintenance(ctx context.Context, in txn.DataMaintenanceInput) (int64, error) {
	if !slices.Contains(txn.MaintainedTables, in.TableName) {
		return 0, fmt.Errorf("tpce: data-maintenance of table %q: not one of %s", in.TableName, strings.Join(txn.MaintainedTables, ", "))
	}
	var n int64
	err := c.run(ctx, func() error {
		return c.call(ctx, nameDataMaintenance, &n, in.TableName, in.AcctID, in.CID, in.CoID, in.TxID, in.Symbol,
			int64(in.DayOfMonth), in.VolIncr, c.now())
	})
	return n, err
}

// round2 rounds an amount to cents, as the txn package does.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
