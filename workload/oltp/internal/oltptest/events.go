package oltptest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// RunEvents opens a run of w on e and runs events events on each of two
// of its workers, each on its own connection from conn, restarting events
// on retryable errors as the runner does (Spec.Retryable), and returns the
// workers' statement counts.
func RunEvents(t *testing.T, e engine.Engine, w workload.Workload, events int64, conn func() engine.Conn) []*workload.Queries {
	t.Helper()
	ctx := context.Background()
	retryable := w.Define().Retryable
	run, err := w.Open(ctx, workload.RunEnv{Engine: e.Dialect().Capabilities(), Dialect: e.Dialect(), Seed: 1000,
		Shard: workload.Shard{Index: 0, Count: 1}, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if run.Close != nil {
		defer run.Close()
	}
	const workers = 2
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	queries := make([]*workload.Queries, workers)
	for id := 0; id < workers; id++ {
		queries[id] = new(workload.Queries)
		wk, err := run.NewWorker(ctx, conn(), workload.WorkerEnv{ID: id, Seed: uint64(1000 + id), Queries: queries[id]})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); i < events; {
				_, err := wk.Next(ctx)
				if err == nil {
					i++
					continue
				}
				cl := e.Dialect().Classify(err)
				if cl == engine.ClassSerialization || cl == engine.ClassDeadlock || retryable != nil && retryable(cl) {
					continue // like the runner: a new event
				}
				errs <- err
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return queries
}
