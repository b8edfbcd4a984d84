package runner

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/drive"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/sysmon"
)

// How intervals are cut and collected, so that neither the number of
// workers nor a busy CPU moves an interval's boundary, drops an interval
// or delays the end of the run:
//
//   - The run's intervals are numbered by an epoch shared by every
//     worker's recorder (histogram.Recorder). An interval ends at its
//     scheduled boundary (bounds), when the epoch advances (run.advance):
//     the first worker that starts or ends a transaction past the
//     boundary advances it, and so does the clock's timer (ticks) when no
//     worker does. Advancing is one atomic operation, whatever the number
//     of workers. Each worker records into its frame of the current
//     epoch, so what it recorded falls in the interval it happened in.
//   - The end of the measured phase is a boundary too: the first worker
//     past it, or the clock, or a timer of its own, stops the run
//     (run.halt). A transaction that ends after the stop is not counted:
//     it is unfinished, with its elapsed time.
//   - The merger (merge) takes every worker's frame of each closed epoch,
//     in order, adds them into the interval, samples the server and the
//     workload's counters, tells the observer and appends the interval to
//     the result. It may fall behind (a thousand workers keep every core
//     busy) without moving anything: each interval carries its scheduled
//     boundaries.

// bounds are a run's scheduled instants: ticks every interval from start,
// the warm-up's end and the measured phase's end.
type bounds struct {
	start, warmupEnd, end time.Time
	every                 time.Duration
}

// noEnd is the measured phase of a run without a limit in time (--events
// alone): far beyond any run.
const noEnd = 100 * 365 * 24 * time.Hour

// at returns the end of interval k: the ticks start+every, start+2·every …
// with the warm-up's end among them (when it is not a tick) and the
// measured phase's end last.
func (b bounds) at(k int64) time.Time {
	if k < 0 {
		return b.start
	}
	w := b.warmupEnd.Sub(b.start)
	n := k + 1 // the tick that ends interval k, without the warm-up's end
	if w > 0 && w%b.every != 0 {
		before := int64(w / b.every) // ticks before the warm-up's end
		switch {
		case k == before:
			return b.warmupEnd
		case k > before:
			n = k
		}
	}
	t := b.start.Add(time.Duration(n) * b.every)
	if t.After(b.end) {
		return b.end
	}
	return t
}

// collector is the state of the run's clock and merger. The clock's
// fields are touched by execute's goroutine only; tick, total, res and
// next by the merger only until it is done.
type collector struct {
	ctx context.Context
	r   *run
	cfg Config
	obs Observer
	// serverBaseline, when set, is closed once the server's baseline
	// is taken (begin: a sharded run's, taken as its workers start).
	serverBaseline chan struct{}

	tick  *histogram.Interval // the interval being merged, reused
	total *histogram.Interval // the measured phase so far
	res   *result.Run
	next  int64 // the next epoch to merge

	b        bounds
	stopAt   time.Time // when the run stopped
	status   string
	cpu      time.Duration // client CPU time of the measured phase
	deadline *time.Timer
	// unfinished are the elapsed times, at stopAt, of the transactions
	// still in flight when the run stopped; unstarted counts the
	// arrivals intended before stopAt that no worker started.
	unfinished []time.Duration
	unstarted  int64
	waits      *hdr.Histogram // how long the unstarted arrivals had waited at the end

	mu      sync.Mutex    // guards final and done
	final   int64         // the last epoch, set by stop
	done    bool          // final is set
	more    chan struct{} // signalled when an epoch closes
	drained chan struct{} // closed when the merger is done
}

func newCollector(ctx context.Context, r *run, obs Observer) *collector {
	nops := len(r.ops)
	return &collector{ctx: ctx, r: r, cfg: r.cfg, obs: obs,
		tick: histogram.NewInterval(nops), total: histogram.NewInterval(nops),
		res:  &result.Run{Threads: r.cfg.Threads, WarmupS: r.cfg.Warmup.Seconds()},
		more: make(chan struct{}, 1), drained: make(chan struct{})}
}

// begin takes the monitors' baselines, schedules the run's boundaries,
// starts the timer that ends the measured phase and the merger. It is
// called before the workers start.
func (c *collector) begin() {
	cfg, r := c.cfg, c.r
	if r.mon != nil {
		r.mon.start(c.ctx) // the baseline of the first interval
		if cfg.Warmup == 0 {
			r.mon.markMeasureStart()
		}
	}
	if cfg.Server != nil {
		if cfg.Start != nil {
			// The shards of a sharded run start at one instant: the
			// baseline, a round of queries, is taken as the workers
			// start, not before, which would start the sampling shard
			// late by as long.
			done := make(chan struct{})
			go func() { defer close(done); cfg.Server.Start(c.ctx) }()
			c.serverBaseline = done
		} else {
			cfg.Server.Start(c.ctx) // the baseline of the first interval
		}
	}
	start := cfg.Now()
	dur := cfg.Duration
	if dur == 0 && cfg.Events != nil {
		dur = noEnd // --events alone: the budget ends the run
	}
	c.b = bounds{start: start, warmupEnd: start.Add(cfg.Warmup), end: start.Add(cfg.Warmup + dur), every: cfg.ReportInterval}
	c.res.StartedAt = start.UTC()
	r.b = c.b
	r.closed = c.signal
	r.cutCPU.Store(int64(cpuTime()))
	r.edge.Store(c.b.at(0).UnixNano())
	// The schedules count from the run's start.
	for _, s := range r.workers {
		env := timing.ScheduleEnv{ID: s.env.ID, Threads: cfg.Shard.Whole().Count * cfg.Threads, Seed: s.env.Seed, Start: start, Now: cfg.Now,
			Stopped: r.stopCh, Missed: s.rec.Missed}
		if s.thread != nil {
			// The thread's Interrupt ends the wait when the run stops.
			env.Sleep = func(ctx context.Context, d time.Duration) bool {
				drive.Sleep(ctx, d)
				return !r.stop.Load() && ctx.Err() == nil
			}
		}
		s.sched = cfg.Scheduler.Worker(env)
	}
	c.deadline = time.AfterFunc(c.b.end.Sub(cfg.Now()), func() { r.advance(cfg.Now()) })
	go c.merge()
}

// ticks advances the epoch at every boundary no worker advanced it at,
// until the run stops (complete), the context is cancelled (interrupted)
// or a worker or the server fails the run (failed).
func (c *collector) ticks() (status string, err error) {
	r := c.r
	timer := time.NewTimer(0)
	<-timer.C
	defer timer.Stop()
	for {
		timer.Reset(max(time.Until(time.Unix(0, r.edge.Load())), 0))
		select {
		case <-timer.C:
		case <-r.stopCh: // a worker or the deadline saw the end pass
			return result.StatusComplete, nil
		case <-c.ctx.Done():
			return result.StatusInterrupted, ErrInterrupted
		case err := <-r.fail:
			return result.StatusFailed, err
		}
		now := c.cfg.Now()
		if err := r.serverGone(now, c.cfg.ReconnectTimeout); err != nil {
			return result.StatusFailed, err
		}
		if r.advance(now) {
			return result.StatusComplete, nil
		}
	}
}

// stop ends the run: no transaction starts after it, those that end after
// it are unfinished. wait lets the workers finish (or cancels them), then
// the last epoch is closed and merged, so that the final counter reading
// sees every transaction the client counted.
func (c *collector) stop(status string, wait func()) {
	r := c.r
	r.halt(c.cfg.Now())
	c.deadline.Stop()
	c.stopAt, c.status = r.stopAt, status
	c.cpu = cpuTime() - time.Duration(r.cutCPU.Load())
	wait()
	for _, s := range r.workers {
		if !s.unfinished.IsZero() && s.unfinished.Before(c.stopAt) {
			c.unfinished = append(c.unfinished, c.stopAt.Sub(s.unfinished))
		}
		if o, ok := s.sched.(timing.ArrivalSchedule); ok && !r.spent() {
			// Once the --events budget is spent, the arrivals left are
			// beyond the run's transactions, not missed ones.
			// The arrivals the run had: those before it stopped, and
			// never one at or after the measured phase's end.
			end := c.stopAt
			if c.b.end.Before(end) {
				end = c.b.end
			}
			if c.waits == nil {
				c.waits = histogram.New()
			}
			c.unstarted += o.UnstartedWaits(end, c.waits)
			if !s.abandoned.IsZero() && s.abandoned.Before(end) {
				c.unstarted++
				_ = c.waits.RecordValue(histogram.Micros(end.Sub(s.abandoned)))
			}
		}
	}
	c.mu.Lock()
	c.final, c.done = r.epoch.Load(), true
	c.mu.Unlock()
	r.epoch.Add(1)
	c.signal()
	<-c.drained
}

// abort fails the run with err (an observer's Tick.Abort).
func (c *collector) abort(err error) {
	select {
	case c.r.fail <- err:
	default:
	}
}

func (c *collector) signal() {
	select {
	case c.more <- struct{}{}:
	default:
	}
}

// merge is the merger's goroutine: it merges the closed epochs in order
// until the last one.
func (c *collector) merge() {
	defer close(c.drained)
	for {
		c.mu.Lock()
		final, done := c.final, c.done
		c.mu.Unlock()
		limit := c.r.epoch.Load()
		if done {
			limit = final + 1
		}
		for ; c.next < limit; c.next++ {
			c.merged(c.next, done && c.next == final)
		}
		if done {
			return
		}
		<-c.more
	}
}

// merged merges every worker's frame of epoch k and reports the interval.
func (c *collector) merged(k int64, final bool) {
	for _, s := range c.r.workers {
		if f := s.rec.Take(k); f != nil {
			c.tick.Add(f)
			s.rec.Recycle(f)
		}
	}
	from, to := c.b.at(k-1), c.b.at(k)
	if final && (c.status != result.StatusComplete || c.stopAt.Before(to)) {
		to = c.stopAt // stopped early: interrupted, failed or --events
	}
	if final && k > 0 && c.r.left != nil && c.status == result.StatusComplete && !to.After(from) && empty(c.tick) {
		// The --events budget's last transaction ended before this
		// interval began, and none was recorded into it: it holds
		// nothing of the run.
		c.tick.Reset()
		return
	}
	warmup := c.cfg.Warmup > 0 && !to.After(c.b.warmupEnd) && (!final || c.stopAt.Before(c.b.warmupEnd))
	c.report(max(to.Sub(from), 0), to, warmup)
	c.tick.Reset()
	if warmup && to.Equal(c.b.warmupEnd) && c.r.mon != nil {
		c.r.mon.markMeasureStart()
	}
}

// empty tells whether nothing was recorded into iv.
func empty(iv *histogram.Interval) bool {
	return iv.Transactions() == 0 && iv.Errors() == 0 && iv.Retries() == 0 && iv.Queries.Total() == 0 && iv.Reconnects == 0 &&
		iv.Skipped == 0 && iv.Dropped == 0
}

// measured returns the measured phase's start and length, and whether
// the run stopped before it started.
func (c *collector) measured() (start time.Time, dur time.Duration, inWarmup bool) {
	start, end := c.b.warmupEnd, c.b.end
	if c.status != result.StatusComplete || c.stopAt.Before(end) {
		end = c.stopAt // stopped early: interrupted, failed or --events
	}
	if end.Before(start) {
		return end, 0, true
	}
	return start, end.Sub(start), false
}

// finish fills the result from the measured phase.
func (c *collector) finish(status string, runErr error) (*result.Run, error) {
	c.awaitBaseline()
	r, res := c.r, c.res
	_, dur, inWarmup := c.measured()
	fill(res, c.total, r.ops, dur, c.cpu)
	var deltas []int64
	if r.mon != nil && !inWarmup {
		res.Counters, deltas = r.mon.measured()
	}
	res.Metrics = r.metrics(c.total, dur, deltas, true)
	ServerSummary(res)
	if !inWarmup {
		c.unfinishedSummary()
	}
	if r.open != nil {
		res.Open = r.open.Describe()
		from := c.b.warmupEnd.Sub(c.b.start)
		res.OfferedTPS = round2(r.open.Offered(from, from+dur) / float64(c.cfg.Shard.Whole().Count))
		res.Unstarted = c.unstarted
		if c.unstarted > 0 {
			w := histogram.Summarize(c.waits)
			res.UnstartedMS = &w
			res.UnstartedHDR, _ = histogram.Encode(c.waits)
		}
		if !inWarmup {
			res.Started = res.Transactions + res.Errors + res.Unfinished
			res.Offered = res.Started + res.Skipped + res.Dropped + res.Unstarted
		}
	}
	if e := c.cfg.Events; e != nil {
		res.Events = c.cfg.Shard.Events(*e)
	}
	res.ClientThreads, res.GOMAXPROCS, res.GCPercent = len(r.threads), runtime.GOMAXPROCS(0), gcPercent()
	if len(r.threads) > 0 && c.cfg.Process.Ring {
		res.ClientIO = ClientIORing
	}
	res.Disturbed = c.disturbed()
	res.Warnings = c.warnings()
	if status == result.StatusComplete {
		if err := stalled(res, c.cfg.ReportInterval); err != nil {
			status, runErr = result.StatusStalled, err
		}
	}
	res.Status = status
	if runErr != nil {
		res.Error = runErr.Error()
	}
	return res, runErr
}

// stallPace is the mean number of transactions ending in a measured
// interval that had any, from which intervals without one are a halt,
// not chance: at that pace an interval misses every one with a
// probability of e⁻³ (5%), so that more than half of them missing is
// not the pace.
const stallPace = 3

// stallMinGap is the least time without a transaction ending that can
// make a run stalled: shorter gaps are lock waits the server ends by
// itself (PostgreSQL's deadlock_timeout is 1 s), which a short run with
// short intervals could otherwise take for a halt.
const stallMinGap = 2 * time.Second

// stalled returns ErrStalled, saying why, when a run that ran to its end
// stopped making progress: more than half of its measured intervals saw
// no transaction end (commit, rollback or error), and either none ended
// at all while some were left running at the end, or the intervals that
// had any averaged stallPace or more with a median latency under one
// interval; and the empty intervals add up to stallMinGap or more.
// Transactions slower than an interval, think times and rare arrivals
// leave intervals empty too, at a pace below that, and so do lock waits,
// for less than stallMinGap: those runs are complete (their warnings say
// how many intervals were empty).
func stalled(r *result.Run, every time.Duration) error {
	var measured, empty int
	var ended int64
	for _, iv := range r.Intervals {
		if iv.Warmup {
			continue
		}
		measured++
		if n := iv.Transactions + iv.Errors; n > 0 {
			ended += n
		} else {
			empty++
		}
	}
	if measured == 0 || 2*empty <= measured || time.Duration(empty)*every < stallMinGap {
		return nil
	}
	busy := measured - empty
	switch {
	case busy == 0 && r.Unfinished > 0:
		return fmt.Errorf("%w: no transaction ended in any of its %d measured intervals, and %d were still running at the end", ErrStalled, measured, r.Unfinished)
	case busy > 0 && float64(ended) >= stallPace*float64(busy) && r.LatencyMS.P50 < float64(every.Microseconds())/1000:
		return fmt.Errorf("%w: %d of %d measured intervals had no transaction end, where the others had %.1f on average at a median latency of %.3f ms: the target stopped answering",
			ErrStalled, empty, measured, float64(ended)/float64(busy), r.LatencyMS.P50)
	}
	return nil
}

// gcPercent is the garbage collector's setting (GOGC), read without
// changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// unfinishedSummary records the transactions in flight at the end.
func (c *collector) unfinishedSummary() {
	if len(c.unfinished) == 0 {
		return
	}
	slices.Sort(c.unfinished)
	n := len(c.unfinished)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	c.res.Unfinished = int64(n)
	c.res.UnfinishedMS = &result.Elapsed{
		P50: ms(c.unfinished[histogram.Rank(50, int64(n))-1]),
		Max: ms(c.unfinished[n-1]),
	}
}

// warnings says what makes the run's figures doubtful: measured
// intervals without a transaction, a run that stopped more than one
// interval after its end (nothing happened to notice it), transactions
// still running at the end for longer than any that finished, workers on
// goroutines where client threads were wanted.
func (c *collector) warnings() []string {
	var out, empty []string
	measured := 0
	for _, iv := range c.res.Intervals {
		if iv.Warmup {
			continue
		}
		measured++
		if iv.Transactions == 0 {
			empty = append(empty, fmt.Sprintf("%gs", iv.TS))
		}
	}
	if len(empty) > 0 {
		list := empty
		if len(list) > 5 {
			list = append(slices.Clone(list[:5]), "…")
		}
		out = append(out, fmt.Sprintf("%d of %d measured intervals had no transactions (ending at %s)", len(empty), measured, strings.Join(list, ", ")))
	}
	if e := c.cfg.Events; e != nil && c.status == result.StatusComplete && c.r.spent() && c.stopAt.Before(c.b.warmupEnd) {
		out = append(out, fmt.Sprintf("the warm-up took all %d transactions of --events: nothing was measured", *e))
	}
	if late := c.stopAt.Sub(c.b.end); c.status == result.StatusComplete && late > c.cfg.ReportInterval {
		out = append(out, fmt.Sprintf("the run stopped %.3fs after the end of --time %v, more than one interval (%v): nothing ran to notice the end", late.Seconds(), c.cfg.Duration, c.cfg.ReportInterval))
	}
	if w := timing.Shortfall(c.res); w != "" {
		out = append(out, w)
	}
	if e := c.res.UnfinishedMS; e != nil && e.Max > c.res.LatencyMS.Max {
		out = append(out, fmt.Sprintf("%d transactions were still running at the end, the longest for %.3fs, longer than any that finished (max %.3f ms): the latencies understate the response time", c.res.Unfinished, e.Max/1000, c.res.LatencyMS.Max))
	}
	if c.r.threadsNote != "" {
		out = append(out, c.r.threadsNote)
	}
	for _, d := range c.res.Disturbed {
		out = append(out, result.DisturbedWarning(d))
	}
	return out
}

// disturbed judges the measured intervals' server metrics against the
// run's limits (Config.Disturbed).
func (c *collector) disturbed() []result.Disturbance {
	var ivs []sysmon.Interval
	for _, iv := range c.res.Intervals {
		if !iv.Warmup && iv.Server != nil {
			ivs = append(ivs, iv.Server)
		}
	}
	return c.cfg.Disturbed.Judge(ivs, c.clientCores())
}

// clientCores is how many cores dbarena drives the workers with: its
// client threads (each one OS thread), else GOMAXPROCS, at most the
// host's CPUs; 0 on an embedded engine, whose CPU is the database's.
func (c *collector) clientCores() float64 {
	if c.r.eng.Dialect().Capabilities().Embedded {
		return 0
	}
	n := runtime.GOMAXPROCS(0)
	if len(c.r.threads) > 0 {
		n = len(c.r.threads)
	}
	return float64(min(n, runtime.NumCPU()))
}

// awaitBaseline waits for the server's baseline begin took aside.
func (c *collector) awaitBaseline() {
	if c.serverBaseline != nil {
		<-c.serverBaseline // closed: returns at once after the first time
	}
}

// report reads the database's counters and the server's metrics and
// reports the interval merged last, which ends at label; rates use its
// length.
func (c *collector) report(length time.Duration, label time.Time, warmup bool) {
	r, cfg, tick := c.r, c.cfg, c.tick
	var deltas []int64
	if r.mon != nil {
		deltas = r.mon.tick(c.ctx)
	}
	metrics := r.metrics(tick, length, deltas, false)
	var srv sysmon.Interval
	c.awaitBaseline()
	if cfg.Server != nil {
		// The last interval of an interrupted run is sampled too.
		srv = cfg.Server.Tick(context.WithoutCancel(c.ctx))
	}
	elapsed := label.Sub(c.b.start)
	iv := intervalOf(tick, elapsed, length, warmup)
	if r.open != nil {
		iv.OfferedTPS = round2(r.open.Offered(elapsed-length, elapsed) / float64(c.cfg.Shard.Whole().Count))
	}
	if len(srv) > 0 {
		iv.Server = srv
		iv.Disturbed = cfg.Disturbed.Causes(srv, c.clientCores())
	}
	if len(metrics) > 0 {
		iv.Metrics = make(map[string]float64, len(metrics))
		for _, m := range metrics {
			iv.Metrics[m.Name] = m.Value
		}
	}
	c.res.Intervals = append(c.res.Intervals, iv)
	if c.obs != nil {
		c.obs.OnTick(Tick{Threads: cfg.Threads, Elapsed: elapsed, Length: length, Warmup: warmup, Ops: r.ops, Interval: tick, Metrics: metrics, Server: srv,
			Record: &c.res.Intervals[len(c.res.Intervals)-1], Started: c.res.StartedAt, Abort: c.abort})
	}
	if !warmup {
		c.total.Merge(tick)
	}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
