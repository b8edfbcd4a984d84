package gen

// The fixed tables: status_type, sector, industry, trade_type, zip_code,
// taxrate, exchange, charge and commission_rate, with the exact row
// counts of the specification.

// Status ids (st_id) and their names.
var statusTypes = [][2]string{
	{"CMPT", "Completed"}, {"ACTV", "Active"}, {"SBMT", "Submitted"}, {"PNDG", "Pending"}, {"CNCL", "Canceled"},
}

// tradeTypes are trade_type's rows: id, name, is-sell, is-market.
var tradeTypes = []struct {
	id, name     string
	sell, market bool
}{
	{"TMB", "Market-Buy", false, true},
	{"TMS", "Market-Sell", true, true},
	{"TSL", "Stop-Loss", true, false},
	{"TLS", "Limit-Sell", true, false},
	{"TLB", "Limit-Buy", false, false},
}

// exchanges are exchange's rows, in the order of ExchangeID's indexes.
var exchanges = []struct {
	id, name, desc string
	weight         int // percentage of the securities listed there
	line1, town    string
	div            int // index into divisions
}{
	{"NYSE", "New York Stock Exchange", "The largest equities exchange, trading listed companies by auction on its floor and electronically.", 40, "11 Exchange Pl", "New York", 34},
	{"NASDAQ", "NASDAQ Stock Market", "An electronic exchange quoting equities through competing market makers.", 40, "165 Broadway", "New York", 34},
	{"AMEX", "American Stock Exchange", "An exchange for small and mid-sized companies, options and exchange-traded funds.", 12, "86 Trinity Pl", "New York", 34},
	{"PCX", "Pacific Exchange", "A regional exchange on the West Coast trading equities and options.", 8, "301 Pine St", "San Francisco", 4},
}

// ExchangeID is the ex_id of exchange e (0 NYSE, 1 NASDAQ, 2 AMEX, 3
// PCX).
func ExchangeID(e int) string { return exchanges[e].id }

// ExchangeAddress is the ad_id of exchange e's address (1 … 4, in Load
// Unit 0's addresses).
func ExchangeAddress(e int) int64 { return int64(e) + 1 }

// SecurityExchange is the exchange (0 … 3, see ExchangeID) security s is
// listed on: NYSE 40%, NASDAQ 40%, AMEX 12%, PCX 8%, drawn per security.
func (m *Model) SecurityExchange(s int64) int {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowExchangeOf, uint64(s))
	x := r.Intn(100)
	for e := range exchanges {
		if x < exchanges[e].weight {
			return e
		}
		x -= exchanges[e].weight
	}
	return len(exchanges) - 1
}

// ExchangeSecurities is ex_num_symb of every exchange: the number of
// securities of the whole database listed there.
func (m *Model) ExchangeSecurities() [Exchanges]int64 {
	var n [Exchanges]int64
	for s := range m.cfg.Securities() {
		n[m.SecurityExchange(s)]++
	}
	return n
}

// charges are ch_chrg in cents by trade type (tradeTypes' order) and
// tier 1 … 3: lower for the higher tiers.
var charges = [5][3]int64{
	{900, 750, 600},   // TMB
	{900, 750, 600},   // TMS
	{1200, 1000, 800}, // TSL
	{1050, 900, 750},  // TLS
	{1050, 900, 750},  // TLB
}

// tradeTypeIndex is the index of tt in tradeTypes, -1 if none.
func tradeTypeIndex(tt string) int {
	for i, t := range tradeTypes {
		if t.id == tt {
			return i
		}
	}
	return -1
}

// TradeCharge is charge.ch_chrg, in cents, of trade type tt ("TMB", …)
// for a customer of tier (1 … 3); -1 for an unknown pair.
func TradeCharge(tt string, tier int) int64 {
	i := tradeTypeIndex(tt)
	if i < 0 || tier < 1 || tier > 3 {
		return -1
	}
	return charges[i][tier-1]
}

// Commission bands: cr_from_qty … cr_to_qty.
var commissionBands = [4][2]int64{{0, 199}, {200, 399}, {400, 799}, {800, 999999999}}

// CommissionRate is commission_rate.cr_rate in hundredths of a percent
// (cr_rate × 100) for a customer of tier (1 … 3), trade type tt, exchange
// e (0 … 3) and a quantity qty: decreasing with the tier and the
// quantity; -1 for an unknown combination.
func CommissionRate(tier int, tt string, e int, qty int64) int64 {
	i := tradeTypeIndex(tt)
	if i < 0 || tier < 1 || tier > 3 || e < 0 || e >= Exchanges || qty < 0 {
		return -1
	}
	band := 0
	for band < len(commissionBands)-1 && qty > commissionBands[band][1] {
		band++
	}
	tierBase := [3]int64{90, 70, 50}
	typeAdj := [5]int64{0, 0, 10, 5, 5}
	exAdj := [4]int64{0, 2, 4, 6}
	return tierBase[tier-1] - 10*int64(band) + typeAdj[i] + exAdj[e]
}

func statusTypeRows() [][]any {
	var rows [][]any
	for _, s := range statusTypes {
		rows = append(rows, []any{s[0], s[1]})
	}
	return rows
}

func sectorRows() [][]any {
	var rows [][]any
	for _, s := range sectors {
		rows = append(rows, []any{s[0], s[1]})
	}
	return rows
}

// IndustryID is in_id of industry i (0 … 101): two letters, "AA" … "DX".
func IndustryID(i int) string { return string([]byte{byte('A' + i/26), byte('A' + i%26)}) }

func industryRows() [][]any {
	var rows [][]any
	for i, in := range industries {
		rows = append(rows, []any{IndustryID(i), in.name, sectors[in.sector][0]})
	}
	return rows
}

func tradeTypeRows() [][]any {
	var rows [][]any
	for _, t := range tradeTypes {
		rows = append(rows, []any{t.id, t.name, t.sell, t.market})
	}
	return rows
}

func chargeRows() [][]any {
	var rows [][]any
	for i, t := range tradeTypes {
		for tier := 1; tier <= 3; tier++ {
			rows = append(rows, []any{t.id, int64(tier), decimalCents(charges[i][tier-1])})
		}
	}
	return rows
}

func commissionRows() [][]any {
	var rows [][]any
	for tier := 1; tier <= 3; tier++ {
		for _, t := range tradeTypes {
			for e, ex := range exchanges {
				for _, band := range commissionBands {
					rate := CommissionRate(tier, t.id, e, band[0])
					rows = append(rows, []any{int64(tier), t.id, ex.id, band[0], band[1], decimalCents(rate)})
				}
			}
		}
	}
	return rows
}

func (m *Model) exchangeRows() [][]any {
	n := m.ExchangeSecurities()
	var rows [][]any
	for e, ex := range exchanges {
		rows = append(rows, []any{ex.id, ex.name, n[e], int64(930), int64(1600), ex.desc, ExchangeAddress(e)})
	}
	return rows
}

// Zip codes: zip index z (0 … ZipCodes-1) lies in division
// z·51/ZipCodes, so a division's codes are contiguous; its code is
// 01001 + 6z plus a drawn offset below 6, five digits, unique and
// increasing with z.

// zipDivision is the division (index into divisions) of zip index z.
func zipDivision(z int) int { return z * len(divisions) / ZipCodes }

// firstZip is the first zip index of division d.
func firstZip(d int) int { return (d*ZipCodes + len(divisions) - 1) / len(divisions) }

// zipCode is the code of zip index z.
func (m *Model) zipCode(z int) int64 {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowZip, uint64(z))
	return 1001 + 6*int64(z) + int64(r.Intn(6))
}

// appendZip appends the code of zip index z.
func (m *Model) appendZip(b []byte, z int) []byte { return appendPadded(b, m.zipCode(z), 5) }

// zipCodes yields zip_code: (zc_code, zc_town, zc_div).
func (m *Model) zipCodes() *tableSource {
	var r Rand
	var c cuts
	buf := make([]byte, 0, 64)
	z := 0
	return newTableSource(3, ZipCodes, func(row []any) {
		r.Reset(m.cfg.Seed, tagRowZip, uint64(z))
		c.reset()
		b := appendPadded(buf[:0], 1001+6*int64(z)+int64(r.Intn(6)), 5)
		c.mark(b)
		b = append(b, townHeads[r.Intn(len(townHeads))]...)
		b = append(b, townTails[r.Intn(len(townTails))]...)
		c.mark(b)
		buf = b
		s := string(b)
		row[0], row[1], row[2] = c.part(s, 0), c.part(s, 1), divisions[zipDivision(z)][0]
		z++
	})
}

// Tax rates: NationalRates national rates "US1" … "US5", then for each
// division d (in divisions' order) divisionRates(d) rates "<code>1", ….

var nationalRates = [NationalRates]int64{10000, 15000, 25000, 28000, 33000} // in 1e-5

// divisionRates is the number of tax rates of division d: 7 for the
// first nine divisions, 6 for the others (315 in all).
func divisionRates(d int) int {
	if d < 9 {
		return 7
	}
	return 6
}

// divisionRate is the k-th (0-based) tax rate of division d, in 1e-5:
// evenly spaced up to the division's top rate, drawn in 2% … 9%.
func (m *Model) divisionRate(d, k int) int64 {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowTaxrate, uint64(d))
	top := int64(r.Range(2000, 9000))
	return top * int64(k+1) / int64(divisionRates(d))
}

func (m *Model) taxrateRows() [][]any {
	var rows [][]any
	for k, rate := range nationalRates {
		id := "US" + string(rune('1'+k))
		rows = append(rows, []any{id, "US Federal Income Tax Bracket " + string(rune('1'+k)), float64(rate) / 1e5})
	}
	for d, div := range divisions {
		for k := range divisionRates(d) {
			id := div[0] + string(rune('1'+k))
			rows = append(rows, []any{id, div[1] + " Income Tax Bracket " + string(rune('1'+k)), float64(m.divisionRate(d, k)) / 1e5})
		}
	}
	return rows
}
