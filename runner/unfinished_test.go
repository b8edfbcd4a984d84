package runner_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// stuck is an overloaded server in miniature: each worker's first
// transaction ends at once, its second never does (until the run cancels
// it).
type stuck struct{}

func (p stuck) Meta() workload.Meta {
	return workload.Meta{Name: "stuck", Version: "1", New: func() workload.Workload { return p }}
}
func (stuck) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("stuck", pflag.ContinueOnError) }
func (stuck) Ops() []workload.Op                     { return []workload.Op{{Name: "a"}} }
func (stuck) Tables(engine.Dialect) []workload.Table { return nil }
func (stuck) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return &stuckWorker{}, nil
}

type stuckWorker struct{ n int }

func (w *stuckWorker) Next(ctx context.Context) (int, error) {
	if w.n++; w.n == 1 {
		return 0, nil
	}
	<-ctx.Done()
	return 0, ctx.Err()
}

// Transactions still running when the run ends are counted as
// unfinished with how long they had been running, and the run warns that
// its latencies, and its intervals without a transaction, understate the
// response time. Its workers all stuck after their first transaction,
// it stalled (TestStalledRun), its figures kept.
func TestUnfinishedTransactions(t *testing.T) {
	cfg := runner.Config{Threads: 4, Duration: 2500 * time.Millisecond, ReportInterval: 250 * time.Millisecond, StopGrace: 50 * time.Millisecond}
	run, err := runWithPolicy(context.Background(), memEngine{open(t)}, stuck{}, cfg, nil)
	if !errors.Is(err, runner.ErrStalled) {
		t.Fatalf("err %v, want %v", err, runner.ErrStalled)
	}
	stalled := *run
	stalled.Status = result.StatusComplete
	checkIntervals(t, &stalled, cfg, false)
	if run.Status != result.StatusStalled || run.Transactions != 4 || run.Errors != 0 {
		t.Fatalf("status %s, %d transactions, %d errors; want stalled, one per worker, none", run.Status, run.Transactions, run.Errors)
	}
	if run.Unfinished != 4 || run.UnfinishedMS == nil || run.UnfinishedMS.P50 <= run.LatencyMS.Max || run.UnfinishedMS.Max < run.UnfinishedMS.P50 {
		t.Fatalf("unfinished %d %+v, latency max %v ms; want every worker's, running longer than the finished ones", run.Unfinished, run.UnfinishedMS, run.LatencyMS.Max)
	}
	var intervals, longer bool
	for _, w := range run.Warnings {
		intervals = intervals || strings.Contains(w, "measured intervals had no transactions")
		longer = longer || strings.HasPrefix(w, "4 transactions were still running at the end")
	}
	if !intervals || !longer {
		t.Errorf("warnings %q", run.Warnings)
	}
}

// Define is the test workload's Spec, made of its methods.
func (r stuck) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r stuck) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}
