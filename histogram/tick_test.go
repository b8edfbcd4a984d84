package histogram_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
)

// BenchmarkTick times what a reporting tick costs on its critical path
// (Swap of every worker's frame) and in all (the frames then added into
// the interval, off the critical path), at 8 and 1,000 workers that each
// recorded 20 transactions of two ops in the interval.
func BenchmarkTick(b *testing.B) {
	for _, n := range []int{8, 1000} {
		recs := make([]*histogram.Recorder, n)
		for i := range recs {
			recs[i] = histogram.NewRecorder(2)
		}
		record := func() {
			for _, r := range recs {
				for j := range 20 {
					r.Success(j%2, time.Duration(j+1)*time.Millisecond, histogram.Queries{Reads: 1})
				}
			}
		}
		iv := histogram.NewInterval(2)
		frames := make([]*histogram.Frame, n)
		b.Run(fmt.Sprintf("swap/workers=%d", n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				record()
				b.StartTimer()
				for i, r := range recs {
					frames[i], _ = r.Swap()
				}
				b.StopTimer()
				for i, r := range recs {
					iv.Add(frames[i])
					r.Recycle(frames[i])
				}
				iv.Reset()
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("collect/workers=%d", n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				record()
				iv.Reset()
				b.StartTimer()
				for _, r := range recs {
					r.Collect(iv)
				}
			}
		})
	}
}
