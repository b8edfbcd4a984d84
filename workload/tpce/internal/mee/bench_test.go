package mee

import (
	"testing"
	"time"

	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
)

// BenchmarkMarketOrder measures the emulator's cost of one market order,
// from Submit to its Trade-Result (and a tenth of a Market-Feed).
func BenchmarkMarketOrder(b *testing.B) {
	e := New(testModel(), gen.NewRand(1, 1, 1))
	now := t0
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		i++
		now = now.Add(10 * time.Millisecond)
		e.Submit(Order{TradeID: i, Security: i % 1370, Type: MarketBuy, Qty: 100}, now)
		for _, w := range e.Due(now) {
			e.Done(w, now)
		}
	}
}

// BenchmarkTriggerTime measures the search for a limit order's trigger
// instant.
func BenchmarkTriggerTime(b *testing.B) {
	m := testModel()
	orders := limitOrders(gen.NewRand(1, 1, 1), 1000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		TriggerTime(m, orders[i%len(orders)], t0)
		i++
	}
}
