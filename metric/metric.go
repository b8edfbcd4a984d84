// Package metric is dbarena's metric registry: every figure of a run's
// summary in a result file (throughput, counts, latency, CPU, the
// server's metrics), its name, export column and unit, whether larger is
// better, and how to read it from a run (RunMetrics, LookupRunMetric).
// compare tabulates these figures, export writes them, threshold and
// plans check names against them.
//
// The server's metrics are those of the package that samples them
// (sysmon), which registers their list (RegisterServerMetrics): the
// package imports nothing of dbarena but the result file and its
// histograms, so the packages that read results need no engine to know
// the metrics.
package metric

import (
	"slices"
	"strings"
	"sync"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
)

// IntervalKey is the key of a run's (and an interval's) server map
// (result.Run.Server) that holds the sampled time in seconds: no metric.
const IntervalKey = "interval_s"

// ServerMetric describes one server metric a run may hold
// (result.Run.Server).
type ServerMetric struct {
	// Name is the key in the server maps; it ends in its unit.
	Name string
	// Unit is the unit for labels: "%", "/s", "MB/s", "count" (of events
	// in the interval), "sessions", "processes" or "threads".
	Unit string
	// Help says what is measured and where it comes from.
	Help string
	// Summed tells that a run's value adds the metric up over the
	// intervals (a count of events) rather than averaging it.
	Summed bool
	// Chart, when not "", is the title of the report's server chart over
	// time that draws the metric with the others of the same Chart (all
	// of one Unit), under ChartLabel.
	Chart, ChartLabel string
}

// serverMetrics is the registered source of the server metrics.
var serverMetrics struct {
	mu   sync.Mutex
	list func() []ServerMetric
}

// RegisterServerMetrics makes list the source of ServerMetrics: the
// package that samples the server metrics registers it from its init.
// list is called when the metrics are needed, once every engine has
// registered its own. A second registration, or a nil list, panics.
func RegisterServerMetrics(list func() []ServerMetric) {
	serverMetrics.mu.Lock()
	defer serverMetrics.mu.Unlock()
	if list == nil {
		panic("metric: RegisterServerMetrics with a nil list")
	}
	if serverMetrics.list != nil {
		panic("metric: RegisterServerMetrics called twice")
	}
	serverMetrics.list = list
}

// ServerMetrics lists every server metric a run may hold, in the order
// reports list them (IntervalKey is not one); none when no list is
// registered.
func ServerMetrics() []ServerMetric {
	serverMetrics.mu.Lock()
	list := serverMetrics.list
	serverMetrics.mu.Unlock()
	if list == nil {
		return nil
	}
	return list()
}

// RunMetric is one number of a result file's run summary: a figure
// compare can tabulate (--metric Name) and a column export writes
// (Column). RunMetrics lists them all; the workload's own metrics (NOPM,
// transfers/min …) come on top, from each run's Metrics.
type RunMetric struct {
	// Name is what --metric takes and the table shows: "tps", "p99",
	// "retries", "server_cpu_pct".
	Name string
	// Column is export's column: Name with its unit where the result
	// file's field has one ("p99_ms").
	Column string
	Unit   string // "/s", "ms", "µs", "%", "count", "s" …
	Higher bool   // larger is better
	// Count tells that the value is a whole number (a count of events).
	Count bool
	// Server tells that the metric is one of the server's (Run.Server),
	// present only where the server was sampled.
	Server bool
	Help   string
	// Value reads the metric from a run; false when the run lacks it (a
	// server metric that was not sampled).
	Value func(r *result.Run) (float64, bool)
	// OpValue reads it from one operation of a run (--op); nil when the
	// metric has no per-operation value.
	OpValue func(r *result.Run, o *result.Op) (float64, bool)
}

func always(f func(r *result.Run) float64) func(r *result.Run) (float64, bool) {
	return func(r *result.Run) (float64, bool) { return f(r), true }
}

func count(f func(r *result.Run) int64) func(r *result.Run) (float64, bool) {
	return func(r *result.Run) (float64, bool) { return float64(f(r)), true }
}

func opCount(f func(o *result.Op) int64) func(r *result.Run, o *result.Op) (float64, bool) {
	return func(_ *result.Run, o *result.Op) (float64, bool) { return float64(f(o)), true }
}

func latencyMetric(name, help string, f func(l histogram.Latency) float64) RunMetric {
	return RunMetric{Name: name, Column: name + "_ms", Unit: "ms", Help: help,
		Value:   always(func(r *result.Run) float64 { return f(r.LatencyMS) }),
		OpValue: func(_ *result.Run, o *result.Op) (float64, bool) { return f(o.LatencyMS), true }}
}

// runMetrics are the figures of a run outside its server metrics, in
// export's column order.
var runMetrics = []RunMetric{
	{Name: "duration_s", Column: "duration_s", Unit: "s", Help: "measured time",
		Value: always(func(r *result.Run) float64 { return r.DurationS })},
	{Name: "warmup_s", Column: "warmup_s", Unit: "s", Help: "discarded warm-up before the measured time",
		Value: always(func(r *result.Run) float64 { return r.WarmupS })},
	{Name: "transactions", Column: "transactions", Unit: "count", Higher: true, Count: true, Help: "transactions that succeeded (rollbacks by design included)",
		Value: count(func(r *result.Run) int64 { return r.Transactions }), OpValue: opCount(func(o *result.Op) int64 { return o.Count })},
	{Name: "tps", Column: "tps", Unit: "/s", Higher: true, Help: "transactions per second",
		Value: always(func(r *result.Run) float64 { return r.TPS }),
		OpValue: func(r *result.Run, o *result.Op) (float64, bool) {
			if r.DurationS <= 0 {
				return 0, false
			}
			return float64(o.Count) / r.DurationS, true
		}},
	{Name: "queries", Column: "queries", Unit: "count", Higher: true, Count: true, Help: "statements (commands on MongoDB) sent",
		Value: count(func(r *result.Run) int64 { return r.Queries })},
	{Name: "qps", Column: "qps", Unit: "/s", Higher: true, Help: "queries per second",
		Value: always(func(r *result.Run) float64 { return r.QPS })},
	{Name: "reads", Column: "reads", Unit: "count", Count: true, Higher: true, Help: "read queries",
		Value: count(func(r *result.Run) int64 { return r.Reads })},
	{Name: "writes", Column: "writes", Unit: "count", Count: true, Higher: true, Help: "write queries",
		Value: count(func(r *result.Run) int64 { return r.Writes })},
	{Name: "other", Column: "other", Unit: "count", Count: true, Higher: true, Help: "other queries (BEGIN, COMMIT …)",
		Value: count(func(r *result.Run) int64 { return r.Other })},
	{Name: "errors", Column: "errors", Unit: "count", Count: true, Help: "transactions that failed for good (after any retries)",
		Value: count(func(r *result.Run) int64 { return r.Errors }), OpValue: opCount(func(o *result.Op) int64 { return o.Errors })},
	{Name: "retries", Column: "retries", Unit: "count", Count: true, Help: "attempts that failed with a retryable error and were run again",
		Value: count(func(r *result.Run) int64 { return r.Retries }), OpValue: opCount(func(o *result.Op) int64 { return o.Retries })},
	{Name: "retries_per_s", Column: "retries_per_s", Unit: "/s", Help: "retries per second of the measured time",
		Value: always(func(r *result.Run) float64 { return r.RetriesPerS })},
	{Name: "retry_pct", Column: "retry_pct", Unit: "%", Help: "retries as a percentage of the transactions that committed",
		Value: always(func(r *result.Run) float64 { return r.RetryPct })},
	{Name: "reconnects", Column: "reconnects", Unit: "count", Count: true, Help: "connections re-opened after a lost one",
		Value: count(func(r *result.Run) int64 { return r.Reconnects })},
	{Name: "rollbacks", Column: "rollbacks", Unit: "count", Count: true, Help: "transactions the workload rolled back by design",
		Value: count(func(r *result.Run) int64 { return r.Rollbacks }), OpValue: opCount(func(o *result.Op) int64 { return o.Rollbacks })},
	latencyMetric("min", "fastest successful transaction", func(l histogram.Latency) float64 { return l.Min }),
	latencyMetric("mean", "mean latency of the successful transactions", func(l histogram.Latency) float64 { return l.Mean }),
	latencyMetric("p50", "median latency", func(l histogram.Latency) float64 { return l.P50 }),
	latencyMetric("p95", "95th-percentile latency", func(l histogram.Latency) float64 { return l.P95 }),
	latencyMetric("p99", "99th-percentile latency", func(l histogram.Latency) float64 { return l.P99 }),
	latencyMetric("p999", "99.9th-percentile latency", func(l histogram.Latency) float64 { return l.P999 }),
	latencyMetric("max", "slowest successful transaction", func(l histogram.Latency) float64 { return l.Max }),
	{Name: "client_cpu_s", Column: "client_cpu_s", Unit: "s", Help: "dbarena's own CPU time (user+system) in the measured time",
		Value: always(func(r *result.Run) float64 { return r.ClientCPUS })},
	{Name: "client_cpu_per_txn_us", Column: "client_cpu_per_txn_us", Unit: "µs", Help: "dbarena's CPU per transaction",
		Value: positive(func(r *result.Run) float64 { return r.ClientCPUPerTxnUS })},
	{Name: "client_cpu_per_query_us", Column: "client_cpu_per_query_us", Unit: "µs", Help: "dbarena's CPU per query",
		Value: positive(func(r *result.Run) float64 { return r.ClientCPUPerQueryUS })},
	{Name: "server_cpu_per_txn_us", Column: "server_cpu_per_txn_us", Unit: "µs", Help: "the server process's CPU per transaction (needs server_cpu_pct)",
		Value: positive(func(r *result.Run) float64 { return r.ServerCPUPerTxnUS })},
	{Name: "server_cpu_per_query_us", Column: "server_cpu_per_query_us", Unit: "µs", Help: "the server process's CPU per query (needs server_cpu_pct)",
		Value: positive(func(r *result.Run) float64 { return r.ServerCPUPerQueryUS })},
}

// positive is a figure that is absent when 0 (CPU not measured).
func positive(f func(r *result.Run) float64) func(r *result.Run) (float64, bool) {
	return func(r *result.Run) (float64, bool) {
		v := f(r)
		return v, v > 0
	}
}

// aliases are other names --metric takes.
var aliases = map[string]string{"cpu": "client_cpu_per_txn_us", "p99.9": "p999", "avg": "mean"}

// RunMetrics lists every number of a run's summary: the run's own figures
// (throughput, counts, latency, CPU), then every server metric
// (ServerMetrics, Run.Server; resource use, lower is better except hit
// ratios).
// The workload's own metrics are not listed: they are per workload.
func RunMetrics() []RunMetric {
	out := append([]RunMetric(nil), runMetrics...)
	for _, m := range ServerMetrics() {
		out = append(out, serverMetric(m.Name, m.Unit, m.Help, m.Summed))
	}
	return out
}

func serverMetric(name, unit, help string, summed bool) RunMetric {
	return RunMetric{Name: name, Column: name, Unit: unit, Help: help, Count: summed, Server: true,
		Higher: strings.HasSuffix(name, "_hit_pct"),
		Value: func(r *result.Run) (float64, bool) {
			v, ok := r.Server[name]
			return v, ok
		}}
}

// LookupRunMetric finds a run metric by its name or column, in any case
// (also "cpu", "p99.9" and "avg"). A server metric that is not one of
// ServerMetrics (a newer dbarena's) is found too when a run of runs has
// it.
func LookupRunMetric(name string, runs ...*result.Run) (RunMetric, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[n]; ok {
		n = a
	}
	for _, m := range RunMetrics() {
		if m.Name == n || m.Column == n {
			return m, true
		}
	}
	for _, r := range runs {
		for k := range r.Server {
			if strings.EqualFold(k, n) && k != IntervalKey {
				return serverMetric(k, "", "server metric", false), true
			}
		}
	}
	return RunMetric{}, false
}

// ServerColumns are the server metrics any of runs has, in the order of
// ServerMetrics, then those it does not list (a newer dbarena's), sorted.
func ServerColumns(runs []*result.Run) []RunMetric {
	have := map[string]bool{}
	for _, r := range runs {
		for k := range r.Server {
			if k != IntervalKey {
				have[k] = true
			}
		}
	}
	var out []RunMetric
	for _, m := range ServerMetrics() {
		if have[m.Name] {
			out = append(out, serverMetric(m.Name, m.Unit, m.Help, m.Summed))
			delete(have, m.Name)
		}
	}
	var rest []string
	for k := range have {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	for _, k := range rest {
		out = append(out, serverMetric(k, "", "server metric", false))
	}
	return out
}
