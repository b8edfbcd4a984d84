package gen

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkTradeSim simulates one Load Unit at ITD 5 (288,000 trades),
// with and without lots; ns/trade is per simulated trade.
func BenchmarkTradeSim(b *testing.B) {
	m := NewModel(tradeConfig(1, 5))
	for _, lots := range []bool{true, false} {
		name := "lots"
		if !lots {
			name = "nolots"
		}
		b.Run(name, func(b *testing.B) {
			var trades int64
			cpu0 := tradesCPUTime()
			for b.Loop() {
				s := m.newTradeSim(0, lots)
				for s.next() {
					trades++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(trades), "ns/trade")
			b.ReportMetric(float64((tradesCPUTime()-cpu0).Nanoseconds())/float64(trades), "cpu-ns/trade")
		})
	}
}

// BenchmarkTradeRows generates one Load Unit's rows at ITD 5, per table
// and for all of them ("all", each table's source re-running the
// simulation as loading does); rows/s is generated rows a second on one
// goroutine.
func BenchmarkTradeRows(b *testing.B) {
	m := NewModel(tradeConfig(1, 5))
	bench := func(b *testing.B, tables ...string) {
		var rows int64
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		cpu0 := tradesCPUTime()
		for b.Loop() {
			for _, tb := range tables {
				src := m.TradeRows(tb, 0)
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
		cpu := tradesCPUTime() - cpu0
		runtime.ReadMemStats(&ms1)
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(rows), "allocs/row")
		b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
	}
	for _, tb := range TradeTables {
		b.Run(tb, func(b *testing.B) { bench(b, tb) })
	}
	b.Run("all", func(b *testing.B) { bench(b, TradeTables...) })
}

// tradesCPUTime is the process's user and system CPU time: the machine the
// benchmarks run on may be shared, so figures are also given per CPU
// second.
func tradesCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
