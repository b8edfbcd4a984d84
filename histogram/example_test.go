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
