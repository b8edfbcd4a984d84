package oltptest

import (
	"context"
	"sync"
	"testing"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/workload"
)

// Test is what RunEvents needs of a test: its workers and which error
// classes restart an event.
type Test interface {
	NewWorker(ctx context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error)
	Retryable(c engine.ErrorClass) bool
}

// RunEvents runs events events on each of two workers of w, each on its
// own connection from conn, restarting events on retryable errors as the
// runner does, and returns the workers' statement counts.
func RunEvents(t *testing.T, e engine.Engine, w Test, events int64, conn func() engine.Conn) []*workload.Queries {
	t.Helper()
	ctx := context.Background()
	const workers = 2
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	queries := make([]*workload.Queries, workers)
	for id := 0; id < workers; id++ {
		queries[id] = new(workload.Queries)
		wk, err := w.NewWorker(ctx, conn(), workload.WorkerEnv{ID: id, Seed: uint64(1000 + id), Queries: queries[id]})
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
				if cl == engine.ClassSerialization || cl == engine.ClassDeadlock || w.Retryable(cl) {
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
