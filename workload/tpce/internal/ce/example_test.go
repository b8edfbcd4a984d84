package ce_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
)

// A worker deals its transactions from its own generator and random
// stream; every 890 deals hold the mix exactly.
func Example() {
	m := gen.NewModel(gen.Config{Seed: 1, Customers: 1000, ITD: 1, ScaleFactor: 500, NewsSize: 100})
	env, err := ce.NewEnv(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := env.NewGenerator(-1)
	r := gen.NewRand(1, 2, 3)
	var counts [ce.Kinds]int
	for range ce.DeckSize {
		in := g.Next(r)
		counts[in.Kind()]++
		if o, ok := in.(ce.TradeOrder); ok && o.TradeQty%100 != 0 {
			fmt.Println("odd quantity", o.TradeQty)
		}
	}
	for k, n := range counts {
		fmt.Printf("%s %d\n", ce.Kind(k), n)
	}
	// Output:
	// Broker-Volume 49
	// Customer-Position 130
	// Market-Watch 180
	// Security-Detail 140
	// Trade-Lookup 80
	// Trade-Order 101
	// Trade-Status 190
	// Trade-Update 20
}
