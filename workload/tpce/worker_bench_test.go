package tpce

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/mee"
)

// BenchmarkWorkerNext is the client's own cost of a transaction: the
// deck, the inputs and the market exchange emulator, with an executor
// that sends nothing.
func BenchmarkWorkerNext(b *testing.B) {
	m := gen.NewModel(gen.Config{Seed: 3, Customers: 1000, ITD: 1, ScaleFactor: gen.DefaultScaleFactor, NewsSize: 100})
	env, err := ce.NewEnv(m)
	if err != nil {
		b.Fatal(err)
	}
	f := &fakeExec{}
	c := &clock{t: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
	var q workload.Queries
	k := newWorker(env, f, mee.New(m, gen.NewRand(1, 2, 3)), 1, 7, &q, c.now)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.advance(4 * time.Millisecond)
		if _, err := k.Next(ctx); err != nil && !errors.Is(err, workload.ErrRollback) {
			b.Fatal(err)
		}
		if len(f.calls) > 1000 {
			f.calls, f.orders, f.trs, f.feeds = f.calls[:0], f.orders[:0], f.trs[:0], f.feeds[:0]
		}
	}
}
