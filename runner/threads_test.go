package runner_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// On PostgreSQL the workers run on --client-threads OS threads (one per
// CPU by default, at most --threads), and the result says so with the Go
// runtime's settings; on MySQL they run on goroutines with GOMAXPROCS set
// to --client-threads (half the CPUs by default, at most --threads); -1
// gives each worker a goroutine under Go's defaults, as SQLite always has.
// Every way counts its transactions in its intervals alike, and GOMAXPROCS
// is restored after the run.
func TestClientThreads(t *testing.T) {
	pg, w, _ := pointSelect(t, testdb.Isolated(t, testdb.Postgres(t)))
	lite, wl, _ := pointSelect(t, testdb.Isolated(t, testdb.SQLite(t)))
	my, wm, _ := pointSelect(t, testdb.Isolated(t, testdb.MySQL(t)))
	procs := runtime.GOMAXPROCS(0)
	for _, c := range []struct {
		name          string
		eng           engine.Engine
		w             workload.Workload
		threads, flag int
		want          int
		// wantProcs is the GOMAXPROCS a goroutine-driven run must record
		// (0: at least one more than the threads).
		wantProcs int
	}{
		{"postgres/default", pg, w, 8, 0, min(runtime.NumCPU(), 8), 0},
		{"postgres/3", pg, w, 8, 3, 3, 0},
		{"postgres/more-than-workers", pg, w, 2, 5, 2, 0},
		{"postgres/goroutines", pg, w, 8, -1, 0, procs},
		{"sqlite/default", lite, wl, 4, 0, 0, procs},
		{"sqlite/3", lite, wl, 4, 3, 0, procs},
		{"mysql/default", my, wm, 8, 0, 0, max(1, runtime.NumCPU()/2)},
		{"mysql/3", my, wm, 8, 3, 0, 3},
		{"mysql/more-than-workers", my, wm, 2, 5, 0, 2},
		{"mysql/goroutines", my, wm, 8, -1, 0, procs},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := runner.Config{Threads: c.threads, ClientThreads: c.flag, Duration: time.Second, ReportInterval: 250 * time.Millisecond}
			run, err := runWithPolicy(context.Background(), c.eng, c.w, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkIntervals(t, run, cfg, true)
			if run.ClientThreads != c.want {
				t.Errorf("client_threads %d, want %d", run.ClientThreads, c.want)
			}
			if run.GCPercent == 0 {
				t.Errorf("gc_percent %d: want the GC setting", run.GCPercent)
			}
			if c.wantProcs != 0 && run.GOMAXPROCS != c.wantProcs {
				t.Errorf("gomaxprocs %d, want %d", run.GOMAXPROCS, c.wantProcs)
			}
			if c.wantProcs == 0 && run.GOMAXPROCS < run.ClientThreads+1 {
				t.Errorf("gomaxprocs %d with %d client threads: want at least one P beside the threads", run.GOMAXPROCS, run.ClientThreads)
			}
		})
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS is %d after the runs, want it restored (%d)", got, procs)
	}
}

// pacer is a workload on PostgreSQL whose workers run SELECT 1 and pause
// a fixed time between transactions (a workload.Pacer, like TPC-C's
// keying and think times).
type pacer struct {
	pause time.Duration
	ran   atomic.Int64
}

func (p *pacer) Meta() workload.Meta {
	return workload.Meta{Name: "pacer", Version: "1", New: func() workload.Workload { return p }}
}
func (p *pacer) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("pacer", pflag.ContinueOnError) }
func (p *pacer) Ops() []workload.Op                     { return []workload.Op{{Name: "select"}} }
func (p *pacer) Tables(engine.Dialect) []workload.Table { return nil }
func (p *pacer) NewWorker(_ context.Context, c engine.Conn, _ workload.WorkerEnv) (workload.Worker, error) {
	sc, err := engine.SQL(c)
	if err != nil {
		return nil, err
	}
	return &pacerWorker{p: p, c: sc}, nil
}

type pacerWorker struct {
	p *pacer
	c engine.SQLConn
}

func (w *pacerWorker) Next(ctx context.Context) (int, error) {
	w.p.ran.Add(1)
	return 0, w.c.Exec(ctx, "SELECT 1")
}

func (w *pacerWorker) Pause() time.Duration { return w.p.pause }

// Pauses on a client thread suspend only their worker: eight workers
// pausing 20 ms on one thread still make about eight times the
// transactions one would. A pause longer than the run ends when the run
// stops, and a cancelled run ends at once however long its workers
// pause.
func TestThreadPauses(t *testing.T) {
	eng, _ := prepared(t, testdb.Isolated(t, testdb.Postgres(t)))
	p := &pacer{pause: 20 * time.Millisecond}
	cfg := runner.Config{Threads: 8, ClientThreads: 1, Duration: time.Second, ReportInterval: 250 * time.Millisecond}
	run, err := runWithPolicy(context.Background(), eng, p, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkIntervals(t, run, cfg, true)
	// One worker alone makes at most 50 in a second; eight sharing the
	// thread, each in its own pause, about 400.
	if run.Transactions < 150 {
		t.Errorf("%d transactions by 8 workers pausing 20 ms on one thread, want well over one worker's 50", run.Transactions)
	}

	long := &pacer{pause: time.Hour}
	cfg = runner.Config{Threads: 4, ClientThreads: 2, Duration: 500 * time.Millisecond, ReportInterval: 250 * time.Millisecond}
	run, err = runWithPolicy(context.Background(), eng, long, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != result.StatusComplete || long.ran.Load() != 0 {
		t.Errorf("status %s after %d transactions, want complete with none (each worker pauses before its first)", run.Status, long.ran.Load())
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2*time.Second, cancel) // once the workers connected and pause
	cfg.Duration = time.Hour
	run, err = runWithPolicy(ctx, eng, &pacer{pause: time.Hour}, cfg, nil)
	if run == nil || run.Status != result.StatusInterrupted {
		t.Fatalf("cancelled run: %+v, %v; want interrupted", run, err)
	}
}

// Define is the test workload's Spec, made of its methods.
func (r *pacer) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r *pacer) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}
