package gen

import "strconv"

// This file is the one place that owns the fixed tables a trade's money
// depends on: trade types, charges, commission rates and tax rates, and
// the customers' tax rates. The trade simulation computes t_chrg, t_comm
// and t_tax from them, and the trade_type, charge, commission_rate,
// taxrate and customer_taxrate rows must be generated from the same
// functions, so that a transaction that reads the tables computes the
// amounts the initial trades carry.

// TradeType is one row of trade_type.
type TradeType struct {
	// ID is tt_id; Name is tt_name.
	ID, Name string
	// IsSell and IsMarket are tt_is_sell and tt_is_mrkt.
	IsSell, IsMarket bool
}

// Indexes of TradeTypeTable.
const (
	TypeMarketBuy = iota
	TypeMarketSell
	TypeStopLoss
	TypeLimitSell
	TypeLimitBuy
)

// TradeTypeTable is trade_type's 5 rows, indexed by the Type constants.
var TradeTypeTable = [5]TradeType{
	TypeMarketBuy:  {ID: "TMB", Name: "Market-Buy", IsSell: false, IsMarket: true},
	TypeMarketSell: {ID: "TMS", Name: "Market-Sell", IsSell: true, IsMarket: true},
	TypeStopLoss:   {ID: "TSL", Name: "Stop-Loss", IsSell: true, IsMarket: false},
	TypeLimitSell:  {ID: "TLS", Name: "Limit-Sell", IsSell: true, IsMarket: false},
	TypeLimitBuy:   {ID: "TLB", Name: "Limit-Buy", IsSell: false, IsMarket: false},
}

// ChargeCents is charge.ch_chrg, in cents, of a trade of type tt (a Type
// constant) by a customer of tier (1..3): $9.50, $8.00 and $6.50 for
// market orders by tiers 1, 2 and 3; $12.50, $10.00 and $7.50 for the
// others.
func ChargeCents(tt, tier int) int64 {
	if TradeTypeTable[tt].IsMarket {
		return [4]int64{0, 950, 800, 650}[tier]
	}
	return [4]int64{0, 1250, 1000, 750}[tier]
}

// ChargeRow is one row of charge.
type ChargeRow struct {
	// TTID is ch_tt_id; Tier is ch_c_tier; Cents is ch_chrg in cents.
	TTID  string
	Tier  int
	Cents int64
}

// ChargeTable returns charge's 15 rows (type by tier), in the order of
// TradeTypeTable then tier.
func ChargeTable() []ChargeRow {
	out := make([]ChargeRow, 0, 15)
	for tt := range TradeTypeTable {
		for tier := 1; tier <= 3; tier++ {
			out = append(out, ChargeRow{TTID: TradeTypeTable[tt].ID, Tier: tier, Cents: ChargeCents(tt, tier)})
		}
	}
	return out
}

// CommissionExchanges are the exchange ids (ex_id) commission_rate has
// rows for: NYSE, NASDAQ, AMEX and PCX.
var CommissionExchanges = [Exchanges]string{"NYSE", "NASDAQ", "AMEX", "PCX"}

// CommissionBands are commission_rate's quantity bands, [from, to]: one
// for each of the quantities a trade has (100, 200, 400, 800).
var CommissionBands = [4][2]int64{{1, 199}, {200, 399}, {400, 799}, {800, 100000000}}

// CommissionRateHundredths is commission_rate.cr_rate, in hundredths of a
// percent (cr_rate 0.45 is 45), for a customer of tier (1..3), a trade of
// type tt (a Type constant) and a quantity band (an index of
// CommissionBands): 0.50%, 0.40% and 0.30% for tiers 1, 2 and 3, 0.05
// less for each band above the first, 0.05 more for orders that are not
// market orders. The rate is the same on every exchange, so a trade's
// commission depends on its customer, type, quantity and price only.
func CommissionRateHundredths(tier, tt, band int) int64 {
	rate := int64(60-10*tier) - 5*int64(band)
	if !TradeTypeTable[tt].IsMarket {
		rate += 5
	}
	return rate
}

// CommissionBand is the index in CommissionBands of quantity qty.
func CommissionBand(qty int64) int {
	for b, r := range CommissionBands {
		if qty <= r[1] {
			return b
		}
	}
	return len(CommissionBands) - 1
}

// CommissionCents is a trade's commission in cents: cr_rate percent of
// qty·price, rounded half up to the cent, priceCents the trade price in
// cents.
func CommissionCents(tier, tt int, qty, priceCents int64) int64 {
	rate := CommissionRateHundredths(tier, tt, CommissionBand(qty))
	return (rate*qty*priceCents + 5000) / 10000
}

// CommissionRateRow is one row of commission_rate.
type CommissionRateRow struct {
	// Tier, TTID, ExID, FromQty and ToQty are cr_c_tier, cr_tt_id,
	// cr_ex_id, cr_from_qty and cr_to_qty; Hundredths is cr_rate in
	// hundredths (cr_rate = Hundredths/100).
	Tier           int
	TTID, ExID     string
	FromQty, ToQty int64
	Hundredths     int64
}

// CommissionRateTable returns commission_rate's 240 rows: 3 tiers × 5
// types × 4 exchanges × 4 quantity bands, in that order.
func CommissionRateTable() []CommissionRateRow {
	out := make([]CommissionRateRow, 0, 240)
	for tier := 1; tier <= 3; tier++ {
		for tt := range TradeTypeTable {
			for _, ex := range CommissionExchanges {
				for band, r := range CommissionBands {
					out = append(out, CommissionRateRow{Tier: tier, TTID: TradeTypeTable[tt].ID, ExID: ex,
						FromQty: r[0], ToQty: r[1], Hundredths: CommissionRateHundredths(tier, tt, band)})
				}
			}
		}
	}
	return out
}

// Tax jurisdictions: two countries, then 50 US states and 12 Canadian
// provinces and territories, each with TaxBrackets rates. A tax rate's id
// is the jurisdiction's code and the bracket (1..5): "US3", "NY1", "ON5".
const (
	TaxBrackets           = 5
	tradeTaxCountries     = 2
	tradeTaxUSStates      = 50
	tradeTaxJurisdictions = 64
)

var tradeTaxCodes = [tradeTaxJurisdictions]string{
	"US", "CN",
	"AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY",
	"LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND",
	"OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
	"AB", "BC", "MB", "NB", "NL", "NS", "ON", "PE", "QC", "SK", "YT", "NT",
}

var tradeTaxNames = [tradeTaxJurisdictions]string{
	"United States Federal", "Canadian Federal",
	"Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
	"Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky",
	"Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri",
	"Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York",
	"North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island",
	"South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington",
	"West Virginia", "Wisconsin", "Wyoming",
	"Alberta", "British Columbia", "Manitoba", "New Brunswick", "Newfoundland and Labrador",
	"Nova Scotia", "Ontario", "Prince Edward Island", "Quebec", "Saskatchewan", "Yukon",
	"Northwest Territories",
}

// Federal rates by bracket, in hundred-thousandths.
var tradeFederalRates = [tradeTaxCountries][TaxBrackets]int64{
	{10000, 15000, 25000, 28000, 33000},
	{15000, 20500, 26000, 29000, 33000},
}

// tradeTaxRate is the rate of bracket b (0-based) of jurisdiction j, in
// hundred-thousandths (tx_rate 0.25 is 25000).
func tradeTaxRate(j, b int) int64 {
	if j < tradeTaxCountries {
		return tradeFederalRates[j][b]
	}
	// A division's rates: a base of 0 to 4.9% by jurisdiction, plus
	// 0.5% a bracket.
	return int64((j*37)%50)*100 + int64(b)*500
}

// TaxrateRow is one row of taxrate.
type TaxrateRow struct {
	// ID and Name are tx_id and tx_name; Rate is tx_rate in
	// hundred-thousandths (tx_rate = Rate/100000).
	ID, Name string
	Rate     int64
}

// tradeTaxID is the tx_id of bracket b (0-based) of jurisdiction j.
func tradeTaxID(j, b int) string { return tradeTaxCodes[j] + strconv.Itoa(b+1) }

// TaxrateTable returns taxrate's 320 rows: for each of the 64
// jurisdictions, its five brackets.
func TaxrateTable() []TaxrateRow {
	out := make([]TaxrateRow, 0, tradeTaxJurisdictions*TaxBrackets)
	for j := range tradeTaxJurisdictions {
		for b := range TaxBrackets {
			out = append(out, TaxrateRow{ID: tradeTaxID(j, b), Name: tradeTaxNames[j] + " Income Tax Bracket " + strconv.Itoa(b+1), Rate: tradeTaxRate(j, b)})
		}
	}
	return out
}

// customerTaxBrackets returns the (jurisdiction, bracket) of customer cid's
// two tax rates: 80% of customers are taxed in the United States
// (federal plus one state), 20% in Canada (federal plus one province or
// territory); the brackets are uniform.
func (m *Model) customerTaxBrackets(cid int64) (j1, b1, j2, b2 int) {
	var r Rand
	r.Reset(m.cfg.Seed, tagCustomerTaxrate, uint64(cid))
	if r.Intn(100) < 80 {
		j1, j2 = 0, tradeTaxCountries+r.Intn(tradeTaxUSStates)
	} else {
		j1, j2 = 1, tradeTaxCountries+tradeTaxUSStates+r.Intn(tradeTaxJurisdictions-tradeTaxCountries-tradeTaxUSStates)
	}
	return j1, r.Intn(TaxBrackets), j2, r.Intn(TaxBrackets)
}

// CustomerTaxrates returns the tx_id of customer cid's two
// customer_taxrate rows: a country's rate and a state's or province's.
func (m *Model) CustomerTaxrates(cid int64) [2]string {
	j1, b1, j2, b2 := m.customerTaxBrackets(cid)
	return [2]string{tradeTaxID(j1, b1), tradeTaxID(j2, b2)}
}

// CustomerTaxRate is the sum of customer cid's two tax rates, in
// hundred-thousandths: the rate the tax of a taxable account's gain is
// computed with.
func (m *Model) CustomerTaxRate(cid int64) int64 {
	j1, b1, j2, b2 := m.customerTaxBrackets(cid)
	return tradeTaxRate(j1, b1) + tradeTaxRate(j2, b2)
}

// TaxCents is the tax on a gain of gainCents at rate (hundred-
// thousandths), rounded half up to the cent; no gain, no tax.
func TaxCents(gainCents, rate int64) int64 {
	if gainCents <= 0 {
		return 0
	}
	return (gainCents*rate + 50000) / 100000
}

// SettlementCents is a trade's se_amt in cents: for a sell the proceeds
// qty·price less charge and commission, for a buy the negative of its
// cost plus charge and commission; an account of tax status 1 has the
// tax withheld from it too (status 2 records t_tax only).
func SettlementCents(isSell bool, qty, priceCents, charge, comm, tax int64, taxStatus int) int64 {
	var amt int64
	if isSell {
		amt = qty*priceCents - charge - comm
	} else {
		amt = -(qty*priceCents + charge + comm)
	}
	if taxStatus == 1 {
		amt -= tax
	}
	return amt
}
