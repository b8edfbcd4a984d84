package script_test

import (
	"context"
	"testing"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
)

// BenchmarkWorkerSelectOnly runs the built-in select-only on one client
// against an in-process SQLite database with pgbench's (empty) accounts
// table: the workload's own cost per transaction (parsing nothing,
// evaluating \set, binding, counting, recording per-command statistics)
// on top of SQLite's. -benchmem tells the allocations per transaction.
func BenchmarkWorkerSelectOnly(b *testing.B) {
	for _, protocol := range []string{"simple", "prepared"} {
		b.Run("protocol="+protocol, func(b *testing.B) {
			ctx := context.Background()
			e := enginetest.Open(b, testdb.SQLite(b))
			c := enginetest.Connect(b, e)
			if err := c.Exec(ctx, "CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84))"); err != nil {
				b.Fatal(err)
			}
			w := newScript(b, "--builtin", "select-only", "--protocol", protocol)
			k, err := w.NewWorker(ctx, enginetest.Connect(b, e), benchEnv())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := k.Next(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchEnv() workload.WorkerEnv {
	return workload.WorkerEnv{Seed: 1, Queries: &workload.Queries{}}
}
