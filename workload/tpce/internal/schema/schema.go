// Package schema is the TPC-E-like brokerage schema, declared with package
// schema: the specification's 33 tables with their table and
// column names, the column types of the domains (identifiers bigint,
// prices numeric(8,2), values numeric(10,2), balances numeric(12,2),
// financial figures numeric(15,2); the specification's CHAR columns are
// varchar, which it allows), primary keys, foreign keys and the named index
// sets. Each engine renders it.
package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/schema"
)

// Table is one declared table.
type Table = schema.Table

// Table names, as the specification names them.
const (
	AccountPermission = "account_permission"
	Address           = "address"
	Broker            = "broker"
	CashTransaction   = "cash_transaction"
	Charge            = "charge"
	CommissionRate    = "commission_rate"
	Company           = "company"
	CompanyCompetitor = "company_competitor"
	Customer          = "customer"
	CustomerAccount   = "customer_account"
	CustomerTaxrate   = "customer_taxrate"
	DailyMarket       = "daily_market"
	Exchange          = "exchange"
	Financial         = "financial"
	Holding           = "holding"
	HoldingHistory    = "holding_history"
	HoldingSummary    = "holding_summary"
	Industry          = "industry"
	LastTrade         = "last_trade"
	NewsItem          = "news_item"
	NewsXref          = "news_xref"
	Sector            = "sector"
	Security          = "security"
	Settlement        = "settlement"
	StatusType        = "status_type"
	Taxrate           = "taxrate"
	Trade             = "trade"
	TradeHistory      = "trade_history"
	TradeRequest      = "trade_request"
	TradeType         = "trade_type"
	WatchItem         = "watch_item"
	WatchList         = "watch_list"
	ZipCode           = "zip_code"
)

// Index sets (--index-set).
const (
	// SetDBT5 is the DBT-5 kit's secondary indexes.
	SetDBT5 = "dbt5"
	// SetStudy adds the two trade indexes on (t_ca_id, t_dts) and
	// (t_s_symb, t_dts) that study 000 credits with more than 2× on
	// PostgreSQL.
	SetStudy = "study"
	// SetTuned is SetStudy with daily_market's primary key on
	// (dm_s_symb, dm_date), so that a symbol's days are adjacent, and
	// without the indexes that it or the composites make redundant
	// (t_ca_id, t_s_symb, dm_s_symb) and the one no transaction uses
	// (t_st_id, which also keeps trade's updates from being HOT).
	SetTuned = "tuned"
)

// IndexSets lists the index sets in the order of their --index-set help.
var IndexSets = []string{SetDBT5, SetStudy, SetTuned}

// Column constructors by domain.
func id(name string) schema.Column      { return schema.Column{Name: name, Type: schema.BigInt} }
func integer(name string) schema.Column { return schema.Column{Name: name, Type: schema.Int} }
func small(name string) schema.Column   { return schema.Column{Name: name, Type: schema.SmallInt} }
func str(name string, n int) schema.Column {
	return schema.Column{Name: name, Type: schema.Varchar, Size: n}
}
func num(name string, p, s int) schema.Column {
	return schema.Column{Name: name, Type: schema.Decimal, Size: p, Scale: s}
}
func price(name string) schema.Column   { return num(name, 8, 2) }
func value(name string) schema.Column   { return num(name, 10, 2) }
func balance(name string) schema.Column { return num(name, 12, 2) }
func fin(name string) schema.Column     { return num(name, 15, 2) }
func ts(name string) schema.Column      { return schema.Column{Name: name, Type: schema.Timestamp} }
func date(name string) schema.Column    { return schema.Column{Name: name, Type: schema.Date} }
func boolean(name string) schema.Column { return schema.Column{Name: name, Type: schema.Bool} }
func bytes(name string) schema.Column   { return schema.Column{Name: name, Type: schema.Bytes} }
func null(c schema.Column) schema.Column {
	c.Null = true
	return c
}

// fk is a foreign key named <table>_<first column>_fk.
func fk(table string, cols []string, ref string, refCols ...string) schema.ForeignKey {
	return schema.ForeignKey{Name: table + "_" + cols[0] + "_fk", Columns: cols, Ref: ref, RefColumns: refCols}
}

func cols(c ...string) []string { return c }

// index is a secondary index named i_<name>.
func index(name string, keys ...string) schema.Index {
	x := schema.Index{Name: "i_" + name}
	for _, k := range keys {
		x.Keys = append(x.Keys, schema.Col(k))
	}
	return x
}

// phones are customer's three phone numbers (country, area, local,
// extension), all optional.
func phones() []schema.Column {
	var out []schema.Column
	for n := 1; n <= 3; n++ {
		out = append(out,
			null(str(fmt.Sprintf("c_ctry_%d", n), 3)), null(str(fmt.Sprintf("c_area_%d", n), 3)),
			null(str(fmt.Sprintf("c_local_%d", n), 10)), null(str(fmt.Sprintf("c_ext_%d", n), 5)))
	}
	return out
}

// base returns the 33 tables in creation order (every table after the
// tables its foreign keys reference) with their primary keys and foreign
// keys, without secondary indexes.
func base() []*Table {
	return []*Table{
		// Dimension and fixed tables.
		{Name: StatusType, PrimaryKey: cols("st_id"), Columns: []schema.Column{str("st_id", 4), str("st_name", 10)}},
		{Name: Sector, PrimaryKey: cols("sc_id"), Columns: []schema.Column{str("sc_id", 2), str("sc_name", 30)}},
		{Name: Industry, PrimaryKey: cols("in_id"), Columns: []schema.Column{str("in_id", 2), str("in_name", 50), str("in_sc_id", 2)},
			ForeignKeys: []schema.ForeignKey{fk(Industry, cols("in_sc_id"), Sector, "sc_id")}},
		{Name: TradeType, PrimaryKey: cols("tt_id"), Columns: []schema.Column{str("tt_id", 3), str("tt_name", 12), boolean("tt_is_sell"), boolean("tt_is_mrkt")}},
		{Name: ZipCode, PrimaryKey: cols("zc_code"), Columns: []schema.Column{str("zc_code", 12), str("zc_town", 80), str("zc_div", 80)}},
		{Name: Address, PrimaryKey: cols("ad_id"), Columns: []schema.Column{
			id("ad_id"), null(str("ad_line1", 80)), null(str("ad_line2", 80)), str("ad_zc_code", 12), null(str("ad_ctry", 80))},
			ForeignKeys: []schema.ForeignKey{fk(Address, cols("ad_zc_code"), ZipCode, "zc_code")}},
		{Name: Taxrate, PrimaryKey: cols("tx_id"), Columns: []schema.Column{str("tx_id", 4), str("tx_name", 50), num("tx_rate", 6, 5)}},
		{Name: Exchange, PrimaryKey: cols("ex_id"), Columns: []schema.Column{
			str("ex_id", 6), str("ex_name", 100), integer("ex_num_symb"), integer("ex_open"), integer("ex_close"),
			null(str("ex_desc", 150)), id("ex_ad_id")},
			ForeignKeys: []schema.ForeignKey{fk(Exchange, cols("ex_ad_id"), Address, "ad_id")}},
		{Name: Charge, PrimaryKey: cols("ch_tt_id", "ch_c_tier"), Columns: []schema.Column{str("ch_tt_id", 3), small("ch_c_tier"), value("ch_chrg")},
			ForeignKeys: []schema.ForeignKey{fk(Charge, cols("ch_tt_id"), TradeType, "tt_id")}},
		{Name: CommissionRate, PrimaryKey: cols("cr_c_tier", "cr_tt_id", "cr_ex_id", "cr_from_qty"), Columns: []schema.Column{
			small("cr_c_tier"), str("cr_tt_id", 3), str("cr_ex_id", 6), integer("cr_from_qty"), integer("cr_to_qty"), num("cr_rate", 5, 2)},
			ForeignKeys: []schema.ForeignKey{
				fk(CommissionRate, cols("cr_tt_id"), TradeType, "tt_id"),
				fk(CommissionRate, cols("cr_ex_id"), Exchange, "ex_id")}},

		// Market.
		{Name: Company, PrimaryKey: cols("co_id"), Columns: []schema.Column{
			id("co_id"), str("co_st_id", 4), str("co_name", 60), str("co_in_id", 2), str("co_sp_rate", 4), str("co_ceo", 46),
			id("co_ad_id"), str("co_desc", 150), date("co_open_date")},
			ForeignKeys: []schema.ForeignKey{
				fk(Company, cols("co_st_id"), StatusType, "st_id"),
				fk(Company, cols("co_in_id"), Industry, "in_id"),
				fk(Company, cols("co_ad_id"), Address, "ad_id")}},
		{Name: CompanyCompetitor, PrimaryKey: cols("cp_co_id", "cp_comp_co_id", "cp_in_id"), Columns: []schema.Column{
			id("cp_co_id"), id("cp_comp_co_id"), str("cp_in_id", 2)},
			ForeignKeys: []schema.ForeignKey{
				fk(CompanyCompetitor, cols("cp_co_id"), Company, "co_id"),
				fk(CompanyCompetitor, cols("cp_comp_co_id"), Company, "co_id"),
				fk(CompanyCompetitor, cols("cp_in_id"), Industry, "in_id")}},
		{Name: Security, PrimaryKey: cols("s_symb"), Columns: []schema.Column{
			str("s_symb", 15), str("s_issue", 6), str("s_st_id", 4), str("s_name", 70), str("s_ex_id", 6), id("s_co_id"),
			id("s_num_out"), date("s_start_date"), date("s_exch_date"), value("s_pe"),
			price("s_52wk_high"), date("s_52wk_high_date"), price("s_52wk_low"), date("s_52wk_low_date"),
			value("s_dividend"), num("s_yield", 5, 2)},
			ForeignKeys: []schema.ForeignKey{
				fk(Security, cols("s_st_id"), StatusType, "st_id"),
				fk(Security, cols("s_ex_id"), Exchange, "ex_id"),
				fk(Security, cols("s_co_id"), Company, "co_id")}},
		{Name: DailyMarket, PrimaryKey: cols("dm_date", "dm_s_symb"), Columns: []schema.Column{
			date("dm_date"), str("dm_s_symb", 15), price("dm_close"), price("dm_high"), price("dm_low"), id("dm_vol")},
			ForeignKeys: []schema.ForeignKey{fk(DailyMarket, cols("dm_s_symb"), Security, "s_symb")}},
		{Name: Financial, PrimaryKey: cols("fi_co_id", "fi_year", "fi_qtr"), Columns: []schema.Column{
			id("fi_co_id"), integer("fi_year"), small("fi_qtr"), date("fi_qtr_start_date"),
			fin("fi_revenue"), fin("fi_net_earn"), value("fi_basic_eps"), value("fi_dilut_eps"), value("fi_margin"),
			fin("fi_inventory"), fin("fi_assets"), fin("fi_liability"), id("fi_out_basic"), id("fi_out_dilut")},
			ForeignKeys: []schema.ForeignKey{fk(Financial, cols("fi_co_id"), Company, "co_id")}},
		{Name: LastTrade, PrimaryKey: cols("lt_s_symb"), Columns: []schema.Column{
			str("lt_s_symb", 15), ts("lt_dts"), price("lt_price"), price("lt_open_price"), id("lt_vol")},
			ForeignKeys: []schema.ForeignKey{fk(LastTrade, cols("lt_s_symb"), Security, "s_symb")}},
		{Name: NewsItem, PrimaryKey: cols("ni_id"), Columns: []schema.Column{
			id("ni_id"), str("ni_headline", 80), str("ni_summary", 255), bytes("ni_item"), ts("ni_dts"),
			str("ni_source", 30), null(str("ni_author", 30))}},
		{Name: NewsXref, PrimaryKey: cols("nx_ni_id", "nx_co_id"), Columns: []schema.Column{id("nx_ni_id"), id("nx_co_id")},
			ForeignKeys: []schema.ForeignKey{
				fk(NewsXref, cols("nx_ni_id"), NewsItem, "ni_id"),
				fk(NewsXref, cols("nx_co_id"), Company, "co_id")}},

		// Customer.
		{Name: Customer, PrimaryKey: cols("c_id"), Columns: slices.Concat([]schema.Column{
			id("c_id"), str("c_tax_id", 20), str("c_st_id", 4), str("c_l_name", 25), str("c_f_name", 20),
			null(str("c_m_name", 1)), null(str("c_gndr", 1)), small("c_tier"), date("c_dob"), id("c_ad_id")},
			phones(), []schema.Column{null(str("c_email_1", 50)), null(str("c_email_2", 50))}),
			ForeignKeys: []schema.ForeignKey{
				fk(Customer, cols("c_st_id"), StatusType, "st_id"),
				fk(Customer, cols("c_ad_id"), Address, "ad_id")}},
		{Name: CustomerTaxrate, PrimaryKey: cols("cx_tx_id", "cx_c_id"), Columns: []schema.Column{str("cx_tx_id", 4), id("cx_c_id")},
			ForeignKeys: []schema.ForeignKey{
				fk(CustomerTaxrate, cols("cx_tx_id"), Taxrate, "tx_id"),
				fk(CustomerTaxrate, cols("cx_c_id"), Customer, "c_id")}},
		{Name: Broker, PrimaryKey: cols("b_id"), Columns: []schema.Column{
			id("b_id"), str("b_st_id", 4), str("b_name", 49), integer("b_num_trades"), balance("b_comm_total")},
			ForeignKeys: []schema.ForeignKey{fk(Broker, cols("b_st_id"), StatusType, "st_id")}},
		{Name: CustomerAccount, PrimaryKey: cols("ca_id"), Columns: []schema.Column{
			id("ca_id"), id("ca_b_id"), id("ca_c_id"), null(str("ca_name", 50)), small("ca_tax_st"), balance("ca_bal")},
			ForeignKeys: []schema.ForeignKey{
				fk(CustomerAccount, cols("ca_b_id"), Broker, "b_id"),
				fk(CustomerAccount, cols("ca_c_id"), Customer, "c_id")}},
		{Name: AccountPermission, PrimaryKey: cols("ap_ca_id", "ap_tax_id"), Columns: []schema.Column{
			id("ap_ca_id"), str("ap_acl", 4), str("ap_tax_id", 20), str("ap_l_name", 25), str("ap_f_name", 20)},
			ForeignKeys: []schema.ForeignKey{fk(AccountPermission, cols("ap_ca_id"), CustomerAccount, "ca_id")}},
		{Name: WatchList, PrimaryKey: cols("wl_id"), Columns: []schema.Column{id("wl_id"), id("wl_c_id")},
			ForeignKeys: []schema.ForeignKey{fk(WatchList, cols("wl_c_id"), Customer, "c_id")}},
		{Name: WatchItem, PrimaryKey: cols("wi_wl_id", "wi_s_symb"), Columns: []schema.Column{id("wi_wl_id"), str("wi_s_symb", 15)},
			ForeignKeys: []schema.ForeignKey{
				fk(WatchItem, cols("wi_wl_id"), WatchList, "wl_id"),
				fk(WatchItem, cols("wi_s_symb"), Security, "s_symb")}},

		// Broker: the trades and what they leave.
		{Name: Trade, PrimaryKey: cols("t_id"), Columns: []schema.Column{
			id("t_id"), ts("t_dts"), str("t_st_id", 4), str("t_tt_id", 3), boolean("t_is_cash"), str("t_s_symb", 15),
			integer("t_qty"), price("t_bid_price"), id("t_ca_id"), str("t_exec_name", 49), null(price("t_trade_price")),
			value("t_chrg"), value("t_comm"), value("t_tax"), boolean("t_lifo")},
			ForeignKeys: []schema.ForeignKey{
				fk(Trade, cols("t_st_id"), StatusType, "st_id"),
				fk(Trade, cols("t_tt_id"), TradeType, "tt_id"),
				fk(Trade, cols("t_s_symb"), Security, "s_symb"),
				fk(Trade, cols("t_ca_id"), CustomerAccount, "ca_id")}},
		{Name: TradeHistory, PrimaryKey: cols("th_t_id", "th_st_id"), Columns: []schema.Column{id("th_t_id"), ts("th_dts"), str("th_st_id", 4)},
			ForeignKeys: []schema.ForeignKey{
				fk(TradeHistory, cols("th_t_id"), Trade, "t_id"),
				fk(TradeHistory, cols("th_st_id"), StatusType, "st_id")}},
		{Name: TradeRequest, PrimaryKey: cols("tr_t_id"), Columns: []schema.Column{
			id("tr_t_id"), str("tr_tt_id", 3), str("tr_s_symb", 15), integer("tr_qty"), price("tr_bid_price"), id("tr_b_id")},
			ForeignKeys: []schema.ForeignKey{
				fk(TradeRequest, cols("tr_t_id"), Trade, "t_id"),
				fk(TradeRequest, cols("tr_tt_id"), TradeType, "tt_id"),
				fk(TradeRequest, cols("tr_s_symb"), Security, "s_symb"),
				fk(TradeRequest, cols("tr_b_id"), Broker, "b_id")}},
		{Name: Settlement, PrimaryKey: cols("se_t_id"), Columns: []schema.Column{
			id("se_t_id"), str("se_cash_type", 40), date("se_cash_due_date"), value("se_amt")},
			ForeignKeys: []schema.ForeignKey{fk(Settlement, cols("se_t_id"), Trade, "t_id")}},
		{Name: CashTransaction, PrimaryKey: cols("ct_t_id"), Columns: []schema.Column{
			id("ct_t_id"), ts("ct_dts"), value("ct_amt"), str("ct_name", 100)},
			ForeignKeys: []schema.ForeignKey{fk(CashTransaction, cols("ct_t_id"), Trade, "t_id")}},
		{Name: HoldingSummary, PrimaryKey: cols("hs_ca_id", "hs_s_symb"), Columns: []schema.Column{id("hs_ca_id"), str("hs_s_symb", 15), integer("hs_qty")},
			ForeignKeys: []schema.ForeignKey{
				fk(HoldingSummary, cols("hs_ca_id"), CustomerAccount, "ca_id"),
				fk(HoldingSummary, cols("hs_s_symb"), Security, "s_symb")}},
		{Name: Holding, PrimaryKey: cols("h_t_id"), Columns: []schema.Column{
			id("h_t_id"), id("h_ca_id"), str("h_s_symb", 15), ts("h_dts"), price("h_price"), integer("h_qty")},
			ForeignKeys: []schema.ForeignKey{
				fk(Holding, cols("h_t_id"), Trade, "t_id"),
				fk(Holding, cols("h_ca_id", "h_s_symb"), HoldingSummary, "hs_ca_id", "hs_s_symb")}},
		{Name: HoldingHistory, PrimaryKey: cols("hh_h_t_id", "hh_t_id"), Columns: []schema.Column{
			id("hh_h_t_id"), id("hh_t_id"), integer("hh_before_qty"), integer("hh_after_qty")},
			ForeignKeys: []schema.ForeignKey{
				{Name: "holding_history_hh_h_t_id_fk", Columns: cols("hh_h_t_id"), Ref: Trade, RefColumns: cols("t_id")},
				{Name: "holding_history_hh_t_id_fk", Columns: cols("hh_t_id"), Ref: Trade, RefColumns: cols("t_id")}}},
	}
}

// indexes are the secondary indexes of each set, by table.
func indexes(set string) map[string][]schema.Index {
	out := map[string][]schema.Index{
		Customer:        {index("c_tax_id", "c_tax_id")},
		CustomerAccount: {index("ca_c_id", "ca_c_id")},
		WatchList:       {index("wl_c_id", "wl_c_id")},
		DailyMarket:     {index("dm_s_symb", "dm_s_symb")},
		TradeRequest:    {index("tr_s_symb", "tr_s_symb")},
		Trade:           {index("t_st_id", "t_st_id"), index("t_ca_id", "t_ca_id"), index("t_s_symb", "t_s_symb")},
		Company:         {index("co_name", "co_name")},
		Security:        {index("s_co_id", "s_co_id", "s_issue")},
		Holding:         {index("h_ca_id", "h_ca_id", "h_s_symb")},
		HoldingHistory:  {index("hh_t_id", "hh_t_id")},
	}
	if set == SetDBT5 {
		return out
	}
	out[Trade] = append(out[Trade], index("t_ca_id_dts", "t_ca_id", "t_dts"), index("t_s_symb_dts", "t_s_symb", "t_dts"))
	if set == SetTuned {
		out[Trade] = []schema.Index{index("t_ca_id_dts", "t_ca_id", "t_dts"), index("t_s_symb_dts", "t_s_symb", "t_dts")}
		delete(out, DailyMarket)
	}
	return out
}

// ErrUnknownIndexSet is the error of Declared for a set not in IndexSets.
var ErrUnknownIndexSet = fmt.Errorf("unknown index set")

// Declared returns the 33 tables in creation order with the secondary
// indexes of index set set and, with fks, the specification's foreign
// keys.
func Declared(set string, fks bool) ([]*Table, error) {
	if !slices.Contains(IndexSets, set) {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownIndexSet, set, strings.Join(IndexSets, ", "))
	}
	x := indexes(set)
	tables := base()
	for _, t := range tables {
		t.Indexes = x[t.Name]
		if !fks {
			t.ForeignKeys = nil
		}
		if set == SetTuned && t.Name == DailyMarket {
			t.PrimaryKey = cols("dm_s_symb", "dm_date")
		}
	}
	return tables, nil
}

// Names lists the 33 table names in creation order.
func Names() []string {
	var out []string
	for _, t := range base() {
		out = append(out, t.Name)
	}
	return out
}
