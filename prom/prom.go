// Package prom serves the figures of runs as they go as Prometheus
// metrics (`--metrics-addr`), from the same intervals the live lines and
// the result file are made of: an Exporter is a runner.Observer, told
// every interval by the runner's merger, so that its counters at the end
// of a run equal the result file's counts.
//
// Every series is labelled by target, workload and run; counters also by
// phase (warmup or measured: the result file counts the measured phase
// only, so sum(...{phase="measured"}) is its figure) and, per operation,
// by op. The exporter keeps one state per run, updated under a lock
// once per interval, and a scrape reads it whole (Collect), so a scrape
// never sees half an interval. Runs stay served after they end, so a
// scrape after a run reads its final counts.
//
// Latencies are classic histograms with fixed buckets from 100 µs to
// 60 s (Buckets): the text format every Prometheus and Grafana's
// histogram_quantile read without the native-histogram feature flag and
// protobuf scraping. Each interval's HDR histograms are merged into the
// run's own per op and phase (what the runner's total costs again), and a
// scrape that finds them changed counts their values into the buckets,
// each at the first bound at or above its highest equivalent value (HDR's
// 3 significant digits), so that the merger pays no more per interval and
// an ended run keeps only its bucket counts; exact percentiles are the
// result file's.
package prom

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmon"
)

// Namespace prefixes every metric's name.
const Namespace = "dbarena"

// Buckets are the latency histograms' upper bounds, in seconds.
var Buckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Labels name a run's series.
type Labels struct {
	// Target is the target's label (never its URL or password).
	Target   string
	Workload string
	// Run tells the run apart from the others of the command: a sweep's
	// thread count, a plan's cell and repetition.
	Run string
	// Shard is the process's shard index in a sharded run (--shard), ""
	// otherwise: a Prometheus scraping every shard sums their series.
	Shard string
}

func (l Labels) values() []string {
	if l.Shard != "" {
		return []string{l.Target, l.Workload, l.Run, l.Shard}
	}
	return []string{l.Target, l.Workload, l.Run}
}

// names are the labels' names: a shard's series have a shard label.
func (l Labels) names() []string {
	if l.Shard != "" {
		return []string{"target", "workload", "run", "shard"}
	}
	return []string{"target", "workload", "run"}
}

// opCounts are an op's counts in one phase.
type opCounts struct {
	transactions, errors, retries, rollbacks int64
	// late are transactions of an arrival-rate run that started after
	// their intended start (the result file's late).
	late int64
}

// phaseState is what a run counted in one phase (warmup, measured).
type phaseState struct {
	ops []opCounts
	// hists are the ops' latencies so far (µs), merged every interval,
	// until the run ends; buckets and sumS are computed from them when a
	// scrape finds them changed (dirty), and kept alone once the run
	// ended, so that an ended run holds a few numbers, not histograms.
	hists                 []*hdr.Histogram
	dirty                 bool
	buckets               [][]uint64 // per op, per bucket: values in it (not cumulative)
	sumS                  []float64  // per op: sum of latencies, s
	reconnects            int64
	reads, writes, others int64
	// skipped and dropped are arrivals of an arrival-rate run that never
	// started (--latency-limit, --max-queue).
	skipped, dropped int64
}

// fill computes buckets and sums from the histograms.
func (p *phaseState) fill() {
	if !p.dirty || p.hists == nil {
		return
	}
	p.dirty = false
	for i, h := range p.hists {
		clear(p.buckets[i])
		p.sumS[i] = 0
		if h.TotalCount() == 0 {
			continue
		}
		for _, bar := range h.Distribution() {
			if bar.Count == 0 {
				continue
			}
			// The bar's values are at most bar.To µs (its highest
			// equivalent value): counted in the first bucket that holds To.
			k, _ := slices.BinarySearch(Buckets, float64(bar.To)/1e6)
			p.buckets[i][k] += uint64(bar.Count)
		}
		p.sumS[i] = h.Mean() * float64(h.TotalCount()) / 1e6
	}
}

// runState is one run's series.
type runState struct {
	labels  Labels
	ops     []string
	phases  [2]*phaseState // 0 warmup, 1 measured
	threads int
	// rate is the arrival rate a rate-driven load model runs at (0: a
	// closed loop, no rate), set by SetRate.
	rate    float64
	elapsed float64
	warmup  bool
	server  map[string]float64
	metrics map[string]float64
	done    bool
}

// Exporter serves /metrics. Listen opens it; Begin starts a run's series
// and OnTick (it is a runner.Observer) updates the run begun last. It is
// safe for concurrent use by one run's merger and any number of scrapes.
type Exporter struct {
	ln  net.Listener
	srv *http.Server
	reg *prometheus.Registry

	mu   sync.Mutex
	runs []*runState
	cur  *runState
	next runner.Observer

	descs map[string]*prometheus.Desc
	// labelNames are the runs' label names (Labels.names): one process
	// runs as a shard or not at all.
	labelNames []string
}

var _ runner.Observer = (*Exporter)(nil)

// ErrListen is wrapped by the error of an address Listen cannot serve on
// (in use, not an address of this host, malformed).
var ErrListen = errors.New("cannot serve metrics")

// Listen binds addr (host:port; port 0 picks a free one) and serves
// /metrics on it until Close. A bind failure is returned at once,
// wrapping ErrListen, so that it is reported before any run.
func Listen(addr string) (*Exporter, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %w", ErrListen, addr, err)
	}
	e := &Exporter{ln: ln, reg: prometheus.NewRegistry(), descs: map[string]*prometheus.Desc{}}
	e.reg.MustRegister(collector{e})
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// Addr is the address served on (with the port picked for port 0).
func (e *Exporter) Addr() string { return e.ln.Addr().String() }

// Close stops serving, waiting up to a second for scrapes in progress.
func (e *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return e.srv.Shutdown(ctx)
}

// Observer returns the exporter as the observer of runs, passing every
// tick on to next (the live lines) first.
func (e *Exporter) Observer(next runner.Observer) runner.Observer {
	e.mu.Lock()
	e.next = next
	e.mu.Unlock()
	return e
}

// Begin starts the series of a run with threads workers; the ticks that
// follow are its. Labels that an earlier run had replace its series.
func (e *Exporter) Begin(l Labels, threads int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.runs = slices.DeleteFunc(e.runs, func(r *runState) bool { return r.labels == l })
	e.cur = &runState{labels: l, threads: threads}
	e.runs = append(e.runs, e.cur)
	e.labelNames = l.names()
}

// SetRate records the arrival rate (transactions per second) the current
// run's load model offers, served as dbarena_rate; a closed-loop run has
// none. An arrival-rate scheduler's caller sets it with Begin.
func (e *Exporter) SetRate(perSecond float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur != nil {
		e.cur.rate = perSecond
	}
}

// OnTick passes t on, then adds the interval to the current run's series.
func (e *Exporter) OnTick(t runner.Tick) {
	e.mu.Lock()
	next := e.next
	e.mu.Unlock()
	if next != nil {
		next.OnTick(t)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.cur
	if r == nil || t.Interval == nil {
		return
	}
	if r.ops == nil {
		for _, o := range t.Ops {
			r.ops = append(r.ops, o.Name)
		}
	}
	phase := 1
	if t.Warmup {
		phase = 0
	}
	p := r.phases[phase]
	if p == nil {
		p = &phaseState{ops: make([]opCounts, len(r.ops)), buckets: make([][]uint64, len(r.ops)), sumS: make([]float64, len(r.ops)),
			hists: make([]*hdr.Histogram, len(r.ops))}
		for i := range p.buckets {
			p.buckets[i] = make([]uint64, len(Buckets)+1) // the last: above every bound
			p.hists[i] = histogram.New()
		}
		r.phases[phase] = p
	}
	iv := t.Interval
	for i := range iv.Ops {
		if i >= len(p.ops) {
			break
		}
		o := &iv.Ops[i]
		c := &p.ops[i]
		c.transactions += o.Hist.TotalCount()
		c.errors += o.Counts.Errors
		c.retries += o.Counts.Retries
		c.rollbacks += o.Counts.Rollbacks
		c.late += o.Counts.Late
		if o.Hist.TotalCount() > 0 && p.hists != nil {
			p.hists[i].Merge(o.Hist)
			p.dirty = true
		}
	}
	p.reconnects += iv.Reconnects
	p.skipped += iv.Skipped
	p.dropped += iv.Dropped
	p.reads += iv.Queries.Reads
	p.writes += iv.Queries.Writes
	p.others += iv.Queries.Other
	r.threads = t.Threads
	r.elapsed = t.Elapsed.Seconds()
	r.warmup = t.Warmup
	r.server = mapsClone(t.Server)
	if len(t.Metrics) > 0 {
		r.metrics = map[string]float64{}
		for _, m := range t.Metrics {
			r.metrics[m.Name] = m.Value
		}
	}
}

func mapsClone(m sysmon.Interval) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// serverMetricName is the metric a server metric of sysmon is served as:
// dbarena_ and its name, with anything but letters, digits and _ as _.
func serverMetricName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return Namespace + "_" + string(b)
}

// serverHelp is the help text of sysmon's metrics, by name.
func serverHelp() map[string]string {
	out := map[string]string{}
	for _, m := range sysmon.Metrics() {
		out[m.Name] = m.Help
	}
	return out
}

var phaseNames = [2]string{"warmup", "measured"}

// collector is the Exporter's prometheus.Collector: it emits every
// run's state as constant metrics.
type collector struct{ e *Exporter }

// Describe sends nothing: the server metrics a run has are known only as
// it goes, which makes the collector unchecked.
func (collector) Describe(chan<- *prometheus.Desc) {}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	help := serverHelp()
	for _, r := range e.runs {
		lv := r.labels.values()
		for ph, p := range r.phases {
			if p == nil {
				continue
			}
			p.fill()
			for i, op := range r.ops {
				opl := append(slices.Clone(lv), phaseNames[ph], op)
				o := p.ops[i]
				e.counter(ch, "transactions_total", "transactions that succeeded (rollbacks by design included), as the result file's transactions", o.transactions, opl)
				e.counter(ch, "errors_total", "transactions that failed for good, after any retries, as the result file's errors", o.errors, opl)
				e.counter(ch, "retries_total", "attempts that failed with a retryable error (serialization failure, deadlock …) and were run again", o.retries, opl)
				e.counter(ch, "rollbacks_total", "transactions the workload rolled back by design", o.rollbacks, opl)
				if r.rate > 0 {
					e.counter(ch, "late_total", "transactions of an arrival-rate run that started more than 1 ms after their intended start, as the result file's late", o.late, opl)
				}
				buckets := map[float64]uint64{}
				var cum uint64
				for k, b := range Buckets {
					cum += p.buckets[i][k]
					buckets[b] = cum
				}
				cum += p.buckets[i][len(Buckets)]
				ch <- prometheus.MustNewConstHistogram(e.desc("latency_seconds", "latency of the successful transactions", "op"), cum, p.sumS[i], buckets, opl...)
			}
			pl := append(slices.Clone(lv), phaseNames[ph])
			e.counter(ch, "reconnects_total", "connections re-opened after a lost one", p.reconnects, pl)
			if r.rate > 0 {
				e.counter(ch, "skipped_total", "arrivals of an arrival-rate run not run because they could not start within --latency-limit", p.skipped, pl)
				e.counter(ch, "dropped_total", "arrivals of an arrival-rate run dropped because their worker's share of --max-queue was full", p.dropped, pl)
			}
			for _, q := range []struct {
				kind string
				n    int64
			}{{"read", p.reads}, {"write", p.writes}, {"other", p.others}} {
				ch <- prometheus.MustNewConstMetric(e.desc("queries_total", "statements (commands on MongoDB) sent", "kind"), prometheus.CounterValue, float64(q.n), append(slices.Clone(pl), q.kind)...)
			}
		}
		if r.done {
			continue
		}
		e.gauge(ch, "threads", "workers of the run (one connection each)", float64(r.threads), lv)
		if r.rate > 0 {
			e.gauge(ch, "rate", "transactions per second the load model offers (an arrival-rate run)", r.rate, lv)
		}
		e.gauge(ch, "elapsed_seconds", "time since the run started (warm-up included) at the end of the last interval", r.elapsed, lv)
		warm := 0.0
		if r.warmup {
			warm = 1
		}
		e.gauge(ch, "warmup", "1 while the run is in its warm-up", warm, lv)
		for name, v := range r.metrics {
			ch <- prometheus.MustNewConstMetric(e.descWith("workload_metric", "the workload's own figure (NOPM, TPM …) over the last interval", []string{"name"}),
				prometheus.GaugeValue, v, append(slices.Clone(lv), name)...)
		}
		for name, v := range r.server {
			if name == sysmon.IntervalKey {
				continue
			}
			h := help[name]
			if h == "" {
				h = "server metric"
			}
			ch <- prometheus.MustNewConstMetric(e.rawDesc(serverMetricName(name), "the server's "+strings.TrimSuffix(h, ".")+", over the last interval (package sysmon)", r.labels.names()),
				prometheus.GaugeValue, v, lv...)
		}
	}
}

// End marks the current run as ended: its counters stay served, its
// gauges (threads, rate, server metrics) go.
func (e *Exporter) End() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur != nil {
		e.cur.done = true
		for _, p := range e.cur.phases {
			if p != nil {
				p.fill()
				p.hists = nil
			}
		}
	}
}

func (e *Exporter) counter(ch chan<- prometheus.Metric, name, help string, v int64, lv []string) {
	extra := []string{"phase"}
	if len(lv) == len(e.labelNames)+2 {
		extra = append(extra, "op")
	}
	ch <- prometheus.MustNewConstMetric(e.descWith(name, help, extra), prometheus.CounterValue, float64(v), lv...)
}

func (e *Exporter) gauge(ch chan<- prometheus.Metric, name, help string, v float64, lv []string) {
	ch <- prometheus.MustNewConstMetric(e.descWith(name, help, nil), prometheus.GaugeValue, v, lv...)
}

// desc is a per-phase metric's description: the run's labels, phase and
// the extra one.
func (e *Exporter) desc(name, help, extra string) *prometheus.Desc {
	return e.descWith(name, help, []string{"phase", extra})
}

func (e *Exporter) descWith(name, help string, extra []string) *prometheus.Desc {
	return e.rawDesc(Namespace+"_"+name, help, append(slices.Clone(e.labelNames), extra...))
}

// rawDesc caches descriptions by name (with e.mu held).
func (e *Exporter) rawDesc(name, help string, labels []string) *prometheus.Desc {
	if d, ok := e.descs[name]; ok {
		return d
	}
	d := prometheus.NewDesc(name, help, labels, nil)
	e.descs[name] = d
	return d
}
