package runner_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbarena/dbarena/engine"
	_ "github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/internal/testdb"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/sysmon"
	"github.com/dbarena/dbarena/workload"
)

// probe is a small workload for testing the runner against a real SQLite
// database: each transaction reads one row, and every n-th one runs a
// statement that fails the way the test asks.
type probe struct {
	failEvery int
	failSQL   string // statement that fails (unique violation, syntax error)
	retry     bool   // treat unique violations as retryable
	sleep     time.Duration
	started   atomic.Int64 // transactions attempted, all workers
	succeeded atomic.Int64
}

type retryingProbe struct{ *probe }

func (p retryingProbe) Retryable(c engine.ErrorClass) bool { return c == engine.ClassUniqueViolation }

func (p *probe) Meta() workload.Meta {
	return workload.Meta{Name: "probe", Version: "1", New: func() workload.Workload { return p }}
}
func (p *probe) Flags() *pflag.FlagSet { return pflag.NewFlagSet("probe", pflag.ContinueOnError) }
func (p *probe) Ops() []workload.Op    { return []workload.Op{{Name: "read"}, {Name: "fail"}} }
func (p *probe) Tables(engine.Dialect) []workload.Table {
	return nil
}

func (p *probe) NewWorker(ctx context.Context, conn engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	c := conn.(engine.SQLConn)
	sel, err := c.Prepare(ctx, "SELECT v FROM probe WHERE id = ?")
	if err != nil {
		return nil, err
	}
	return &probeWorker{p: p, c: c, sel: sel, q: env.Queries}, nil
}

type probeWorker struct {
	p   *probe
	c   engine.SQLConn
	sel engine.Stmt
	q   *workload.Queries
	n   int
}

func (w *probeWorker) Next(ctx context.Context) (int, error) {
	w.n++
	w.p.started.Add(1)
	if w.p.sleep > 0 {
		time.Sleep(w.p.sleep)
	}
	if w.p.failEvery > 0 && w.n%w.p.failEvery == 0 {
		w.q.Writes++
		return 1, w.c.Exec(ctx, w.p.failSQL)
	}
	if _, err := w.sel.Query(ctx, 1); err != nil {
		return 0, err
	}
	w.q.Reads++
	w.p.succeeded.Add(1)
	return 0, nil
}

func open(t testing.TB) engine.Engine {
	t.Helper()
	ctx := context.Background()
	eng, err := engine.Open(ctx, testdb.SQLite(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	c, err := engine.ConnectSQL(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{"CREATE TABLE probe (id INTEGER PRIMARY KEY, v TEXT)", "INSERT INTO probe VALUES (1, 'one')"} {
		if err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return eng
}

type ticks struct {
	mu sync.Mutex
	n  []runner.Tick
}

func (o *ticks) OnTick(t runner.Tick) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t.Interval = nil // reused by the runner
	o.n = append(o.n, t)
}

// The warm-up is cut at one instant: the measured totals are exactly the
// sum of the measured intervals, the warm-up intervals are marked, and
// everything a worker did is either in the warm-up, the measured phase,
// or after the end.
func TestWarmupCutAtOneInstant(t *testing.T) {
	eng := open(t)
	p := &probe{sleep: 200 * time.Microsecond}
	obs := &ticks{}
	run, err := runner.Run(context.Background(), eng, p, runner.Config{
		Threads: 2, Duration: 400 * time.Millisecond, Warmup: 250 * time.Millisecond, ReportInterval: 100 * time.Millisecond,
	}, obs)
	if err != nil {
		t.Fatal(err)
	}
	var warm, measured int64
	var nWarm int
	for _, iv := range run.Intervals {
		if iv.Warmup {
			warm += iv.Transactions
			nWarm++
		} else {
			measured += iv.Transactions
		}
	}
	if nWarm != 3 { // 100 ms, 100 ms, then 50 ms up to the cut at 250 ms
		t.Errorf("%d warm-up intervals, want 3: %+v", nWarm, run.Intervals)
	}
	if run.Transactions != measured || run.Transactions == 0 {
		t.Errorf("run.Transactions = %d, sum of measured intervals = %d", run.Transactions, measured)
	}
	if got := p.succeeded.Load(); got < warm+measured {
		t.Errorf("workers completed %d, fewer than counted %d", got, warm+measured)
	}
	if run.Ops[0].Count != run.Transactions || run.Reads != run.Transactions {
		t.Errorf("op count %d, reads %d, transactions %d: want equal", run.Ops[0].Count, run.Reads, run.Transactions)
	}
	if run.DurationS < 0.39 || run.WarmupS != 0.25 || run.Status != result.StatusComplete {
		t.Errorf("duration %v warmup %v status %s", run.DurationS, run.WarmupS, run.Status)
	}
	if len(obs.n) != len(run.Intervals) {
		t.Errorf("observer saw %d ticks, result has %d intervals", len(obs.n), len(run.Intervals))
	}
	if run.Ops[0].HDR == "" || run.ClientCPUS <= 0 {
		t.Errorf("missing hdr or client cpu: %+v", run.Ops[0])
	}
}

// Failed transactions are counted per op and never enter the success
// histogram; with --tolerate-errors the run goes on.
func TestErrorsCountedNotTimed(t *testing.T) {
	eng := open(t)
	p := &probe{failEvery: 4, failSQL: "SELECT * FROM no_such_table"}
	run, err := runner.Run(context.Background(), eng, p, runner.Config{
		Threads: 1, Duration: 200 * time.Millisecond, TolerateErrors: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	read, fail := run.Ops[0], run.Ops[1]
	if fail.Count != 0 || fail.Errors == 0 || fail.Retries != 0 {
		t.Errorf("fail op: %d successes, %d errors, %d retries; want 0, >0, 0", fail.Count, fail.Errors, fail.Retries)
	}
	if read.Errors != 0 || read.Count == 0 {
		t.Errorf("read op: %d successes %d errors", read.Count, read.Errors)
	}
	// One failure per three successes (give or take the edges of the run).
	if d := read.Count - 3*fail.Errors; d < -3 || d > 3 {
		t.Errorf("%d successes for %d errors, want 3 per error", read.Count, fail.Errors)
	}
	if run.Errors != fail.Errors {
		t.Errorf("run.Errors = %d, want %d", run.Errors, fail.Errors)
	}
}

// Without --tolerate-errors the first error beyond --max-errors stops the
// run as failed, and what was measured is kept.
func TestMaxErrorsStopsRun(t *testing.T) {
	eng := open(t)
	p := &probe{failEvery: 50, failSQL: "SELECT * FROM no_such_table"}
	run, err := runner.Run(context.Background(), eng, p, runner.Config{
		Threads: 1, Duration: 30 * time.Second, MaxErrors: 2,
	}, nil)
	if !errors.Is(err, runner.ErrTooManyErrors) {
		t.Fatalf("err = %v, want ErrTooManyErrors", err)
	}
	if run == nil || run.Status != result.StatusFailed || run.Errors != 3 || run.Transactions < 100 {
		t.Fatalf("run = %+v, want failed with 3 errors and ≥ 100 transactions", run)
	}
	if run.DurationS > 20 {
		t.Errorf("run lasted %vs, want it stopped at the third error", run.DurationS)
	}
}

// Unique violations are retried only when the workload says so.
func TestRetryPolicy(t *testing.T) {
	for _, retry := range []bool{false, true} {
		t.Run(fmt.Sprintf("retry=%v", retry), func(t *testing.T) {
			eng := open(t)
			p := &probe{failEvery: 3, failSQL: "INSERT INTO probe VALUES (1, 'dup')"}
			var w workload.Workload = p
			if retry {
				w = retryingProbe{p}
			}
			run, err := runner.Run(context.Background(), eng, w, runner.Config{Threads: 1, Duration: 150 * time.Millisecond, TolerateErrors: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			f := run.Ops[1]
			if retry && (f.Retries == 0 || f.Errors != 0) {
				t.Errorf("retries %d errors %d, want retries only", f.Retries, f.Errors)
			}
			if !retry && (f.Errors == 0 || f.Retries != 0) {
				t.Errorf("retries %d errors %d, want errors only", f.Retries, f.Errors)
			}
		})
	}
}

// Cancelling the context (Ctrl-C) ends the run at once, marked
// interrupted, with everything measured so far.
func TestInterrupt(t *testing.T) {
	eng := open(t)
	p := &probe{sleep: time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	run, err := runner.Run(ctx, eng, p, runner.Config{Threads: 2, Duration: time.Minute, ReportInterval: 100 * time.Millisecond}, nil)
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("interrupt took %v", time.Since(start))
	}
	if run.Status != result.StatusInterrupted || run.Transactions == 0 || len(run.Intervals) == 0 {
		t.Errorf("run = status %s, %d transactions, %d intervals", run.Status, run.Transactions, len(run.Intervals))
	}
}

func TestConfigValidateNamesFlags(t *testing.T) {
	errs := runner.Config{Threads: 0, Duration: -time.Second, Warmup: -1, MaxErrors: -1, ReportInterval: time.Second}.Validate()
	want := []string{"--threads 0", "--time -1s", "--warmup -1ns", "--max-errors -1"}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors %v, want %d", len(errs), errs, len(want))
	}
	for i, w := range want {
		if got := errs[i].Error(); len(got) < len(w) || got[:len(w)] != w {
			t.Errorf("error %d = %q, want it to start with %q", i, got, w)
		}
	}
}

// A report interval of 0, and a limit of errors with --tolerate-errors,
// are refused as flags and plans give them.
func TestConfigValidateContradictions(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  runner.Config
		want string
	}{
		{"report interval 0", runner.Config{Threads: 1, Duration: time.Second}, "--report-interval 0s: must be at least 10ms"},
		{"max errors with tolerate errors", runner.Config{Threads: 1, Duration: time.Second, ReportInterval: time.Second, MaxErrors: 5, TolerateErrors: true}, "--max-errors 5: contradicts --tolerate-errors"},
		{"client io unknown", runner.Config{Threads: 1, Duration: time.Second, ReportInterval: time.Second, ClientIO: "uring"}, "--client-io uring: must be epoll or io_uring"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := tc.cfg.Validate()
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Errorf("Validate = %v, want %q", errs, tc.want)
			}
		})
	}
	ok := runner.DefaultConfig()
	ok.TolerateErrors = true
	if errs := ok.Validate(); len(errs) != 0 {
		t.Errorf("--tolerate-errors alone: %v", errs)
	}
}

func TestWorkerSeedsDiffer(t *testing.T) {
	seen := map[uint64]bool{}
	for id := 0; id < 1000; id++ {
		s := runner.WorkerSeed(1, id)
		if seen[s] {
			t.Fatalf("seed collision at worker %d", id)
		}
		seen[s] = true
	}
	if runner.WorkerSeed(1, 0) != runner.WorkerSeed(1, 0) || runner.WorkerSeed(1, 0) == runner.WorkerSeed(2, 0) {
		t.Error("WorkerSeed must be a pure function of (seed, id)")
	}
}

// replayProbe's workers fail every third transaction's first attempts
// with a unique violation (retryable here); the first attempt is slow.
type replayProbe struct {
	probe
	failAttempts int
	policy       workload.RetryPolicy
}

func (p *replayProbe) Retryable(c engine.ErrorClass) bool { return c == engine.ClassUniqueViolation }
func (p *replayProbe) RunDefaults() workload.RunDefaults {
	return workload.RunDefaults{Retry: p.policy}
}
func (p *replayProbe) NewWorker(ctx context.Context, c engine.Conn, env workload.WorkerEnv) (workload.Worker, error) {
	w, err := p.probe.NewWorker(ctx, c, env)
	if err != nil {
		return nil, err
	}
	return &replayWorker{probeWorker: w.(*probeWorker), p: p}, nil
}

type replayWorker struct {
	*probeWorker
	p        *replayProbe
	attempts int // of the current failing transaction
}

func (w *replayWorker) Next(ctx context.Context) (int, error) {
	w.n++
	if w.n%3 != 0 {
		return 0, nil
	}
	w.attempts = 0
	time.Sleep(30 * time.Millisecond) // the first attempt's cost
	return w.Replay(ctx)
}

func (w *replayWorker) Replay(ctx context.Context) (int, error) {
	w.attempts++
	if w.attempts <= w.p.failAttempts {
		return 1, w.c.Exec(ctx, "INSERT INTO probe VALUES (1, 'dup')")
	}
	return 1, nil
}

// A Replayer's failed transaction is run again with the same input after
// back-offs; its latency runs from the first attempt; after MaxRetries
// failed replays it is an error.
func TestReplay(t *testing.T) {
	policy := workload.RetryPolicy{Base: time.Millisecond, Max: 4 * time.Millisecond, MaxRetries: 3}
	t.Run("succeeds", func(t *testing.T) {
		p := &replayProbe{failAttempts: 2, policy: policy}
		run, err := runner.Run(context.Background(), open(t), p, runner.Config{Threads: 1, Duration: 400 * time.Millisecond}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := run.Ops[1]
		// Each slow transaction: two failed attempts (retries), then a
		// commit; none is an error.
		if f.Count == 0 || f.Errors != 0 || f.Retries < 2*f.Count || f.Retries > 2*f.Count+2 {
			t.Errorf("count %d retries %d errors %d; want retries = 2 × count (± the one in flight), no errors", f.Count, f.Retries, f.Errors)
		}
		if f.LatencyMS.Min < 30 {
			t.Errorf("latency min %.2f ms: not measured from the first (30 ms) attempt", f.LatencyMS.Min)
		}
	})
	t.Run("gives up", func(t *testing.T) {
		p := &replayProbe{failAttempts: 100, policy: policy}
		run, err := runner.Run(context.Background(), open(t), p, runner.Config{Threads: 1, Duration: 400 * time.Millisecond, TolerateErrors: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := run.Ops[1]
		// The first attempt and replays 1 and 2 are retries; replay 3 is
		// the error.
		if f.Count != 0 || f.Errors == 0 || f.Retries < 3*f.Errors || f.Retries > 3*f.Errors+3 {
			t.Errorf("count %d retries %d errors %d; want no commit, 3 retries per error", f.Count, f.Retries, f.Errors)
		}
	})
	t.Run("run overrides the workload", func(t *testing.T) {
		p := &replayProbe{failAttempts: 1, policy: policy}
		none := 0
		run, err := runner.Run(context.Background(), open(t), p, runner.Config{Threads: 1, Duration: 300 * time.Millisecond,
			Retry: runner.RetryOverride{MaxRetries: &none}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// --max-retries 0: a failed attempt is a retry, never replayed.
		if f := run.Ops[1]; f.Count != 0 || f.Errors != 0 || f.Retries == 0 {
			t.Errorf("count %d retries %d errors %d; want retries only", f.Count, f.Retries, f.Errors)
		}
	})
	if b := policy.Backoff(1); b != time.Millisecond {
		t.Errorf("Backoff(1) = %v", b)
	}
	if b := policy.Backoff(3); b != 4*time.Millisecond {
		t.Errorf("Backoff(3) = %v, want 4ms", b)
	}
	if b := policy.Backoff(10); b != 4*time.Millisecond {
		t.Errorf("Backoff(10) = %v, want the 4ms cap", b)
	}
}

// cpuSource is a server whose process uses 10 ms of CPU between samples.
type cpuSource struct{ us atomic.Uint64 }

func (s *cpuSource) Name() string { return "process" }
func (s *cpuSource) Sample(_ context.Context, smp *sysmon.Sample) error {
	smp.SetCounter("server.cpu_us", s.us.Add(10000))
	return nil
}

// Server metrics are sampled at every tick, the warm-up's included, and
// summarised over the measured intervals only; the server's CPU per
// transaction divides the process's CPU time like the client's.
func TestServerMetrics(t *testing.T) {
	eng := open(t)
	p := &probe{sleep: 200 * time.Microsecond}
	obs := &ticks{}
	src := &cpuSource{}
	run, err := runner.Run(context.Background(), eng, p, runner.Config{
		Threads: 2, Duration: 500 * time.Millisecond, Warmup: 200 * time.Millisecond, ReportInterval: 100 * time.Millisecond,
		Server: sysmon.New(src),
	}, obs)
	if err != nil {
		t.Fatal(err)
	}
	measured := 0
	var secs float64
	for i, iv := range run.Intervals {
		if iv.Server["server_cpu_pct"] <= 0 {
			t.Errorf("interval %d: no server CPU: %v", i, iv.Server)
		}
		if obs.n[i].Server["server_cpu_pct"] != iv.Server["server_cpu_pct"] {
			t.Errorf("interval %d: the observer saw %v, the result holds %v", i, obs.n[i].Server, iv.Server)
		}
		if !iv.Warmup {
			measured++
			secs += iv.Server[sysmon.IntervalKey]
		}
	}
	if got := run.Server[sysmon.IntervalKey]; math.Abs(got-secs) > 1e-6 || got > 0.6 {
		t.Errorf("summary covers %v s, want the measured intervals' %v s", got, secs)
	}
	// 10 ms of server CPU per measured interval.
	want := float64(measured) * 10000 / float64(run.Transactions) * run.DurationS / secs
	if got := run.ServerCPUPerTxnUS; math.Abs(got-want) > 0.02*want+0.01 {
		t.Errorf("server CPU per transaction = %v µs, want %v", got, want)
	}
	if run.ServerCPUPerQueryUS <= 0 || run.Queries != run.Transactions && run.ServerCPUPerQueryUS == run.ServerCPUPerTxnUS {
		t.Errorf("server CPU per query = %v", run.ServerCPUPerQueryUS)
	}
}

// lateScheduler lets each worker start limit transactions, each measured
// from an intended start late before the actual one, and then stops it.
type lateScheduler struct {
	late  time.Duration
	limit int
}

func (s lateScheduler) Worker(env timing.ScheduleEnv) timing.WorkerSchedule {
	return &lateSchedule{s: s, now: env.Now}
}

type lateSchedule struct {
	s   lateScheduler
	now func() time.Time
	n   int
}

func (w *lateSchedule) Start(context.Context) (timing.Slot, bool) {
	if w.n++; w.n > w.s.limit {
		return timing.Slot{}, false
	}
	now := w.now()
	return timing.Slot{Intended: now.Add(-w.s.late), Began: now}, true
}

// The scheduler decides whether and when each worker starts a transaction
// and from which instant its latency runs.
func TestScheduler(t *testing.T) {
	eng := open(t)
	p := &probe{}
	run, err := runner.Run(context.Background(), eng, p, runner.Config{
		Threads: 3, Duration: 200 * time.Millisecond, Scheduler: lateScheduler{late: 50 * time.Millisecond, limit: 7},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Transactions != 21 || p.started.Load() != 21 {
		t.Errorf("%d transactions recorded, %d started, want 3 workers × 7", run.Transactions, p.started.Load())
	}
	if run.LatencyMS.Min < 49 { // HDR precision: 50 ms reads 49.98
		t.Errorf("min latency %v ms, want it measured from the intended start, ≥ 50 ms", run.LatencyMS.Min)
	}
}

// The run's isolation level is checked against the engine before any
// work, naming --isolation, and set on every worker's connection.
func TestIsolation(t *testing.T) {
	eng := open(t)
	_, err := runner.Run(context.Background(), eng, &probe{}, runner.Config{Threads: 1, Duration: 100 * time.Millisecond, Isolation: "read-committed"}, nil)
	var oe *workload.OptionError
	if !errors.As(err, &oe) || oe.Flag != "isolation" || oe.Value != "read-committed" {
		t.Fatalf("read-committed on SQLite: %v, want an OptionError naming --isolation", err)
	}
	run, err := runner.Run(context.Background(), eng, &probe{}, runner.Config{Threads: 2, Duration: 100 * time.Millisecond, Isolation: "serializable"}, nil)
	if err != nil || run.Transactions == 0 {
		t.Fatalf("serializable on SQLite: %v", err)
	}
	errs := runner.Config{Threads: 1, Duration: time.Second, ReportInterval: time.Second, Isolation: "snapshot"}.Validate()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "--isolation snapshot: must be read-committed, repeatable-read or serializable") {
		t.Errorf("Validate: %v", errs)
	}
}

// Define is the test workload's Spec, made of its methods.
func (r retryingProbe) Define() workload.Spec {
	s := r.probe.Define()
	s.Retryable = r.Retryable
	return s
}

// Define is the test workload's Spec, made of its methods.
func (r *probe) Define() workload.Spec {
	s := workload.Spec{Meta: r.Meta(), Options: r.Flags(), Ops: r.Ops(), Tables: r.Tables}
	return s
}

// Open starts a run of the test workload: its workers are NewWorker's.
func (r *probe) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: r.NewWorker}, nil
}

// Define is probe's Spec with replayProbe's retries.
func (p *replayProbe) Define() workload.Spec {
	s := p.probe.Define()
	s.Retryable = p.Retryable
	d := p.RunDefaults()
	s.RunDefaults = &d
	return s
}

// Open starts a run whose workers are replayProbe's.
func (p *replayProbe) Open(context.Context, workload.RunEnv) (*workload.Run, error) {
	return &workload.Run{NewWorker: p.NewWorker}, nil
}
