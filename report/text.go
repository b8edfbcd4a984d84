// Package report turns runs into what people read: live per-interval lines
// while a run goes, and the summary after it.
package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/runner/timing"
	"github.com/dbarena/dbarena/sysmon"
)

// Lines prints one sysbench-style line per interval. It implements
// runner.Observer.
type Lines struct {
	W io.Writer
}

var _ runner.Observer = (*Lines)(nil)

// OnTick prints the interval's line.
func (l *Lines) OnTick(t runner.Tick) {
	fmt.Fprintln(l.W, Line(t))
}

// Line formats one interval like sysbench's --report-interval output:
//
//	[ 10s ] thds: 8 tps: 1234.50 qps: 24690.00 (r/w/o: 17283.00/4938.00/2469.00) lat (ms,95%): 5.21 err/s: 0.00 retry/s: 0.00 reconn/s: 0.00
//
// err/s, retry/s and reconn/s are the interval's errors, retries and
// reconnects per second, as the summary, the result file and the report
// count them (docs/RESULTS.md): an error is a transaction that failed for
// good, a retry an attempt that failed and was run again; a transaction
// that succeeded after retries is no error. Rollbacks the workload makes
// on purpose are successes and show as rb/s when there are any. The
// workload's own figures follow, then the server's metrics after "|"
// (sysmon.Compact) when they are sampled, and DisturbedMark when the host
// was busy beyond the run's limits in the interval. Warm-up intervals end
// in "(warmup)".
func Line(t runner.Tick) string {
	iv := t.Interval
	secs := t.Length.Seconds()
	rate := func(n int64) float64 { return float64(n) / secs }
	p95 := 0.0
	var tx int64
	if n := iv.Transactions(); n > 0 {
		tx = n
		p95 = histogram.Percentile(iv.All(), 95)
	}
	s := fmt.Sprintf("[ %ss ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,95%%): %.2f err/s: %.2f retry/s: %.2f reconn/s: %.2f",
		fmtElapsed(t.Elapsed.Seconds()), t.Threads, rate(tx), rate(iv.Queries.Total()),
		rate(iv.Queries.Reads), rate(iv.Queries.Writes), rate(iv.Queries.Other),
		p95, rate(iv.Errors()), rate(iv.Retries()), rate(iv.Reconnects))
	if rb := iv.Rollbacks(); rb > 0 {
		s += fmt.Sprintf(" rb/s: %.2f", rate(rb))
	}
	if iv.Open() {
		s += openLine(t)
	}
	for _, m := range t.Metrics {
		s += " " + m.Name + ": " + FormatMetric(m)
	}
	if c := sysmon.Compact(t.Server); c != "" {
		s += " | " + c
	}
	if t.Record != nil && len(t.Record.Disturbed) > 0 {
		s += " " + DisturbedMark(t.Record.Disturbed, t.Server)
	}
	if t.Warmup {
		s += " (warmup)"
	}
	return s
}

// DisturbedMark is the mark of an interval whose host was busy beyond
// the run's limits (result.Interval.Disturbed): "! disturbed: other 61%",
// with the steal and dbarena's own CPU when they crossed theirs ("steal
// 7.5%", "dbarena 1.95 cores").
func DisturbedMark(causes []string, srv sysmon.Interval) string {
	parts := make([]string, 0, len(causes))
	for _, c := range causes {
		switch c {
		case result.DisturbedOther:
			parts = append(parts, fmt.Sprintf("other %.0f%%", srv["host_other_cpu_pct"]))
		case result.DisturbedSteal:
			parts = append(parts, fmt.Sprintf("steal %.1f%%", srv["host_steal_pct"]))
		case result.DisturbedClient:
			parts = append(parts, fmt.Sprintf("dbarena %.2f cores", srv["client_cpu_pct"]/100))
		default:
			parts = append(parts, c)
		}
	}
	return "! disturbed: " + strings.Join(parts, ", ")
}

// DisturbedCauses lists the causes that disturbed r (result.Run.Disturbed)
// by their names ("other, steal"), "" when nothing did.
func DisturbedCauses(r *result.Run) string {
	causes := make([]string, len(r.Disturbed))
	for i, d := range r.Disturbed {
		causes[i] = d.Cause
	}
	return strings.Join(causes, ", ")
}

// openLine is the part of an interval's line under an arrival rate: the
// rate offered (tps is the rate achieved), the transactions that started
// late and the arrivals skipped and dropped, and the 95th percentile of
// the service time (lat is from the intended start).
func openLine(t runner.Tick) string {
	iv := t.Interval
	offered := 0.0
	if t.Record != nil {
		offered = t.Record.OfferedTPS
	}
	svc := 0.0
	if iv.Transactions() > 0 {
		svc = histogram.Percentile(iv.AllService(), 95)
	}
	return fmt.Sprintf(" offered: %.2f late: %d skipped: %d dropped: %d svc (ms,95%%): %.2f", offered, iv.Late(), iv.Skipped, iv.Dropped, svc)
}

// FormatMetric prints a workload metric's value: percentages with one
// decimal and a % sign, large values as whole numbers, small ones with
// two decimals.
func FormatMetric(m result.Metric) string {
	switch {
	case m.Unit == "%":
		return fmt.Sprintf("%.1f%%", m.Value)
	case math.Abs(m.Value) >= 100:
		return fmt.Sprintf("%.0f", m.Value)
	default:
		return fmt.Sprintf("%.2f", m.Value)
	}
}

// fmtElapsed prints whole seconds as integers, fractions with one or more
// digits ("10", "2.5").
func fmtElapsed(s float64) string {
	if r := math.Round(s); math.Abs(s-r) < 0.0005 {
		return fmt.Sprintf("%d", int64(r))
	}
	return strings.TrimRight(fmt.Sprintf("%.3f", s), "0")
}

// Summary prints a run's totals the way sysbench's final report groups
// them, followed by per-op latency, the run's warnings and why it
// stopped.
func Summary(w io.Writer, r *result.Run) {
	fmt.Fprintf(w, "\nSQL statistics (threads: %d, status: %s):\n", r.Threads, r.Status)
	fmt.Fprintf(w, "    queries performed:\n")
	fmt.Fprintf(w, "        read:                            %d\n", r.Reads)
	fmt.Fprintf(w, "        write:                           %d\n", r.Writes)
	fmt.Fprintf(w, "        other:                           %d\n", r.Other)
	fmt.Fprintf(w, "        total:                           %d\n", r.Queries)
	fmt.Fprintf(w, "    transactions:                        %-10d (%.2f per sec.)\n", r.Transactions, r.TPS)
	fmt.Fprintf(w, "    queries:                             %-10d (%.2f per sec.)\n", r.Queries, r.QPS)
	fmt.Fprintf(w, "    errors:                              %-10d (%.2f per sec.)\n", r.Errors, perSec(r.Errors, r.DurationS))
	fmt.Fprintf(w, "    retries:                             %-10d (%.2f per sec., %.2f%% of committed)\n", r.Retries, r.RetriesPerS, r.RetryPct)
	fmt.Fprintf(w, "    reconnects:                          %-10d (%.2f per sec.)\n", r.Reconnects, perSec(r.Reconnects, r.DurationS))
	if r.Rollbacks > 0 {
		fmt.Fprintf(w, "    rollbacks (by design):               %-10d (%.2f per sec.)\n", r.Rollbacks, perSec(r.Rollbacks, r.DurationS))
	}
	if r.Open != nil {
		openSummary(w, r)
	}
	fmt.Fprintf(w, "\nGeneral statistics:\n")
	fmt.Fprintf(w, "    measured time:                       %.3fs (after %.3fs warm-up)\n", r.DurationS, r.WarmupS)
	if r.Events > 0 {
		fmt.Fprintf(w, "    events limit:                        %d transactions (warm-up included)\n", r.Events)
	}
	fmt.Fprintf(w, "    client CPU:                          %.3fs (%.2f µs/transaction, %.2f µs/query)\n", r.ClientCPUS, r.ClientCPUPerTxnUS, r.ClientCPUPerQueryUS)
	if r.Unfinished > 0 && r.UnfinishedMS != nil {
		fmt.Fprintf(w, "    unfinished at the end:               %-10d (running for p50 %.2f ms, max %.2f ms)\n", r.Unfinished, r.UnfinishedMS.P50, r.UnfinishedMS.Max)
	}
	if cpu, ok := r.Server["server_cpu_pct"]; ok {
		what := fmt.Sprintf("%.2f cores", cpu/100)
		if share, ok := r.Server["server_cpu_pct_host"]; ok {
			what = fmt.Sprintf("%.1f%% of host, %s", share, what)
		}
		fmt.Fprintf(w, "    server CPU:                          %s (%.2f µs/transaction, %.2f µs/query)\n", what, r.ServerCPUPerTxnUS, r.ServerCPUPerQueryUS)
	}
	if hasServerMetrics(r.Server) {
		fmt.Fprintf(w, "\nServer metrics (measured phase):\n")
		ServerTable(w, r.Server)
	}
	if len(r.Metrics) > 0 {
		fmt.Fprintf(w, "\nWorkload metrics:\n")
		MetricsTable(w, r.Metrics)
	}
	if r.Open != nil && r.ServiceMS != nil && r.LagMS != nil {
		fmt.Fprintf(w, "\nLatency (ms):     from intended start   service time     start lag\n")
		l, sv, lg := r.LatencyMS, *r.ServiceMS, *r.LagMS
		for _, row := range []struct {
			name    string
			a, b, c float64
		}{{"min", l.Min, sv.Min, lg.Min}, {"avg", l.Mean, sv.Mean, lg.Mean}, {"p50", l.P50, sv.P50, lg.P50}, {"p95", l.P95, sv.P95, lg.P95},
			{"p99", l.P99, sv.P99, lg.P99}, {"p99.9", l.P999, sv.P999, lg.P999}, {"max", l.Max, sv.Max, lg.Max}} {
			fmt.Fprintf(w, "%12s: %12.2f %23.2f %13.2f\n", row.name, row.a, row.b, row.c)
		}
	} else {
		fmt.Fprintf(w, "\nLatency (ms):\n")
		l := r.LatencyMS
		fmt.Fprintf(w, "         min: %12.2f\n         avg: %12.2f\n         p50: %12.2f\n         p95: %12.2f\n         p99: %12.2f\n       p99.9: %12.2f\n         max: %12.2f\n",
			l.Min, l.Mean, l.P50, l.P95, l.P99, l.P999, l.Max)
	}
	if len(r.Ops) > 0 {
		fmt.Fprintf(w, "\nPer operation (latency in ms):\n")
		OpsTable(w, r.Ops)
	}
	if hasSteps(r.Ops) {
		fmt.Fprintf(w, "\nPer step (latency in ms):\n")
		StepsTable(w, r.Ops)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "\nwarning: %s", warn)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "\nrun stopped: %s\n", r.Error)
	}
}

// openSummary prints the arrival rate of a run of the open model: what
// was offered against what was achieved, and the arrivals that started
// late or never started.
func openSummary(w io.Writer, r *result.Run) {
	o := r.Open
	model := fmt.Sprintf("%s arrivals", o.Arrival)
	if o.RateStages != "" {
		model += ", stages " + o.RateStages
		if o.RateTPS > 0 {
			model += fmt.Sprintf(" from %g/s", o.RateTPS)
		}
	} else {
		model += fmt.Sprintf(" at %g/s", o.RateTPS)
	}
	fmt.Fprintf(w, "    arrival rate:                        %s\n", model)
	fmt.Fprintf(w, "    offered:                             %.2f per sec. (achieved %.2f)\n", r.OfferedTPS, r.TPS)
	if r.Offered > 0 {
		fmt.Fprintf(w, "    arrivals:                            %-10d (started %d, %.2f%%)\n", r.Offered, r.Started, pct(r.Started, r.Offered))
	}
	fmt.Fprintf(w, "    late (started > %v after arrival): %-10d (%.2f%% of transactions)\n", timing.LateTolerance, r.Late, pct(r.Late, r.Transactions))
	limit := ""
	if o.LatencyLimitMS > 0 {
		limit = fmt.Sprintf(" (--latency-limit %g ms)", o.LatencyLimitMS)
	}
	fmt.Fprintf(w, "    skipped:                             %d%s\n", r.Skipped, limit)
	queue := " (queue unbounded)"
	if o.MaxQueue != nil {
		queue = fmt.Sprintf(" (--max-queue %d)", *o.MaxQueue)
	}
	fmt.Fprintf(w, "    dropped:                             %d%s\n", r.Dropped, queue)
	if r.Unstarted > 0 {
		waited := ""
		if u := r.UnstartedMS; u != nil {
			waited = fmt.Sprintf(" (waited p50 %.2f ms, p99 %.2f ms, max %.2f ms, not in the latencies)", u.P50, u.P99, u.Max)
		}
		fmt.Fprintf(w, "    unstarted at the end:                %-10d%s\n", r.Unstarted, waited)
	}
}

func pct(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) * 100 / float64(of)
}

// hasServerMetrics tells whether ServerTable prints anything for m: a
// summary of a server that gave none of sysmon's metrics (SQLite: only
// the time covered) has no table and no heading.
func hasServerMetrics(m map[string]float64) bool {
	for _, info := range sysmon.Metrics() {
		if _, ok := m[info.Name]; ok {
			return true
		}
	}
	return false
}

// ServerTable prints a run's server metrics in sysmon's order, each with
// its unit.
func ServerTable(w io.Writer, m map[string]float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, info := range sysmon.Metrics() {
		v, ok := m[info.Name]
		if !ok {
			continue
		}
		line := "    " + info.Name + ":\t" + FormatMetric(result.Metric{Value: v, Unit: info.Unit})
		if info.Unit != "%" && info.Unit != "count" {
			line += " " + info.Unit
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// MetricsTable prints a workload's metrics, one per line, with their
// limits and pass/fail where they have one.
func MetricsTable(w io.Writer, ms []result.Metric) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range ms {
		line := "    " + m.Name + ":\t" + FormatMetric(m)
		if m.Unit != "" && m.Unit != "%" {
			line += " " + m.Unit
		}
		if r := RuleText(m); r != "" {
			line += "\t(" + r + ")"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// RuleText is the rule a judged metric is checked by and its verdict,
// "≤ 2s: pass", "80–102% of the nominal 2.00 TR/s (…): FAIL"; a file
// written before rules were recorded gives its limit, "at most 2000 ms".
// It is "" for a figure no rule judges.
func RuleText(m result.Metric) string {
	if !m.Judged() {
		return ""
	}
	s := m.Rule
	if s == "" {
		unit := m.Unit
		if unit != "" && unit != "%" {
			unit = " " + unit
		}
		s = "at most "
		if m.Higher {
			s = "at least "
		}
		s += FormatMetric(result.Metric{Value: *m.Limit, Unit: m.Unit}) + unit
	}
	if m.Pass != nil {
		if *m.Pass {
			s += ": pass"
		} else {
			s += ": FAIL"
		}
	}
	return s
}

// OpsTable prints one row per op: count, errors, retries and latency, and
// rollbacks when a workload rolled back transactions on purpose.
func OpsTable(w io.Writer, ops []result.Op) {
	rollbacks := false
	for _, o := range ops {
		rollbacks = rollbacks || o.Rollbacks > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "op\tcount\terrors\tretries\t"
	if rollbacks {
		head += "rollbacks\t"
	}
	fmt.Fprintln(tw, head+"min\tavg\tp50\tp95\tp99\tp99.9\tmax\t")
	for _, o := range ops {
		l := o.LatencyMS
		row := fmt.Sprintf("%s\t%d\t%d\t%d\t", o.Name, o.Count, o.Errors, o.Retries)
		if rollbacks {
			row += fmt.Sprintf("%d\t", o.Rollbacks)
		}
		fmt.Fprintf(tw, "%s%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n",
			row, l.Min, l.Mean, l.P50, l.P95, l.P99, l.P999, l.Max)
	}
	tw.Flush()
}

func hasSteps(ops []result.Op) bool {
	for _, o := range ops {
		if len(o.Steps) > 0 {
			return true
		}
	}
	return false
}

// StepsTable prints the steps of every op that has some (a script's
// commands, as pgbench -r lists them): one line per step with its
// executions, failures, retries, mean, p95 and max latency, and what it
// runs.
func StepsTable(w io.Writer, ops []result.Op) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "op\tstep\tcount\tfailures\tretries\tavg\tp95\tmax\ttext")
	for _, o := range ops {
		for _, s := range o.Steps {
			l := s.LatencyMS
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%s\n", o.Name, s.Name, s.Count, s.Failures, s.Retries, l.Mean, l.P95, l.Max, s.Text)
		}
	}
	tw.Flush()
}

// SweepTable prints one row per run of a thread sweep.
func SweepTable(w io.Writer, runs []result.Run) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "threads\ttps\tqps\tp50 ms\tp95 ms\tp99 ms\tp99.9 ms\terrors\tretries\tretries/s\tretry %\tcpu µs/query\tstatus\t")
	for _, r := range runs {
		status := r.Status
		if c := DisturbedCauses(&r); c != "" {
			status += " (! disturbed: " + c + ")"
		}
		fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%d\t%.2f\t%.2f\t%.2f\t%s\t\n",
			r.Threads, r.TPS, r.QPS, r.LatencyMS.P50, r.LatencyMS.P95, r.LatencyMS.P99, r.LatencyMS.P999, r.Errors, r.Retries, r.RetriesPerS, r.RetryPct, r.ClientCPUPerQueryUS, status)
	}
	tw.Flush()
}

func perSec(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

// MonitorProblems prints the server monitor's problems (result.Monitor's
// Problems: samples failed, counters went backwards, values left out, the
// connection lost) as warnings, one a line; nothing for m nil or without
// problems.
func MonitorProblems(w io.Writer, m *result.Monitor) {
	if m == nil {
		return
	}
	for _, p := range m.Problems {
		fmt.Fprintf(w, "warning: server metrics: %s\n", p)
	}
}
