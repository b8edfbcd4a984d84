package tpce

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/all/enginetest"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/mee"
	"github.com/dbarena/dbarena/workload/tpce/internal/txn"
)

// runThenCheck runs the workload through the runner for a few seconds
// with several workers on e, prepared with w by TestOnEveryEngine, then
// the checks: the market executed trades (TR/s above 0), the intended
// rollbacks are Trade-Orders counted apart from the errors, and the data
// is consistent after the run.
// On PostgreSQL a second run has one emulator shared by the workers
// (--mee shared) and one runs with --pipeline (refused elsewhere); on PostgreSQL
// and MariaDB the server-side modes run too (keepsPace), each followed by
// the checks.
func runThenCheck(t *testing.T, db string, e engine.Engine, w *TPCE) {
	modes := []string{"worker"}
	if db == "postgres" {
		modes = append(modes, "shared")
	}
	for _, mode := range modes {
		t.Run("mee="+mode, func(t *testing.T) {
			if err := w.Define().Options.Set("mee", mode); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = w.Define().Options.Set("mee", "worker") }()
			runOnce(t, db, e, w)
		})
	}
	// Client mode with the independent statements sent together, BEGIN
	// and COMMIT with them (--pipeline): the same run and checks on
	// PostgreSQL; refused before the run where connections send one
	// statement per round trip.
	t.Run("pipeline", func(t *testing.T) {
		if err := w.Define().Options.Set("pipeline", "true"); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = w.Define().Options.Set("pipeline", "false") }()
		if e.Dialect().Capabilities().Pipelines {
			runOnce(t, db, e, w)
			return
		}
		_, err := runner.Run(context.Background(), e, w, runner.Config{Threads: 1, Duration: time.Second, Seed: 5}, nil)
		var oe *workload.OptionError
		if !errors.As(err, &oe) || oe.Flag != "pipeline" {
			t.Errorf("run --pipeline on %s = %v, want an error naming --pipeline", db, err)
		}
	})
	// The server-side modes, where the engine has them.
	if db == "sqlite" {
		return
	}
	t.Run("server_modes_keep_pace", func(t *testing.T) { keepsPace(t, db, e, w) })
}

// keepsPace runs client mode, then each server-side mode (--mode
// procedure, --mode frames), each followed by runOnce's checks, with 4
// workers and one emulator shared by them (--mee shared:4), so that the
// first Market-Feed comes after 20 Trade-Results in all, early in the run.
// A server-side mode's run has at most one more interval without a
// transaction than client mode's (none, unless the host stalled) and
// completes Market-Feeds when it had Trade-Results for two: that catches
// a mode that stalls (on MariaDB, a Market-Feed function that locked the
// whole trade table once made every other writer wait for it, with half
// of the intervals empty). Its TR/s against client mode's is a timing
// claim, measured by the command in docs/BENCHMARKS.md, not here.
func keepsPace(t *testing.T, db string, e engine.Engine, w *TPCE) {
	if err := w.Define().Options.Set("mee", "shared:4"); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Define().Options.Set("mee", "worker") }()
	cfg := runner.Config{Threads: 4, Duration: 6 * time.Second, Seed: 7}
	var clientEmpty int
	for _, mode := range []string{ModeClient, ModeProcedure, ModeFrames} {
		t.Run("mode="+mode, func(t *testing.T) {
			if err := w.Define().Options.Set("mode", mode); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = w.Define().Options.Set("mode", ModeClient) }()
			res := runOnceWith(t, db, e, w, cfg)
			var empty []float64
			for _, iv := range res.Intervals {
				if !iv.Warmup && iv.Transactions == 0 {
					empty = append(empty, iv.TS)
				}
			}
			if mode == ModeClient {
				clientEmpty = len(empty)
				return
			}
			if len(empty) > clientEmpty+1 {
				t.Errorf("%d of %d intervals without a transaction (ending at %v s), client mode %d", len(empty), len(res.Intervals), empty, clientEmpty)
			}
			ops := map[string]result.Op{}
			for _, o := range res.Ops {
				ops[o.Name] = o
			}
			if ops["trade_result"].Count >= 2*mee.FeedEntries && ops["market_feed"].Count == 0 {
				t.Errorf("%d Trade-Results and no Market-Feed completed", ops["trade_result"].Count)
			}
		})
	}
}

func runOnce(t *testing.T, db string, e engine.Engine, w *TPCE) {
	runOnceWith(t, db, e, w, runner.Config{Threads: 3, Duration: 3 * time.Second, Seed: 5})
}

// runOnceWith is runOnce with the run's configuration cfg; it returns
// the run's result.
func runOnceWith(t *testing.T, db string, e engine.Engine, w *TPCE, cfg runner.Config) *result.Run {
	t.Helper()
	ctx := context.Background()
	c := enginetest.Connect(t, e)
	var maxID int64
	if err := c.QueryRow(ctx, "SELECT MAX(t_id) FROM trade", nil, &maxID); err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(ctx, e, w, cfg, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	ops := map[string]result.Op{}
	for _, o := range res.Ops {
		ops[o.Name] = o
	}
	tr, to := ops["trade_result"], ops["trade_order"]
	t.Logf("%s, --mode %s --mee %s: %d transactions, %d Trade-Orders (%d rolled back), %d Trade-Results, %d Market-Feeds, %d errors, %d retries",
		db, w.opts.mode, w.opts.mee, res.Transactions, to.Count, to.Rollbacks, tr.Count, ops["market_feed"].Count, res.Errors, res.Retries)
	if res.Errors != 0 {
		t.Errorf("%d errors: %+v", res.Errors, res.Ops)
	}
	// A shared emulator's one Trade-Result in flight may leave a short
	// run on a loaded machine with very few: only the workers' own are
	// asked for some, and only when the run had orders enough that none
	// executing within it cannot be chance (a server stalled by its own
	// background work has given 3 orders in 3 s; a run gives hundreds).
	if to.Count == 0 || tr.Count == 0 && w.opts.mee == "worker" && to.Count >= 20 {
		t.Fatalf("%d Trade-Orders, %d Trade-Results", to.Count, tr.Count)
	}
	got := metrics(res.Metrics)
	if want := float64(tr.Count) / res.DurationS; math.Abs(got[MetricTRps].Value-want) > 0.01+want/1000 || res.Metrics[0].Name != MetricTRps {
		t.Errorf("metrics %+v: want TR/s first, %d Trade-Results in %.3f s", res.Metrics, tr.Count, res.DurationS)
	}
	if want := map[string]float64{"worker": 0, "shared": 1, "shared:4": 4}[w.opts.mee]; got[MetricEmulator].Value != want {
		t.Errorf("%s = %v under --mee %s, want %v", MetricEmulator, got[MetricEmulator].Value, w.opts.mee, want)
	}
	// Rollbacks are Trade-Orders', and the run's are those.
	for _, o := range res.Ops {
		if o.Rollbacks != 0 && o.Name != "trade_order" {
			t.Errorf("%s rolled back %d times", o.Name, o.Rollbacks)
		}
	}
	if res.Rollbacks != to.Rollbacks {
		t.Errorf("%d rollbacks, %d of them Trade-Orders'", res.Rollbacks, to.Rollbacks)
	}
	var completed int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM trade WHERE t_id > ? AND t_st_id = ?", []any{maxID, txn.StatusCompleted}, &completed); err != nil {
		t.Fatal(err)
	}
	if completed < tr.Count {
		t.Errorf("%d run-time trades completed, %d Trade-Results measured", completed, tr.Count)
	}
	if problems, err := w.Define().Check(ctx, c); err != nil || len(problems) > 0 {
		t.Fatalf("check after the run: %v %v", problems, err)
	}
	return res
}
