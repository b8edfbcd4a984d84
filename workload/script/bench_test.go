package script_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
)

// BenchmarkWorkerSelectOnly runs the built-in select-only on one client
// against an in-process SQLite database with pgbench's (empty) accounts
// table: the workload's own cost per transaction (parsing nothing,
// evaluating \set, binding, counting, recording per-command statistics)
// on top of SQLite's. -benchmem tells the allocations per transaction.
//
// With steps=on the client records every command's latency, and the
// transaction's outcome moves them into the recorder, as in a run; with
// steps=off it records none.
func BenchmarkWorkerSelectOnly(b *testing.B) {
	for _, bc := range []struct {
		protocol string
		steps    bool
	}{{"simple", false}, {"simple", true}, {"prepared", false}, {"prepared", true}} {
		protocol := bc.protocol
		b.Run(fmt.Sprintf("protocol=%s/steps=%v", protocol, map[bool]string{false: "off", true: "on"}[bc.steps]), func(b *testing.B) {
			ctx := context.Background()
			e := enginetest.Open(b, testdb.SQLite(b))
			c := enginetest.Connect(b, e)
			if err := c.Exec(ctx, "CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84))"); err != nil {
				b.Fatal(err)
			}
			w := newScript(b, "--builtin", "select-only", "--protocol", protocol)
			rec := histogram.NewRecorder(1)
			env := benchEnv()
			if bc.steps {
				env.Steps = rec.EnableSteps([]int{len(w.Define().Ops[0].Steps)})
			}
			k, err := startWorker(ctx, w, enginetest.Connect(b, e), env)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				op, err := k.Next(ctx)
				if err != nil {
					b.Fatal(err)
				}
				rec.Success(op, time.Since(start), *env.Queries)
			}
		})
	}
}

func benchEnv() workload.WorkerEnv {
	return workload.WorkerEnv{Seed: 1, Queries: &workload.Queries{}}
}
