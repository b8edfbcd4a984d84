package runner

import (
	"sync/atomic"
	"testing"
	"time"
)

// Under --events the run stops at the end of its last transaction, not
// when the last worker got round to leaving after it; never before the
// start of the current interval, which the clock may have begun since.
func TestQuitStopsAtTheLastTransaction(t *testing.T) {
	start := time.Unix(1000, 0)
	ms := func(n int) time.Time { return start.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name    string
		ends    []time.Time // each worker's last transaction's end
		epoch   int64       // the current interval
		now     time.Time   // when the last worker leaves
		wantEnd time.Time
	}{
		{"in the current interval", []time.Time{ms(12), ms(17), {}}, 1, ms(19), ms(17)},
		{"before the current interval", []time.Time{ms(8), ms(9)}, 1, ms(27), ms(10)},
		{"no transaction at all", []time.Time{{}, {}}, 0, ms(3), ms(3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{cfg: Config{Now: func() time.Time { return tc.now }}, epoch: new(atomic.Int64), stopCh: make(chan struct{}),
				b: bounds{start: start, warmupEnd: start, end: start.Add(time.Hour), every: 10 * time.Millisecond}}
			r.epoch.Store(tc.epoch)
			for _, e := range tc.ends {
				r.workers = append(r.workers, &worker{lastEnd: e})
			}
			r.active.Store(int64(len(r.workers)))
			for range r.workers {
				if r.stop.Load() {
					t.Fatal("stopped before the last worker left")
				}
				r.quit()
			}
			if !r.stop.Load() || !r.stopAt.Equal(tc.wantEnd) {
				t.Errorf("stopped %v at %v, want at %v", r.stop.Load(), r.stopAt.Sub(start), tc.wantEnd.Sub(start))
			}
		})
	}
}
