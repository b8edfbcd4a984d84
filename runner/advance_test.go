package runner

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkAdvance times a tick's critical path, the epoch's advance at
// an interval's end, for runs of 8 and 1,000 workers: the same, since no
// worker's recorder is visited (the merger takes their frames later).
func BenchmarkAdvance(b *testing.B) {
	for _, n := range []int{8, 1000} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			start := time.Now()
			r := &run{cfg: Config{Threads: n}, epoch: new(atomic.Int64), stopCh: make(chan struct{}), closed: func() {}}
			r.b = bounds{start: start, warmupEnd: start, end: start.Add(time.Duration(b.N+2) * time.Millisecond), every: time.Millisecond}
			b.ResetTimer()
			for i := range b.N {
				r.advance(start.Add(time.Duration(i+1) * time.Millisecond))
			}
		})
	}
}
