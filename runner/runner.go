// Package runner owns the benchmark loop: it opens one connection per
// worker (at the run's isolation level), calls Worker.Next whenever the
// run's timing.Scheduler says (timing.Closed: back to back; timing.Open:
// at an arrival rate), times every transaction from the instant the
// scheduler gives (under an arrival rate, its intended start, with its
// service time and lag apart), classifies every error, replays
// retried transactions of Replayer workers by the run's retry policy,
// replaces lost connections, cuts the warm-up at one instant, ends
// intervals and the run at their scheduled instants and collects what
// every worker recorded in each interval off the tick's critical path
// (collector.go). Options is the one list of run options the CLI's flags
// and a plan's fields set.
//
// The runner never asks a workload its name: everything workload-specific
// happens behind workload.Workload and workload.Worker.
package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbarena/dbarena/drive"
	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/sysmon"
	"github.com/dbarena/dbarena/workload"
)

// Config is one run: a workload at one thread count for a duration.
type Config struct {
	// Threads is the number of workers, each with its own connection.
	Threads int
	// Duration is the measured phase; Warmup runs before it and is
	// discarded at one instant. With Events set, Duration may be 0: the
	// run then has no limit in time.
	Duration time.Duration
	Warmup   time.Duration
	// Events, when set, ends the run after that many transactions in
	// all, across every worker (--events, sysbench's name; pgbench's -t
	// is per client). A transaction counts once it ended: committed,
	// rolled back on purpose or failed (as pgbench counts failed
	// transactions toward -t); its retries and replays are part of it,
	// and one that lost its connection is run again by the same worker
	// under the same count. The warm-up's transactions are among them,
	// as sysbench's event counter runs from the first event; the
	// measured phase has the rest. Each worker takes one from a shared
	// budget (one atomic operation) before it starts a transaction, so
	// the run ends exactly at the limit, never past it, when the last
	// worker's last transaction ends; with Duration, the first limit
	// reached ends the run. Under an arrival rate each transaction is
	// one arrival: arrivals skipped or dropped are counted as such and
	// take nothing from the budget.
	Events *int64
	// ReportInterval is the length of one interval. Run takes 0 as 1 s;
	// Validate, which checks a configuration as flags or a plan give it,
	// refuses it.
	ReportInterval time.Duration
	// Seed makes the workers' random choices reproducible.
	Seed uint64
	// MaxErrors is how many failed, not retried transactions the run
	// tolerates before it stops as failed (0: the first one stops it).
	// TolerateErrors lifts the limit.
	MaxErrors      int64
	TolerateErrors bool
	// StopGrace is how long in-flight transactions may take to finish
	// after the measured phase ends before they are cancelled
	// (default 10 s).
	StopGrace time.Duration
	// ReconnectTimeout is how long every worker may be without a
	// connection before the run fails with ErrServerGone (default
	// DefaultReconnectTimeout): a server that restarts within it is
	// waited for.
	ReconnectTimeout time.Duration
	// ServerDown, when set, tells whether the server's process is known
	// to be gone (a managed server's): a run whose workers are all without
	// a connection then fails at once, without waiting ReconnectTimeout.
	ServerDown func() bool
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Scheduler is the load model (default timing.Closed; timing.Open
	// when Rate is set, which takes precedence).
	Scheduler timing.Scheduler
	// Rate, when set, runs the arrival-rate (open) model: transactions
	// arrive at its rate, Threads workers start them (at most Threads at
	// once), each timed from its intended start.
	Rate timing.RateConfig
	// Isolation is the transaction isolation level the runner sets on
	// every worker's connection (engine.ReadCommitted, RepeatableRead,
	// Serializable); "" takes the workload's default
	// (Spec.RunDefaults), which is the engine's own unless the
	// workload says otherwise.
	Isolation string
	// Retry overrides the workload's retry policy for Replayer workers,
	// field by field.
	Retry RetryOverride
	// Server, when set, samples the server's metrics at every tick (it
	// belongs to the target and outlives the run); the run's intervals and
	// summary then carry them. *sysmon.Monitor is one.
	Server Sampler

	// Thresholds are the run's pass/fail criteria ("p99<50ms",
	// "op:new_order p90<5ms"), kept here so that flags and plans set them
	// alike; the runner does not read them: package threshold parses,
	// watches and judges them. AbortOnFail asks that a run stop as soon
	// as one of them can no longer hold.
	Thresholds  []string
	AbortOnFail bool
	// Disturbed are the limits beyond which the host disturbed the run
	// (other work, steal, dbarena's own CPU), judged from the server
	// metrics of its measured intervals (sysmon.Limits.Judge) into
	// result.Run.Disturbed and a warning; each interval above one is
	// marked (result.Interval.Disturbed). The zero Limits judge nothing;
	// DefaultConfig holds sysmon.DefaultLimits.
	Disturbed sysmon.Limits

	// ClientThreads is how many OS threads run the workers, at most one
	// per worker, as --client-threads asks: package session turns it
	// into the run's Process (session.ProcessFor), Run does not read it.
	// On engines whose connections are Driven (engine.Capabilities) they drive the workers' connections,
	// several each, as pgbench's -j does (package drive; 0: one per CPU);
	// on other engines served over a network it is the Go runtime's
	// GOMAXPROCS for the run (0: half the CPUs, at least one). -1 runs
	// each worker on a goroutine of its own with Go's default
	// GOMAXPROCS, as embedded engines (SQLite) always do.
	ClientThreads int
	// ClientIO is how client threads send and receive, as --client-io
	// asks: "epoll" (the default, also "") waits on epoll and makes a
	// system call per send and receive; "io_uring" queues them and
	// submits and reaps every worker's in one call per wait
	// (drive.NewRingThread). Package session turns it into
	// Process.Ring.
	ClientIO string
	// Process is how the workers run in this process: on client threads
	// or on goroutines, under which GOMAXPROCS. Package session decides
	// it for every run (session.ProcessFor, from ClientThreads and the
	// engine) and Run applies it as given. The zero Process runs each
	// worker on a goroutine of its own under the runtime's GOMAXPROCS.
	// The analytic timing model runs on the caller's goroutine and
	// ignores it.
	Process Process

	// Analytic selects the analytic timing model instead
	// (timing.RunTries).
	timing.Analytic

	// Shard is the part of a sharded run this process runs (the zero
	// Shard: all of it). Its workers are numbered from
	// Shard.Index*Threads (Shard.Worker), so that the shards' workers
	// together are those of one run of Count*Threads workers: their
	// seeds, their ids (a script's client_id, TPC-C's home warehouses)
	// and their shares of the arrivals. Events is the whole run's: the
	// shard takes its part (Shard.Events).
	Shard workload.Shard
	// Start, when set, is called once every worker is connected, before
	// the run begins; it returns the instant the run begins at (a sharded
	// run's start barrier), which Run waits for. The warm-up begins
	// then, and the intervals count from it.
	Start func(ctx context.Context) (time.Time, error)
}

// Limit says how a run of c ends, for headers and logs: "30s",
// "10000 transactions" (--events alone) or "10000 transactions or 30s".
func (c Config) Limit() string {
	switch {
	case c.Events == nil:
		return c.Duration.String()
	case c.Duration == 0:
		return fmt.Sprintf("%d transactions", *c.Events)
	}
	return fmt.Sprintf("%d transactions or %s", *c.Events, c.Duration)
}

// Sampler samples a server's metrics for a run: Start takes the baseline
// of the first interval, Tick the metrics since the previous call. Both
// are called from the collector goroutine only, never on the hot path.
type Sampler interface {
	Start(ctx context.Context)
	Tick(ctx context.Context) sysmon.Interval
}

var _ Sampler = (*sysmon.Monitor)(nil)

// Validate reports every problem with c at once, each a
// *workload.OptionError naming the option's flag and value.
func (c Config) Validate() []error {
	var errs []error
	bad := func(flag string, v any, msg string) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: fmt.Sprint(v), Err: msg})
	}
	if c.Threads < 1 {
		bad("threads", c.Threads, "must be at least 1")
	}
	if c.ClientThreads < -1 {
		bad("client-threads", c.ClientThreads, "must be at least 1, or 0 (one per CPU) or -1 (a goroutine per worker)")
	}
	switch c.ClientIO {
	case "", ClientIOEpoll:
	case ClientIORing:
		if err := drive.RingUnsupported(); err != nil {
			bad("client-io", c.ClientIO, fmt.Sprintf("cannot be used here: %v", err))
		}
	default:
		bad("client-io", c.ClientIO, "must be epoll or io_uring")
	}
	switch {
	case c.Events != nil && *c.Events < 1:
		bad("events", *c.Events, "must be at least 1 transaction")
	case c.Events != nil && c.Tries != nil:
		bad("events", *c.Events, "the analytic timing model (--tries) runs each query its number of tries: it takes no --events")
	}
	switch {
	case c.Events != nil && c.Duration < 0:
		bad("time", c.Duration, "must not be negative (0: no limit in time beside --events)")
	case c.Events == nil && c.Duration <= 0:
		bad("time", c.Duration, "must be positive")
	}
	if c.Warmup < 0 {
		bad("warmup", c.Warmup, "must not be negative")
	}
	if c.ReportInterval < 10*time.Millisecond {
		bad("report-interval", c.ReportInterval, "must be at least 10ms")
	}
	if c.MaxErrors < 0 {
		bad("max-errors", c.MaxErrors, "must not be negative")
	}
	if c.MaxErrors > 0 && c.TolerateErrors {
		bad("max-errors", c.MaxErrors, "contradicts --tolerate-errors, which never stops a run for errors: give one")
	}
	if c.ReconnectTimeout < 0 {
		bad("reconnect-timeout", c.ReconnectTimeout, "must not be negative")
	}
	if c.StopGrace < 0 {
		bad("stop-grace", c.StopGrace, "must not be negative")
	}
	switch c.Isolation {
	case "", engine.ReadCommitted, engine.RepeatableRead, engine.Serializable:
	default:
		bad("isolation", c.Isolation, "must be read-committed, repeatable-read or serializable")
	}
	if p := c.Retry.MaxRetries; p != nil && *p < 0 {
		bad("max-retries", *p, "must not be negative")
	}
	if p := c.Retry.Backoff; p != nil && *p < 0 {
		bad("retry-backoff", *p, "must not be negative")
	}
	if p := c.Retry.BackoffMax; p != nil && *p < 0 {
		bad("retry-backoff-max", *p, "must not be negative")
	}
	if b, m := c.Retry.Backoff, c.Retry.BackoffMax; b != nil && m != nil && *b > *m {
		bad("retry-backoff", *b, fmt.Sprintf("must be between 0 and --retry-backoff-max (%v)", *m))
	}
	for _, l := range []struct {
		flag string
		v    float64
	}{{"disturbed-other", c.Disturbed.Other}, {"disturbed-steal", c.Disturbed.Steal}, {"disturbed-client", c.Disturbed.Client}, {"disturbed-share", c.Disturbed.Share}} {
		if l.v < 0 || l.v > 100 {
			bad(l.flag, fmt.Sprintf("%g%%", l.v), "must be between 0% and 100% (0: never)")
		}
	}
	if c.AbortOnFail && len(c.Thresholds) == 0 {
		bad("abort-on-fail", c.AbortOnFail, "needs at least one --threshold")
	}
	errs = append(errs, c.Rate.Validate(c.Warmup, c.Duration)...)
	errs = append(errs, c.Analytic.Validate(c.Threads, c.Warmup, c.Rate)...)
	return errs
}

// Tick is what an Observer sees after every interval.
type Tick struct {
	Threads int
	// Elapsed is the time since the run started (warm-up included) at the
	// end of the interval; Length is the interval's own length.
	Elapsed time.Duration
	Length  time.Duration
	Warmup  bool
	// Ops holds the names of Interval.Ops.
	Ops      []workload.Op
	Interval *histogram.Interval
	// Metrics are the workload's own figures for the interval (a
	// the workload Run's Metrics), in its order.
	Metrics []result.Metric
	// Server holds the server's metrics over the interval (nil when not
	// sampled).
	Server sysmon.Interval
	// Record is the interval as the result file keeps it; Started is the
	// run's start (result.Run.StartedAt).
	Record  *result.Interval
	Started time.Time
	// Abort, called by an observer during OnTick, fails the run with err
	// (which becomes the run's error) as if a worker had: the run stops
	// at once and its figures are kept. Calls after the first do nothing.
	Abort func(err error)
}

// Observer receives ticks from the collector's merger goroutine, one at a
// time, in the intervals' order. It must not keep Tick.Interval or
// Tick.Record after returning (they are reused). Observers never block
// workers nor move an interval's boundaries: they run on the merger, not
// on the hot path nor the clock.
type Observer interface {
	OnTick(Tick)
}

// Sentinel errors.
var (
	// ErrTooManyErrors stops a run whose errors exceed --max-errors.
	ErrTooManyErrors = errors.New("too many errors")
	// ErrInterrupted marks a run stopped by its context (Ctrl-C), in
	// every timing model: it is timing.ErrInterrupted.
	ErrInterrupted = timing.ErrInterrupted
	// ErrServerGone fails a run whose workers all lost their connections
	// and could not open new ones for Config.ReconnectTimeout (or for the
	// whole last interval of the run).
	ErrServerGone = errors.New("the server stopped answering")
	// ErrStalled ends a run that stopped making progress (status
	// result.StatusStalled, every figure kept).
	ErrStalled = errors.New("the run stalled")
)

// DefaultReconnectTimeout is Config.ReconnectTimeout's default: long
// enough for a server's restart with crash recovery of a short run's
// writes.
const DefaultReconnectTimeout = 30 * time.Second

// Run executes one run of w against eng and returns its result. The
// result is filled in even when an error is returned after the measured
// phase started (status interrupted or failed), so nothing measured is
// lost. w may be a registered workload: Run uses its implementation for
// eng's family (workload.ForFamily). The workers run as cfg.Process says
// (client threads or goroutines, GOMAXPROCS), which Run applies as given.
func Run(ctx context.Context, eng engine.Engine, w workload.Workload, cfg Config, obs Observer) (*result.Run, error) {
	if cfg.ReportInterval == 0 {
		cfg.ReportInterval = time.Second
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.StopGrace == 0 {
		cfg.StopGrace = 10 * time.Second
	}
	if cfg.ReconnectTimeout == 0 {
		cfg.ReconnectTimeout = DefaultReconnectTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	w, err := workload.ForFamily(w, eng.Dialect())
	if err != nil {
		return nil, err
	}
	if cfg.Tries != nil {
		return timing.RunTries(ctx, eng, w, cfg.Analytic, cfg.Now)
	}
	if cfg.Rate.Open() {
		cfg.Scheduler = timing.NewOpen(cfg.Rate)
	}
	if cfg.Scheduler == nil {
		cfg.Scheduler = timing.Closed{}
	}
	open, _ := cfg.Scheduler.(timing.Arrivals)
	spec := w.Define()
	ops := spec.Ops
	retryable := retryPolicy(spec)
	isolation, policy := cfg.Effective(w)
	if policy.Base > policy.Max {
		return nil, &workload.OptionError{Flag: "retry-backoff", Value: policy.Base.String(), Err: fmt.Sprintf("must be between 0 and --retry-backoff-max (%v)", policy.Max)}
	}
	if err := checkIsolation(w, eng.Dialect(), isolation); err != nil {
		return nil, err
	}

	if spec.Install != nil {
		if err := install(ctx, eng, spec.Install); err != nil {
			return nil, err
		}
	}
	var mon *monitor
	if spec.Counters != nil {
		c, err := eng.Connect(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		mon = newMonitor(spec.Counters, c)
	}
	wrun, err := w.Open(ctx, workload.RunEnv{Engine: eng.Dialect().Capabilities(), Dialect: eng.Dialect(),
		Seed: cfg.Seed, Shard: cfg.Shard.Whole(), Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	if wrun.Close != nil {
		defer wrun.Close()
	}

	workerCtx, cancelWorkers := context.WithCancel(ctx)
	defer cancelWorkers()

	threads, err := cfg.Process.start(cfg.Threads)
	if err != nil {
		return nil, err
	}
	if procs := cfg.Process.GOMAXPROCS; procs > 0 && procs != runtime.GOMAXPROCS(0) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	}
	defer func() {
		for _, t := range threads {
			_ = t.Close()
		}
	}()
	epoch := new(atomic.Int64)
	ws, err := startWorkers(workerCtx, eng, wrun, cfg, ops, isolation, epoch, threads)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, s := range ws {
			s.close()
		}
	}()

	r := &run{
		cfg: cfg, ops: ops, eng: eng, w: wrun, retryable: retryable,
		workers: ws, fail: make(chan error, 1), stopCh: make(chan struct{}), epoch: epoch,
		mon: mon, open: open, threads: threads, threadsNote: cfg.Process.Note,
	}
	if cfg.Events != nil {
		r.left = new(atomic.Int64)
		r.left.Store(cfg.Shard.Events(*cfg.Events))
		r.active.Store(int64(cfg.Threads))
	}
	r.report = wrun.Metrics
	r.policy = policy
	if cfg.Start != nil {
		at, err := cfg.Start(ctx)
		if err != nil {
			return nil, err
		}
		if !sleepUntil(ctx, cfg.Now, at) {
			return nil, ctx.Err()
		}
	}
	return r.execute(ctx, workerCtx, cancelWorkers, obs)
}

// sleepUntil waits until the clock now reads at, and reports whether it
// did before ctx ended.
func sleepUntil(ctx context.Context, now func() time.Time, at time.Time) bool {
	for {
		d := at.Sub(now())
		if d <= 0 {
			return ctx.Err() == nil
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
}

// install runs a workload's Spec.Install on a connection of its own.
func install(ctx context.Context, eng engine.Engine, in func(context.Context, engine.Conn) error) error {
	c, err := eng.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := in(ctx, c); err != nil {
		return fmt.Errorf("before the run: %w", err)
	}
	return nil
}

// worker is one worker's state: its connection, workload worker and
// recorder. Only its goroutine touches conn and w while it runs.
type worker struct {
	id   int
	conn engine.Conn
	// rejoin is conn when its driver replaces lost connections itself.
	rejoin engine.Rejoiner
	w      workload.Worker
	rec    *histogram.Recorder
	q      workload.Queries
	env    workload.WorkerEnv
	// isolation is set on every connection the worker opens.
	isolation string
	// sched says when the worker starts its next transaction.
	sched timing.WorkerSchedule
	// thread runs the worker and waits on its connection; nil when the
	// worker has a goroutine of its own.
	thread *drive.Thread
	// unfinished is the start of the transaction the run stopped under,
	// if any; abandoned the intended start of an arrival the worker took
	// but did not start because the run stopped. Both are read once the
	// worker returned.
	unfinished, abandoned time.Time
	// lastEnd is when the worker's last transaction ended, kept under
	// --events only.
	lastEnd time.Time
}

// bind returns ctx naming the worker's thread, if it has one: its
// connections are dialled and its waits made under it.
func (s *worker) bind(ctx context.Context) context.Context {
	if s.thread == nil {
		return ctx
	}
	return drive.WithThread(ctx, s.thread)
}

func (s *worker) close() {
	if c, ok := s.w.(workload.Closer); ok {
		_ = c.Close()
	}
	if s.conn != nil {
		_ = s.conn.Close()
	}
}

// startWorkers connects all workers in parallel; on any failure it closes
// what it opened and returns the first error.
func startWorkers(ctx context.Context, eng engine.Engine, w *workload.Run, cfg Config, ops []workload.Op, isolation string, epoch *atomic.Int64, threads []*drive.Thread) ([]*worker, error) {
	nops := len(ops)
	ws := make([]*worker, cfg.Threads)
	errs := make([]error, cfg.Threads)
	steps := stepCounts(ops)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16) // bound concurrent connection attempts
	for i := range ws {
		s := &worker{id: i, rec: histogram.NewRecorderOn(nops, epoch), isolation: isolation}
		// drive.Sleep suspends a worker on a client thread (the context
		// its loop runs under names the thread), and is a timer elsewhere.
		id := cfg.Shard.Worker(i, cfg.Threads)
		s.env = workload.WorkerEnv{ID: id, Seed: WorkerSeed(cfg.Seed, id), Queries: &s.q, Sleeper: drive.Sleep}
		if steps != nil {
			s.env.Steps = s.rec.EnableSteps(steps)
		}
		if threads != nil {
			s.thread = threads[i%len(threads)]
		}
		ws[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[s.id] = s.connect(s.bind(ctx), eng, w)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, s := range ws {
			s.close()
		}
		return nil, firstErr(errs)
	}
	return ws, nil
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (s *worker) connect(ctx context.Context, eng engine.Engine, w *workload.Run) error {
	c, err := eng.Connect(ctx)
	if err != nil {
		return err
	}
	if err := setIsolation(ctx, c, s.isolation); err != nil {
		_ = c.Close()
		return err
	}
	ww, err := w.NewWorker(ctx, c, s.env)
	if err != nil {
		_ = c.Close()
		return fmt.Errorf("worker %d: %w", s.id, err)
	}
	s.conn, s.w = c, ww
	s.rejoin, _ = c.(engine.Rejoiner)
	return nil
}

// WorkerSeed derives worker id's seed from the run seed (splitmix64), so
// that workers draw independent, reproducible streams.
func WorkerSeed(seed uint64, id int) uint64 {
	z := seed + uint64(id+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func retryPolicy(spec workload.Spec) func(engine.ErrorClass) bool {
	extra := spec.Retryable
	return func(c engine.ErrorClass) bool {
		switch c {
		case engine.ClassSerialization, engine.ClassDeadlock:
			return true
		}
		return extra != nil && extra(c)
	}
}

type run struct {
	cfg       Config
	ops       []workload.Op
	eng       engine.Engine
	w         *workload.Run
	retryable func(engine.ErrorClass) bool
	policy    workload.RetryPolicy // replays of Replayer workers
	workers   []*worker

	stop   atomic.Bool
	stopCh chan struct{} // closed with stop set: ends pacing waits
	halted sync.Once
	stopAt time.Time // when stop was set; read after stopCh is closed
	// epoch numbers the interval the workers record into (shared by
	// their recorders); b schedules the intervals' ends; edge is the end
	// of the current one (Unix ns), closed calls the merger, cutCPU is
	// the client's CPU time when the measured phase started. All are set
	// before the workers start (collector.begin).
	epoch  *atomic.Int64
	b      bounds
	edge   atomic.Int64
	closed func()
	cutCPU atomic.Int64
	errors atomic.Int64 // failed, not retried transactions (all workers)
	fail   chan error   // first error that ends the run
	// down counts the workers without a connection; allDown is when the
	// last of them lost it (Unix ns, 0 while one has a connection), and
	// lastConnErr the latest error of a reconnection.
	down        atomic.Int64
	allDown     atomic.Int64
	connErrMu   sync.Mutex
	lastConnErr error
	mon         *monitor // nil unless the workload has Counters
	report      func(workload.Span) []result.Metric
	// open is the arrival-rate model, nil in the closed model.
	open timing.Arrivals
	// left is what remains of the --events budget (nil without it): a
	// worker takes one before it starts a transaction, and leaves the
	// run when none is left; active counts the workers still in it, the
	// last of which to leave ends the run.
	left   *atomic.Int64
	active atomic.Int64
	// threads drive the workers, nil when each has a goroutine;
	// threadsNote says why a Driven engine's have goroutines
	// (Process.Note).
	threads     []*drive.Thread
	threadsNote string
	// threadErr is the first error a thread's Run returned.
	threadErr atomic.Pointer[error]
}

// quit is a worker's leaving a run with an --events budget: the last one
// to leave stops the run, once every transaction it took has ended, at
// the end of the last of them (a worker may be slow to leave after its
// last transaction), or at the start of the current interval if that
// came later (the interval is then empty and not reported).
func (r *run) quit() {
	if r.active.Add(-1) != 0 {
		return
	}
	at := r.cfg.Now()
	var last time.Time
	for _, s := range r.workers { // every worker has left: their lastEnd is final
		if s.lastEnd.After(last) {
			last = s.lastEnd
		}
	}
	if !last.IsZero() && last.Before(at) {
		at = last
		if from := r.b.at(r.epoch.Load() - 1); at.Before(from) {
			at = from
		}
	}
	r.halt(at)
}

// spent tells whether the --events budget ran out.
func (r *run) spent() bool { return r.left != nil && r.left.Load() <= 0 }

// halt stops the run at instant at: no transaction starts after it. The
// first call counts; the measured phase's timer makes it on time whatever
// the collector is doing.
func (r *run) halt(at time.Time) {
	r.halted.Do(func() {
		r.stopAt = at
		r.stop.Store(true)
		close(r.stopCh)
		for _, t := range r.threads {
			t.Interrupt() // ends the workers' pauses
		}
	})
}

// advance closes every interval that ended at or before instant at, and
// stops the run at the end of the measured phase (true: it stopped).
// Workers call it when they start or end a transaction past the current
// interval's end, the clock when its timer fires.
func (r *run) advance(at time.Time) bool {
	for {
		if r.stop.Load() {
			return true
		}
		k := r.epoch.Load()
		b := r.b.at(k)
		if at.Before(b) {
			return false
		}
		if !b.Before(r.b.end) {
			r.halt(at)
			return true
		}
		if r.epoch.CompareAndSwap(k, k+1) {
			if r.cfg.Warmup > 0 && b.Equal(r.b.warmupEnd) {
				r.cutCPU.Store(int64(cpuTime()))
			}
			next := r.b.at(k + 1).UnixNano()
			for old := r.edge.Load(); next > old && !r.edge.CompareAndSwap(old, next); old = r.edge.Load() {
			}
			r.closed()
		}
	}
}

// finished is called when a transaction that started at start returns:
// it closes the interval the transaction ended past, and tells whether
// the run stopped under it: the transaction is then unfinished, not
// counted.
func (r *run) finished(s *worker, start time.Time) (time.Time, bool) {
	now := r.cfg.Now()
	if r.left != nil {
		s.lastEnd = now
	}
	if now.UnixNano() >= r.edge.Load() {
		r.advance(now)
	}
	if r.stop.Load() {
		s.unfinished = start
		return now, true
	}
	return now, false
}

// serverGone returns ErrServerGone, with the last reconnection's error,
// when every worker has been without a connection for at least after at
// instant now.
func (r *run) serverGone(now time.Time, after time.Duration) error {
	since := r.allDown.Load()
	if since == 0 || r.down.Load() < int64(r.cfg.Threads) {
		return nil
	}
	if now.Sub(time.Unix(0, since)) < after && (r.cfg.ServerDown == nil || !r.cfg.ServerDown()) {
		return nil
	}
	r.connErrMu.Lock()
	last := r.lastConnErr
	r.connErrMu.Unlock()
	return fmt.Errorf("%w: all %d workers lost their connections and none could open a new one for %.1fs; the last attempt: %v",
		ErrServerGone, r.cfg.Threads, now.Sub(time.Unix(0, since)).Seconds(), last)
}

// pause waits d, or less when the run stops.
func (r *run) pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	if drive.ThreadOf(ctx) != nil {
		drive.Sleep(ctx, d) // the thread's Interrupt ends it when the run stops
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.stopCh:
	case <-ctx.Done():
	}
}

// loop is one worker's loop: a transaction whenever its schedule says,
// timed from the instant the schedule gives. Under an arrival rate a
// transaction that fails and is retried without a replay keeps its
// arrival (carry): the retry is the same arrival's, timed from it.
// Under --events the worker takes one transaction from the budget before
// it starts one, unless it holds one not yet ended (held: retried, or
// lost with its connection), and leaves when none is left.
func (r *run) loop(ctx context.Context, s *worker) {
	if r.left != nil {
		defer r.quit()
	}
	d := r.eng.Dialect()
	var slot timing.Slot
	carry, held := false, false
	for !r.stop.Load() {
		if !carry {
			if p, ok := s.w.(workload.Pacer); ok && r.open == nil {
				if r.pause(ctx, p.Pause()); r.stop.Load() {
					return
				}
			}
			var ok bool
			if slot, ok = s.sched.Start(ctx); !ok {
				return
			}
			if slot.Began.UnixNano() >= r.edge.Load() && r.advance(slot.Began) {
				s.abandoned = slot.Intended
				return
			}
		}
		carry = false
		if r.left != nil && !held {
			if r.left.Add(-1) < 0 {
				return // the budget is spent
			}
			held = true
		}
		op, err := s.w.Next(ctx)
		now, stopped := r.finished(s, slot.Intended)
		if stopped {
			return
		}
		if r.recorded(s, op, err, slot, now) {
			held = false
			continue
		}
		if ctx.Err() != nil {
			s.unfinished = slot.Intended // interrupted under this transaction
			return
		}
		class := d.Classify(err)
		if class == engine.ClassCanceled {
			return
		}
		if class == engine.ClassConnLost {
			if !r.lost(ctx, s) {
				return
			}
			continue
		}
		retried := r.retryable(class)
		s.rec.Failure(op, retried, s.q)
		s.q = workload.Queries{}
		if retried {
			rp, ok := s.w.(workload.Replayer)
			if !ok || r.policy.MaxRetries == 0 {
				carry = r.open != nil
				continue // a new transaction, new input
			}
			var stopped bool
			if op, err, stopped = r.replay(ctx, s, rp, slot); stopped {
				return
			}
			if err == nil {
				held = false
				continue
			}
			if d.Classify(err) == engine.ClassConnLost {
				if !r.lost(ctx, s) {
					return
				}
				continue
			}
			s.rec.Failure(op, false, s.q)
			s.q = workload.Queries{}
		}
		held = false
		if n := r.errors.Add(1); !r.cfg.TolerateErrors && n > r.cfg.MaxErrors {
			r.failWith(fmt.Errorf("%w: %d failed transactions (--max-errors %d); last, in %s: %w",
				ErrTooManyErrors, n, r.cfg.MaxErrors, r.ops[op].Name, err))
			return
		}
	}
}

// lost handles a transaction that ended with its connection: it is not an
// error of the workload (nor counted against --max-errors); the
// connection is replaced and the replacement counted (Reconnects).
func (r *run) lost(ctx context.Context, s *worker) bool {
	s.rec.Lost(s.q)
	s.q = workload.Queries{}
	return r.reconnect(ctx, s)
}

// recorded records a transaction that ended well (committed, or rolled
// back on purpose) with its latency from the slot's intended start to
// now (and, under an arrival rate, its service time from the slot's
// actual start and its lag), and tells whether it did. A connection whose
// driver replaced it after a server loss the worker never saw counts as a
// reconnect here.
func (r *run) recorded(s *worker, op int, err error, slot timing.Slot, now time.Time) bool {
	rollback := false
	switch {
	case err == nil:
	case errors.Is(err, workload.ErrRollback):
		rollback = true
	default:
		return false
	}
	if s.rejoin != nil && s.rejoin.Rejoined() {
		s.rec.Reconnect()
	}
	switch {
	case r.open != nil:
		lag := slot.Began.Sub(slot.Intended)
		s.rec.Open(op, histogram.Arrival{Latency: now.Sub(slot.Intended), Service: now.Sub(slot.Began), Lag: lag,
			Late: lag > timing.LateTolerance, Rollback: rollback}, s.q)
	case rollback:
		s.rec.Rollback(op, now.Sub(slot.Intended), s.q)
	default:
		s.rec.Success(op, now.Sub(slot.Intended), s.q)
	}
	s.q = workload.Queries{}
	return true
}

// replay runs a transaction that failed with a retryable error again, with
// the same input, after exponential back-offs with full jitter, until it
// ends well (recorded from start, its first attempt), fails with an error
// that is not retryable or for the MaxRetries-th time (returned, for the
// caller to count as an error), or the run stops.
func (r *run) replay(ctx context.Context, s *worker, rp workload.Replayer, slot timing.Slot) (op int, err error, stopped bool) {
	start := slot.Intended
	d := r.eng.Dialect()
	for attempt := 1; ; attempt++ {
		if b := r.policy.Backoff(attempt); b > 0 {
			r.pause(ctx, rand.N(b)+1)
		}
		if r.stop.Load() || ctx.Err() != nil {
			s.unfinished = start
			return 0, nil, true
		}
		op, err = rp.Replay(ctx)
		now, stopped := r.finished(s, start)
		if stopped {
			return 0, nil, true
		}
		if r.recorded(s, op, err, slot, now) {
			return op, nil, false
		}
		if ctx.Err() != nil {
			s.unfinished = start
			return 0, nil, true
		}
		class := d.Classify(err)
		if class == engine.ClassCanceled {
			return 0, nil, true
		}
		if !r.retryable(class) || attempt >= r.policy.MaxRetries {
			return op, err, false
		}
		s.rec.Failure(op, true, s.q)
		s.q = workload.Queries{}
	}
}

// reconnect replaces a lost connection, backing off until it succeeds or
// the run ends. While every worker is reconnecting, the server may be
// gone (serverGone).
func (r *run) reconnect(ctx context.Context, s *worker) bool {
	s.close()
	s.conn, s.w, s.rejoin = nil, nil, nil
	if r.down.Add(1) == int64(r.cfg.Threads) {
		r.allDown.CompareAndSwap(0, r.cfg.Now().UnixNano())
	}
	backoff := 10 * time.Millisecond
	for !r.stop.Load() && ctx.Err() == nil {
		err := s.connect(ctx, r.eng, r.w)
		if err == nil {
			r.down.Add(-1)
			r.allDown.Store(0)
			s.rec.Reconnect()
			return true
		}
		r.connErrMu.Lock()
		r.lastConnErr = err
		r.connErrMu.Unlock()
		drive.Sleep(ctx, backoff)
		backoff = min(backoff*2, time.Second)
	}
	return false
}

func (r *run) failWith(err error) {
	select {
	case r.fail <- err:
	default:
	}
}

// execute runs the workers and the collector, and fills the result. It
// reads in four parts: the collector's clocks start and the workers'
// loops with them (begin); the tick loop closes an interval at every
// tick and cuts the warm-up at its instant (ticks); the end stops the
// workers and gathers the last interval (stop); the result is filled from
// the measured phase (finish).
func (r *run) execute(ctx, workerCtx context.Context, cancelWorkers context.CancelFunc, obs Observer) (*result.Run, error) {
	c := newCollector(ctx, r, obs)
	c.begin()
	var wg sync.WaitGroup
	if r.threads != nil {
		// A cancelled context (Ctrl-C, failure, the grace's end) ends the
		// workers' pauses too.
		defer context.AfterFunc(workerCtx, func() {
			for _, t := range r.threads {
				t.Interrupt()
			}
		})()
		for _, s := range r.workers {
			s.thread.Go(func() { r.loop(s.bind(workerCtx), s) })
		}
		for _, t := range r.threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A worker's panic or a stuck worker ends the thread's
				// run at once (drive.Thread.Run): it fails the run.
				if err := t.Run(); err != nil {
					err = fmt.Errorf("client thread: %w", err)
					r.threadErr.CompareAndSwap(nil, &err)
					r.failWith(err)
				}
			}()
		}
	}
	for _, s := range r.workers {
		if s.thread != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.loop(workerCtx, s)
		}()
	}
	status, runErr := c.ticks()
	if status == result.StatusComplete {
		// A server that stopped answering during the last interval, and
		// still does not, fails the run too.
		if err := r.serverGone(r.cfg.Now(), min(r.cfg.ReconnectTimeout, r.cfg.ReportInterval)); err != nil {
			status, runErr = result.StatusFailed, err
		}
	}
	c.stop(status, func() {
		if status != result.StatusComplete {
			cancelWorkers() // Ctrl-C or failure: do not wait for in-flight work
		}
		waitOrCancel(&wg, r.cfg.StopGrace, cancelWorkers)
	})
	if err := r.threadErr.Load(); err != nil && status == result.StatusComplete {
		// A thread failed while the workers stopped.
		status, runErr = result.StatusFailed, *err
		c.status = status
	}
	return c.finish(status, runErr)
}

// ServerSummary sets res.Server from the measured intervals' server
// metrics and divides the server process's CPU time by the transactions
// and queries. A run's end calls it; so does rebuilding a killed run.
func ServerSummary(res *result.Run) {
	var ivs []sysmon.Interval
	for _, iv := range res.Intervals {
		if !iv.Warmup && len(iv.Server) > 0 {
			ivs = append(ivs, iv.Server)
		}
	}
	if len(ivs) == 0 {
		return
	}
	res.Server = sysmon.Summary(ivs)
	res.SetServerCPU()
}

func waitOrCancel(wg *sync.WaitGroup, grace time.Duration, cancel context.CancelFunc) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		cancel()
		<-done
	}
}

func intervalOf(iv *histogram.Interval, elapsed, length time.Duration, warmup bool) result.Interval {
	return result.IntervalOf(iv, elapsed, length, warmup)
}

// fill computes the run's totals from the measured phase.
func fill(res *result.Run, total *histogram.Interval, ops []workload.Op, dur time.Duration, cpu time.Duration) {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name
	}
	res.Fill(total, names, dur, cpu)
	if stepCounts(ops) != nil {
		steps := make([][]result.Step, len(ops))
		for i, op := range ops {
			for _, st := range op.Steps {
				steps[i] = append(steps[i], result.Step{Name: st.Name, Text: st.Text})
			}
		}
		res.FillSteps(total, steps)
	}
}

// stepCounts returns the number of steps of each op, or nil when no op
// has any.
func stepCounts(ops []workload.Op) []int {
	n := make([]int, len(ops))
	some := false
	for i, op := range ops {
		n[i] = len(op.Steps)
		some = some || n[i] > 0
	}
	if !some {
		return nil
	}
	return n
}
