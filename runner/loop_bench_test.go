package runner_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbarena/dbarena/runner"
)

// BenchmarkLoop times the runner's own cost per transaction: workers
// whose transactions do nothing, back to back, on connections that do
// nothing, for half a second per iteration; it reports the client's CPU
// per transaction and the wall time per transaction and worker. With
// events, the run has an --events budget it never exhausts: every
// transaction takes from it.
func BenchmarkLoop(b *testing.B) {
	eng := memEngine{open(b)}
	for _, tc := range []struct {
		threads int
		events  bool
	}{{1, false}, {2, false}, {1, true}, {2, true}} {
		threads := tc.threads
		name := fmt.Sprintf("threads=%d", threads)
		if tc.events {
			name += "/events"
		}
		b.Run(name, func(b *testing.B) {
			var txns int64
			var cpuUS, wall float64
			for range b.N {
				p := &spin{}
				cfg := runner.Config{Threads: threads, Duration: 500 * time.Millisecond, ReportInterval: 100 * time.Millisecond, StopGrace: time.Second}
				if tc.events {
					cfg.Events = events(1 << 40)
				}
				run, err := runWithPolicy(context.Background(), eng, p, cfg, nil)
				if err != nil {
					b.Fatal(err)
				}
				txns += run.Transactions
				cpuUS += run.ClientCPUS * 1e6
				wall += run.DurationS * 1e9 * float64(threads)
			}
			b.ReportMetric(cpuUS*1000/float64(txns), "cpu-ns/txn")
			b.ReportMetric(wall/float64(txns), "wall-ns/txn")
		})
	}
}
