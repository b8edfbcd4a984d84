package timing

import (
	"context"
	"testing"
	"time"
)

// BenchmarkOpenStart times one worker's schedule under an arrival rate
// on a fake clock, per transaction: arrivals due at once (the worker
// behind), with an unbounded queue, a bounded one and a latency limit.
func BenchmarkOpenStart(b *testing.B) {
	for _, c := range []struct {
		name string
		rc   RateConfig
	}{{"unbounded", RateConfig{}}, {"max-queue", RateConfig{MaxQueue: new(64)}}, {"latency-limit", RateConfig{LatencyLimit: time.Second}}} {
		b.Run(c.name, func(b *testing.B) {
			clock := &rateClock{now: t0}
			rc := c.rc
			rc.TPS = rate(1e6)
			s := NewOpen(rc).Worker(ScheduleEnv{Threads: 1, Seed: 1, Start: t0, Now: clock.Now, Sleep: clock.Sleep}).(*openSchedule)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				clock.now = clock.now.Add(time.Microsecond) // one arrival a µs, on average
				s.Start(ctx)
			}
		})
	}
}
