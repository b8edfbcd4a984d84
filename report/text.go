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
//	[ 10s ] thds: 8 tps: 1234.50 qps: 24690.00 (r/w/o: 17283.00/4938.00/2469.00) lat (ms,95%): 5.21 err/s: 0.00 reconn/s: 0.00
//
// Warm-up intervals end in "(warmup)".
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
	s := fmt.Sprintf("[ %ss ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,95%%): %.2f err/s: %.2f reconn/s: %.2f",
		fmtElapsed(t.Elapsed.Seconds()), t.Threads, rate(tx), rate(iv.Queries.Total()),
		rate(iv.Queries.Reads), rate(iv.Queries.Writes), rate(iv.Queries.Other),
		p95, rate(iv.Errors()+iv.Retries()), rate(iv.Reconnects))
	if t.Warmup {
		s += " (warmup)"
	}
	return s
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
// them, followed by per-op latency.
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
	fmt.Fprintf(w, "    retries:                             %-10d (%.2f per sec.)\n", r.Retries, perSec(r.Retries, r.DurationS))
	fmt.Fprintf(w, "    reconnects:                          %-10d (%.2f per sec.)\n", r.Reconnects, perSec(r.Reconnects, r.DurationS))
	fmt.Fprintf(w, "\nGeneral statistics:\n")
	fmt.Fprintf(w, "    measured time:                       %.3fs (after %.3fs warm-up)\n", r.DurationS, r.WarmupS)
	fmt.Fprintf(w, "    client CPU:                          %.3fs (%.2f µs/transaction, %.2f µs/query)\n", r.ClientCPUS, r.ClientCPUPerTxnUS, r.ClientCPUPerQueryUS)
	fmt.Fprintf(w, "\nLatency (ms):\n")
	l := r.LatencyMS
	fmt.Fprintf(w, "         min: %12.2f\n         avg: %12.2f\n         p50: %12.2f\n         p95: %12.2f\n         p99: %12.2f\n       p99.9: %12.2f\n         max: %12.2f\n",
		l.Min, l.Mean, l.P50, l.P95, l.P99, l.P999, l.Max)
	if len(r.Ops) > 0 {
		fmt.Fprintf(w, "\nPer operation (latency in ms):\n")
		OpsTable(w, r.Ops)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "\nrun stopped: %s\n", r.Error)
	}
}

// OpsTable prints one row per op: count, errors, retries and latency.
func OpsTable(w io.Writer, ops []result.Op) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tcount\terrors\tretries\tmin\tavg\tp50\tp95\tp99\tp99.9\tmax\t")
	for _, o := range ops {
		l := o.LatencyMS
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n",
			o.Name, o.Count, o.Errors, o.Retries, l.Min, l.Mean, l.P50, l.P95, l.P99, l.P999, l.Max)
	}
	tw.Flush()
}

// SweepTable prints one row per run of a thread sweep.
func SweepTable(w io.Writer, runs []result.Run) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "threads\ttps\tqps\tp50 ms\tp95 ms\tp99 ms\terrors\tretries\tcpu µs/query\tstatus\t")
	for _, r := range runs {
		fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%d\t%.2f\t%s\t\n",
			r.Threads, r.TPS, r.QPS, r.LatencyMS.P50, r.LatencyMS.P95, r.LatencyMS.P99, r.Errors, r.Retries, r.ClientCPUPerQueryUS, r.Status)
	}
	tw.Flush()
}

func perSec(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}
