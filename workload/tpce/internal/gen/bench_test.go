package gen

import (
	"runtime"
	"testing"

	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// BenchmarkLoadUnit generates whole tables of one Load Unit of the
// default 5,000 customers (news items of the default 100,000 bytes); one
// op is one pass over the tables named, and rows/s, ns/row and
// allocs/row are per generated row. rows/cpu-s divides by the CPU time
// the process used instead of the elapsed time, which is what one core
// does when others compete for the machine (run with -cpu 1).
func BenchmarkLoadUnit(b *testing.B) {
	m := NewModel(Config{Seed: 1, Customers: 5000, ITD: 300, ScaleFactor: DefaultScaleFactor, NewsSize: 100_000})
	const lu = 2
	bench := func(b *testing.B, tables ...string) {
		var rows int64
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		cpu0 := cpuTime()
		for b.Loop() {
			for _, tb := range tables {
				batch := lu
				if m.Batches(tb) == 1 {
					batch = 0
				}
				src := m.Rows(tb, batch)
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
		cpu := cpuTime() - cpu0
		runtime.ReadMemStats(&ms1)
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		if cpu > 0 {
			b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(rows), "allocs/row")
		b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
	}
	for _, tb := range GeneratedTables() {
		b.Run(tb, func(b *testing.B) { bench(b, tb) })
	}
	b.Run("whole-lu", func(b *testing.B) { bench(b, scalingTables...) })
	var noNews []string
	for _, tb := range scalingTables {
		if tb != schema.NewsItem {
			noNews = append(noNews, tb)
		}
	}
	b.Run("whole-lu-but-news_item", func(b *testing.B) { bench(b, noNews...) })
}
