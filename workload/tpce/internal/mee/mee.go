// Package mee is the TPC-E-like workload's market exchange emulator: it
// turns the trades Trade-Order commits into the Trade-Results and
// Market-Feeds the market sends back. It is pure Go, driven by an
// injected clock: every method takes the current instant, so tests run
// it on a fake clock and a worker on the wall clock.
//
// Prices are gen.Model.Price, a pure function of (security, instant), so
// emulators share nothing: each worker has its own (New), and no lock is
// taken. NewShared instead puts one emulator behind a mutex for every
// worker, with a fixed number of deliveries in flight: with one, it is
// DBT-5's single serialised emulator, whose one Trade-Result in flight
// bounds the throughput.
//
// A worker's loop:
//
//	e.Submit(order, now)        // after each Trade-Order commits
//	for _, w := range e.Due(now) {
//		run w (a Trade-Result or a Market-Feed)
//		e.Release(tradesTheFeedTook, now) // after a Market-Feed
//		e.Done(w, now)
//	}
//	wait until e.NextDue() or the next customer transaction
package mee

import (
	"container/heap"
	"fmt"
	"math"
	"time"

	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
)

// TradeType is a trade's tt_id.
type TradeType string

// The trade types.
const (
	MarketBuy  TradeType = "TMB"
	MarketSell TradeType = "TMS"
	LimitBuy   TradeType = "TLB"
	LimitSell  TradeType = "TLS"
	StopLoss   TradeType = "TSL"
)

// market reports whether t is a market order; sell whether it sells. It
// panics on a type that is none of the constants (a programming error).
func (t TradeType) market() bool {
	switch t {
	case MarketBuy, MarketSell:
		return true
	case LimitBuy, LimitSell, StopLoss:
		return false
	}
	panic(fmt.Sprintf("mee: unknown trade type %q", string(t)))
}

func (t TradeType) sell() bool { return t == MarketSell || t == LimitSell || t == StopLoss }

// Order is a trade the market executes: one a Trade-Order committed, or
// one a Market-Feed took from trade_request (Release).
type Order struct {
	TradeID int64
	// Security is the security's index (gen.Symbol's argument).
	Security int64
	Type     TradeType
	Qty      int64
	// Limit is the requested price in cents: the limit of a limit order,
	// the stop of a stop-loss; a market order's is ignored.
	Limit int64
}

// triggered reports whether price p reaches o's limit: a limit buy at
// or below it, a limit sell at or above it, a stop-loss at or below it.
func (o Order) triggered(p int64) bool {
	if o.Type == LimitSell {
		return p >= o.Limit
	}
	return p <= o.Limit
}

// fillPrice is o's price when the market is at p: p, or the limit when
// the limit is better for the trader (a buy pays at most, a sell gets at
// least, its limit).
func (o Order) fillPrice(p int64) int64 {
	if o.Type.market() {
		return p
	}
	if o.Type.sell() {
		return max(p, o.Limit)
	}
	return min(p, o.Limit)
}

// TradeResult is Trade-Result's input.
type TradeResult struct {
	TradeID int64
	// Price is trade_price in cents.
	Price int64
}

// TickerEntry is one entry of a Market-Feed: a trade at a price.
type TickerEntry struct {
	Symbol string
	// Price is price_quote in cents; Qty is trade_qty.
	Price int64
	Qty   int64
}

// MarketFeed is Market-Feed's input: FeedEntries entries (fewer only
// from Flush). Triggered are this emulator's limit orders whose
// triggering prices are among the entries; which trades the feed
// releases is the database's answer (a trade_request row is taken once,
// by whichever feed commits first), and the worker hands those to
// Release.
type MarketFeed struct {
	Entries   []TickerEntry
	Triggered []Order
}

// WorkKind says what a Work is.
type WorkKind uint8

// The work the market sends.
const (
	WorkTradeResult WorkKind = iota + 1
	WorkMarketFeed
)

// String names k as the specification does.
func (k WorkKind) String() string {
	switch k {
	case WorkTradeResult:
		return "Trade-Result"
	case WorkMarketFeed:
		return "Market-Feed"
	}
	return "unknown"
}

// Work is a transaction the market asks a worker to run.
type Work struct {
	Kind WorkKind
	// Due is the instant the work became due; the worker's lag is the
	// time from Due to the instant it gets the work.
	Due         time.Time
	TradeResult TradeResult
	MarketFeed  MarketFeed
}

// Stats are an emulator's counters and queues at one instant.
type Stats struct {
	// Submitted and Released count the orders of Submit and Release.
	Submitted, Released int64
	// TradeResults and MarketFeeds count the work handed out by Due and
	// Flush; Completed the work reported Done.
	TradeResults, MarketFeeds, Completed int64
	// Timers are orders waiting for their delay or their limit;
	// Triggered are limit orders waiting for a place in the ticker;
	// Ticker is the entries of the feed being filled; Ready is work due
	// but not handed out (NewShared's deliveries all busy); InFlight is
	// work handed out and not yet Done.
	Timers, Triggered, Ticker, Ready, InFlight int
	// Never counts limit orders whose limit no price reaches: they stay
	// in trade_request.
	Never int64
	// MaxLag and TotalLag are the largest and the sum of the delays from
	// a work's Due to its hand-out.
	MaxLag, TotalLag time.Duration
}

// QueueDepth is the orders and work the emulator holds: timers,
// triggered orders and work ready.
func (s Stats) QueueDepth() int { return s.Timers + s.Triggered + s.Ready }

// MeanLag is the mean delay from a work's Due to its hand-out.
func (s Stats) MeanLag() time.Duration {
	if n := s.TradeResults + s.MarketFeeds; n > 0 {
		return s.TotalLag / time.Duration(n)
	}
	return 0
}

// Emulator is what a worker drives; New's and NewShared's emulators
// both are one.
type Emulator interface {
	// Submit takes a trade a Trade-Order committed at now: a market
	// order becomes a Trade-Result after a processing delay; a limit
	// order waits for its price, then a place in the ticker.
	Submit(o Order, now time.Time)
	// Release takes the trades a Market-Feed set to submitted: each
	// becomes a Trade-Result after a processing delay.
	Release(orders []Order, now time.Time)
	// Due hands out the work due at now, in due order.
	Due(now time.Time) []Work
	// Done reports a work handed out as finished.
	Done(w Work, now time.Time)
	// NextDue is the instant the next work is due; ok is false when
	// nothing is scheduled.
	NextDue() (t time.Time, ok bool)
	// Flush hands out a last Market-Feed with the ticker's entries and
	// the triggered orders still waiting, if there are any.
	Flush(now time.Time) []Work
	// Stats returns the counters and queues.
	Stats() Stats
}

// Delays of the market.
const (
	// MeanDelay is the mean of the exponential processing delay;
	// MaxDelay caps it.
	MeanDelay = time.Second
	MaxDelay  = 5 * time.Second
	// FeedEntries is the number of ticker entries of a Market-Feed.
	FeedEntries = 20
	// triggerStep is the shortest step of the search for a limit's
	// crossing: the price (1,000 cents up and down in 900 s) holds each
	// cent it passes for at least 0.45 s, so a step this short sees it.
	triggerStep = 100 * time.Millisecond
	// maxSlope bounds the price's speed in cents a second (2.22), with a
	// margin.
	maxSlope = 2.5
	// pricePeriod is the price's period: within it, the price takes
	// every value it ever takes.
	pricePeriod = 900 * time.Second
)

// timer is an order waiting for an instant: to be filled (a Trade-Result)
// or, for a limit order, to trigger.
type timer struct {
	at    time.Time
	seq   uint64
	fill  bool
	order Order
}

type timers []timer

func (h timers) Len() int { return len(h) }
func (h timers) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h timers) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timers) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timers) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// trig is a triggered limit order and the price that triggered it.
type trig struct {
	order Order
	price int64
}

// MEE is one market exchange emulator. It is not safe for concurrent
// use: each worker has its own (New), or all share one through
// NewShared.
type MEE struct {
	m      *gen.Model
	r      *gen.Rand
	timers timers
	seq    uint64
	// triggered limit orders waiting for a filler place in the ticker.
	triggered []trig
	// The feed being filled.
	entries   []TickerEntry
	feedTrigs []Order
	// ready is work due and not yet handed out.
	ready []Work
	stats Stats
}

var _ Emulator = (*MEE)(nil)

// New returns an emulator pricing with m and drawing its delays and
// filler securities from r (which it owns from now on).
func New(m *gen.Model, r *gen.Rand) *MEE { return &MEE{m: m, r: r} }

// delay draws a processing delay: Exp(MeanDelay), capped at MaxDelay.
func (e *MEE) delay() time.Duration {
	d := time.Duration(-math.Log(1-e.r.Float64()) * float64(MeanDelay))
	return min(d, MaxDelay)
}

func (e *MEE) push(t timer) {
	e.seq++
	t.seq = e.seq
	heap.Push(&e.timers, t)
}

// Submit implements Emulator.
func (e *MEE) Submit(o Order, now time.Time) {
	e.stats.Submitted++
	if o.Type.market() {
		e.push(timer{at: now.Add(e.delay()), fill: true, order: o})
		return
	}
	at, ok := TriggerTime(e.m, o, now)
	switch {
	case !ok:
		e.stats.Never++
	case !at.After(now):
		// Already in the money: straight to the ticker.
		e.triggered = append(e.triggered, trig{o, e.m.Price(o.Security, now)})
	default:
		e.push(timer{at: at, order: o})
	}
}

// Release implements Emulator.
func (e *MEE) Release(orders []Order, now time.Time) {
	for _, o := range orders {
		e.stats.Released++
		e.push(timer{at: now.Add(e.delay()), fill: true, order: o})
	}
}

// TriggerTime is the first instant from from on (to the nanosecond) at
// which security o.Security's price reaches o's limit (from itself when
// it already does); ok is false when it never does (a limit outside the
// prices' range). o must be a limit or stop-loss order.
func TriggerTime(m *gen.Model, o Order, from time.Time) (t time.Time, ok bool) {
	p := m.Price(o.Security, from)
	if o.triggered(p) {
		return from, true
	}
	lo := from // the price does not reach the limit at lo
	for lo.Sub(from) <= pricePeriod+triggerStep {
		// The price moves at most maxSlope cents a second and is rounded
		// to the cent: d cents from the limit, it cannot reach it for
		// (d-1)/maxSlope seconds.
		d := max(p-o.Limit, o.Limit-p)
		hi := lo.Add(max(triggerStep, time.Duration(float64(d-1)/maxSlope*float64(time.Second))))
		if p = m.Price(o.Security, hi); !o.triggered(p) {
			lo = hi
			continue
		}
		// Bisect to the nanosecond: the price is a function of the
		// instant to the nanosecond.
		for hi.Sub(lo) > 1 {
			mid := lo.Add(hi.Sub(lo) / 2)
			if o.triggered(m.Price(o.Security, mid)) {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi, true
	}
	return time.Time{}, false
}

// advance moves every timer due at now into the ready work, in due
// order.
func (e *MEE) advance(now time.Time) {
	for len(e.timers) > 0 && !e.timers[0].at.After(now) {
		t := heap.Pop(&e.timers).(timer)
		if !t.fill {
			e.triggered = append(e.triggered, trig{t.order, e.m.Price(t.order.Security, t.at)})
			continue
		}
		o := t.order
		p := o.fillPrice(e.m.Price(o.Security, t.at))
		e.ready = append(e.ready, Work{Kind: WorkTradeResult, Due: t.at, TradeResult: TradeResult{TradeID: o.TradeID, Price: p}})
		// The trade's entry and a filler: a triggered limit order, else
		// a random security's price.
		e.entries = append(e.entries, TickerEntry{Symbol: gen.Symbol(o.Security), Price: p, Qty: o.Qty})
		if len(e.triggered) > 0 {
			tr := e.triggered[0]
			e.triggered = e.triggered[1:]
			e.entries = append(e.entries, TickerEntry{Symbol: gen.Symbol(tr.order.Security), Price: tr.price, Qty: tr.order.Qty})
			e.feedTrigs = append(e.feedTrigs, tr.order)
		} else {
			s := e.r.Int64Range(0, e.m.Config().Securities()-1)
			e.entries = append(e.entries, TickerEntry{Symbol: gen.Symbol(s), Price: e.m.Price(s, t.at), Qty: 100 << e.r.Intn(4)})
		}
		if len(e.entries) >= FeedEntries {
			e.ready = append(e.ready, e.feed(t.at))
		}
	}
}

// feed makes the Market-Feed of the ticker's entries and empties the
// ticker.
func (e *MEE) feed(at time.Time) Work {
	w := Work{Kind: WorkMarketFeed, Due: at, MarketFeed: MarketFeed{Entries: e.entries, Triggered: e.feedTrigs}}
	e.entries, e.feedTrigs = nil, nil
	return w
}

// Due implements Emulator.
func (e *MEE) Due(now time.Time) []Work { return e.due(now, -1) }

// due hands out at most limit works (all when limit < 0).
func (e *MEE) due(now time.Time, limit int) []Work {
	e.advance(now)
	n := len(e.ready)
	if limit >= 0 {
		n = min(n, limit)
	}
	if n == 0 {
		return nil
	}
	out := make([]Work, n)
	copy(out, e.ready)
	e.ready = append(e.ready[:0], e.ready[n:]...)
	for _, w := range out {
		e.handedOut(w, now)
	}
	return out
}

func (e *MEE) handedOut(w Work, now time.Time) {
	if w.Kind == WorkTradeResult {
		e.stats.TradeResults++
	} else {
		e.stats.MarketFeeds++
	}
	lag := max(now.Sub(w.Due), 0)
	e.stats.TotalLag += lag
	e.stats.MaxLag = max(e.stats.MaxLag, lag)
	e.stats.InFlight++
}

// Done implements Emulator.
func (e *MEE) Done(Work, time.Time) {
	e.stats.InFlight--
	e.stats.Completed++
}

// NextDue implements Emulator.
func (e *MEE) NextDue() (time.Time, bool) {
	if len(e.ready) > 0 {
		return e.ready[0].Due, true
	}
	if len(e.timers) > 0 {
		return e.timers[0].at, true
	}
	return time.Time{}, false
}

// Flush implements Emulator.
func (e *MEE) Flush(now time.Time) []Work {
	for _, tr := range e.triggered {
		e.entries = append(e.entries, TickerEntry{Symbol: gen.Symbol(tr.order.Security), Price: tr.price, Qty: tr.order.Qty})
		e.feedTrigs = append(e.feedTrigs, tr.order)
	}
	e.triggered = nil
	if len(e.entries) == 0 {
		return nil
	}
	w := e.feed(now)
	e.handedOut(w, now)
	return []Work{w}
}

// Stats implements Emulator.
func (e *MEE) Stats() Stats {
	s := e.stats
	s.Timers, s.Triggered, s.Ticker, s.Ready = len(e.timers), len(e.triggered), len(e.entries), len(e.ready)
	return s
}

// FromTradeOrder is the order of the trade tradeID a Trade-Order with
// input in committed.
func FromTradeOrder(tradeID int64, in ce.TradeOrder) Order {
	return Order{TradeID: tradeID, Security: in.Security, Type: TradeType(in.TradeTypeID), Qty: in.TradeQty, Limit: in.RequestedPrice}
}
