package mee_test

import (
	"fmt"
	"time"

	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/mee"
)

// A worker's emulator on a fake clock: ten market orders become ten
// Trade-Results within the longest delay, and their twenty ticker
// entries one Market-Feed.
func Example() {
	m := gen.NewModel(gen.Config{Seed: 1, Customers: 1000, ITD: 1, ScaleFactor: 500, NewsSize: 100})
	e := mee.New(m, gen.NewRand(1, 2, 3))
	now := time.Date(2026, time.March, 2, 10, 0, 0, 0, time.UTC)
	for i := range 10 {
		e.Submit(mee.Order{TradeID: int64(i + 1), Security: int64(i), Type: mee.MarketBuy, Qty: 100}, now)
	}
	counts := map[mee.WorkKind]int{}
	for _, w := range e.Due(now.Add(mee.MaxDelay)) {
		counts[w.Kind]++
		if w.Kind == mee.WorkMarketFeed {
			fmt.Println("entries:", len(w.MarketFeed.Entries))
		}
		e.Done(w, now.Add(mee.MaxDelay))
	}
	fmt.Println(mee.WorkTradeResult, counts[mee.WorkTradeResult])
	fmt.Println(mee.WorkMarketFeed, counts[mee.WorkMarketFeed])
	// Output:
	// entries: 20
	// Trade-Result 10
	// Market-Feed 1
}
