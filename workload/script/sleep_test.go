package script_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/workload"
)

// \sleep waits through the worker's WorkerEnv.Sleep, the runner's, which
// knows how a worker on a client thread waits; its answer that the wait
// ended early (the run stopped) ends the transaction when ctx ended.
func TestSleepThroughWorkerEnv(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t, testdb.Isolated(t, testdb.SQLite(t)))
	file := filepath.Join(t.TempDir(), "sleep.sql")
	if err := os.WriteFile(file, []byte("\\sleep 3 ms\nSELECT 1;\n\\sleep 2 s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var slept []time.Duration
	env := workload.WorkerEnv{Queries: &workload.Queries{}, Sleeper: func(_ context.Context, d time.Duration) bool {
		slept = append(slept, d)
		return true
	}}
	k, err := startWorker(ctx, parse(t, "--file", file), enginetest.Connect(t, e), env)
	if err != nil {
		t.Fatal(err)
	}
	if op, err := k.Next(ctx); op != 0 || err != nil {
		t.Fatalf("Next = %d, %v", op, err)
	}
	if want := []time.Duration{3 * time.Millisecond, 2 * time.Second}; !slices.Equal(slept, want) {
		t.Errorf("slept %v through WorkerEnv.Sleep, want %v", slept, want)
	}
}
