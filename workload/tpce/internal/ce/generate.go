package ce

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// NURand parameters and time windows of the specification's customer
// emulator.
const (
	// tradeIDA and tradeIDShift skew the trade ids of Trade-Lookup and
	// Trade-Update frame 1.
	tradeIDA, tradeIDShift = 65535, 7
	// timeA and timeShift skew the start times of the windows.
	timeA, timeShift = 4095, 16
	// WindowEndDelay is how far past the last initial trade the windows
	// of frames 2 and 3 end.
	WindowEndDelay = 15 * time.Minute
)

// Back-offs of the start times from the end of the initial trading
// period, in trading time: a window starts early enough to hold trades.
const (
	BackoffFrame2 = 32 * time.Hour
	BackoffFrame3 = 200 * time.Minute
	BackoffFrame4 = 500 * time.Minute
)

// Env is what every worker's generator shares: the model and the names
// and dates read once from the generator's tables. It is immutable and
// safe for concurrent use.
type Env struct {
	m          *gen.Model
	cfg        gen.Config
	sectors    []string
	industries []string
	// days are daily_market's dates, oldest first (every security has a
	// row on each).
	days []time.Time
	// Initial trades: the largest id, the number per Load Unit, the
	// length of the initial period in trading time and the end of the
	// windows.
	maxTradeID  int64
	perLU       int64
	initialSpan time.Duration
	windowEnd   time.Time
	// maxAcctID is the largest ca_id.
	maxAcctID int64
	// taxrates are the tx_id values.
	taxrates []string
}

// ErrTable is returned by NewEnv when a fixed table's rows cannot be
// read from the generator.
var ErrTable = errors.New("ce: reading a generated table")

// NewEnv derives the customer emulator's shared state from m.
func NewEnv(m *gen.Model) (*Env, error) {
	cfg := m.Config()
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	e := &Env{m: m, cfg: cfg}
	var err error
	if e.sectors, err = column[string](m, schema.Sector, 1, -1); err != nil {
		return nil, err
	}
	if e.industries, err = column[string](m, schema.Industry, 1, -1); err != nil {
		return nil, err
	}
	if e.taxrates, err = column[string](m, schema.Taxrate, 0, -1); err != nil {
		return nil, err
	}
	// The first security's daily_market rows carry every date.
	if e.days, err = column[time.Time](m, schema.DailyMarket, 0, gen.DailyMarketDays); err != nil {
		return nil, err
	}
	e.maxTradeID = cfg.MaxInitialTradeID()
	e.perLU = cfg.InitialTrades()
	e.initialSpan = time.Duration(cfg.ITD) * gen.TradingDay
	e.windowEnd = cfg.InitialTradesEnd().Add(WindowEndDelay)
	first, n := m.Accounts(cfg.Customers)
	e.maxAcctID = first + int64(n) - 1
	return e, nil
}

// column reads column col of the first n rows (all when n < 0) of Load
// Unit 0's rows of table.
func column[T any](m *gen.Model, table string, col, n int) ([]T, error) {
	src := m.Rows(table, 0)
	var out []T
	for (n < 0 || len(out) < n) && src.Next() {
		row, err := src.Values()
		if err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrTable, table, err)
		}
		v, ok := row[col].(T)
		if !ok {
			return nil, fmt.Errorf("%w %s: column %d is %T", ErrTable, table, col, row[col])
		}
		out = append(out, v)
	}
	if err := src.Err(); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrTable, table, err)
	}
	if len(out) == 0 || (n >= 0 && len(out) < n) {
		return nil, fmt.Errorf("%w %s: %d rows", ErrTable, table, len(out))
	}
	return out, nil
}

// Model is the model the inputs refer to.
func (e *Env) Model() *gen.Model { return e.m }

// SectorNames are the 12 sc_name values.
func (e *Env) SectorNames() []string { return slices.Clone(e.sectors) }

// IndustryNames are the in_name values, in in_id order.
func (e *Env) IndustryNames() []string { return slices.Clone(e.industries) }

// DailyMarketDays are daily_market's dates, oldest first.
func (e *Env) DailyMarketDays() []time.Time { return slices.Clone(e.days) }

// WindowEnd is the end of Trade-Lookup's and Trade-Update's windows: the
// last initial trade plus WindowEndDelay.
func (e *Env) WindowEnd() time.Time { return e.windowEnd }

// TradeExists reports whether id is an initial trade's t_id: at most
// MaxInitialTradeID, not an aborted slot, and within its Load Unit's
// trades.
func (e *Env) TradeExists(id int64) bool {
	if id < 1 || id > e.maxTradeID {
		return false
	}
	lus := int64(e.cfg.LoadUnits())
	lu, slot := int((id-1)%lus), (id-1)/lus
	if e.cfg.TradeSkipped(lu, slot) {
		return false
	}
	const per = gen.SkipBlock - 1
	b, i := slot/gen.SkipBlock, slot%gen.SkipBlock
	if (b+1)*per <= e.perLU {
		return true // a whole block of trades
	}
	// The last, partial block: count the trades before slot.
	k := b*per + i
	for j := range i {
		if e.cfg.TradeSkipped(lu, b*gen.SkipBlock+j) {
			k--
			break
		}
	}
	return k < e.perLU
}

// Generator draws one worker's inputs: its deck and scratch space. It
// is not safe for concurrent use.
type Generator struct {
	env  *Env
	lu   int
	deck Deck
	buf  []int64
}

// NewGenerator returns a worker's generator. Its customers come from
// Load Unit lu (0-based), or from every Load Unit uniformly when lu is
// negative or not a Load Unit of the database. Trade-Lookup's and
// Trade-Update's trade ids and symbols, and Broker-Volume's brokers, come
// from the whole database either way.
func (e *Env) NewGenerator(lu int) *Generator {
	if lu >= e.cfg.LoadUnits() {
		lu = -1
	}
	return &Generator{env: e, lu: lu}
}

// Next deals the next card of the deck and draws its inputs.
func (g *Generator) Next(r *gen.Rand) Input {
	switch g.deck.Deal(r) {
	case KindBrokerVolume:
		return g.BrokerVolume(r)
	case KindCustomerPosition:
		return g.CustomerPosition(r)
	case KindMarketWatch:
		return g.MarketWatch(r)
	case KindSecurityDetail:
		return g.SecurityDetail(r)
	case KindTradeLookup:
		return g.TradeLookup(r)
	case KindTradeOrder:
		return g.TradeOrder(r)
	case KindTradeStatus:
		return g.TradeStatus(r)
	default:
		return g.TradeUpdate(r)
	}
}

// customer picks a customer non-uniformly (gen.Model.PickCustomer).
func (g *Generator) customer(r *gen.Rand) int64 { return g.env.m.PickCustomer(r, g.lu) }

// account picks a customer, then one of its accounts uniformly.
func (g *Generator) account(r *gen.Rand) (cid, caID int64) {
	cid = g.customer(r)
	first, n := g.env.m.Accounts(cid)
	return cid, first + int64(r.Intn(n))
}

// security picks a security uniformly.
func (g *Generator) security(r *gen.Rand) int64 {
	return r.Int64Range(0, g.env.cfg.Securities()-1)
}

// BrokerVolume draws Broker-Volume's input: 20 to 40 distinct broker
// names, uniformly among the database's brokers, and a sector.
func (g *Generator) BrokerVolume(r *gen.Rand) BrokerVolume {
	brokers := g.env.cfg.Brokers()
	n := int64(r.Range(MinBrokers, MaxBrokers))
	n = min(n, brokers)
	ids := g.buf[:0]
	names := make([]string, 0, n)
	for int64(len(ids)) < n {
		b := r.Int64Range(1, brokers)
		if slices.Contains(ids, b) {
			continue
		}
		ids = append(ids, b)
		name := g.env.m.BrokerName(b)
		// Two brokers may share a name: the list names each once.
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	g.buf = ids
	return BrokerVolume{BrokerNames: names, SectorName: g.env.sectors[r.Intn(len(g.env.sectors))]}
}

// CustomerPosition draws Customer-Position's input: a customer by tax id
// or by c_id (50/50), and in half the calls one of its accounts'
// history.
func (g *Generator) CustomerPosition(r *gen.Rand) CustomerPosition {
	cid := g.customer(r)
	var in CustomerPosition
	if r.Percent(50) {
		in.TaxID = g.env.m.CustomerTaxID(cid)
	} else {
		in.CustID = cid
	}
	first, n := g.env.m.Accounts(cid)
	if r.Percent(50) {
		in.GetHistory = true
		in.AcctIndex = r.Intn(n)
		in.AcctID = first + int64(in.AcctIndex)
	}
	return in
}

// Market-Watch's weekdays: Monday 20%, Tuesday 7%, Wednesday 6%,
// Thursday 7%, Friday 60%.
var watchWeekdays = [5]int{20, 7, 6, 7, 60}

// MarketWatch draws Market-Watch's input: the watch list of a customer
// (60%), the holdings of an account (35%) or the companies of an
// industry within a window of IndustryWindow co_ids (5%); the start day
// is on a weekday drawn from watchWeekdays of the week NURand(0, 255,
// 255, 0)+5 after daily_market's first (so weeks 5 … 260 of its 261).
func (g *Generator) MarketWatch(r *gen.Rand) MarketWatch {
	var in MarketWatch
	switch x := r.Intn(100); {
	case x < 60:
		in.CustID = g.customer(r)
	case x < 95:
		_, in.AcctID = g.account(r)
	default:
		in.IndustryName = g.env.industries[r.Intn(len(g.env.industries))]
		companies := g.env.cfg.Companies()
		window := min(int64(IndustryWindow), companies)
		in.StartingCoID = r.Int64Range(1, companies-window+1)
		in.EndingCoID = in.StartingCoID + window - 1
	}
	week := int(r.NURand(0, 255, 255, 0)) + 5
	wd, x := 0, r.Intn(100)
	for x >= watchWeekdays[wd] {
		x -= watchWeekdays[wd]
		wd++
	}
	in.StartDay = g.env.days[week*5+wd]
	return in
}

// SecurityDetail draws Security-Detail's input: a security uniformly, 5
// to 20 rows from a uniform start day that has that many after it, and
// the news text in 1% of calls.
func (g *Generator) SecurityDetail(r *gen.Rand) SecurityDetail {
	s := g.security(r)
	rows := r.Range(MinDetailRows, MaxDetailRows)
	return SecurityDetail{
		Symbol:          gen.Symbol(s),
		MaxRowsToReturn: rows,
		StartDay:        g.env.days[r.Intn(len(g.env.days)-rows+1)],
		AccessLOBFlag:   r.Percent(1),
	}
}

// tradeIDs draws up to TradeIDs distinct ids of initial trades,
// NURand(1, MaxInitialTradeID, 65535, 7), redrawing aborted ids.
func (g *Generator) tradeIDs(r *gen.Rand) []int64 {
	n := min(int64(TradeIDs), g.env.perLU*int64(g.env.cfg.LoadUnits()))
	ids := make([]int64, 0, n)
	for int64(len(ids)) < n {
		id := r.NURand(1, g.env.maxTradeID, tradeIDA, tradeIDShift)
		if !g.env.TradeExists(id) || slices.Contains(ids, id) {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// startTime draws a window's start: NURand(0, span-backoff, 4095, 16)
// milliseconds of trading time into the initial period.
func (g *Generator) startTime(r *gen.Rand, backoff time.Duration) time.Time {
	hi := max(int64((g.env.initialSpan-backoff)/time.Millisecond), 0)
	ms := r.NURand(0, hi, timeA, timeShift)
	return gen.TradingTime(time.Duration(ms) * time.Millisecond)
}

// TradeLookup draws Trade-Lookup's input: frame 1, 2, 3 or 4 with
// probabilities 30/30/30/10%.
func (g *Generator) TradeLookup(r *gen.Rand) TradeLookup {
	in := TradeLookup{}
	switch x := r.Intn(100); {
	case x < 30:
		in.Frame = 1
		in.TradeIDs = g.tradeIDs(r)
	case x < 60:
		in.Frame = 2
		_, in.AcctID = g.account(r)
		in.StartTradeDTS = g.startTime(r, BackoffFrame2)
		in.EndTradeDTS, in.MaxTrades = g.env.windowEnd, MaxTrades
	case x < 90:
		in.Frame = 3
		in.Symbol = gen.Symbol(g.security(r))
		in.StartTradeDTS = g.startTime(r, BackoffFrame3)
		in.EndTradeDTS, in.MaxTrades = g.env.windowEnd, MaxTrades
		in.MaxAcctID = g.env.maxAcctID
	default:
		in.Frame = 4
		_, in.AcctID = g.account(r)
		in.StartTradeDTS = g.startTime(r, BackoffFrame4)
	}
	return in
}

// TradeUpdate draws Trade-Update's input: frame 1, 2 or 3 with
// probabilities 33/33/34%, with Trade-Lookup's inputs of that frame.
func (g *Generator) TradeUpdate(r *gen.Rand) TradeUpdate {
	in := TradeUpdate{MaxUpdates: MaxUpdates}
	switch x := r.Intn(100); {
	case x < 33:
		in.Frame = 1
		in.TradeIDs = g.tradeIDs(r)
	case x < 66:
		in.Frame = 2
		_, in.AcctID = g.account(r)
		in.StartTradeDTS = g.startTime(r, BackoffFrame2)
		in.EndTradeDTS, in.MaxTrades = g.env.windowEnd, MaxTrades
	default:
		in.Frame = 3
		in.Symbol = gen.Symbol(g.security(r))
		in.StartTradeDTS = g.startTime(r, BackoffFrame3)
		in.EndTradeDTS, in.MaxTrades = g.env.windowEnd, MaxTrades
		in.MaxAcctID = g.env.maxAcctID
	}
	return in
}

// Trade types by weight: market-buy 30%, market-sell 30%, limit-buy 20%,
// limit-sell 10%, stop-loss 10%.
var orderTypes = [...]struct {
	id     string
	weight int
}{{TypeMarketBuy, 30}, {TypeMarketSell, 30}, {TypeLimitBuy, 20}, {TypeLimitSell, 10}, {TypeStopLoss, 10}}

// ownerOfShared is the percentage of the orders on an account with
// other permitted people that its owner places: (90-60)/(100-60), so
// that the owner places 90% of all orders, 60% of accounts permitting
// no one else (gen's account_permission).
const ownerOfShared = 75

// MarginOfBuys is the percentage of buy orders on margin: 8% of all
// orders, buys being half of them.
const MarginOfBuys = 16

// RollbackOneIn is the odds of a Trade-Order rolling back on purpose: 1
// in RollbackOneIn.
const RollbackOneIn = 101

// TradeOrder draws Trade-Order's input: an account of a customer, a
// security of the account's basket named by symbol (60%) or by company
// name and issue (40%), the owner executing (90%) or else a person the
// account permits, a quantity of 100, 200, 400 or 800, a price of $20
// to $30, the type by orderTypes' weights, margin on MarginOfBuys% of
// buys (8% of orders), LIFO on 35% and a rollback 1 in RollbackOneIn.
func (g *Generator) TradeOrder(r *gen.Rand) TradeOrder {
	m := g.env.m
	cid, ca := g.account(r)
	basket := m.Basket(ca, g.buf[:0])
	g.buf = basket
	s := basket[r.Intn(len(basket))]
	in := TradeOrder{AcctID: ca, Security: s}
	// The owner executes 90% of orders: all of those on accounts no one
	// else may trade (60% of accounts), ownerOfShared% of the others.
	in.ExecIsOwner = m.Permissions(ca) == 1 || r.Percent(ownerOfShared)
	in.ExecFirstName, in.ExecLastName = m.Executor(ca, in.ExecIsOwner)
	if in.ExecIsOwner {
		in.ExecTaxID = m.CustomerTaxID(cid)
	} else {
		in.ExecTaxID = m.PermissionTaxID(ca)
	}
	if r.Percent(60) {
		in.Symbol = gen.Symbol(s)
	} else {
		co, issue := gen.SecurityCompany(s)
		in.CoName, in.Issue = m.CompanyName(co), issue
	}
	in.TradeQty = 100 << r.Intn(4)
	in.RequestedPrice = r.Int64Range(2000, 3000)
	x := r.Intn(100)
	for _, t := range orderTypes {
		if x < t.weight {
			in.TradeTypeID = t.id
			break
		}
		x -= t.weight
	}
	in.IsLIFO = r.Percent(35)
	in.TypeIsMargin = in.IsBuy() && r.Percent(MarginOfBuys)
	in.RollItBack = r.Intn(RollbackOneIn) == 0
	return in
}

// TradeStatus draws Trade-Status's input: one account of a customer
// chosen non-uniformly.
func (g *Generator) TradeStatus(r *gen.Rand) TradeStatus {
	_, ca := g.account(r)
	return TradeStatus{AcctID: ca}
}
