package mee

import (
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
)

func testModel() *gen.Model {
	return gen.NewModel(gen.Config{Seed: 3, Customers: 2 * gen.LoadUnit, ITD: 1, ScaleFactor: gen.DefaultScaleFactor, NewsSize: 10})
}

// t0 is the fake clock's start: a trading-day instant after the initial
// trades.
var t0 = time.Date(2026, time.March, 2, 10, 0, 0, 123456789, time.UTC)

func TestMarketOrderDelays(t *testing.T) {
	m := testModel()
	e := New(m, gen.NewRand(1, 1, 1))
	const n = 20000
	for i := range n {
		e.Submit(Order{TradeID: int64(i + 1), Security: int64(i % 1370), Type: MarketBuy, Qty: 100, Limit: 2500}, t0)
	}
	// Nothing is due before the first delay.
	first, ok := e.NextDue()
	if !ok || !first.After(t0) {
		t.Fatalf("NextDue = %v, %v", first, ok)
	}
	if w := e.Due(first.Add(-time.Nanosecond)); len(w) != 0 {
		t.Fatalf("%d works before the first is due", len(w))
	}
	works := e.Due(t0.Add(MaxDelay))
	var sum float64
	var atMost1s, capped, trs int
	seen := make([]bool, n+1)
	for _, w := range works {
		if w.Kind != WorkTradeResult {
			continue
		}
		trs++
		d := w.Due.Sub(t0)
		if d <= 0 || d > MaxDelay {
			t.Fatalf("delay %v", d)
		}
		id := w.TradeResult.TradeID
		if seen[id] {
			t.Fatalf("trade %d twice", id)
		}
		seen[id] = true
		if p := m.Price(int64((id-1)%1370), w.Due); w.TradeResult.Price != p {
			t.Fatalf("trade %d at %d, the price at %v is %d", id, w.TradeResult.Price, w.Due, p)
		}
		sum += d.Seconds()
		if d <= time.Second {
			atMost1s++
		}
		if d == MaxDelay {
			capped++
		}
	}
	if trs != n {
		t.Fatalf("%d Trade-Results of %d orders", trs, n)
	}
	// min(Exp(1), 5) has mean 1-e^-5 and a standard deviation below 1.
	mean := sum / n
	if want := 1 - math.Exp(-5); math.Abs(mean-want) > 4/math.Sqrt(n) {
		t.Errorf("mean delay %.4f s, want %.4f", mean, want)
	}
	within := func(what string, k int, p float64) {
		sd := math.Sqrt(n * p * (1 - p))
		if math.Abs(float64(k)-n*p) > 4*sd {
			t.Errorf("%s: %d of %d, want %.0f", what, k, n, n*p)
		}
	}
	within("delays ≤ 1 s", atMost1s, 1-math.Exp(-1))
	within("delays capped at 5 s", capped, math.Exp(-5))
	if _, ok := e.NextDue(); ok {
		t.Error("work still scheduled after the longest delay")
	}
}

func TestWorksInDueOrder(t *testing.T) {
	e := New(testModel(), gen.NewRand(2, 2, 2))
	for i := range 500 {
		e.Submit(Order{TradeID: int64(i + 1), Security: 5, Type: MarketSell, Qty: 200}, t0.Add(time.Duration(i)*10*time.Millisecond))
	}
	var last time.Time
	now := t0
	for range 200 {
		now = now.Add(50 * time.Millisecond)
		for _, w := range e.Due(now) {
			if w.Due.Before(last) || w.Due.After(now) {
				t.Fatalf("work due %v after one due %v, handed out at %v", w.Due, last, now)
			}
			last = w.Due
		}
	}
}

// limitOrders are orders of every limit type on several securities.
func limitOrders(r *gen.Rand, n int) []Order {
	types := []TradeType{LimitBuy, LimitSell, StopLoss}
	out := make([]Order, n)
	for i := range out {
		out[i] = Order{TradeID: int64(i + 1), Security: r.Int64Range(0, 1369), Type: types[r.Intn(3)], Qty: 100 << r.Intn(4), Limit: r.Int64Range(2000, 3000)}
	}
	return out
}

func TestTriggerTime(t *testing.T) {
	m := testModel()
	r := gen.NewRand(4, 4, 4)
	orders := limitOrders(r, 200)
	// The extremes: the price touches $30.00 and $20.00 once a period.
	for s := range int64(10) {
		orders = append(orders, Order{Security: s, Type: LimitSell, Limit: 3000}, Order{Security: s, Type: LimitBuy, Limit: 2000},
			Order{Security: s, Type: StopLoss, Limit: 2001}, Order{Security: s, Type: LimitSell, Limit: 2999})
	}
	for i, o := range orders {
		from := t0.Add(time.Duration(r.Int64Range(0, int64(time.Hour))))
		at, ok := TriggerTime(m, o, from)
		if !ok {
			t.Fatalf("order %d (%+v): never triggers", i, o)
		}
		if at.Before(from) || at.Sub(from) > pricePeriod+triggerStep {
			t.Fatalf("order %d: triggers at %v, from %v", i, at, from)
		}
		if !o.triggered(m.Price(o.Security, at)) {
			t.Fatalf("order %d (%+v): the price at %v is %d", i, o, at, m.Price(o.Security, at))
		}
		if at.Equal(from) {
			continue
		}
		// The nanosecond before, the price had not crossed, nor at any
		// earlier 10 ms.
		if before := at.Add(-1); o.triggered(m.Price(o.Security, before)) {
			t.Fatalf("order %d (%+v): already crossed at %v", i, o, before)
		}
		for x := from; x.Before(at); x = x.Add(10 * time.Millisecond) {
			if o.triggered(m.Price(o.Security, x)) {
				t.Fatalf("order %d (%+v): crossed at %v, before %v", i, o, x, at)
			}
		}
	}
	// A limit beyond every price never triggers.
	if _, ok := TriggerTime(m, Order{Security: 1, Type: LimitBuy, Limit: 1999}, t0); ok {
		t.Error("a buy limit of $19.99 triggers")
	}
	if _, ok := TriggerTime(m, Order{Security: 1, Type: LimitSell, Limit: 3001}, t0); ok {
		t.Error("a sell limit of $30.01 triggers")
	}
}

func TestLimitOrderTimer(t *testing.T) {
	m := testModel()
	e := New(m, gen.NewRand(5, 5, 5))
	// An order out of the money waits for its trigger instant.
	o := Order{TradeID: 1, Security: 7, Type: LimitSell, Qty: 400, Limit: m.Price(7, t0) + 300}
	if o.Limit > 3000 {
		o = Order{TradeID: 1, Security: 7, Type: LimitBuy, Qty: 400, Limit: m.Price(7, t0) - 300}
	}
	at, ok := TriggerTime(m, o, t0)
	if !ok || !at.After(t0) {
		t.Fatalf("TriggerTime = %v, %v", at, ok)
	}
	e.Submit(o, t0)
	if next, _ := e.NextDue(); !next.Equal(at) {
		t.Fatalf("NextDue = %v, want the trigger %v", next, at)
	}
	e.Due(at.Add(-time.Millisecond))
	if s := e.Stats(); s.Timers != 1 || s.Triggered != 0 {
		t.Fatalf("before the trigger: %+v", s)
	}
	if w := e.Due(at); len(w) != 0 {
		t.Fatalf("a triggered order is no work by itself: %v", w)
	}
	if s := e.Stats(); s.Timers != 0 || s.Triggered != 1 {
		t.Fatalf("at the trigger: %+v", s)
	}
	// An order in the money goes straight to the ticker.
	e.Submit(Order{TradeID: 2, Security: 8, Type: LimitBuy, Qty: 100, Limit: 3000}, t0)
	if s := e.Stats(); s.Timers != 0 || s.Triggered != 2 || s.Never != 0 {
		t.Fatalf("in the money: %+v", s)
	}
	e.Submit(Order{TradeID: 3, Security: 8, Type: StopLoss, Qty: 100, Limit: 1000}, t0)
	if s := e.Stats(); s.Never != 1 || s.Timers != 0 || s.Triggered != 2 {
		t.Fatalf("a stop at $10: %+v", s)
	}
	// The next Trade-Results carry them into the ticker, in order.
	e.Submit(Order{TradeID: 10, Security: 9, Type: MarketBuy, Qty: 800}, at)
	e.Submit(Order{TradeID: 11, Security: 9, Type: MarketBuy, Qty: 800}, at)
	e.Due(at.Add(MaxDelay))
	if s := e.Stats(); s.Triggered != 0 || s.Ticker != 4 {
		t.Fatalf("after two Trade-Results: %+v", s)
	}
	if got := e.feedTrigs; len(got) != 2 || got[0].TradeID != 1 || got[1].TradeID != 2 {
		t.Fatalf("the feed's triggered orders: %+v", got)
	}
	if got := e.entries[1]; got.Symbol != gen.Symbol(7) || got.Price != m.Price(7, at) || got.Qty != 400 {
		t.Fatalf("the first filler is %+v", got)
	}
}

func TestFeedOfTwentyEntries(t *testing.T) {
	m := testModel()
	e := New(m, gen.NewRand(6, 6, 6))
	for i := range 35 {
		e.Submit(Order{TradeID: int64(i + 1), Security: int64(i), Type: MarketBuy, Qty: 200}, t0)
	}
	var trs []Work
	var feeds []MarketFeed
	for _, w := range e.Due(t0.Add(MaxDelay)) {
		switch w.Kind {
		case WorkTradeResult:
			trs = append(trs, w)
		case WorkMarketFeed:
			feeds = append(feeds, w.MarketFeed)
			// A feed comes right after the Trade-Result that fills it.
			if last := trs[len(trs)-1]; !w.Due.Equal(last.Due) || len(trs)%10 != 0 {
				t.Fatalf("a feed due %v after %d Trade-Results, the last due %v", w.Due, len(trs), last.Due)
			}
		}
	}
	if len(trs) != 35 || len(feeds) != 3 {
		t.Fatalf("%d Trade-Results, %d feeds; want 35, 3", len(trs), len(feeds))
	}
	for f, feed := range feeds {
		if len(feed.Entries) != FeedEntries || len(feed.Triggered) != 0 {
			t.Fatalf("feed %d: %d entries, %d triggered", f, len(feed.Entries), len(feed.Triggered))
		}
		for i, en := range feed.Entries {
			if i%2 == 0 {
				// The Trade-Result's own entry.
				tr := trs[f*10+i/2]
				if en.Symbol != gen.Symbol(tr.TradeResult.TradeID-1) || en.Price != tr.TradeResult.Price || en.Qty != 200 {
					t.Fatalf("feed %d entry %d is %+v for %+v", f, i, en, tr)
				}
				continue
			}
			// A filler: a random security at its price.
			s, ok := gen.SecurityIndex(en.Symbol)
			if !ok || s >= m.Config().Securities() || en.Price != m.Price(s, trs[f*10+i/2].Due) {
				t.Fatalf("feed %d filler %d is %+v", f, i, en)
			}
		}
	}
	if s := e.Stats(); s.Ticker != 10 || s.TradeResults != 35 || s.MarketFeeds != 3 || s.InFlight != 38 {
		t.Fatalf("stats %+v", s)
	}
	// Flush sends the last five Trade-Results' entries.
	fl := e.Flush(t0.Add(time.Minute))
	if len(fl) != 1 || len(fl[0].MarketFeed.Entries) != 10 {
		t.Fatalf("Flush = %+v", fl)
	}
	if fl := e.Flush(t0.Add(time.Minute)); fl != nil {
		t.Fatalf("a second Flush = %+v", fl)
	}
}

// market is the database's side of the test: which trades a feed
// releases. A trade_request row is taken once.
type market struct {
	mu      sync.Mutex
	pending map[int64]Order
}

func (k *market) take(feed MarketFeed) []Order {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []Order
	for _, o := range feed.Triggered {
		if _, ok := k.pending[o.TradeID]; ok {
			delete(k.pending, o.TradeID)
			out = append(out, o)
		}
	}
	return out
}

// runWorker drives e as a worker does on a fake clock from start, in
// steps, submitting orders (one every other step), and returns the
// Trade-Results' trade ids in the order handed out.
func runWorker(t *testing.T, e Emulator, k *market, orders []Order, start time.Time, step time.Duration, onWork func(w Work, flushed bool)) []int64 {
	var ids []int64
	now := start
	handle := func(ws []Work, flushed bool) {
		for _, w := range ws {
			if onWork != nil {
				onWork(w, flushed)
			}
			switch w.Kind {
			case WorkTradeResult:
				ids = append(ids, w.TradeResult.TradeID)
			case WorkMarketFeed:
				if len(w.MarketFeed.Entries) == 0 {
					t.Error("an empty feed")
				}
				e.Release(k.take(w.MarketFeed), now)
			}
			e.Done(w, now)
		}
	}
	for i := 0; ; i++ {
		now = now.Add(step)
		if i%2 == 0 && i/2 < len(orders) {
			o := orders[i/2]
			if !o.Type.market() {
				k.mu.Lock()
				k.pending[o.TradeID] = o
				k.mu.Unlock()
			}
			e.Submit(o, now)
		}
		handle(e.Due(now), false)
		if i/2 >= len(orders) {
			if _, ok := e.NextDue(); !ok {
				s := e.Stats()
				if s.Triggered == 0 && s.Ticker == 0 {
					return ids
				}
				handle(e.Flush(now), true)
			}
		}
	}
}

// mixedOrders are n orders of every type from trade id first on.
func mixedOrders(r *gen.Rand, first int64, n int) []Order {
	types := []TradeType{MarketBuy, MarketSell, LimitBuy, LimitSell, StopLoss}
	out := limitOrders(r, n)
	for i := range out {
		out[i].TradeID = first + int64(i)
		out[i].Type = types[r.Intn(5)]
	}
	return out
}

func TestNoOrderLostOrDeliveredTwice(t *testing.T) {
	m := testModel()
	e := New(m, gen.NewRand(7, 7, 7))
	k := &market{pending: map[int64]Order{}}
	orders := mixedOrders(gen.NewRand(8, 8, 8), 1, 3000)
	entries, flushedTrigs := 0, 0
	inFeeds := map[int64]int{}
	ids := runWorker(t, e, k, orders, t0, 40*time.Millisecond, func(w Work, flushed bool) {
		if w.Kind != WorkMarketFeed {
			return
		}
		entries += len(w.MarketFeed.Entries)
		for _, o := range w.MarketFeed.Triggered {
			inFeeds[o.TradeID]++
		}
		if flushed {
			flushedTrigs += len(w.MarketFeed.Triggered)
		} else if len(w.MarketFeed.Entries) != FeedEntries {
			t.Errorf("a feed of %d entries", len(w.MarketFeed.Entries))
		}
	})
	count := map[int64]int{}
	for _, id := range ids {
		count[id]++
	}
	for _, o := range orders {
		if count[o.TradeID] != 1 {
			t.Fatalf("order %+v: %d Trade-Results", o, count[o.TradeID])
		}
	}
	if len(ids) != len(orders) || len(k.pending) != 0 {
		t.Fatalf("%d Trade-Results of %d orders, %d never released", len(ids), len(orders), len(k.pending))
	}
	s := e.Stats()
	if s.InFlight != 0 || s.QueueDepth() != 0 || s.Completed != s.TradeResults+s.MarketFeeds || s.TradeResults != int64(len(orders)) {
		t.Fatalf("stats %+v", s)
	}
	// Each limit order is in one feed's triggered orders.
	for _, o := range orders {
		if want := map[bool]int{true: 0, false: 1}[o.Type.market()]; inFeeds[o.TradeID] != want {
			t.Fatalf("order %+v is in %d feeds", o, inFeeds[o.TradeID])
		}
	}
	// Every Trade-Result adds two entries, Flush one for each triggered
	// order still waiting.
	if entries < 2*len(orders) || entries > 2*len(orders)+flushedTrigs {
		t.Fatalf("%d entries (%d triggered orders flushed) for %d Trade-Results", entries, flushedTrigs, len(orders))
	}
	if s.MaxLag > 40*time.Millisecond || s.MeanLag() <= 0 {
		t.Errorf("lag: max %v, mean %v with a 40 ms step", s.MaxLag, s.MeanLag())
	}
}

func TestDeterministic(t *testing.T) {
	m := testModel()
	orders := mixedOrders(gen.NewRand(9, 9, 9), 1, 300)
	run := func() []int64 {
		k := &market{pending: map[int64]Order{}}
		return runWorker(t, New(m, gen.NewRand(1, 2, 3)), k, orders, t0, 30*time.Millisecond, nil)
	}
	a, b := run(), run()
	if len(a) != len(b) {
		t.Fatalf("%d and %d Trade-Results", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("Trade-Result %d: trade %d and trade %d", i, a[i], b[i])
		}
	}
}

func TestSharedSerialises(t *testing.T) {
	m := testModel()
	s := NewShared(m, gen.NewRand(1, 1, 1), 1)
	for i := range 3 {
		s.Submit(Order{TradeID: int64(i + 1), Security: 1, Type: MarketBuy, Qty: 100}, t0)
	}
	end := t0.Add(MaxDelay)
	a := s.Due(end)
	if len(a) != 1 {
		t.Fatalf("worker A got %d works, want 1", len(a))
	}
	if b := s.Due(end); len(b) != 0 {
		t.Fatalf("worker B got %d works while A's is in flight", len(b))
	}
	if next, ok := s.NextDue(); !ok || next.After(end) {
		t.Fatalf("NextDue = %v, %v with two works ready", next, ok)
	}
	if st := s.Stats(); st.Ready != 2 || st.InFlight != 1 {
		t.Fatalf("stats %+v", st)
	}
	s.Done(a[0], end)
	if b := s.Due(end); len(b) != 1 || b[0].TradeResult.TradeID == a[0].TradeResult.TradeID {
		t.Fatalf("worker B got %+v after A's Done", b)
	}
	// With 2 deliveries, two at a time.
	s2 := NewShared(m, gen.NewRand(1, 1, 1), 2)
	for i := range 3 {
		s2.Submit(Order{TradeID: int64(i + 1), Security: 1, Type: MarketBuy, Qty: 100}, t0)
	}
	if w := s2.Due(end); len(w) != 2 {
		t.Fatalf("2 deliveries: %d works", len(w))
	}
}

// TestSharedConcurrent runs workers on one shared emulator (go test
// -race): never more works in flight than deliveries, each order one
// Trade-Result.
func TestSharedConcurrent(t *testing.T) {
	const workers, perWorker = 8, 150
	m := testModel()
	k := &market{pending: map[int64]Order{}}
	for _, deliveries := range []int{1, 3} {
		s := NewShared(m, gen.NewRand(2, 2, 2), deliveries)
		var inFlight, most atomic.Int64
		var mu sync.Mutex
		count := map[int64]int{}
		var wg sync.WaitGroup
		for w := range workers {
			orders := mixedOrders(gen.NewRand(3, 3, uint64(w)), int64(w*perWorker+1), perWorker)
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids := runWorker(t, &countingEmulator{Emulator: s, inFlight: &inFlight, most: &most}, k, orders, t0, 20*time.Millisecond, nil)
				mu.Lock()
				for _, id := range ids {
					count[id]++
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		// A worker may end while another's released orders are still
		// due: the last one to look finds them.
		for {
			if _, ok := s.NextDue(); !ok && s.Stats().Triggered == 0 && s.Stats().Ticker == 0 {
				break
			}
			ids := runWorker(t, &countingEmulator{Emulator: s, inFlight: &inFlight, most: &most}, k, nil, t0.Add(time.Hour), 20*time.Millisecond, nil)
			for _, id := range ids {
				count[id]++
			}
		}
		if got := most.Load(); got > int64(deliveries) {
			t.Errorf("%d deliveries: %d works in flight", deliveries, got)
		}
		if len(count) != workers*perWorker {
			t.Errorf("%d deliveries: %d trades got Trade-Results of %d", deliveries, len(count), workers*perWorker)
		}
		for id, n := range count {
			if n != 1 {
				t.Errorf("%d deliveries: trade %d: %d Trade-Results", deliveries, id, n)
			}
		}
	}
}

// countingEmulator counts the works in flight between Due and Done.
type countingEmulator struct {
	Emulator
	inFlight, most *atomic.Int64
}

func (c *countingEmulator) note(ws []Work) []Work {
	for range ws {
		n := c.inFlight.Add(1)
		for {
			m := c.most.Load()
			if n <= m || c.most.CompareAndSwap(m, n) {
				break
			}
		}
	}
	return ws
}

func (c *countingEmulator) Due(now time.Time) []Work   { return c.note(c.Emulator.Due(now)) }
func (c *countingEmulator) Flush(now time.Time) []Work { return c.note(c.Emulator.Flush(now)) }
func (c *countingEmulator) Done(w Work, now time.Time) {
	c.inFlight.Add(-1)
	c.Emulator.Done(w, now)
}

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
	}{
		{"", Mode{}}, {"worker", Mode{}}, {"per-worker", Mode{}}, {"shared", Mode{Shared: true, Deliveries: 1}}, {"shared:4", Mode{Shared: true, Deliveries: 4}},
	} {
		got, err := ParseMode(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseMode(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if back, _ := ParseMode(got.String()); back != got {
			t.Errorf("%+v prints as %q", got, got.String())
		}
	}
	for _, bad := range []string{"nonsense", "shared:0", "shared:x", "Shared"} {
		_, err := ParseMode(bad)
		if !errors.Is(err, ErrMode) || !strings.Contains(err.Error(), "--mee") || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("ParseMode(%q) = %v", bad, err)
		}
	}
}

func TestNewEmulators(t *testing.T) {
	m := testModel()
	ws := NewEmulators(m, Mode{}, 3, 1)
	if ws[0] == ws[1] || ws[1] == ws[2] {
		t.Error("workers share an emulator in worker mode")
	}
	if _, ok := ws[0].(*MEE); !ok {
		t.Errorf("worker mode gives %T", ws[0])
	}
	sh := NewEmulators(m, Mode{Shared: true, Deliveries: 1}, 3, 1)
	if sh[0] != sh[1] || sh[1] != sh[2] {
		t.Error("shared mode gives several emulators")
	}
}

func TestUnknownTypePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	New(testModel(), gen.NewRand(1, 1, 1)).Submit(Order{Type: "XXX"}, t0)
}

func TestFromTradeOrder(t *testing.T) {
	m := testModel()
	env, err := ce.NewEnv(m)
	if err != nil {
		t.Fatal(err)
	}
	g := env.NewGenerator(-1)
	r := gen.NewRand(1, 1, 1)
	e := New(m, gen.NewRand(2, 2, 2))
	types := map[TradeType]bool{}
	for i := range 2000 {
		in := g.TradeOrder(r)
		o := FromTradeOrder(int64(i+1), in)
		if o.TradeID != int64(i+1) || o.Security != in.Security || o.Qty != in.TradeQty || o.Limit != in.RequestedPrice || string(o.Type) != in.TradeTypeID {
			t.Fatalf("%+v from %+v", o, in)
		}
		if o.Type.market() != in.IsMarket() || o.Type.sell() == in.IsBuy() {
			t.Fatalf("%s: market %v, sell %v", o.Type, o.Type.market(), o.Type.sell())
		}
		types[o.Type] = true
		e.Submit(o, t0) // every type the customer emulator deals is known
	}
	if len(types) != 5 {
		t.Errorf("types %v", types)
	}
}

// TestMixRatios drives an emulator with the customer emulator's mix on a
// fake clock: every Trade-Order not rolled back becomes one Trade-Result
// (about 100 of every 101), and the Market-Feeds are a tenth of the
// Trade-Results.
func TestMixRatios(t *testing.T) {
	m := testModel()
	env, err := ce.NewEnv(m)
	if err != nil {
		t.Fatal(err)
	}
	g := env.NewGenerator(-1)
	r := gen.NewRand(4, 4, 4)
	e := New(m, gen.NewRand(5, 5, 5))
	k := &market{pending: map[int64]Order{}}
	var orders []Order
	tos := 0
	for range 20 * ce.DeckSize {
		if in, ok := g.Next(r).(ce.TradeOrder); ok {
			tos++
			if !in.RollItBack {
				orders = append(orders, FromTradeOrder(int64(len(orders)+1), in))
			}
		}
	}
	if tos != 20*ce.Cards[ce.KindTradeOrder] {
		t.Fatalf("%d Trade-Orders in 20 decks", tos)
	}
	feeds := 0
	trs := runWorker(t, e, k, orders, t0, 50*time.Millisecond, func(w Work, flushed bool) {
		if w.Kind == WorkMarketFeed && !flushed {
			feeds++
		}
	})
	if len(trs) != len(orders) {
		t.Fatalf("%d Trade-Results for %d Trade-Orders committed", len(trs), len(orders))
	}
	if want := 2 * len(trs) / FeedEntries; feeds < want-1 || feeds > want {
		t.Errorf("%d Market-Feeds for %d Trade-Results, want %d", feeds, len(trs), want)
	}
	t.Logf("%d Trade-Orders, %d committed, %d Trade-Results, %d Market-Feeds", tos, len(orders), len(trs), feeds)
	if ratio := float64(len(trs)) / float64(tos); ratio < 0.97 || ratio > 1 {
		t.Errorf("Trade-Results / Trade-Orders = %.3f, want about 100/101", ratio)
	}
}
