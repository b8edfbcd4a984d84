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

// The intervals end at every tick, at the warm-up's end when it is not a
// tick, and at the measured phase's end.
func TestBoundsAt(t *testing.T) {
	ms := time.Millisecond
	start := time.Unix(1000, 0)
	for _, tc := range []struct {
		warmup, dur time.Duration
		want        []time.Duration
	}{
		{0, 500 * ms, []time.Duration{100, 200, 300, 400, 500, 500}},
		{250 * ms, 400 * ms, []time.Duration{100, 200, 250, 300, 400, 500, 600, 650, 650}},
		{200 * ms, 250 * ms, []time.Duration{100, 200, 300, 400, 450, 450}},
	} {
		b := bounds{start: start, warmupEnd: start.Add(tc.warmup), end: start.Add(tc.warmup + tc.dur), every: 100 * ms}
		for k, w := range tc.want {
			if got := b.at(int64(k)).Sub(start); got != w*ms {
				t.Errorf("warm-up %v, time %v: interval %d ends at %v, want %v", tc.warmup, tc.dur, k, got, w*ms)
			}
		}
		if got := b.at(-1); !got.Equal(start) {
			t.Errorf("interval -1 ends at %v, want the start", got)
		}
	}
}
