package runner_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/postgres"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/load"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/workload"
)

// pointSelect returns oltp_point_select on one table of 1,000 rows,
// prepared on tg, with an admin connection of its own.
func pointSelect(t *testing.T, tg engine.Target) (engine.Engine, workload.Workload, engine.SQLConn) {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, tg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
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
	admin, err := engine.ConnectSQL(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	return eng, w, admin
}

func ratePtr(r float64) *float64 { return &r }

// Evenly spaced arrivals at 400/s for 5 s complete 2,000 transactions
// (± 1%) on SQLite and on PostgreSQL, each recorded with its service time
// and lag, and the result says what was offered.
func TestRateAccuracy(t *testing.T) {
	for _, c := range []struct {
		name   string
		target func(testing.TB) engine.Target
	}{{"engine=sqlite", testdb.SQLite}, {"engine=postgres", testdb.Postgres}} {
		t.Run(c.name, func(t *testing.T) {
			eng, w, _ := pointSelect(t, testdb.Isolated(t, c.target(t)))
			cfg := runner.Config{Threads: 4, Duration: 5 * time.Second,
				Rate: timing.RateConfig{TPS: ratePtr(400), Arrival: timing.ArrivalUniform}}
			run, err := runWithPolicy(context.Background(), eng, w, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(float64(run.Transactions)-2000) > 20 || run.Errors != 0 {
				t.Errorf("%d transactions, %d errors at 400/s for 5 s, want 2000 ± 1%% and none", run.Transactions, run.Errors)
			}
			// Every arrival of [0, 5 s) is accounted for: run, still
			// running at the end, or not started by then; the arrival at
			// 5 s is the next run's, not this one's.
			if n := run.Transactions + run.Unfinished + run.Unstarted; n != 2000 {
				t.Errorf("%d transactions + %d unfinished + %d unstarted = %d, want the 2000 arrivals", run.Transactions, run.Unfinished, run.Unstarted, n)
			}
			if run.Open == nil || run.Open.Arrival != timing.ArrivalUniform || run.Open.RateTPS != 400 || run.OfferedTPS != 400 {
				t.Errorf("open %+v offered %v, want uniform at 400/s", run.Open, run.OfferedTPS)
			}
			if run.ServiceMS == nil || run.LagMS == nil || run.Ops[0].ServiceHDR == "" {
				t.Fatalf("no service time or lag in the result: %+v", run)
			}
			if run.ServiceMS.Max > run.LatencyMS.Max || run.ServiceMS.P50 > run.LatencyMS.P50 {
				t.Errorf("service time %+v above the latency from the intended start %+v", run.ServiceMS, run.LatencyMS)
			}
			var n, late int64
			for _, iv := range run.Intervals {
				n += iv.Transactions
				late += iv.Late
				if iv.OfferedTPS != 400 || iv.ServiceMS == nil {
					t.Errorf("interval at %vs: offered %v, service %v, want 400/s and a service time", iv.TS, iv.OfferedTPS, iv.ServiceMS)
				}
			}
			if n != run.Transactions || late != run.Late || run.Ops[0].Late != run.Late {
				t.Errorf("intervals hold %d transactions, %d late; the run %d, %d (op %d)", n, late, run.Transactions, run.Late, run.Ops[0].Late)
			}
		})
	}
}

// Coordinated omission: while another session holds an ACCESS EXCLUSIVE
// lock on the workload's table for 2 s, arrivals go on at 200/s. Their
// latency from the intended start shows the stall (the arrival right
// after the lock was taken waits all of it), every arrival still runs
// (rate × time ± 1%), and the service time shows it only for the few
// transactions in flight when the lock was taken, at most one per worker.
func TestCoordinatedOmission(t *testing.T) {
	eng, w, admin := pointSelect(t, testdb.Isolated(t, testdb.Postgres(t)))
	ctx := context.Background()
	const threads, rate = 8, 200.0
	stall := 2 * time.Second
	held := make(chan time.Duration, 1)
	time.AfterFunc(2*time.Second, func() {
		if err := admin.Begin(ctx); err != nil {
			t.Error(err)
		}
		if err := admin.Exec(ctx, "LOCK TABLE sbtest1 IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Error(err)
		}
		locked := time.Now()
		time.Sleep(stall)
		// The lock is held at least until the COMMIT is sent; what
		// follows (the reply, this goroutine's turn to run on a busy
		// host) is not the workers' wait.
		hold := time.Since(locked)
		if err := admin.Commit(ctx); err != nil {
			t.Error(err)
		}
		held <- hold
	})
	cfg := runner.Config{Threads: threads, Duration: 7 * time.Second,
		Rate: timing.RateConfig{TPS: ratePtr(rate), Arrival: timing.ArrivalUniform}}
	run, err := runWithPolicy(ctx, eng, w, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	hold := <-held
	t.Logf("lock held %v; latency from the intended start %+v; service time %+v; lag %+v; %d late, %d unstarted",
		hold, run.LatencyMS, *run.ServiceMS, *run.LagMS, run.Late, run.Unstarted)
	if want := 7 * rate; math.Abs(float64(run.Transactions)-want) > want/100 || run.Errors != 0 {
		t.Errorf("%d transactions, %d errors, want %v ± 1%% and none", run.Transactions, run.Errors, want)
	}
	if n := run.Transactions + run.Unfinished + run.Unstarted; n != 7*rate {
		t.Errorf("%d transactions + %d unfinished + %d unstarted = %d, want all %v arrivals", run.Transactions, run.Unfinished, run.Unstarted, n, 7*rate)
	}
	// The first arrival after the lock was taken came at most one gap
	// (1/rate) after it, and waited for the rest.
	if min := (hold - time.Second/rate).Seconds() * 1000; run.LatencyMS.Max < min {
		t.Errorf("max latency from the intended start %v ms, want at least %v ms (the lock's %v less one gap)", run.LatencyMS.Max, min, hold)
	}
	second := int64(time.Second / time.Microsecond)
	slowLat, slowSvc := over(t, run.Ops[0].HDR, second), over(t, run.Ops[0].ServiceHDR, second)
	// The arrivals of the stall's first second waited at least a second.
	if slowLat < int64(rate*0.9) {
		t.Errorf("%d transactions took over 1 s from their intended start, want at least %v (the stall's first second)", slowLat, rate*0.9)
	}
	if slowSvc > threads {
		t.Errorf("%d service times over 1 s, want at most one per worker (%d): the stall belongs to the schedule, not the service", slowSvc, threads)
	}
	if run.Late < slowLat {
		t.Errorf("%d late, want at least the %d that waited over 1 s", run.Late, slowLat)
	}
	if run.Status != result.StatusComplete {
		t.Errorf("status %s", run.Status)
	}
}

// over counts the values of the encoded histogram s from us on.
func over(t *testing.T, s string, us int64) int64 {
	t.Helper()
	h, err := histogram.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, b := range h.Distribution() {
		if b.From >= us {
			n += b.Count
		}
	}
	return n
}

// A run at the highest rate the clock can tell apart, far above what any
// worker keeps up with, ends on time and can be interrupted: the
// arrivals that never start are counted, not stepped through, with an
// unbounded queue, a bounded one and a latency limit.
func TestRunAtMaxRate(t *testing.T) {
	for _, c := range []struct {
		name string
		rc   timing.RateConfig
	}{{"unbounded", timing.RateConfig{}}, {"max-queue", timing.RateConfig{MaxQueue: new(10)}}, {"latency-limit", timing.RateConfig{LatencyLimit: time.Millisecond}}} {
		t.Run(c.name, func(t *testing.T) {
			rc := c.rc
			rc.TPS = ratePtr(timing.MaxRate)
			cfg := runner.Config{Threads: 2, Duration: time.Second, ReportInterval: 250 * time.Millisecond, StopGrace: time.Second, Rate: rc}
			type ran struct {
				run *result.Run
				err error
			}
			done := make(chan ran, 1)
			begun := time.Now()
			go func() {
				run, err := runWithPolicy(context.Background(), memEngine{open(t)}, &spin{}, cfg, nil)
				done <- ran{run, err}
			}()
			var r ran
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("a 1 s run at --rate %g has not ended after 10 s", timing.MaxRate)
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			missed := r.run.Unstarted + r.run.Skipped + r.run.Dropped
			if r.run.Transactions == 0 || missed < 5e8 {
				t.Errorf("%d transactions, %d arrivals never started, want some and most of the 1e9 (ran %v)", r.run.Transactions, missed, time.Since(begun))
			}
			// Interrupted, the run ends at once as well.
			ctx, cancel := context.WithCancel(context.Background())
			cfg.Duration = time.Hour
			time.AfterFunc(500*time.Millisecond, cancel)
			go func() {
				run, err := runWithPolicy(ctx, memEngine{open(t)}, &spin{}, cfg, nil)
				done <- ran{run, err}
			}()
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("a run at --rate %g interrupted after 0.5 s has not ended after 10 s", timing.MaxRate)
			}
			if !errors.Is(r.err, runner.ErrInterrupted) || r.run.Status != result.StatusInterrupted {
				t.Errorf("interrupted: %v, want %v", r.err, runner.ErrInterrupted)
			}
		})
	}
}

// nap is a workload whose transactions take 5 ms each: two workers keep
// up with about 400 arrivals a second.
type nap struct{}

func (p nap) Meta() workload.Meta {
	return workload.Meta{Name: "nap", Version: "1", New: func() workload.Workload { return p }}
}
func (nap) Flags() *pflag.FlagSet                  { return pflag.NewFlagSet("nap", pflag.ContinueOnError) }
func (nap) Ops() []workload.Op                     { return []workload.Op{{Name: "a"}} }
func (nap) Tables(engine.Dialect) []workload.Table { return nil }
func (nap) NewWorker(context.Context, engine.Conn, workload.WorkerEnv) (workload.Worker, error) {
	return napWorker{}, nil
}

type napWorker struct{}

func (napWorker) Next(ctx context.Context) (int, error) {
	select {
	case <-time.After(5 * time.Millisecond):
		return 0, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Offered far more than it can start, a run accounts for every arrival
// (offered = started + skipped + dropped + unstarted), records how long
// the unstarted ones had waited by the end beside the latency of those
// that ran, and warns that most of the load never started.
func TestOpenLoopShortfall(t *testing.T) {
	for _, c := range []struct {
		name string
		rc   timing.RateConfig
	}{{"unbounded", timing.RateConfig{}}, {"max-queue", timing.RateConfig{MaxQueue: new(20)}}} {
		t.Run(c.name, func(t *testing.T) {
			rc := c.rc
			rc.TPS, rc.Arrival = ratePtr(4000), timing.ArrivalUniform
			cfg := runner.Config{Threads: 2, Duration: time.Second, ReportInterval: 250 * time.Millisecond, StopGrace: time.Second, Rate: rc}
			run, err := runWithPolicy(context.Background(), memEngine{open(t)}, nap{}, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if run.Offered != 4000 {
				t.Errorf("%d arrivals offered, want 4000", run.Offered)
			}
			if started := run.Transactions + run.Errors + run.Unfinished; run.Started != started {
				t.Errorf("%d started, want the %d transactions that ended or were running at the end", run.Started, started)
			}
			if sum := run.Started + run.Skipped + run.Dropped + run.Unstarted; sum != run.Offered {
				t.Errorf("%d started + %d skipped + %d dropped + %d unstarted = %d, want the %d offered", run.Started, run.Skipped, run.Dropped, run.Unstarted, sum, run.Offered)
			}
			if run.Started*2 > run.Offered {
				t.Fatalf("%d of %d arrivals started, want well under half", run.Started, run.Offered)
			}
			if run.Unstarted > 0 {
				w := run.UnstartedMS
				if w == nil || w.Max <= 0 || w.Max > 1000 || w.P50 > w.Max || run.UnstartedHDR == "" {
					t.Errorf("unstarted %d, waits %+v, want waits up to the run's 1 s", run.Unstarted, w)
				}
			} else if run.UnstartedMS != nil {
				t.Errorf("waits %+v without unstarted arrivals", run.UnstartedMS)
			}
			found := false
			for _, w := range run.Warnings {
				found = found || strings.Contains(w, fmt.Sprintf("of the %d arrivals offered started", run.Offered))
			}
			if !found {
				t.Errorf("no warning that most arrivals did not start: %q", run.Warnings)
			}
		})
	}
}

// Define is the test workload's Spec, made of its methods.
func (r nap) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r nap) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}
