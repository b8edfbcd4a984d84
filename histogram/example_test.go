package histogram_test

import (
	"fmt"
	"time"

	"github.com/dbarena/dbarena/histogram"
)

// Each worker records into its own Recorder; the collector merges them
// into one Interval per tick.
func ExampleRecorder() {
	a, b := histogram.NewRecorder(1), histogram.NewRecorder(1)
	for i := 1; i <= 100; i++ {
		a.Success(0, time.Duration(i)*time.Millisecond, histogram.Queries{Reads: 1})
		b.Success(0, time.Duration(100+i)*time.Millisecond, histogram.Queries{Reads: 1})
	}
	iv := histogram.NewInterval(1)
	a.Collect(iv)
	b.Collect(iv)
	s := histogram.Summarize(iv.All())
	fmt.Printf("n=%d reads=%d p50=%.1fms p99=%.1fms max=%.1fms\n", iv.Transactions(), iv.Queries.Reads, s.P50, s.P99, s.Max)
	// Output: n=200 reads=200 p50=100.0ms p99=198.0ms max=200.1ms
}

// A worker whose op has steps (a script's commands) records each step;
// the transaction's outcome moves them into the interval with it.
func ExampleRecorder_EnableSteps() {
	r := histogram.NewRecorder(1)
	steps := r.EnableSteps([]int{2}) // op 0 has two steps
	for i := 1; i <= 10; i++ {
		steps.Done(0, 0, time.Millisecond)
		if i%5 == 0 {
			steps.Failed(0, 1)
			r.Failure(0, false, histogram.Queries{})
			continue
		}
		steps.Done(0, 1, 2*time.Millisecond)
		r.Success(0, 3*time.Millisecond, histogram.Queries{})
	}
	iv := histogram.NewInterval(1)
	r.Collect(iv)
	for i, s := range iv.Steps {
		fmt.Printf("step %d: %d executions, %d failures, mean %.1fms\n", i, s.Hist.TotalCount(), s.Failures, histogram.Summarize(s.Hist).Mean)
	}
	// Output:
	// step 0: 10 executions, 0 failures, mean 1.0ms
	// step 1: 8 executions, 2 failures, mean 2.0ms
}
