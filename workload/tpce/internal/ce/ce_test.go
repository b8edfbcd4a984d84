package ce

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// testEnv is a database of lus Load Units and its environment.
func testEnv(t testing.TB, lus int64) *Env {
	t.Helper()
	m := gen.NewModel(gen.Config{Seed: 7, Customers: lus * gen.LoadUnit, ITD: 2, ScaleFactor: gen.DefaultScaleFactor, NewsSize: 100})
	e, err := NewEnv(m)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// chiCritical are the chi-square statistic's critical values at p =
// 0.001 by degrees of freedom.
var chiCritical = map[int]float64{1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 9: 27.88, 11: 31.26, 15: 37.70}

// checkChi fails when the counts are unlikely (p < 0.001) under the
// expected shares (summing to 1).
func checkChi(t *testing.T, what string, counts []int, shares []float64) {
	t.Helper()
	total := 0
	for _, c := range counts {
		total += c
	}
	stat := 0.0
	for i, c := range counts {
		e := shares[i] * float64(total)
		stat += (float64(c) - e) * (float64(c) - e) / e
	}
	crit, ok := chiCritical[len(counts)-1]
	if !ok {
		t.Fatalf("%s: no critical value for %d degrees of freedom", what, len(counts)-1)
	}
	if stat > crit {
		t.Errorf("%s: counts %v against shares %v: chi-square %.1f > %.1f", what, counts, shares, stat, crit)
	}
}

// checkShare fails when k of n is further than 4 standard deviations
// from the share p.
func checkShare(t *testing.T, what string, k, n int, p float64) {
	t.Helper()
	sd := math.Sqrt(float64(n) * p * (1 - p))
	if d := math.Abs(float64(k) - p*float64(n)); d > 4*sd {
		t.Errorf("%s: %d of %d, want %.4f of them (±%.0f)", what, k, n, p, 4*sd)
	}
}

func TestCardsAreTheMix(t *testing.T) {
	// The specification's shares in % of all transactions.
	want := [Kinds]float64{4.9, 13, 18, 14, 8, 10.1, 19, 2}
	sum := 0
	for k, n := range Cards {
		sum += n
		if math.Abs(float64(n)/10-want[k]) > 1e-9 {
			t.Errorf("%v: %d cards, want %.1f%% of 1000", Kind(k), n, want[k])
		}
	}
	if sum != DeckSize {
		t.Errorf("%d cards, want %d", sum, DeckSize)
	}
}

func TestDeckExactProportions(t *testing.T) {
	const decks = 7
	r := gen.NewRand(1, 2, 3)
	var d Deck
	var orders [][]Kind
	for range decks {
		var counts [Kinds]int
		order := make([]Kind, 0, DeckSize)
		for range DeckSize {
			k := d.Deal(r)
			counts[k]++
			order = append(order, k)
		}
		if counts != Cards {
			t.Fatalf("one deck dealt %v, want %v", counts, Cards)
		}
		orders = append(orders, order)
	}
	// Each deck is shuffled afresh.
	for i := 1; i < decks; i++ {
		if slices.Equal(orders[i], orders[0]) {
			t.Errorf("deck %d is dealt in the order of deck 0", i)
		}
	}
	// The order is shuffled: the first 89 cards are not all one kind's.
	if k := orders[0][0]; !slices.ContainsFunc(orders[0][:89], func(x Kind) bool { return x != k }) {
		t.Error("the deck is not shuffled")
	}
}

func TestNextDealsTheDeck(t *testing.T) {
	e := testEnv(t, 1)
	g := e.NewGenerator(-1)
	r := gen.NewRand(9, 9, 9)
	for deck := range 3 {
		var counts [Kinds]int
		for range DeckSize {
			counts[g.Next(r).Kind()]++
		}
		if counts != Cards {
			t.Fatalf("deck %d: Next dealt %v, want %v", deck, counts, Cards)
		}
	}
}

func TestKindString(t *testing.T) {
	if s := KindTradeOrder.String(); s != "Trade-Order" {
		t.Errorf("KindTradeOrder is %q", s)
	}
	if s := Kind(200).String(); s != "unknown" {
		t.Errorf("Kind(200) is %q", s)
	}
}

func TestEnvTables(t *testing.T) {
	e := testEnv(t, 1)
	// The largest ca_id is an account, the last of the last customer.
	validAccount(t, e, e.maxAcctID)
	if first, n := e.m.Accounts(e.cfg.Customers); e.maxAcctID != first+int64(n)-1 {
		t.Errorf("max account %d, the last customer's are %d … %d", e.maxAcctID, first, first+int64(n)-1)
	}
	if n := len(e.SectorNames()); n != 12 {
		t.Errorf("%d sectors, want 12", n)
	}
	if n := len(e.IndustryNames()); n != 102 {
		t.Errorf("%d industries, want 102", n)
	}
	days := e.DailyMarketDays()
	if len(days) != gen.DailyMarketDays {
		t.Fatalf("%d daily_market days, want %d", len(days), gen.DailyMarketDays)
	}
	for i, d := range days {
		if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
			t.Fatalf("day %d is %v, a %v", i, d, wd)
		}
		if i > 0 && !d.After(days[i-1]) {
			t.Fatalf("day %d (%v) is not after day %d (%v)", i, d, i-1, days[i-1])
		}
	}
	if !days[len(days)-1].Before(gen.Base) || days[0].Weekday() != time.Monday {
		t.Errorf("daily_market runs %v … %v, want Monday … before %v", days[0], days[len(days)-1], gen.Base)
	}
}

// TestTradeExists compares TradeExists with the generated trade table,
// on a database whose Load Units end in a partial block of trade ids.
func TestTradeExists(t *testing.T) {
	// 250 trades a Load Unit: two whole blocks and half of one.
	cfg := gen.Config{Seed: 5, Customers: 3 * gen.LoadUnit, ITD: 1, ScaleFactor: 115200, NewsSize: 10}
	if n := cfg.InitialTrades(); n != 250 {
		t.Fatalf("config has %d trades a Load Unit, want 250", n)
	}
	m := gen.NewModel(cfg)
	e, err := NewEnv(m)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for lu := range cfg.LoadUnits() {
		src := m.TradeRows(schema.Trade, lu)
		for src.Next() {
			row, err := src.Values()
			if err != nil {
				t.Fatal(err)
			}
			ids[row[0].(int64)] = true
		}
		if err := src.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) != 750 {
		t.Fatalf("%d trades, want 750", len(ids))
	}
	for id := int64(-1); id <= cfg.MaxInitialTradeID()+400; id++ {
		if got := e.TradeExists(id); got != ids[id] {
			t.Errorf("TradeExists(%d) = %v, the trade table says %v", id, got, ids[id])
		}
	}
}

// validAccount fails unless ca is an account of the database.
func validAccount(t *testing.T, e *Env, ca int64) {
	t.Helper()
	cid := gen.AccountOwner(ca)
	if cid < 1 || cid > e.cfg.Customers {
		t.Fatalf("account %d: owner %d out of range", ca, cid)
	}
	first, n := e.m.Accounts(cid)
	if ca < first || ca >= first+int64(n) {
		t.Fatalf("account %d is not one of customer %d's %d from %d", ca, cid, n, first)
	}
}

// validSymbol fails unless s is a security's symbol and returns its
// index.
func validSymbol(t *testing.T, e *Env, symb string) int64 {
	t.Helper()
	s, ok := gen.SecurityIndex(symb)
	if !ok || s >= e.cfg.Securities() {
		t.Fatalf("symbol %q is no security", symb)
	}
	return s
}

const draws = 20000

func TestBrokerVolume(t *testing.T) {
	e := testEnv(t, 5) // 50 brokers
	all := map[string]bool{}
	for b := int64(1); b <= e.cfg.Brokers(); b++ {
		all[e.m.BrokerName(b)] = true
	}
	sectorIdx := map[string]int{}
	for i, s := range e.sectors {
		sectorIdx[s] = i
	}
	g := e.NewGenerator(-1)
	r := gen.NewRand(1, 1, 1)
	sectors := make([]int, 12)
	sizes := make([]int, MaxBrokers-MinBrokers+1)
	for range draws / 4 {
		in := g.BrokerVolume(r)
		i, ok := sectorIdx[in.SectorName]
		if !ok {
			t.Fatalf("sector %q is no sector", in.SectorName)
		}
		sectors[i]++
		// Two of 50 brokers may share a name: the list may be one short.
		n := len(in.BrokerNames)
		if n < MinBrokers-2 || n > MaxBrokers {
			t.Fatalf("%d brokers", n)
		}
		for j, name := range in.BrokerNames {
			if !all[name] {
				t.Fatalf("%q is no broker's name", name)
			}
			if slices.Contains(in.BrokerNames[:j], name) {
				t.Fatalf("%q twice in %v", name, in.BrokerNames)
			}
		}
		if len(all) == int(e.cfg.Brokers()) {
			sizes[n-MinBrokers]++
		}
	}
	checkChi(t, "sectors", sectors, slices.Repeat([]float64{1.0 / 12}, 12))
	if len(all) == int(e.cfg.Brokers()) {
		// Names are unique: the sizes are uniform in 20 … 40.
		// Compared in groups of 5 sizes: 4 groups of 5/21, one of 1/21.
		grouped := []int{0, 0, 0, 0, 0}
		for i, c := range sizes {
			grouped[min(i/5, 4)] += c
		}
		checkChi(t, "broker list sizes", grouped, []float64{5.0 / 21, 5.0 / 21, 5.0 / 21, 5.0 / 21, 1.0 / 21})
	}
	// A database with fewer brokers than 20 names them all.
	small := testEnv(t, 1)
	in := small.NewGenerator(-1).BrokerVolume(r)
	if len(in.BrokerNames) > 10 || len(in.BrokerNames) < 9 {
		t.Errorf("10 brokers: %d names", len(in.BrokerNames))
	}
}

func TestCustomerPosition(t *testing.T) {
	e := testEnv(t, 2)
	byTax := map[string]int64{}
	for c := int64(1); c <= e.cfg.Customers; c++ {
		byTax[e.m.CustomerTaxID(c)] = c
	}
	g := e.NewGenerator(-1)
	r := gen.NewRand(2, 2, 2)
	var taxes, hist int
	tiers := make([]int, 3)
	for range draws {
		in := g.CustomerPosition(r)
		cid := in.CustID
		if in.TaxID != "" {
			taxes++
			if in.CustID != 0 {
				t.Fatal("both tax id and c_id set")
			}
			var ok bool
			if cid, ok = byTax[in.TaxID]; !ok {
				t.Fatalf("tax id %q is no customer's", in.TaxID)
			}
		} else if cid < 1 || cid > e.cfg.Customers {
			t.Fatalf("c_id %d out of range", cid)
		}
		tiers[e.m.Tier(cid)-1]++
		first, n := e.m.Accounts(cid)
		if in.GetHistory {
			hist++
			if in.AcctIndex < 0 || in.AcctIndex >= n || in.AcctID != first+int64(in.AcctIndex) {
				t.Fatalf("history of account %d at %d of customer %d's %d from %d", in.AcctID, in.AcctIndex, cid, n, first)
			}
		} else if in.AcctID != 0 || in.AcctIndex != 0 {
			t.Fatalf("no history but account %d", in.AcctID)
		}
	}
	checkShare(t, "by tax id", taxes, draws, 0.5)
	checkShare(t, "with history", hist, draws, 0.5)
	checkChi(t, "tiers", tiers, []float64{0.1, 0.6, 0.3})
}

func TestMarketWatch(t *testing.T) {
	e := testEnv(t, 12) // 6,000 companies: the window is narrower
	inds := map[string]bool{}
	for _, n := range e.industries {
		inds[n] = true
	}
	dayIdx := map[time.Time]int{}
	for i, d := range e.days {
		dayIdx[d] = i
	}
	g := e.NewGenerator(-1)
	r := gen.NewRand(3, 3, 3)
	sources := make([]int, 3)
	weekdays := make([]int, 5)
	minWeek, maxWeek := 1000, -1
	for range draws {
		in := g.MarketWatch(r)
		set := 0
		switch {
		case in.CustID != 0:
			sources[0]++
			set++
			if in.CustID > e.cfg.Customers || in.CustID < 1 {
				t.Fatalf("customer %d out of range", in.CustID)
			}
		case in.AcctID != 0:
			sources[1]++
			validAccount(t, e, in.AcctID)
		case in.IndustryName != "":
			sources[2]++
			if !inds[in.IndustryName] {
				t.Fatalf("%q is no industry", in.IndustryName)
			}
			if in.StartingCoID < 1 || in.EndingCoID > e.cfg.Companies() || in.EndingCoID-in.StartingCoID+1 != IndustryWindow {
				t.Fatalf("companies %d … %d", in.StartingCoID, in.EndingCoID)
			}
		default:
			t.Fatal("no source")
		}
		if (in.CustID != 0) && (in.AcctID != 0 || in.IndustryName != "") || in.AcctID != 0 && in.IndustryName != "" {
			t.Fatalf("two sources: %+v", in)
		}
		i, ok := dayIdx[in.StartDay]
		if !ok {
			t.Fatalf("start day %v has no daily_market rows", in.StartDay)
		}
		weekdays[int(in.StartDay.Weekday())-1]++
		week := i / 5
		minWeek, maxWeek = min(minWeek, week), max(maxWeek, week)
		if i%5 != int(in.StartDay.Weekday())-1 {
			t.Fatalf("day %d of daily_market is a %v", i, in.StartDay.Weekday())
		}
	}
	checkChi(t, "sources", sources, []float64{0.6, 0.35, 0.05})
	checkChi(t, "weekdays", weekdays, []float64{0.2, 0.07, 0.06, 0.07, 0.6})
	if minWeek < 5 || maxWeek > 260 {
		t.Errorf("start days in weeks %d … %d of daily_market, want 5 … 260", minWeek, maxWeek)
	}
	// The industry window covers every company when there are fewer.
	small := testEnv(t, 2)
	sg := small.NewGenerator(-1)
	for range 2000 {
		if in := sg.MarketWatch(r); in.IndustryName != "" {
			if in.StartingCoID != 1 || in.EndingCoID != small.cfg.Companies() {
				t.Fatalf("1,000 companies: window %d … %d", in.StartingCoID, in.EndingCoID)
			}
		}
	}
}

func TestSecurityDetail(t *testing.T) {
	e := testEnv(t, 2)
	dayIdx := map[time.Time]int{}
	for i, d := range e.days {
		dayIdx[d] = i
	}
	g := e.NewGenerator(-1)
	r := gen.NewRand(4, 4, 4)
	rows := make([]int, MaxDetailRows-MinDetailRows+1)
	lobs := 0
	secs := make([]int, 10)
	for range draws {
		in := g.SecurityDetail(r)
		s := validSymbol(t, e, in.Symbol)
		secs[s*10/e.cfg.Securities()]++
		if in.MaxRowsToReturn < MinDetailRows || in.MaxRowsToReturn > MaxDetailRows {
			t.Fatalf("%d rows", in.MaxRowsToReturn)
		}
		rows[in.MaxRowsToReturn-MinDetailRows]++
		i, ok := dayIdx[in.StartDay]
		if !ok || i+in.MaxRowsToReturn > len(e.days) {
			t.Fatalf("start day %v (%d) with %d rows", in.StartDay, i, in.MaxRowsToReturn)
		}
		if in.AccessLOBFlag {
			lobs++
		}
	}
	checkChi(t, "rows", rows, slices.Repeat([]float64{1.0 / 16}, 16))
	checkShare(t, "news text", lobs, draws, 0.01)
	s := make([]float64, 10)
	for i := range s {
		s[i] = 0.1
	}
	checkChi(t, "securities by tenth", secs, s)
}

// checkWindow fails unless start is a trading instant within the
// initial period backed off by backoff, and end is the windows' end.
func checkWindow(t *testing.T, e *Env, start, end time.Time, backoff time.Duration) {
	t.Helper()
	latest := gen.TradingTime(max(e.initialSpan-backoff, 0))
	if start.Before(gen.Base) || start.After(latest) {
		t.Fatalf("start %v not in %v … %v", start, gen.Base, latest)
	}
	if h := start.Hour(); h < 9 || h > 17 || start.Weekday() == time.Saturday || start.Weekday() == time.Sunday {
		t.Fatalf("start %v is outside trading hours", start)
	}
	if !end.IsZero() && !end.Equal(e.WindowEnd()) {
		t.Fatalf("end %v, want %v", end, e.WindowEnd())
	}
}

func checkTradeIDs(t *testing.T, e *Env, ids []int64) {
	t.Helper()
	if len(ids) != TradeIDs {
		t.Fatalf("%d trade ids", len(ids))
	}
	for i, id := range ids {
		if !e.TradeExists(id) {
			t.Fatalf("trade %d does not exist", id)
		}
		if slices.Contains(ids[:i], id) {
			t.Fatalf("trade %d twice", id)
		}
	}
}

func TestTradeLookup(t *testing.T) {
	e := testEnv(t, 2)
	g := e.NewGenerator(-1)
	r := gen.NewRand(5, 5, 5)
	frames := make([]int, 4)
	// NURand skews the ids: some ids come up far more often than 1/N.
	seen := map[int64]int{}
	for range draws {
		in := g.TradeLookup(r)
		frames[in.Frame-1]++
		switch in.Frame {
		case 1:
			checkTradeIDs(t, e, in.TradeIDs)
			for _, id := range in.TradeIDs {
				seen[id]++
			}
		case 2:
			validAccount(t, e, in.AcctID)
			checkWindow(t, e, in.StartTradeDTS, in.EndTradeDTS, BackoffFrame2)
		case 3:
			validSymbol(t, e, in.Symbol)
			checkWindow(t, e, in.StartTradeDTS, in.EndTradeDTS, BackoffFrame3)
			if in.MaxAcctID != e.maxAcctID {
				t.Fatalf("frame 3: max account %d, want %d", in.MaxAcctID, e.maxAcctID)
			}
		case 4:
			validAccount(t, e, in.AcctID)
			checkWindow(t, e, in.StartTradeDTS, time.Time{}, BackoffFrame4)
			if !in.EndTradeDTS.IsZero() || in.MaxTrades != 0 {
				t.Fatalf("frame 4 with an end or a limit: %+v", in)
			}
		}
		if in.Frame > 1 && in.Frame < 4 && in.MaxTrades != MaxTrades {
			t.Fatalf("frame %d: %d trades", in.Frame, in.MaxTrades)
		}
	}
	checkChi(t, "frames", frames, []float64{0.3, 0.3, 0.3, 0.1})
	// NURand skews the ids: pairs of equal ids are far more frequent
	// than among uniform draws (M²/2N pairs for M draws of N ids; 1.36
	// times as many here).
	var m, pairs float64
	for _, n := range seen {
		m += float64(n)
		pairs += float64(n) * float64(n-1) / 2
	}
	uniform := m * m / 2 / float64(e.maxTradeID)
	t.Logf("%.0f ids: %.0f equal pairs, %.0f for uniform ids", m, pairs, uniform)
	if pairs < 1.2*uniform {
		t.Errorf("%.0f equal pairs among %.0f ids, %.0f for uniform ids: not skewed", pairs, m, uniform)
	}
}

func TestTradeUpdate(t *testing.T) {
	e := testEnv(t, 2)
	g := e.NewGenerator(-1)
	r := gen.NewRand(6, 6, 6)
	frames := make([]int, 3)
	for range draws {
		in := g.TradeUpdate(r)
		frames[in.Frame-1]++
		if in.MaxUpdates != MaxUpdates {
			t.Fatalf("%d updates", in.MaxUpdates)
		}
		switch in.Frame {
		case 1:
			checkTradeIDs(t, e, in.TradeIDs)
		case 2:
			validAccount(t, e, in.AcctID)
			checkWindow(t, e, in.StartTradeDTS, in.EndTradeDTS, BackoffFrame2)
		case 3:
			validSymbol(t, e, in.Symbol)
			checkWindow(t, e, in.StartTradeDTS, in.EndTradeDTS, BackoffFrame3)
			if in.MaxAcctID != e.maxAcctID {
				t.Fatalf("frame 3: max account %d, want %d", in.MaxAcctID, e.maxAcctID)
			}
		}
	}
	checkChi(t, "frames", frames, []float64{0.33, 0.33, 0.34})
}

func TestTradeOrder(t *testing.T) {
	e := testEnv(t, 2)
	coByName := map[string]int64{}
	for co := int64(1); co <= e.cfg.Companies(); co++ {
		coByName[e.m.CompanyName(co)] = co
	}
	g := e.NewGenerator(-1)
	r := gen.NewRand(7, 7, 7)
	types := map[string]int{}
	qtys := map[int64]int{}
	var bySymbol, owner, lifo, margin, buys, rollbacks int
	prices := make([]int, 10)
	var basket []int64
	for range draws {
		in := g.TradeOrder(r)
		validAccount(t, e, in.AcctID)
		basket = e.m.Basket(in.AcctID, basket[:0])
		if !slices.Contains(basket, in.Security) {
			t.Fatalf("security %d is not in account %d's basket %v", in.Security, in.AcctID, basket)
		}
		if in.Symbol != "" {
			bySymbol++
			if in.CoName != "" || in.Issue != "" || in.Symbol != gen.Symbol(in.Security) {
				t.Fatalf("by symbol: %+v", in)
			}
		} else {
			co, ok := coByName[in.CoName]
			if !ok {
				t.Fatalf("%q is no company", in.CoName)
			}
			if s, ok := gen.CompanySecurity(co, in.Issue); !ok || s != in.Security {
				t.Fatalf("company %d issue %q is security %d, want %d", co, in.Issue, s, in.Security)
			}
		}
		cid := gen.AccountOwner(in.AcctID)
		if in.ExecIsOwner {
			owner++
			f, l := e.m.Executor(in.AcctID, true)
			if in.ExecFirstName != f || in.ExecLastName != l || in.ExecTaxID != e.m.CustomerTaxID(cid) {
				t.Fatalf("owner executes: %+v", in)
			}
		} else {
			f, l := e.m.Executor(in.AcctID, false)
			if e.m.Permissions(in.AcctID) < 2 || in.ExecFirstName != f || in.ExecLastName != l || in.ExecTaxID != e.m.PermissionTaxID(in.AcctID) {
				t.Fatalf("another person executes: %+v", in)
			}
		}
		types[in.TradeTypeID]++
		qtys[in.TradeQty]++
		if in.RequestedPrice < 2000 || in.RequestedPrice > 3000 {
			t.Fatalf("price %d", in.RequestedPrice)
		}
		prices[min((in.RequestedPrice-2000)/100, 9)]++
		if in.IsLIFO {
			lifo++
		}
		if in.IsBuy() {
			buys++
			if in.TypeIsMargin {
				margin++
			}
		} else if in.TypeIsMargin {
			t.Fatalf("a margin sell: %+v", in)
		}
		if in.RollItBack {
			rollbacks++
		}
	}
	checkChi(t, "types", []int{types[TypeMarketBuy], types[TypeMarketSell], types[TypeLimitBuy], types[TypeLimitSell], types[TypeStopLoss]},
		[]float64{0.3, 0.3, 0.2, 0.1, 0.1})
	if len(types) != 5 || len(qtys) != 4 {
		t.Fatalf("types %v, quantities %v", types, qtys)
	}
	checkChi(t, "quantities", []int{qtys[100], qtys[200], qtys[400], qtys[800]}, []float64{0.25, 0.25, 0.25, 0.25})
	checkShare(t, "by symbol", bySymbol, draws, 0.6)
	checkShare(t, "owner executes", owner, draws, 0.9)
	checkShare(t, "LIFO", lifo, draws, 0.35)
	checkShare(t, "margin buys", margin, buys, 0.16)
	checkShare(t, "margin orders", margin, draws, 0.08)
	checkShare(t, "rollbacks", rollbacks, draws, 1.0/RollbackOneIn)
	// $20.00 … $30.00 by the dollar, the last bucket with $30.00 too.
	shares := slices.Repeat([]float64{100.0 / 1001}, 10)
	shares[9] = 101.0 / 1001
	checkChi(t, "prices", prices, shares)
	// Margin and rollbacks both happen.
	if margin == 0 || rollbacks == 0 {
		t.Errorf("%d margin orders, %d rollbacks", margin, rollbacks)
	}
}

func TestTradeStatus(t *testing.T) {
	e := testEnv(t, 3)
	g := e.NewGenerator(-1)
	r := gen.NewRand(8, 8, 8)
	tiers := make([]int, 3)
	lus := make([]int, 3)
	for range draws {
		in := g.TradeStatus(r)
		validAccount(t, e, in.AcctID)
		cid := gen.AccountOwner(in.AcctID)
		tiers[e.m.Tier(cid)-1]++
		lus[gen.LUOf(cid)]++
	}
	checkChi(t, "tiers", tiers, []float64{0.1, 0.6, 0.3})
	checkChi(t, "load units", lus, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3})
	// A generator bound to a Load Unit picks only its customers.
	g1 := e.NewGenerator(1)
	for range 1000 {
		if lu := gen.LUOf(gen.AccountOwner(g1.TradeStatus(r).AcctID)); lu != 1 {
			t.Fatalf("Load Unit 1's generator picked Load Unit %d", lu)
		}
	}
}

func TestNewEnvRejectsBadConfig(t *testing.T) {
	_, err := NewEnv(gen.NewModel(gen.Config{Seed: 1, Customers: 1500, ITD: 1, ScaleFactor: 500}))
	if err == nil {
		t.Fatal("1,500 customers accepted")
	}
}

func TestDeterministic(t *testing.T) {
	e := testEnv(t, 1)
	a, b := e.NewGenerator(-1), e.NewGenerator(-1)
	ra, rb := gen.NewRand(1, 2, 3), gen.NewRand(1, 2, 3)
	for i := range 2000 {
		x, y := a.Next(ra), b.Next(rb)
		if !equalInputs(x, y) {
			t.Fatalf("draw %d: %+v and %+v", i, x, y)
		}
	}
}

func equalInputs(x, y Input) bool {
	switch a := x.(type) {
	case BrokerVolume:
		b, ok := y.(BrokerVolume)
		return ok && slices.Equal(a.BrokerNames, b.BrokerNames) && a.SectorName == b.SectorName
	case TradeLookup:
		b, ok := y.(TradeLookup)
		return ok && slices.Equal(a.TradeIDs, b.TradeIDs) && a.Frame == b.Frame && a.AcctID == b.AcctID &&
			a.Symbol == b.Symbol && a.StartTradeDTS.Equal(b.StartTradeDTS) && a.EndTradeDTS.Equal(b.EndTradeDTS)
	case TradeUpdate:
		b, ok := y.(TradeUpdate)
		return ok && slices.Equal(a.TradeIDs, b.TradeIDs) && a.Frame == b.Frame && a.AcctID == b.AcctID &&
			a.Symbol == b.Symbol && a.StartTradeDTS.Equal(b.StartTradeDTS)
	}
	return x == y
}

// TestTradeOrderExecutorIsPermitted: every Trade-Order's executor is a
// row of account_permission as the generator loads it (account, first
// and last name and tax id), so that frame 2 finds the permission of a
// person other than the owner.
func TestTradeOrderExecutorIsPermitted(t *testing.T) {
	e := testEnv(t, 1)
	type person struct {
		ca               int64
		tax, first, last string
	}
	permitted := map[person]bool{}
	src := e.m.Rows(schema.AccountPermission, 0)
	for src.Next() {
		row, err := src.Values()
		if err != nil {
			t.Fatal(err)
		}
		permitted[person{row[0].(int64), row[2].(string), row[4].(string), row[3].(string)}] = true
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	g := e.NewGenerator(-1)
	r := gen.NewRand(1, 2, 3)
	others := 0
	for range 3000 {
		in := g.TradeOrder(r)
		if !in.ExecIsOwner {
			others++
		}
		if p := (person{in.AcctID, in.ExecTaxID, in.ExecFirstName, in.ExecLastName}); !permitted[p] {
			t.Fatalf("executor %+v (owner %v) has no account_permission row", p, in.ExecIsOwner)
		}
	}
	if others == 0 {
		t.Fatal("no order by another person than the owner")
	}
}
