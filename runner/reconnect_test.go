package runner_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/postgres"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
)

// When the server drops the workers' connections mid-run, each lost
// connection is counted as an error, replaced, and the run goes on
// (--tolerate-errors).
func TestReconnectAfterTerminatedBackends(t *testing.T) {
	ctx := context.Background()
	tg := testdb.Isolated(t, testdb.Postgres(t))
	app := fmt.Sprintf("dbarena_reconnect_%d", time.Now().UnixNano())
	u := *tg.URL
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	tg.URL = &u

	eng, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	w := oltpWorkload(t, "--tables", "1", "--table-size", "1000")
	if _, err := runner.Prepare(ctx, eng, w, runner.PrepareConfig{}); err != nil {
		t.Fatal(err)
	}
	admin, err := engine.ConnectSQL(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	killed := make(chan int64, 1)
	time.AfterFunc(700*time.Millisecond, func() {
		var n int64
		err := admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()", []any{app}, &n)
		if err != nil {
			t.Errorf("terminating backends: %v", err)
		}
		killed <- n
	})
	run, err := runner.Run(ctx, eng, w, runner.Config{Threads: 2, Duration: 2 * time.Second, TolerateErrors: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := <-killed
	if n < 2 {
		t.Fatalf("terminated %d backends, want the 2 workers'", n)
	}
	if run.Status != result.StatusComplete || run.Reconnects < 2 || run.Errors < 2 {
		t.Errorf("status %s, %d reconnects, %d errors; want complete, ≥ 2, ≥ 2", run.Status, run.Reconnects, run.Errors)
	}
	// Work continued after the reconnects.
	last := run.Intervals[len(run.Intervals)-1]
	if last.Transactions == 0 {
		t.Errorf("no transactions in the last interval: %+v", last)
	}
}
