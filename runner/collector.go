package runner

import (
	"context"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/sysmon"
)

// collector is the collector goroutine's state: the run's instants, the
// reused interval, the measured total and the result being built. Only
// execute's goroutine touches it.
type collector struct {
	ctx context.Context
	r   *run
	cfg Config
	obs Observer

	tick  *histogram.Interval // the current interval, reused
	total *histogram.Interval // the measured phase so far
	res   *result.Run

	// start is when the run started; warmupEnd and end are when the
	// warm-up and the measured phase end as scheduled. measureStart and
	// cpuStart are the real instant and CPU time the measured phase began
	// at; last is the end of the latest interval gathered; nextTick the
	// next scheduled tick.
	start, warmupEnd, end, measureStart, last, nextTick time.Time
	stopAt                                              time.Time
	cpuStart, cpu                                       time.Duration
	inWarmup                                            bool
}

func newCollector(ctx context.Context, r *run, obs Observer) *collector {
	nops := len(r.ops)
	return &collector{ctx: ctx, r: r, cfg: r.cfg, obs: obs,
		tick: histogram.NewInterval(nops), total: histogram.NewInterval(nops),
		res: &result.Run{Threads: r.cfg.Threads, WarmupS: r.cfg.Warmup.Seconds()}}
}

// begin takes the monitors' baselines and starts the clocks.
func (c *collector) begin() {
	cfg := c.cfg
	if c.r.mon != nil {
		c.r.mon.start(c.ctx) // the baseline of the first interval
		if cfg.Warmup == 0 {
			c.r.mon.markMeasureStart()
		}
	}
	if cfg.Server != nil {
		cfg.Server.Start(c.ctx) // the baseline of the first interval
	}
	c.start = cfg.Now()
	c.res.StartedAt = c.start.UTC()
	c.warmupEnd = c.start.Add(cfg.Warmup)
	c.end = c.warmupEnd.Add(cfg.Duration)
	c.measureStart, c.last = c.start, c.start
	c.cpuStart = cpuTime()
	c.inWarmup = cfg.Warmup > 0
	c.nextTick = c.start.Add(cfg.ReportInterval)
}

// ticks closes an interval at every tick until the measured phase ends
// (complete), the context is cancelled (interrupted) or a worker fails
// the run (failed).
func (c *collector) ticks() (status string, err error) {
	cfg := c.cfg
	timer := time.NewTimer(0)
	<-timer.C
	defer timer.Stop()
	for {
		next := c.nextTick
		if c.inWarmup && c.warmupEnd.Before(next) {
			next = c.warmupEnd
		}
		if c.end.Before(next) {
			next = c.end
		}
		timer.Reset(max(next.Sub(cfg.Now()), 0))
		select {
		case <-timer.C:
		case <-c.ctx.Done():
			return result.StatusInterrupted, ErrInterrupted
		case err := <-c.r.fail:
			return result.StatusFailed, err
		}
		now := cfg.Now()
		switch {
		case !now.Before(c.end):
			return result.StatusComplete, nil
		case c.inWarmup && !now.Before(c.warmupEnd):
			c.cutWarmup(now)
		default:
			c.report(c.gather(now), next, c.inWarmup)
			c.nextTick = c.nextTick.Add(cfg.ReportInterval)
		}
	}
}

// cutWarmup ends the warm-up at one instant: everything recorded before
// it is discarded, the clocks restart together.
func (c *collector) cutWarmup(now time.Time) {
	c.report(c.gather(now), c.warmupEnd, true)
	if c.r.mon != nil {
		c.r.mon.markMeasureStart()
	}
	c.inWarmup = false
	c.measureStart, c.cpuStart = now, cpuTime()
	if !c.nextTick.After(now) {
		c.nextTick = c.nextTick.Add(c.cfg.ReportInterval)
	}
}

// stop ends the run: no transaction starts after it, the last interval is
// gathered at once (transactions that end before it closes are in it),
// then wait stops the workers, and the interval is reported after, so
// that the final counter reading sees every transaction the client
// counted.
func (c *collector) stop(status string, wait func()) {
	c.stopAt = c.cfg.Now()
	label := c.stopAt
	if status == result.StatusComplete {
		label = c.end
	}
	c.r.stop.Store(true)
	close(c.r.stopCh)
	length := c.gather(c.stopAt)
	c.cpu = cpuTime() - c.cpuStart
	wait()
	c.report(length, label, c.inWarmup)
	if c.inWarmup {
		// Stopped before the warm-up ended: nothing was measured.
		c.measureStart = c.stopAt
	}
}

// finish fills the result from the measured phase.
func (c *collector) finish(status string, runErr error) (*result.Run, error) {
	r, res := c.r, c.res
	dur := c.stopAt.Sub(c.measureStart)
	fill(res, c.total, r.ops, dur, c.cpu)
	var deltas []int64
	if r.mon != nil && !c.inWarmup {
		res.Counters, deltas = r.mon.measured()
	}
	res.Metrics = r.metrics(c.total, dur, deltas, true)
	ServerSummary(res)
	res.Status = status
	if runErr != nil {
		res.Error = runErr.Error()
	}
	return res, runErr
}

// gather closes the interval at instant at and returns its length.
func (c *collector) gather(at time.Time) time.Duration {
	c.tick.Reset()
	for _, s := range c.r.workers {
		s.rec.Collect(c.tick)
	}
	length := at.Sub(c.last)
	c.last = at
	return length
}

// report reads the database's counters and the server's metrics and
// reports the interval gathered last. label is the instant the interval
// is reported under: the scheduled tick, so lines read "[ 2s ]" rather
// than the timer's jitter; rates use the real length.
func (c *collector) report(length time.Duration, label time.Time, warmup bool) {
	if length <= 0 {
		return
	}
	r, cfg, tick := c.r, c.cfg, c.tick
	var deltas []int64
	if r.mon != nil {
		deltas = r.mon.tick(c.ctx)
	}
	metrics := r.metrics(tick, length, deltas, false)
	var srv sysmon.Interval
	if cfg.Server != nil {
		// The last interval of an interrupted run is sampled too.
		srv = cfg.Server.Tick(context.WithoutCancel(c.ctx))
	}
	iv := intervalOf(tick, label.Sub(c.start), length, warmup)
	if len(srv) > 0 {
		iv.Server = srv
	}
	if len(metrics) > 0 {
		iv.Metrics = make(map[string]float64, len(metrics))
		for _, m := range metrics {
			iv.Metrics[m.Name] = m.Value
		}
	}
	c.res.Intervals = append(c.res.Intervals, iv)
	if c.obs != nil {
		c.obs.OnTick(Tick{Threads: cfg.Threads, Elapsed: label.Sub(c.start), Length: length, Warmup: warmup, Ops: r.ops, Interval: tick, Metrics: metrics, Server: srv,
			Record: &c.res.Intervals[len(c.res.Intervals)-1], Started: c.res.StartedAt})
	}
	if !warmup {
		c.total.Merge(tick)
	}
}
