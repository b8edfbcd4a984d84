package runner_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/workload"
)

// halts is a server that stops answering: each worker's first `before`
// transactions end at once, the next one never does (until the run
// cancels it), as under a server stopped by SIGSTOP.
type halts struct{ before int }

func (p halts) Meta() workload.Meta {
	return workload.Meta{Name: "halts", Version: "1", New: func() workload.Workload { return p }}
}
func (halts) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("halts", pflag.ContinueOnError) }
func (halts) Ops() []workload.Op                     { return []workload.Op{{Name: "a"}} }
func (halts) Tables(engine.Dialect) []workload.Table { return nil }
func (p halts) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return &haltsWorker{before: p.before}, nil
}

type haltsWorker struct{ before, n int }

func (w *haltsWorker) Next(ctx context.Context) (int, error) {
	if w.n++; w.n <= w.before {
		return 0, nil
	}
	<-ctx.Done()
	return 0, ctx.Err()
}

// slow is a workload whose every transaction takes d: slower than an
// interval, it leaves most intervals without one, steadily.
type slow struct{ d time.Duration }

func (p slow) Meta() workload.Meta {
	return workload.Meta{Name: "slow", Version: "1", New: func() workload.Workload { return p }}
}
func (slow) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("slow", pflag.ContinueOnError) }
func (slow) Ops() []workload.Op                     { return []workload.Op{{Name: "a"}} }
func (slow) Tables(engine.Dialect) []workload.Table { return nil }
func (p slow) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return slowWorker{p.d}, nil
}

type slowWorker struct{ d time.Duration }

func (w slowWorker) Next(ctx context.Context) (int, error) {
	select {
	case <-time.After(w.d):
		return 0, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// waitsOnce is two workers that deadlock once, as PostgreSQL's lock
// waits do until deadlock_timeout (1 s): from at after the first
// transaction, every worker waits wait once, then goes on.
type waitsOnce struct {
	at, wait time.Duration
	start    time.Time
	once     sync.Once
}

func (p *waitsOnce) Meta() workload.Meta {
	return workload.Meta{Name: "waits", Version: "1", New: func() workload.Workload { return p }}
}
func (*waitsOnce) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("waits", pflag.ContinueOnError) }
func (*waitsOnce) Ops() []workload.Op                     { return []workload.Op{{Name: "a"}} }
func (*waitsOnce) Tables(engine.Dialect) []workload.Table { return nil }
func (p *waitsOnce) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return &waitsOnceWorker{p: p}, nil
}

type waitsOnceWorker struct {
	p      *waitsOnce
	waited bool
}

func (w *waitsOnceWorker) Next(ctx context.Context) (int, error) {
	w.p.once.Do(func() { w.p.start = time.Now() })
	if !w.waited && time.Since(w.p.start) >= w.p.at {
		w.waited = true
		select {
		case <-time.After(w.p.wait):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	time.Sleep(time.Millisecond)
	return 0, nil
}

// A run that stops making progress (most of its measured intervals
// without a transaction ending, at a pace that makes them more than
// chance, or none at all while transactions were left running) ends
// stalled, with ErrStalled and every figure kept. One whose transactions
// are merely slower than an interval, or whose arrivals are rare, is
// complete, and so is one whose empty intervals add up to less than 2 s:
// a lock wait the server ends by itself.
func TestStalledRun(t *testing.T) {
	ctx := context.Background()
	cfg := runner.Config{Threads: 4, Duration: 3 * time.Second, ReportInterval: 250 * time.Millisecond, StopGrace: 50 * time.Millisecond}
	for _, c := range []struct {
		name string
		w    workload.Workload
	}{{"after a busy start", halts{before: 50}}, {"from the start", halts{}}} {
		t.Run(c.name, func(t *testing.T) {
			run, err := runWithPolicy(ctx, memEngine{open(t)}, c.w, cfg, nil)
			if !errors.Is(err, runner.ErrStalled) || run == nil || run.Status != result.StatusStalled {
				t.Fatalf("err %v, run %v: want %v and status stalled", err, run != nil, runner.ErrStalled)
			}
			if !strings.Contains(err.Error(), " 12 measured intervals") || run.Error != err.Error() {
				t.Errorf("error %q, run's %q", err, run.Error)
			}
			if run.Unfinished != 4 || len(run.Intervals) != 12 || run.Transactions != int64(4*c.w.(halts).before) {
				t.Errorf("unfinished %d, %d intervals, %d transactions: the figures are not kept", run.Unfinished, len(run.Intervals), run.Transactions)
			}
		})
	}
	for _, c := range []struct {
		name string
		cfg  runner.Config
		w    workload.Workload
	}{
		{"a lock wait of a second and more", runner.Config{Threads: 2, Duration: 1500 * time.Millisecond, ReportInterval: 250 * time.Millisecond},
			&waitsOnce{at: 10 * time.Millisecond, wait: 1300 * time.Millisecond}},
		{"slower than an interval", runner.Config{Threads: 2, Duration: time.Second, ReportInterval: 100 * time.Millisecond}, slow{250 * time.Millisecond}},
		{"rare arrivals", runner.Config{Threads: 2, Duration: time.Second, ReportInterval: 100 * time.Millisecond,
			Rate: timing.RateConfig{TPS: ratePtr(3), Arrival: timing.ArrivalUniform}}, slow{time.Millisecond}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run, err := runWithPolicy(ctx, memEngine{open(t)}, c.w, c.cfg, nil)
			if err != nil || run.Status != result.StatusComplete {
				t.Fatalf("err %v, status %s: want complete", err, run.Status)
			}
			empty := 0
			for _, iv := range run.Intervals {
				if iv.Transactions == 0 {
					empty++
				}
			}
			if empty*2 <= len(run.Intervals) {
				t.Errorf("%d of %d intervals empty: the case does not test what it means to", empty, len(run.Intervals))
			}
		})
	}
}

// Define is the test workload's Spec, made of its methods.
func (r halts) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r halts) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}

// Define is the test workload's Spec, made of its methods.
func (r slow) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r slow) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}

// Define is the test workload's Spec, made of its methods.
func (r *waitsOnce) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r *waitsOnce) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}
