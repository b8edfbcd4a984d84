package runner_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/drive"
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// panicker is a workload on PostgreSQL whose workers run SELECT 1; its
// first worker panics in its fifth transaction.
type panicker struct{}

func (panicker) Meta() workload.Meta {
	return workload.Meta{Name: "panicker", Version: "1", New: func() workload.Workload { return panicker{} }}
}
func (panicker) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("panicker", pflag.ContinueOnError) }
func (panicker) Ops() []workload.Op                     { return []workload.Op{{Name: "select"}} }
func (panicker) Tables(engine.Dialect) []workload.Table { return nil }
func (panicker) NewWorker(_ context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	sc, err := engine.SQL(c)
	if err != nil {
		return nil, err
	}
	return &panickerWorker{c: sc, id: env.ID}, nil
}

type panickerWorker struct {
	c  engine.SQLConn
	id int
	n  atomic.Int64
}

func (w *panickerWorker) Next(ctx context.Context) (int, error) {
	if w.n.Add(1) == 5 && w.id == 0 {
		panic("workload bug")
	}
	return 0, w.c.Exec(ctx, "SELECT 1")
}

// A worker's panic on a client thread fails the run at once, with the
// panic and the worker's stack, while the thread's other workers are
// stopped: the run neither waits for its end nor crashes. Both ways of
// driving connections (epoll, io_uring) do.
func TestThreadWorkerPanicFailsRun(t *testing.T) {
	for _, io := range []string{runner.ClientIOEpoll, runner.ClientIORing} {
		t.Run(io, func(t *testing.T) { threadWorkerPanicFailsRun(t, io) })
	}
}

func threadWorkerPanicFailsRun(t *testing.T, io string) {
	eng, err := engine.Open(context.Background(), testdb.Isolated(t, testdb.Postgres(t)), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	cfg := runner.Config{Threads: 4, ClientThreads: 1, ClientIO: io, Duration: 30 * time.Second, ReportInterval: time.Second}
	type ran struct {
		run *result.Run
		err error
	}
	done := make(chan ran, 1)
	go func() {
		r, err := runWithPolicy(context.Background(), eng, panicker{}, cfg, nil)
		done <- ran{r, err}
	}()
	var got ran
	select {
	case got = <-done:
	case <-time.After(cfg.Duration / 3):
		t.Fatalf("the run went on after a worker panicked (%v run)", cfg.Duration)
	}
	var pe *drive.PanicError
	if !errors.As(got.err, &pe) || pe.Value != "workload bug" || !strings.Contains(pe.Stack, "panickerWorker") {
		t.Fatalf("run error %v, want the worker's panic with its stack", got.err)
	}
	if got.run == nil || got.run.Status != result.StatusFailed {
		t.Errorf("run %+v, want a failed run", got.run)
	}
}

// Under GODEBUG=asyncpreemptoff=1 a PostgreSQL run's workers run on
// goroutines, not on client threads (which rely on asynchronous
// preemption), and the result says why. The test runs itself again
// with the setting.
func TestThreadsWithoutAsyncPreemption(t *testing.T) {
	if drive.Unsupported() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestThreadsWithoutAsyncPreemption$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestThreadsWithoutAsyncPreemption") {
			t.Fatalf("under GODEBUG=asyncpreemptoff=1: %v\n%s", err, out)
		}
		return
	}
	eng, err := engine.Open(context.Background(), testdb.Isolated(t, testdb.Postgres(t)), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	cfg := runner.Config{Threads: 4, Duration: 500 * time.Millisecond, ReportInterval: 250 * time.Millisecond}
	run, err := runWithPolicy(context.Background(), eng, &pacer{}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.ClientThreads != 0 || run.Transactions == 0 {
		t.Errorf("client_threads %d, %d transactions: want the workers on goroutines, running", run.ClientThreads, run.Transactions)
	}
	if !slices.ContainsFunc(run.Warnings, func(w string) bool { return strings.Contains(w, "asyncpreemptoff") }) {
		t.Errorf("warnings %q: want one saying why client threads were not used", run.Warnings)
	}
}

// envSleeper is a workload on PostgreSQL whose transactions run SELECT 1 and
// then wait through their WorkerEnv.Sleep (as --booking-sleep and \sleep
// do).
type envSleeper struct{ d time.Duration }

func (s envSleeper) Meta() workload.Meta {
	return workload.Meta{Name: "env-sleeper", Version: "1", New: func() workload.Workload { return s }}
}
func (envSleeper) Flags() *pflag.FlagSet {
	return pflag.NewFlagSet("env-sleeper", pflag.ContinueOnError)
}
func (envSleeper) Ops() []workload.Op                     { return []workload.Op{{Name: "select"}} }
func (envSleeper) Tables(engine.Dialect) []workload.Table { return nil }
func (s envSleeper) NewWorker(_ context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	sc, err := engine.SQL(c)
	if err != nil {
		return nil, err
	}
	return &envSleeperWorker{c: sc, d: s.d, env: env}, nil
}

type envSleeperWorker struct {
	c   engine.SQLConn
	d   time.Duration
	env workload.WorkerEnv
}

func (w *envSleeperWorker) Next(ctx context.Context) (int, error) {
	if err := w.c.Exec(ctx, "SELECT 1"); err != nil {
		return 0, err
	}
	w.env.Sleep(ctx, w.d)
	return 0, nil
}

// The runner hands workers a Sleep that suspends only the worker on a
// client thread: eight workers sleeping 20 ms in each transaction on one
// thread make about eight times the transactions one would, and a sleep
// longer than the run ends when it stops.
func TestWorkerEnvSleepOnThread(t *testing.T) {
	eng, err := engine.Open(context.Background(), testdb.Isolated(t, testdb.Postgres(t)), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	cfg := runner.Config{Threads: 8, ClientThreads: 1, Duration: time.Second, ReportInterval: 250 * time.Millisecond}
	run, err := runWithPolicy(context.Background(), eng, envSleeper{20 * time.Millisecond}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One worker alone makes at most 50 in a second; eight sharing the
	// thread, each in its own sleep, about 400.
	if run.Transactions < 150 {
		t.Errorf("%d transactions by 8 workers sleeping 20 ms on one thread, want well over one worker's 50", run.Transactions)
	}
	cfg = runner.Config{Threads: 4, ClientThreads: 2, Duration: 500 * time.Millisecond, ReportInterval: 250 * time.Millisecond, StopGrace: time.Hour}
	done := make(chan *result.Run, 1)
	go func() {
		run, err := runWithPolicy(context.Background(), eng, envSleeper{time.Hour}, cfg, nil)
		if err != nil {
			t.Error(err)
		}
		done <- run
	}()
	select {
	case run := <-done:
		if run != nil && run.Status != result.StatusComplete {
			t.Errorf("status %s, want complete", run.Status)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a run whose workers sleep an hour did not end when it stopped")
	}
}

// Define is the test workload's Spec, made of its methods.
func (r panicker) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r panicker) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}

// Define is the test workload's Spec, made of its methods.
func (r envSleeper) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r envSleeper) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}
