package gen_test

import (
	"fmt"

	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
)

// The trade table of the second of two Load Units at one initial trade
// day: its first trade, and the numbers the run time starts from.
func ExampleModel_TradeRows() {
	cfg := gen.Config{Seed: 1, Customers: 2000, ITD: 1, ScaleFactor: gen.DefaultScaleFactor}
	m := gen.NewModel(cfg)
	src := m.TradeRows("trade", 1)
	var n int64
	for src.Next() {
		row, _ := src.Values()
		if n == 0 {
			fmt.Println("first t_id", row[0], "at", row[1])
		}
		n++
	}
	fmt.Println("trades", n, "of", cfg.InitialTrades())
	fmt.Println("largest t_id", cfg.MaxInitialTradeID(), "last at", cfg.InitialTradesEnd())
	// Output:
	// first t_id 2 at 2025-01-06 09:00:00.247524 +0000 UTC
	// trades 57600 of 57600
	// largest t_id 116352 last at 2025-01-06 16:59:59.752475 +0000 UTC
}
