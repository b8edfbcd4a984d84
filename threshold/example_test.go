package threshold_test

import (
	"fmt"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/threshold"
)

// Thresholds are parsed against what a workload has (its ops, its own
// figures), then judged on a finished run.
func Example() {
	c := threshold.Context{Workload: "tpcc", Ops: []string{"new_order", "payment"}, Metrics: []string{"NOPM"}}
	ts, errs := threshold.ParseAll([]string{"p99<50ms", "errors<0.1%", "op:payment p95<=10ms", "NOPM>1000", "p99<50", "op:delivery max<1s"}, c)
	for _, err := range errs {
		fmt.Println(err)
	}
	run := &result.Run{
		Transactions: 9990, Errors: 10, TPS: 166.5,
		LatencyMS: histogram.Latency{P99: 31.2},
		Ops:       []result.Op{{Name: "new_order", Count: 5000}, {Name: "payment", Count: 4990, LatencyMS: histogram.Latency{P95: 8.5}}},
		Metrics:   []result.Metric{{Name: "NOPM", Value: 2210}},
	}
	for _, r := range threshold.Evaluate(ts, run) {
		fmt.Printf("%-22s %8.3f %v\n", r.Expr, *r.Observed, *r.Pass)
	}
	// Output:
	// --threshold p99<50: limit "50" has no unit: p99 is a latency, give one like 50ms or 50s
	// --threshold op:delivery max<1s: op "delivery": tpcc has no such operation (it has new_order, payment)
	// p99<50ms                 31.200 true
	// errors<0.1%               0.100 false
	// op:payment p95<=10ms      8.500 true
	// NOPM>1000              2210.000 true
}
