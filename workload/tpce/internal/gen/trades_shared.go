package gen

import "strconv"

// The values a trade's money starts from, which the fixed tables
// (charge, commission_rate, exchange, taxrate) and customer_taxrate
// must carry too: charges, commission rates, the exchange of each
// security and the customers' tax rates. The initial trades read them
// only through TradeCharge, CommissionRate, SecurityExchange and
// CustomerTax; ChargeTable, CommissionRateTable and TaxrateTable list
// the rows of the tables they imply.

// tradeCharges are ch_chrg in cents by trade type (TradeTypeTable's
// order) and tier 1..3: lower for the higher tiers.
var tradeCharges = [5][3]int64{
	TypeMarketBuy:  {900, 750, 600},
	TypeMarketSell: {900, 750, 600},
	TypeStopLoss:   {1200, 1000, 800},
	TypeLimitSell:  {1050, 900, 750},
	TypeLimitBuy:   {1050, 900, 750},
}

// TradeCharge is charge.ch_chrg, in cents, of trade type tt ("TMB", …)
// for a customer of tier (1..3); -1 for an unknown pair.
func TradeCharge(tt string, tier int) int64 {
	i := tradeTypeOf(tt)
	if i < 0 || tier < 1 || tier > 3 {
		return -1
	}
	return tradeCharges[i][tier-1]
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
			out = append(out, ChargeRow{TTID: TradeTypeTable[tt].ID, Tier: tier, Cents: tradeCharges[tt][tier-1]})
		}
	}
	return out
}

// tradeExchangeIDs are the exchanges' ex_id.
var tradeExchangeIDs = [Exchanges]string{"NYSE", "NASDAQ", "AMEX", "PCX"}

// ExchangeID is the ex_id of exchange e (0 NYSE, 1 NASDAQ, 2 AMEX, 3
// PCX).
func ExchangeID(e int) string { return tradeExchangeIDs[e] }

// tradeCommissionBands are commission_rate's quantity bands, [from,
// to]: one for each of the quantities a trade has (100, 200, 400, 800).
var tradeCommissionBands = [4][2]int64{{0, 199}, {200, 399}, {400, 799}, {800, 999999999}}

// CommissionRate is commission_rate.cr_rate in hundredths of a percent
// (cr_rate × 100) for a customer of tier (1..3), trade type tt ("TMB",
// …), exchange e (0..3, see ExchangeID) and a quantity qty: 0.90%, 0.70%
// and 0.50% for tiers 1, 2 and 3, 0.10 less for each quantity band above
// the first, 0.10 more for stop-loss orders and 0.05 more for limit
// orders, and 0, 0.02, 0.04 or 0.06 more by exchange; -1 for an unknown
// combination.
func CommissionRate(tier int, tt string, e int, qty int64) int64 {
	i := tradeTypeOf(tt)
	if i < 0 || tier < 1 || tier > 3 || e < 0 || e >= Exchanges || qty < 0 {
		return -1
	}
	band := 0
	for band < len(tradeCommissionBands)-1 && qty > tradeCommissionBands[band][1] {
		band++
	}
	tierBase := [3]int64{90, 70, 50}
	typeAdj := [5]int64{TypeStopLoss: 10, TypeLimitSell: 5, TypeLimitBuy: 5}
	exAdj := [Exchanges]int64{0, 2, 4, 6}
	return tierBase[tier-1] - 10*int64(band) + typeAdj[i] + exAdj[e]
}

// tradeExchangeWeights are the percentages of the securities listed on
// each exchange.
var tradeExchangeWeights = [Exchanges]int{40, 40, 12, 8}

// SecurityExchange is the exchange (0..3, see ExchangeID) security s is
// listed on, whose commission rates its trades pay: NYSE 40%, NASDAQ
// 40%, AMEX 12%, PCX 8%, drawn per security.
func (m *Model) SecurityExchange(s int64) int {
	var r Rand
	r.Reset(m.cfg.Seed, tagTradeExchange, uint64(s))
	x := r.Intn(100)
	for e, w := range tradeExchangeWeights {
		if x < w {
			return e
		}
		x -= w
	}
	return Exchanges - 1
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
			for ex, exID := range tradeExchangeIDs {
				for _, r := range tradeCommissionBands {
					out = append(out, CommissionRateRow{Tier: tier, TTID: TradeTypeTable[tt].ID, ExID: exID,
						FromQty: r[0], ToQty: r[1], Hundredths: CommissionRate(tier, TradeTypeTable[tt].ID, ex, r[0])})
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

// customerTaxrates returns the (jurisdiction, bracket) of customer cid's
// two tax rates: 80% of customers are taxed in the United States
// (federal plus one state), 20% in Canada (federal plus one province or
// territory); the brackets are uniform.
func (m *Model) tradeCustomerTaxrates(cid int64) (j1, b1, j2, b2 int) {
	var r Rand
	r.Reset(m.cfg.Seed, tagCustomerTaxrate, uint64(cid))
	if r.Intn(100) < 80 {
		j1, j2 = 0, tradeTaxCountries+r.Intn(tradeTaxUSStates)
	} else {
		j1, j2 = 1, tradeTaxCountries+tradeTaxUSStates+r.Intn(tradeTaxJurisdictions-tradeTaxCountries-tradeTaxUSStates)
	}
	return j1, r.Intn(TaxBrackets), j2, r.Intn(TaxBrackets)
}

// CustomerTax returns customer cid's two customer_taxrate ids, the
// national one and its state's or province's, and their sum in units of
// 10^-5 (the rate Trade-Order and Trade-Result apply to a gain).
func (m *Model) CustomerTax(cid int64) (national, division string, rate int64) {
	j1, b1, j2, b2 := m.tradeCustomerTaxrates(cid)
	return tradeTaxID(j1, b1), tradeTaxID(j2, b2), tradeTaxRate(j1, b1) + tradeTaxRate(j2, b2)
}
