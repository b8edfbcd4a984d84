package prom_test

import (
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/prom"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// BenchmarkOnTick measures what the exporter adds to the merger per
// interval: five ops of 1,000 latencies each, spread from 100 µs to 1 s.
func BenchmarkOnTick(b *testing.B) {
	e, err := prom.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	e.Begin(prom.Labels{Target: "pg", Workload: "tpcc", Run: "threads=8"}, 8)
	ops := make([]workload.Op, 5)
	iv := histogram.NewInterval(len(ops))
	for i := range ops {
		ops[i].Name = string(rune('a' + i))
		for k := int64(0); k < 1000; k++ {
			_ = iv.Ops[i].Hist.RecordValue(100 + k*k)
		}
	}
	t := runner.Tick{Threads: 8, Elapsed: time.Second, Length: time.Second, Ops: ops, Interval: iv}
	b.ReportAllocs()
	for b.Loop() {
		e.OnTick(t)
	}
}
