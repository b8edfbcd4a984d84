package txn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/dbarena/dbarena/engine"
)

// TradeStatusInput is Trade-Status's input: one account.
type TradeStatusInput struct {
	AcctID int64
}

// StatusTrade is one of the trades Trade-Status lists.
type StatusTrade struct {
	TradeID  int64
	Dts      time.Time
	Status   string // st_name
	Type     string // tt_name
	Symbol   string
	Qty      int64
	ExecName string
	Charge   float64
	SecName  string // s_name
	Exchange string // ex_name
}

// TradeStatusOutput is what Trade-Status returns.
type TradeStatusOutput struct {
	Trades               []StatusTrade // newest first, at most 50
	CustLName, CustFName string
	BrokerName           string
}

const tsTrades = `SELECT t_id, t_dts, st_name, tt_name, t_s_symb, t_qty, t_exec_name, t_chrg, s_name, ex_name
FROM trade, status_type, trade_type, security, exchange
WHERE t_ca_id = ? AND st_id = t_st_id AND tt_id = t_tt_id AND s_symb = t_s_symb AND ex_id = s_ex_id
ORDER BY t_dts DESC LIMIT 50`

const tsNames = `SELECT c_l_name, c_f_name, b_name FROM customer_account, customer, broker
WHERE ca_id = ? AND c_id = ca_c_id AND b_id = ca_b_id`

// TradeStatus lists an account's 50 newest trades and the names of its
// customer and broker (frame 1).
func (c *Client) TradeStatus(ctx context.Context, in TradeStatusInput) (*TradeStatusOutput, error) {
	out := &TradeStatusOutput{}
	trades, err := c.stmt(ctx, tsTrades)
	if err != nil {
		return nil, err
	}
	names, err := c.stmt(ctx, tsNames)
	if err != nil {
		return nil, err
	}
	var r StatusTrade
	c.resetQueue()
	c.b.BeginAt(c.level)
	c.b.QueryEach(trades, []any{in.AcctID},
		[]any{&r.TradeID, &r.Dts, &r.Status, &r.Type, &r.Symbol, &r.Qty, &r.ExecName, &r.Charge, &r.SecName, &r.Exchange},
		func() error { out.Trades = append(out.Trades, r); return nil })
	c.b.QueryRow(names, []any{in.AcctID}, &out.CustLName, &out.CustFName, &out.BrokerName)
	c.b.Commit()
	if err := c.send(ctx); err != nil {
		return out, notFound(err, "customer_account", in.AcctID)
	}
	return out, nil
}

// notFound turns ErrNoRows into ErrNotFound naming what was missing.
func notFound(err error, what string, key any) error {
	if errors.Is(err, engine.ErrNoRows) {
		return fmt.Errorf("%w: %s %v", ErrNotFound, what, key)
	}
	return err
}

// CustomerPositionInput is Customer-Position's input: the customer by id,
// or by tax id when CustID is 0; with GetHistory, frame 2 lists the
// trades of the account at AcctIDIdx (an index into the accounts frame 1
// returns, taken modulo their number).
type CustomerPositionInput struct {
	CustID     int64
	TaxID      string
	GetHistory bool
	AcctIDIdx  int
}

// Position is one account of the customer with its cash and the value of
// its holdings at the last trade prices.
type Position struct {
	AcctID    int64
	CashBal   float64
	AssetsTot float64
}

// HistoryRow is one trade history row of frame 2.
type HistoryRow struct {
	TradeID int64
	Symbol  string
	Qty     int64
	Status  string // st_name
	Dts     time.Time
}

// CustomerPositionOutput is what Customer-Position returns.
type CustomerPositionOutput struct {
	CustID              int64
	LName, FName, TaxID string
	Tier                int64
	Accounts            []Position // by total assets, at most 10
	History             []HistoryRow
}

const (
	cpByTax    = `SELECT c_id FROM customer WHERE c_tax_id = ?`
	cpCustomer = `SELECT c_st_id, c_l_name, c_f_name, c_m_name, c_gndr, c_tier, c_dob, c_ad_id,
c_ctry_1, c_area_1, c_local_1, c_ext_1, c_ctry_2, c_area_2, c_local_2, c_ext_2, c_ctry_3, c_area_3, c_local_3, c_ext_3,
c_email_1, c_email_2, c_tax_id FROM customer WHERE c_id = ?`
	cpAccounts = `SELECT ca_id, ca_bal, COALESCE(SUM(hs_qty * lt_price), 0) AS assets
FROM customer_account LEFT JOIN holding_summary ON hs_ca_id = ca_id LEFT JOIN last_trade ON lt_s_symb = hs_s_symb
WHERE ca_c_id = ? GROUP BY ca_id, ca_bal ORDER BY assets ASC, ca_id LIMIT 10`
	cpHistory = `SELECT t_id, t_s_symb, t_qty, st_name, th_dts
FROM (SELECT t_id AS id FROM trade WHERE t_ca_id = ? ORDER BY t_dts DESC LIMIT 10) t10, trade, trade_history, status_type
WHERE t_id = id AND th_t_id = t_id AND st_id = th_st_id
ORDER BY th_dts DESC LIMIT 30`
)

// CustomerPosition reads a customer, their accounts' balances and assets
// (frame 1) and optionally the recent trades of one account (frame 2).
func (c *Client) CustomerPosition(ctx context.Context, in CustomerPositionInput) (*CustomerPositionOutput, error) {
	out := &CustomerPositionOutput{CustID: in.CustID}
	err := c.inTx(ctx, func() error {
		if out.CustID == 0 {
			if err := c.must(ctx, "customer by tax id", cpByTax, []any{in.TaxID}, &out.CustID); err != nil {
				return err
			}
		}
		var st string
		var dob time.Time
		var adID int64
		var opt [14]sql.NullString
		dest := []any{&st, &out.LName, &out.FName, &opt[0], &opt[1], &out.Tier, &dob, &adID}
		for i := 2; i < 14; i++ {
			dest = append(dest, &opt[i])
		}
		var e1, e2 sql.NullString
		dest = append(dest, &e1, &e2, &out.TaxID)
		// With Pipeline the customer and the accounts go together (with
		// the BEGIN when the customer's id was given), the history with
		// the COMMIT.
		if err := c.queueRow(ctx, "customer", cpCustomer, []any{out.CustID}, dest...); err != nil {
			return err
		}
		var p Position
		if err := c.queueEach(ctx, cpAccounts, []any{out.CustID}, []any{&p.AcctID, &p.CashBal, &p.AssetsTot},
			func() error { out.Accounts = append(out.Accounts, p); return nil }); err != nil {
			return err
		}
		if err := c.flush(ctx); err != nil {
			return err
		}
		if !in.GetHistory || len(out.Accounts) == 0 {
			return nil
		}
		acct := out.Accounts[in.AcctIDIdx%len(out.Accounts)].AcctID
		var h HistoryRow
		return c.queueEach(ctx, cpHistory, []any{acct}, []any{&h.TradeID, &h.Symbol, &h.Qty, &h.Status, &h.Dts},
			func() error { out.History = append(out.History, h); return nil })
	})
	return out, err
}

// MarketWatchInput is Market-Watch's input. The symbols come from the
// customer's watch list when CustID is set, else from the industry
// IndustryName's companies with ids in [StartingCoID, EndingCoID] when
// IndustryName is set, else from the holdings of AcctID.
type MarketWatchInput struct {
	AcctID       int64
	CustID       int64
	IndustryName string
	StartingCoID int64
	EndingCoID   int64
	StartDay     time.Time
}

// MarketWatchOutput is the % change of the symbols' market cap since
// StartDay.
type MarketWatchOutput struct {
	PctChange float64
	Symbols   int // symbols priced
}

const (
	mwWatch    = `SELECT wi_s_symb FROM watch_item, watch_list WHERE wl_c_id = ? AND wi_wl_id = wl_id`
	mwIndustry = `SELECT s_symb FROM industry, company, security
WHERE in_name = ? AND co_in_id = in_id AND co_id BETWEEN ? AND ? AND s_co_id = co_id`
	mwHoldings = `SELECT hs_s_symb FROM holding_summary WHERE hs_ca_id = ?`
	mwPrice    = `SELECT lt_price, s_num_out, dm_close FROM last_trade, security, daily_market
WHERE lt_s_symb = ? AND s_symb = lt_s_symb AND dm_s_symb = lt_s_symb AND dm_date = ?`
)

// MarketWatch computes the change of a symbol list's market cap between
// the close of StartDay and the last trades (frame 1).
func (c *Client) MarketWatch(ctx context.Context, in MarketWatchInput) (*MarketWatchOutput, error) {
	out := &MarketWatchOutput{}
	err := c.inTx(ctx, func() error {
		var q string
		var args []any
		switch {
		case in.CustID != 0:
			q, args = mwWatch, []any{in.CustID}
		case in.IndustryName != "":
			q, args = mwIndustry, []any{in.IndustryName, in.StartingCoID, in.EndingCoID}
		case in.AcctID != 0:
			q, args = mwHoldings, []any{in.AcctID}
		default:
			return fmt.Errorf("tpce: market-watch needs a customer, an industry or an account")
		}
		var symbols []string
		var s string
		if _, err := c.each(ctx, q, args, []any{&s}, func() error { symbols = append(symbols, s); return nil }); err != nil {
			return err
		}
		type price struct {
			price, closing float64
			numOut         int64
			ok             bool
		}
		prices := make([]price, len(symbols))
		day := in.StartDay.UTC()
		for i, sym := range symbols {
			p := &prices[i]
			if err := c.queueEach(ctx, mwPrice, []any{sym, day}, []any{&p.price, &p.numOut, &p.closing}, func() error { p.ok = true; return nil }); err != nil {
				return err
			}
		}
		if err := c.flush(ctx); err != nil {
			return err
		}
		var oldCap, newCap float64
		for _, p := range prices {
			if !p.ok {
				continue // no close on the start day
			}
			out.Symbols++
			newCap += float64(p.numOut) * p.price
			oldCap += float64(p.numOut) * p.closing
		}
		if oldCap != 0 {
			out.PctChange = 100 * (newCap/oldCap - 1)
		}
		return nil
	})
	return out, err
}

// SecurityDetailInput is Security-Detail's input.
type SecurityDetailInput struct {
	Symbol          string
	MaxRowsToReturn int // daily_market rows, 5 to 20
	StartDay        time.Time
	AccessLOBFlag   bool
}

// DayRow is one daily_market row.
type DayRow struct {
	Date             time.Time
	Close, High, Low float64
	Vol              int64
}

// FinRow is one financial row.
type FinRow struct {
	Year, Qtr                   int64
	QtrStart                    time.Time
	Revenue, NetEarn, BasicEPS  float64
	DilutEPS, Margin, Inventory float64
	Assets, Liability           float64
	OutBasic, OutDilut          int64
}

// NewsRow is one news item; Item is read only with AccessLOBFlag,
// Headline and Summary only without it.
type NewsRow struct {
	Item              []byte
	Dts               time.Time
	Source, Author    string
	Headline, Summary string
}

// SecurityDetailOutput is what Security-Detail returns.
type SecurityDetailOutput struct {
	SName, CoName, SPRate, CEO, CoDesc string
	CoID                               int64
	OpenDate                           time.Time
	CoAddress, CoTown, CoDiv, CoZip    string
	NumOut                             int64
	StartDate, ExchDate                time.Time
	PE, High52, Low52, Dividend, Yield float64
	High52Date, Low52Date              time.Time
	ExName, ExAddress, ExTown, ExZip   string
	ExOpen, ExClose, ExNumSymb         int64
	Competitors                        []string // co_name (in_name)
	Financials                         []FinRow
	Days                               []DayRow
	LastPrice, OpenPrice               float64
	LastVol                            int64
	News                               []NewsRow
}

const (
	sdSecurity = `SELECT s_name, co_id, co_name, co_sp_rate, co_ceo, co_desc, co_open_date,
ca.ad_line1, zca.zc_town, zca.zc_div, ca.ad_zc_code,
s_num_out, s_start_date, s_exch_date, s_pe, s_52wk_high, s_52wk_high_date, s_52wk_low, s_52wk_low_date, s_dividend, s_yield,
ex_name, ea.ad_line1, zea.zc_town, ea.ad_zc_code, ex_open, ex_close, ex_num_symb
FROM security, company, address ca, address ea, zip_code zca, zip_code zea, exchange
WHERE s_symb = ? AND co_id = s_co_id AND ca.ad_id = co_ad_id AND ex_id = s_ex_id AND ea.ad_id = ex_ad_id
AND zca.zc_code = ca.ad_zc_code AND zea.zc_code = ea.ad_zc_code`
	sdCompetitors = `SELECT co_name, in_name FROM company_competitor, company, industry
WHERE cp_co_id = ? AND co_id = cp_comp_co_id AND in_id = cp_in_id ORDER BY cp_comp_co_id LIMIT 3`
	sdFinancial = `SELECT fi_year, fi_qtr, fi_qtr_start_date, fi_revenue, fi_net_earn, fi_basic_eps, fi_dilut_eps, fi_margin,
fi_inventory, fi_assets, fi_liability, fi_out_basic, fi_out_dilut
FROM financial WHERE fi_co_id = ? ORDER BY fi_year, fi_qtr LIMIT 20`
	sdDays = `SELECT dm_date, dm_close, dm_high, dm_low, dm_vol FROM daily_market
WHERE dm_s_symb = ? AND dm_date >= ? ORDER BY dm_date LIMIT %d`
	sdLast    = `SELECT lt_price, lt_open_price, lt_vol FROM last_trade WHERE lt_s_symb = ?`
	sdNewsLOB = `SELECT ni_item, ni_dts, ni_source, ni_author FROM news_xref, news_item
WHERE ni_id = nx_ni_id AND nx_co_id = ? ORDER BY ni_id LIMIT 2`
	sdNews = `SELECT ni_dts, ni_source, ni_author, ni_headline, ni_summary FROM news_xref, news_item
WHERE ni_id = nx_ni_id AND nx_co_id = ? ORDER BY ni_id LIMIT 2`
)

// SecurityDetail reads everything about one security (frame 1).
func (c *Client) SecurityDetail(ctx context.Context, in SecurityDetailInput) (*SecurityDetailOutput, error) {
	if in.MaxRowsToReturn < 1 || in.MaxRowsToReturn > 20 {
		return nil, fmt.Errorf("tpce: security-detail: max rows %d, want 1 to 20", in.MaxRowsToReturn)
	}
	o := &SecurityDetailOutput{}
	err := c.inTx(ctx, func() error {
		var coAd, exAd sql.NullString
		if err := c.must(ctx, "security", sdSecurity, []any{in.Symbol},
			&o.SName, &o.CoID, &o.CoName, &o.SPRate, &o.CEO, &o.CoDesc, &o.OpenDate,
			&coAd, &o.CoTown, &o.CoDiv, &o.CoZip,
			&o.NumOut, &o.StartDate, &o.ExchDate, &o.PE, &o.High52, &o.High52Date, &o.Low52, &o.Low52Date, &o.Dividend, &o.Yield,
			&o.ExName, &exAd, &o.ExTown, &o.ExZip, &o.ExOpen, &o.ExClose, &o.ExNumSymb); err != nil {
			return err
		}
		o.CoAddress, o.ExAddress = coAd.String, exAd.String
		var name, ind string
		if err := c.queueEach(ctx, sdCompetitors, []any{o.CoID}, []any{&name, &ind},
			func() error { o.Competitors = append(o.Competitors, name+" ("+ind+")"); return nil }); err != nil {
			return err
		}
		var f FinRow
		if err := c.queueEach(ctx, sdFinancial, []any{o.CoID},
			[]any{&f.Year, &f.Qtr, &f.QtrStart, &f.Revenue, &f.NetEarn, &f.BasicEPS, &f.DilutEPS, &f.Margin,
				&f.Inventory, &f.Assets, &f.Liability, &f.OutBasic, &f.OutDilut},
			func() error { o.Financials = append(o.Financials, f); return nil }); err != nil {
			return err
		}
		var d DayRow
		if err := c.queueEach(ctx, fmt.Sprintf(sdDays, in.MaxRowsToReturn), []any{in.Symbol, in.StartDay.UTC()}, []any{&d.Date, &d.Close, &d.High, &d.Low, &d.Vol},
			func() error { o.Days = append(o.Days, d); return nil }); err != nil {
			return err
		}
		if err := c.queueRow(ctx, "last_trade", sdLast, []any{in.Symbol}, &o.LastPrice, &o.OpenPrice, &o.LastVol); err != nil {
			return err
		}
		var n NewsRow
		var author sql.NullString
		var err error
		if in.AccessLOBFlag {
			err = c.queueEach(ctx, sdNewsLOB, []any{o.CoID}, []any{&n.Item, &n.Dts, &n.Source, &author},
				func() error {
					r := n
					r.Item = append([]byte(nil), n.Item...)
					r.Author = author.String
					o.News = append(o.News, r)
					return nil
				})
		} else {
			err = c.queueEach(ctx, sdNews, []any{o.CoID}, []any{&n.Dts, &n.Source, &author, &n.Headline, &n.Summary},
				func() error { r := n; r.Author = author.String; o.News = append(o.News, r); return nil })
		}
		return err // what is queued goes with the COMMIT
	})
	return o, err
}

// BrokerVolumeInput is Broker-Volume's input: 20 to 40 broker names and a
// sector name.
type BrokerVolumeInput struct {
	BrokerList []string
	SectorName string
}

// BrokerVolume is one broker's volume of pending orders.
type BrokerVolume struct {
	Broker string
	Volume float64
}

const bvVolume = `SELECT b_name, SUM(tr_qty * tr_bid_price) AS vol
FROM trade_request, sector, industry, company, broker, security
WHERE tr_b_id = b_id AND tr_s_symb = s_symb AND s_co_id = co_id AND co_in_id = in_id AND sc_id = in_sc_id
AND b_name IN (%s) AND sc_name = ?
GROUP BY b_name ORDER BY vol DESC, b_name`

// BrokerVolume sums the pending orders' value (qty·bid) per broker of the
// list on the sector's securities (frame 1), largest first.
func (c *Client) BrokerVolume(ctx context.Context, in BrokerVolumeInput) ([]BrokerVolume, error) {
	if len(in.BrokerList) == 0 {
		return nil, fmt.Errorf("tpce: broker-volume needs brokers")
	}
	var out []BrokerVolume
	err := c.inTx(ctx, func() error {
		args := make([]any, 0, len(in.BrokerList)+1)
		for _, b := range in.BrokerList {
			args = append(args, b)
		}
		args = append(args, in.SectorName)
		var r BrokerVolume
		_, err := c.each(ctx, fmt.Sprintf(bvVolume, marks(len(in.BrokerList))), args, []any{&r.Broker, &r.Volume},
			func() error { out = append(out, r); return nil })
		return err
	})
	return out, err
}
