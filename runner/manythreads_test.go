package runner_test

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// memEngine is an engine without a server: its connections do nothing,
// so a run's cost is the runner's own and the workload's.
type memEngine struct{ engine.Engine }

func (e memEngine) Connect(context.Context) (engine.Conn, error) { return memConn{}, nil }

type memConn struct{}

func (memConn) Ping(context.Context) error { return nil }
func (memConn) Catalog() engine.Catalog    { return nil }
func (memConn) Close() error               { return nil }

// spin is an in-memory workload whose transactions burn a little CPU and
// never wait, the harshest case for the collector: every worker is always
// runnable.
type spin struct {
	work     int
	finished atomic.Int64
}

func (p *spin) Meta() workload.Meta {
	return workload.Meta{Name: "spin", Version: "1", New: func() workload.Workload { return p }}
}
func (p *spin) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("spin", pflag.ContinueOnError) }
func (p *spin) Ops() []workload.Op                     { return []workload.Op{{Name: "a"}, {Name: "b"}} }
func (p *spin) Tables(engine.Dialect) []workload.Table { return nil }
func (p *spin) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return &spinWorker{p: p}, nil
}

type spinWorker struct {
	p *spin
	n uint64
	x float64
}

func (w *spinWorker) Next(context.Context) (int, error) {
	w.n++
	for i := range w.p.work {
		w.x += math.Sqrt(float64(i) + w.x)
	}
	w.p.finished.Add(1)
	return int(w.n % 2), nil
}

// checkIntervals asserts the structure of a complete run's intervals:
// every scheduled interval is there, labelled by its own boundary, their
// transactions add up to the run's, and the measured time is the
// configured one within one interval. busy asks for transactions in
// every interval too.
func checkIntervals(t *testing.T, run *result.Run, cfg runner.Config, busy bool) {
	t.Helper()
	if run.Status != result.StatusComplete {
		t.Fatalf("status %s (%s), want complete", run.Status, run.Error)
	}
	want := int(cfg.Duration / cfg.ReportInterval)
	var measured []result.Interval
	for _, iv := range run.Intervals {
		if !iv.Warmup {
			measured = append(measured, iv)
		}
	}
	if len(measured) != want {
		t.Errorf("%d measured intervals, want %d (%v / %v)", len(measured), want, cfg.Duration, cfg.ReportInterval)
	}
	var sum int64
	for i, iv := range measured {
		end := (cfg.Warmup + time.Duration(i+1)*cfg.ReportInterval).Seconds()
		if math.Abs(iv.TS-end) > 0.0005 {
			t.Errorf("interval %d ends at %.3fs, want %.3fs", i, iv.TS, end)
		}
		if busy && iv.Transactions == 0 {
			t.Errorf("interval %d has no transactions", i)
		}
		sum += iv.Transactions
	}
	if sum != run.Transactions || run.Transactions == 0 {
		t.Errorf("intervals add up to %d transactions, the run counts %d", sum, run.Transactions)
	}
	if d := math.Abs(run.DurationS - cfg.Duration.Seconds()); d > cfg.ReportInterval.Seconds() {
		t.Errorf("measured %.3fs, configured %v: more than one interval (%v) apart", run.DurationS, cfg.Duration, cfg.ReportInterval)
	}
}

// A thousand workers that never wait: the run still ends on time, and
// every interval is there, in its place, with its share of the
// transactions; every transaction a worker ended is counted or, when it
// ended after the stop, unfinished.
func TestThousandWorkers(t *testing.T) {
	p := &spin{work: 200}
	cfg := runner.Config{Threads: 1000, Duration: 2 * time.Second, ReportInterval: 200 * time.Millisecond}
	run, err := runWithPolicy(context.Background(), memEngine{open(t)}, p, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkIntervals(t, run, cfg, true)
	// At most one transaction per worker ends after the stop: begun
	// before it, or in the instant it takes a worker to see it.
	if n := p.finished.Load(); n < run.Transactions+run.Unfinished || n > run.Transactions+int64(cfg.Threads) {
		t.Errorf("workers ended %d transactions; %d counted, %d unfinished", n, run.Transactions, run.Unfinished)
	}
	if run.Unfinished > 0 && (run.UnfinishedMS == nil || run.UnfinishedMS.Max < run.UnfinishedMS.P50) {
		t.Errorf("%d unfinished with elapsed %+v", run.Unfinished, run.UnfinishedMS)
	}
}

// The same on a real engine: oltp_point_select at a thousand threads on
// SQLite for a few seconds, connecting the workers before the clock
// starts.
func TestThousandThreadsSQLite(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, testdb.SQLite(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	m, ok := workload.Lookup("oltp_point_select")
	if !ok {
		t.Fatal("oltp_point_select is not registered")
	}
	w := m.New()
	if err := w.Define().Options.Parse([]string{"--tables", "1", "--table-size", "1000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := load.Prepare(ctx, eng, w, load.PrepareConfig{}); err != nil {
		t.Fatal(err)
	}
	cfg := runner.Config{Threads: 1000, Duration: 3 * time.Second, ReportInterval: 500 * time.Millisecond}
	run, err := runner.Run(ctx, eng, w, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A thousand connections to one SQLite file can wait on each other
	// for a while (the run's warnings then say so): the structure holds.
	checkIntervals(t, run, cfg, false)
}

// Define is the test workload's Spec, made of its methods.
func (r *spin) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r *spin) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}
