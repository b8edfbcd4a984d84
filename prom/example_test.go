package prom_test

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/prom"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// An exporter serves the intervals it is told of: here one warm-up and
// one measured interval of a run of two operations.
func Example() {
	e, err := prom.Listen("127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	obs := e.Observer(nil) // in dbarena run: the live lines come next
	e.Begin(prom.Labels{Target: "pg", Workload: "tpcc", Run: "threads=8"}, 8)
	ops := []workload.Op{{Name: "new_order"}, {Name: "payment"}}
	iv := histogram.NewInterval(2)
	_ = iv.Ops[0].Hist.RecordValue(1200) // µs
	obs.OnTick(runner.Tick{Threads: 8, Elapsed: time.Second, Length: time.Second, Warmup: true, Ops: ops, Interval: iv})
	iv.Reset()
	_ = iv.Ops[0].Hist.RecordValue(3400)
	_ = iv.Ops[1].Hist.RecordValue(800)
	obs.OnTick(runner.Tick{Threads: 8, Elapsed: 2 * time.Second, Length: time.Second, Ops: ops, Interval: iv})

	resp, err := http.Get("http://" + e.Addr() + "/metrics")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "dbarena_transactions_total") || strings.HasPrefix(l, "dbarena_threads") {
			fmt.Println(l)
		}
	}
	// Output:
	// dbarena_threads{run="threads=8",target="pg",workload="tpcc"} 8
	// dbarena_transactions_total{op="new_order",phase="measured",run="threads=8",target="pg",workload="tpcc"} 1
	// dbarena_transactions_total{op="new_order",phase="warmup",run="threads=8",target="pg",workload="tpcc"} 1
	// dbarena_transactions_total{op="payment",phase="measured",run="threads=8",target="pg",workload="tpcc"} 1
	// dbarena_transactions_total{op="payment",phase="warmup",run="threads=8",target="pg",workload="tpcc"} 0
}
