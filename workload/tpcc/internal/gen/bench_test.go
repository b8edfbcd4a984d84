package gen

import (
	"runtime"
	"testing"

	"github.com/dbarena/dbarena/workload/tpcc/internal/schema"
)

// BenchmarkWarehouse generates whole tables of one warehouse; one op is
// one table, and ns/row and allocs/row are per generated row.
func BenchmarkWarehouse(b *testing.B) {
	c := Config{Seed: 1, Warehouses: 1, Now: testNow}
	bench := func(b *testing.B, tables ...string) {
		var rows int64
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		for b.Loop() {
			for _, tb := range tables {
				src := c.Rows(tb, 1)
				for src.Next() {
					if _, err := src.Values(); err != nil {
						b.Fatal(err)
					}
					rows++
				}
				if err := src.Err(); err != nil {
					b.Fatal(err)
				}
			}
		}
		runtime.ReadMemStats(&ms1)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(rows), "allocs/row")
		b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
	}
	b.Run("stock", func(b *testing.B) { bench(b, schema.Stock) })
	b.Run("order_line", func(b *testing.B) { bench(b, schema.OrderLine) })
	b.Run("customer", func(b *testing.B) { bench(b, schema.Customer) })
	all := make([]string, 0, len(schema.Tables))
	for _, tb := range schema.Tables {
		if tb.Name != schema.Item {
			all = append(all, tb.Name)
		}
	}
	b.Run("all-but-item", func(b *testing.B) { bench(b, all...) })
}
