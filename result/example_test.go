package result_test

import (
	"fmt"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
)

// shard is a one-second run of one op whose transactions took the given
// microseconds, built as the runner builds it.
func shard(latencies ...int64) *result.File {
	iv := histogram.NewInterval(1)
	for _, us := range latencies {
		_ = iv.Ops[0].Hist.RecordValue(us)
	}
	run := result.Run{Threads: 2, Status: result.StatusComplete}
	run.Intervals = []result.Interval{result.IntervalOf(iv, time.Second, time.Second, false)}
	run.Fill(iv, []string{"point_select"}, time.Second, 0)
	return &result.File{
		SchemaVersion: result.SchemaVersion,
		Workload:      result.Workload{Name: "oltp_point_select", Options: map[string]string{"tables": "1"}},
		Runs:          []result.Run{run},
		Status:        result.StatusComplete,
		Identity:      result.NewIdentity(), // each shard's own
	}
}

// Two shards of one run merge into one: counts add, and the percentiles
// are those of all transactions together, not averages of the shards'.
func ExampleMerge() {
	a := shard(100, 200, 300, 400)
	b := shard(900, 1000, 1100, 1200)
	m, err := result.Merge(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range []*result.File{a, b, m} {
		r := f.Runs[0]
		fmt.Printf("threads %d, %d transactions, %.0f tps, p50 %.3f ms, max %.3f ms\n", r.Threads, r.Transactions, r.TPS, r.LatencyMS.P50, r.LatencyMS.Max)
	}
	// Output:
	// threads 2, 4 transactions, 4 tps, p50 0.200 ms, max 0.400 ms
	// threads 2, 4 transactions, 4 tps, p50 1.000 ms, max 1.200 ms
	// threads 4, 8 transactions, 8 tps, p50 0.400 ms, max 1.200 ms
}
