package histogram_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
)

// BenchmarkTick times a reporting tick at 8 and 1,000 workers that each
// recorded 20 transactions of two ops in the interval: on its critical
// path a tick only advances the run's epoch (one atomic add, not timed
// here); collecting is taking every worker's frame (take) and adding the
// frames into the interval (collect = take + add), off the critical path.
func BenchmarkTick(b *testing.B) {
	for _, n := range []int{8, 1000} {
		var epoch atomic.Int64
		recs := make([]*histogram.Recorder, n)
		for i := range recs {
			recs[i] = histogram.NewRecorderOn(2, &epoch)
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
		b.Run(fmt.Sprintf("take/workers=%d", n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				record()
				k := epoch.Add(1) - 1
				b.StartTimer()
				for i, r := range recs {
					frames[i] = r.Take(k)
				}
				b.StopTimer()
				for i, r := range recs {
					if frames[i] != nil {
						iv.Add(frames[i])
						r.Recycle(frames[i])
					}
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
				k := epoch.Add(1) - 1
				b.StartTimer()
				for _, r := range recs {
					if f := r.Take(k); f != nil {
						iv.Add(f)
						r.Recycle(f)
					}
				}
			}
		})
	}
}
