package gen

import (
	"slices"
	"strconv"
	"time"
)

// The market tables of a Load Unit: company, company_competitor,
// security, daily_market, financial, last_trade, news_item and
// news_xref.
//
// Securities: Load Unit b's securities are s = 685·b … 685·b + 684
// (0-based, see Symbol), its companies co_id = 500·b + 1 … 500·b + 500.
// The first 500 securities of a Load Unit are its companies' common
// stock (issue "COMMON", company k ↔ security k); the other 185 are
// preferred stock (issue "PREF_A") of the companies k = ⌊i·500/185⌋, i =
// 0 … 184, which therefore have two issues (see SecurityCompany).

// Issues of a security (s_issue).
const (
	IssueCommon    = "COMMON"
	IssuePreferred = "PREF_A"
)

// preferred is the number of preferred issues of a Load Unit.
const preferred = SecuritiesPerLU - CompaniesPerLU

// SecurityCompany is security s's company (s_co_id) and issue.
func SecurityCompany(s int64) (coID int64, issue string) {
	lu, j := s/SecuritiesPerLU, s%SecuritiesPerLU
	if j < CompaniesPerLU {
		return lu*CompaniesPerLU + j + 1, IssueCommon
	}
	return lu*CompaniesPerLU + (j-CompaniesPerLU)*CompaniesPerLU/preferred + 1, IssuePreferred
}

// CompanySecurity is the security of company coID's issue, the inverse
// of SecurityCompany; ok is false when the company has no such issue.
func CompanySecurity(coID int64, issue string) (s int64, ok bool) {
	if coID < 1 {
		return 0, false
	}
	lu, k := (coID-1)/CompaniesPerLU, (coID-1)%CompaniesPerLU
	switch issue {
	case IssueCommon:
		return lu*SecuritiesPerLU + k, true
	case IssuePreferred:
		i := (k*preferred + CompaniesPerLU - 1) / CompaniesPerLU // ⌈k·185/500⌉
		if i < preferred && i*CompaniesPerLU/preferred == k {
			return lu*SecuritiesPerLU + CompaniesPerLU + i, true
		}
	}
	return 0, false
}

// Company names: the combinations head × body × tail, numbered by a
// bijection of co_id-1 seeded by the seed; past the number of
// combinations a round number is added (" 2", " 3", …), so names are
// unique in any database.

func companyCombos() int64 {
	return int64(len(companyHeads) * len(companyBodies) * len(companyTails))
}

// appendCompanyName appends company coID's co_name.
func (m *Model) appendCompanyName(b []byte, coID int64) []byte {
	combos := companyCombos()
	k := coID - 1
	q := int64(mix(m.cfg.Seed, tagRowCompanyName) % uint64(combos))
	idx := (k%combos*40009 + q) % combos // 40009 is a prime not dividing combos
	nt, nb := int64(len(companyTails)), int64(len(companyBodies))
	b = append(b, companyHeads[idx/(nt*nb)]...)
	b = append(b, ' ')
	b = append(b, companyBodies[idx/nt%nb]...)
	if round := k / combos; round > 0 {
		b = append(b, ' ')
		b = strconv.AppendInt(b, round+1, 10)
	}
	b = append(b, ' ')
	return append(b, companyTails[idx%nt]...)
}

// CompanyName is company coID's co_name (unique).
func (m *Model) CompanyName(coID int64) string { return string(m.appendCompanyName(nil, coID)) }

// CompanyIndustry is company coID's industry (an index of IndustryID),
// uniform over the 102 industries.
func (m *Model) CompanyIndustry(coID int64) int {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowIndustryOf, uint64(coID))
	return r.Intn(len(industries))
}

// industryBoxes are the boxed in_id values.
func industryBoxes() []any {
	out := make([]any, len(industries))
	for i := range out {
		out[i] = IndustryID(i)
	}
	return out
}

func boxStrings(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// companies yields Load Unit lu's company rows: (co_id, co_st_id,
// co_name, co_in_id, co_sp_rate, co_ceo, co_ad_id, co_desc,
// co_open_date).
func (m *Model) companies(lu int) *tableSource {
	co := int64(lu) * CompaniesPerLU
	var r Rand
	var c cuts
	buf := make([]byte, 0, 256)
	inds := industryBoxes()
	ratings := boxStrings(spRatings)
	open0 := utcDate(1850, time.January, 1)
	return newTableSource(9, CompaniesPerLU, func(row []any) {
		co++
		in := m.CompanyIndustry(co)
		div := zipDivision(m.addressZip(CompanyAddress(co)))
		r.Reset(m.cfg.Seed, tagRowCompany, uint64(co))
		rating := r.Intn(len(spRatings))
		ceo := drawPerson(&r)
		opened := open0.AddDate(0, 0, r.Intn(165*365))
		c.reset()
		b := m.appendCompanyName(buf[:0], co)
		c.mark(b)
		b = append(b, ceo.first...)
		b = append(b, ' ')
		b = append(b, ceo.last...)
		c.mark(b)
		b = append(b, "Operates in "...)
		b = append(b, industries[in].name...)
		b = append(b, " since "...)
		b = strconv.AppendInt(b, int64(opened.Year()), 10)
		b = append(b, "; headquartered in "...)
		b = append(b, divisions[div][1]...)
		b = append(b, '.')
		c.mark(b)
		buf = b
		s := string(b)
		row[0], row[1], row[2], row[3], row[4] = co, anyACTV, c.part(s, 0), inds[in], ratings[rating]
		row[5], row[6], row[7], row[8] = c.part(s, 1), CompanyAddress(co), c.part(s, 2), opened
	})
}

// competitors yields Load Unit lu's company_competitor rows: (cp_co_id,
// cp_comp_co_id, cp_in_id), three distinct other companies of the whole
// database per company, in the company's industry.
func (m *Model) competitors(lu int) *tableSource {
	co := int64(lu) * CompaniesPerLU
	var r Rand
	inds := industryBoxes()
	total := m.cfg.Companies()
	var coBox, inBox any
	var picked [CompetitorsPerCompany]int64
	k := CompetitorsPerCompany
	return newTableSource(3, CompaniesPerLU*CompetitorsPerCompany, func(row []any) {
		if k == CompetitorsPerCompany {
			co++
			coBox, inBox = co, inds[m.CompanyIndustry(co)]
			r.Reset(m.cfg.Seed, tagRowCompetitor, uint64(co))
			for i := range picked {
				for {
					x := r.Int64Range(1, total)
					if x != co && !slices.Contains(picked[:i], x) {
						picked[i] = x
						break
					}
				}
			}
			k = 0
		}
		row[0], row[1], row[2] = coBox, picked[k], inBox
		k++
	})
}

// dmDay is one day of a security's daily_market, in cents.
type dmDay struct {
	close, high, low int32
	vol              int64
}

// dmFirst is the first daily_market date: the Monday 261 weeks before
// Base.
var dmFirst = utcDate(2020, time.January, 6)

// dmDate is the date of daily_market day d (0 … DailyMarketDays-1):
// weekdays from dmFirst; the last is the Friday before Base.
func dmDate(d int) time.Time { return dmFirst.AddDate(0, 0, d/5*7+d%5) }

// dailyPath fills days with security s's daily market: the close walks
// back from the price at the close of the Friday before Base by daily
// steps within ±2.5%, drawn back towards $25 and held within $5 … $95;
// the high and low lie up to 3% above and below the close.
func (m *Model) dailyPath(s int64, days *[DailyMarketDays]dmDay) {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowDaily, uint64(s))
	close := m.Price(s, Base.Add(-64*time.Hour))
	for d := DailyMarketDays - 1; d >= 0; d-- {
		days[d] = dmDay{
			close: int32(close),
			high:  int32(close + close*int64(r.Intn(300))/10000),
			low:   int32(close - close*int64(r.Intn(300))/10000),
			vol:   int64(r.Range(10_000, 5_000_000)),
		}
		step := int64(r.Intn(501)-250) + (close-2500)/100 // basis points
		close -= close * step / 10000
		close = min(max(close, 500), 9500)
	}
}

// week52 returns the highest high and lowest low of the last 52 weeks
// (261 days) of days, with their day indexes (the first when tied).
func week52(days *[DailyMarketDays]dmDay) (hi int64, hiDay int, lo int64, loDay int) {
	hi, lo = -1, 1<<62
	for d := DailyMarketDays - 261; d < DailyMarketDays; d++ {
		if h := int64(days[d].high); h > hi {
			hi, hiDay = h, d
		}
		if l := int64(days[d].low); l < lo {
			lo, loDay = l, d
		}
	}
	return
}

// priceBoxes covers every price the daily market holds ($95 + 3%).
const priceBoxes = 10000

// securities yields Load Unit lu's security rows (see schema).
func (m *Model) securities(lu int) *tableSource {
	s := int64(lu)*SecuritiesPerLU - 1
	var r Rand
	var c cuts
	buf := make([]byte, 0, 128)
	days := new([DailyMarketDays]dmDay)
	exIDs := boxStrings([]string{exchanges[0].id, exchanges[1].id, exchanges[2].id, exchanges[3].id})
	issues := [2]any{IssueCommon, IssuePreferred}
	prices := newMoneyBoxes(priceBoxes)
	start0 := utcDate(1980, time.January, 1)
	return newTableSource(16, SecuritiesPerLU, func(row []any) {
		s++
		co, issue := SecurityCompany(s)
		m.dailyPath(s, days)
		hi, hiDay, lo, loDay := week52(days)
		r.Reset(m.cfg.Seed, tagRowSecurity, uint64(s))
		numOut := r.Int64Range(10_000_000, 5_000_000_000)
		start := start0.AddDate(0, 0, r.Intn(40*365))
		exch := start.AddDate(0, 0, r.Intn(int(dmFirst.Sub(start).Hours()/24)))
		pe := r.Int64Range(500, 8000)
		var div int64
		if r.Intn(100) >= 30 {
			div = r.Int64Range(5, 250)
		}
		yield := (div*10000 + int64(days[DailyMarketDays-1].close)/2) / int64(days[DailyMarketDays-1].close)
		c.reset()
		b := appendTicker(buf[:0], s)
		c.mark(b)
		b = m.appendCompanyName(b, co)
		if issue == IssueCommon {
			b = append(b, " Common Stock"...)
		} else {
			b = append(b, " Preferred Stock A"...)
		}
		c.mark(b)
		buf = b
		str := string(b)
		row[0], row[1], row[2], row[3] = c.part(str, 0), issues[0], anyACTV, c.part(str, 1)
		if issue != IssueCommon {
			row[1] = issues[1]
		}
		row[4], row[5], row[6], row[7], row[8] = exIDs[m.SecurityExchange(s)], co, numOut, start, exch
		row[9], row[10], row[11] = decimalCents(pe), prices.get(hi), dmDate(hiDay)
		row[12], row[13], row[14], row[15] = prices.get(lo), dmDate(loDay), decimalCents(div), decimalCents(yield)
	})
}

// securityNumOut is security s's s_num_out.
func (m *Model) securityNumOut(s int64) int64 {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowSecurity, uint64(s))
	return r.Int64Range(10_000_000, 5_000_000_000)
}

// dailyMarket yields Load Unit lu's daily_market rows: (dm_date,
// dm_s_symb, dm_close, dm_high, dm_low, dm_vol), security by security,
// each in date order.
func (m *Model) dailyMarket(lu int) *tableSource {
	s := int64(lu)*SecuritiesPerLU - 1
	days := new([DailyMarketDays]dmDay)
	dates := make([]any, DailyMarketDays)
	for d := range dates {
		dates[d] = dmDate(d)
	}
	prices := newMoneyBoxes(priceBoxes)
	d := DailyMarketDays
	var symb any
	buf := make([]byte, 0, 16)
	return newTableSource(6, SecuritiesPerLU*DailyMarketDays, func(row []any) {
		if d == DailyMarketDays {
			s++
			m.dailyPath(s, days)
			buf = appendTicker(buf[:0], s)
			symb = string(buf)
			d = 0
		}
		x := &days[d]
		row[0], row[1], row[2], row[3], row[4], row[5] = dates[d], symb, prices.get(int64(x.close)), prices.get(int64(x.high)), prices.get(int64(x.low)), x.vol
		d++
	})
}

// financials yields Load Unit lu's financial rows: 20 quarters, 2020 Q1
// … 2024 Q4, per company: (fi_co_id, fi_year, fi_qtr,
// fi_qtr_start_date, fi_revenue, fi_net_earn, fi_basic_eps, fi_dilut_eps,
// fi_margin, fi_inventory, fi_assets, fi_liability, fi_out_basic,
// fi_out_dilut). Revenue starts between $10 M and $5 B a quarter and
// grows by -5% … +8% a quarter; the shares are the common stock's
// s_num_out.
func (m *Model) financials(lu int) *tableSource {
	co := int64(lu) * CompaniesPerLU
	var r Rand
	q := FinancialQuarters
	var coBox any
	var rev, shares int64
	var quarterDates [FinancialQuarters]any
	var years [FinancialQuarters]any
	qtrs := [4]any{int64(1), int64(2), int64(3), int64(4)}
	for i := range quarterDates {
		quarterDates[i] = utcDate(2020+i/4, time.Month(1+3*(i%4)), 1)
		years[i] = int64(2020 + i/4)
	}
	return newTableSource(14, CompaniesPerLU*FinancialQuarters, func(row []any) {
		if q == FinancialQuarters {
			co++
			coBox = co
			common, _ := CompanySecurity(co, IssueCommon)
			shares = m.securityNumOut(common)
			r.Reset(m.cfg.Seed, tagRowFinancial, uint64(co))
			rev = r.Int64Range(1_000_000_000, 500_000_000_000)
			q = 0
		}
		if q > 0 {
			rev += rev * int64(r.Range(-500, 800)) / 10000
		}
		marginBP := int64(r.Range(-1000, 2500))
		net := rev * marginBP / 10000
		dilut := shares + shares*int64(r.Intn(500))/10000
		inventory := rev * int64(r.Range(10, 100)) / 100
		assets := rev * int64(r.Range(200, 1000)) / 100
		liability := assets * int64(r.Range(20, 90)) / 100
		row[0], row[1], row[2], row[3] = coBox, years[q], qtrs[q%4], quarterDates[q]
		row[4], row[5], row[6], row[7] = decimalCents(rev), decimalCents(net), decimalCents(net/shares), decimalCents(net/dilut)
		row[8], row[9], row[10], row[11] = decimalCents(marginBP/100), decimalCents(inventory), decimalCents(assets), decimalCents(liability)
		row[12], row[13] = shares, dilut
		q++
	})
}

// lastTrades yields Load Unit lu's last_trade rows: (lt_s_symb, lt_dts,
// lt_price, lt_open_price, lt_vol): the price at the end of the initial
// trades, the price at the opening of their last day.
func (m *Model) lastTrades(lu int) *tableSource {
	s := int64(lu)*SecuritiesPerLU - 1
	end := m.cfg.InitialEnd()
	open := TradingTime(time.Duration(m.cfg.ITD-1) * TradingDay)
	var endBox any = end
	var r Rand
	buf := make([]byte, 0, 16)
	return newTableSource(5, SecuritiesPerLU, func(row []any) {
		s++
		r.Reset(m.cfg.Seed, tagRowLastTrade, uint64(s))
		buf = appendTicker(buf[:0], s)
		row[0], row[1], row[2] = string(buf), endBox, decimalCents(m.Price(s, end))
		row[3], row[4] = decimalCents(m.Price(s, open)), r.Int64Range(10_000, 5_000_000)
	})
}

// newsText is the text news items are cut from: words of newsWords in
// sentences, n bytes, a pure function of the seed.
func (m *Model) newsText(n int) []byte {
	var r Rand
	r.Reset(m.cfg.Seed, tagRowNewsText, 0)
	b := make([]byte, 0, n+16)
	sentence := 0
	for len(b) < n {
		w := newsWords[r.Intn(len(newsWords))]
		if sentence == 0 && len(w) > 0 {
			b = append(b, w[0]-'a'+'A')
			b = append(b, w[1:]...)
		} else {
			b = append(b, w...)
		}
		sentence++
		if sentence > 6 && r.Intn(8) == 0 {
			b = append(b, ". "...)
			sentence = 0
		} else {
			b = append(b, ' ')
		}
	}
	return b[:n]
}

// newsSlack is the number of distinct offsets news items are cut at.
const newsSlack = 64 << 10

// newsItems yields Load Unit lu's news_item rows: (ni_id, ni_headline,
// ni_summary, ni_item, ni_dts, ni_source, ni_author), ni_id = 2·(co_id-1)
// + k + 1 for the company's k-th item. ni_item is NewsSize bytes of the
// news text from an offset drawn per item (the rows share the text's
// memory; nothing writes it).
func (m *Model) newsItems(lu int) *tableSource {
	size := max(m.cfg.NewsSize, 0)
	text := m.newsText(size + newsSlack)
	co := int64(lu) * CompaniesPerLU
	var r Rand
	var c cuts
	buf := make([]byte, 0, 512)
	sources := boxStrings(newsSources)
	k := NewsPerCompany
	return newTableSource(7, CompaniesPerLU*NewsPerCompany, func(row []any) {
		if k == NewsPerCompany {
			co++
			k = 0
		}
		id := (co-1)*NewsPerCompany + int64(k) + 1
		k++
		r.Reset(m.cfg.Seed, tagRowNews, uint64(id))
		c.reset()
		b := m.appendCompanyName(buf[:0], co)
		b = append(b, ' ')
		b = append(b, newsEvents[r.Intn(len(newsEvents))]...)
		c.mark(b)
		// A summary starts at a word.
		from := r.Intn(newsSlack - 512)
		for text[from] != ' ' {
			from++
		}
		b = append(b, text[from+1:from+1+r.Range(100, 255)]...)
		c.mark(b)
		hasAuthor := r.Intn(10) > 0
		if hasAuthor {
			p := drawPerson(&r)
			b = append(b, p.first...)
			b = append(b, ' ')
			b = append(b, p.last...)
		}
		c.mark(b)
		buf = b
		s := string(b)
		item := r.Intn(newsSlack + 1)
		dts := Base.Add(-time.Duration(r.Int64Range(3600, 5*365*86400)) * time.Second)
		row[0], row[1], row[2], row[3] = id, c.part(s, 0), c.part(s, 1), text[item:item+size]
		row[4], row[5] = dts, sources[r.Intn(len(sources))]
		if hasAuthor {
			row[6] = c.part(s, 2)
		} else {
			row[6] = nil
		}
	})
}

// newsXrefs yields Load Unit lu's news_xref rows: (nx_ni_id, nx_co_id),
// each news item with its company.
func (m *Model) newsXrefs(lu int) *tableSource {
	id := int64(lu) * CompaniesPerLU * NewsPerCompany
	return newTableSource(2, CompaniesPerLU*NewsPerCompany, func(row []any) {
		id++
		row[0], row[1] = id, (id-1)/NewsPerCompany+1
	})
}
