package report_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/report"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmon"
	"github.com/dbarena/dbarena/workload"
)

// One interval of 2 s in which 8 workers ran 2000 transactions of 20
// statements each, 95% of them within 4 ms; 3 attempts were retried and 1
// transaction failed for good: err/s counts the failure only, as the
// summary's errors do, and retry/s the retries.
func ExampleLine() {
	iv := histogram.NewInterval(1)
	for i := 0; i < 2000; i++ {
		lat := int64(2000) // µs
		if i%20 == 0 {
			lat = 9000
		}
		_ = iv.Ops[0].Hist.RecordValue(lat)
	}
	iv.Queries = histogram.Queries{Reads: 28000, Writes: 8000, Other: 4000}
	iv.Ops[0].Counts.Retries = 3
	iv.Ops[0].Counts.Errors = 1
	t := runner.Tick{Threads: 8, Elapsed: 10 * time.Second, Length: 2 * time.Second, Ops: []workload.Op{{Name: "oltp_read_write"}}, Interval: iv}
	os.Stdout.WriteString(report.Line(t) + "\n")
	t.Warmup, t.Elapsed = true, 2500*time.Millisecond
	os.Stdout.WriteString(report.Line(t) + "\n")
	// 10 of the transactions were rolled back by design (TPC-C's unused
	// item): successes, shown apart.
	iv.Ops[0].Counts.Rollbacks = 10
	t.Warmup = false
	os.Stdout.WriteString(report.Line(t) + "\n")
	// Output:
	// [ 10s ] thds: 8 tps: 1000.00 qps: 20000.00 (r/w/o: 14000.00/4000.00/2000.00) lat (ms,95%): 2.00 err/s: 0.50 retry/s: 1.50 reconn/s: 0.00
	// [ 2.5s ] thds: 8 tps: 1000.00 qps: 20000.00 (r/w/o: 14000.00/4000.00/2000.00) lat (ms,95%): 2.00 err/s: 0.50 retry/s: 1.50 reconn/s: 0.00 (warmup)
	// [ 2.5s ] thds: 8 tps: 1000.00 qps: 20000.00 (r/w/o: 14000.00/4000.00/2000.00) lat (ms,95%): 2.00 err/s: 0.50 retry/s: 1.50 reconn/s: 0.00 rb/s: 5.00
}

// An interval in which other processes took 61% of the host's CPU and
// the hypervisor 7.5%, beyond the run's limits (--disturbed-other,
// --disturbed-steal): the line says so at its end.
func ExampleLine_disturbed() {
	iv := histogram.NewInterval(1)
	for i := 0; i < 100; i++ {
		_ = iv.Ops[0].Hist.RecordValue(3000)
	}
	iv.Queries = histogram.Queries{Reads: 100}
	srv := sysmon.Interval{"host_cpu_pct": 98, "host_other_cpu_pct": 61.2, "host_steal_pct": 7.5, "client_cpu_pct": 40, "interval_s": 1}
	t := runner.Tick{Threads: 2, Elapsed: 5 * time.Second, Length: time.Second, Ops: []workload.Op{{Name: "oltp_point_select"}}, Interval: iv,
		Server: srv, Record: &result.Interval{Server: srv, Disturbed: sysmon.DefaultLimits().Causes(srv, 2)}}
	os.Stdout.WriteString(report.Line(t) + "\n")
	// Output:
	// [ 5s ] thds: 2 tps: 100.00 qps: 100.00 (r/w/o: 100.00/0.00/0.00) lat (ms,95%): 3.00 err/s: 0.00 retry/s: 0.00 reconn/s: 0.00 | host 98% ! disturbed: other 61%, steal 7.5%
}

func ExampleSummary() {
	r := &result.Run{
		Threads: 4, DurationS: 10, WarmupS: 2, Transactions: 5000, TPS: 500, Queries: 100000, QPS: 10000,
		Reads: 70000, Writes: 20000, Other: 10000, Errors: 2, Retries: 10, RetriesPerS: 1, RetryPct: 0.2,
		LatencyMS:  histogram.Latency{Min: 1.2, Mean: 7.95, P50: 7.5, P95: 12.25, P99: 20, P999: 31.5, Max: 40},
		ClientCPUS: 1.5, ClientCPUPerTxnUS: 300, ClientCPUPerQueryUS: 15,
		Ops: []result.Op{{Name: "oltp_read_write", Count: 5000, Errors: 2, Retries: 10,
			LatencyMS: histogram.Latency{Min: 1.2, Mean: 7.95, P50: 7.5, P95: 12.25, P99: 20, P999: 31.5, Max: 40}}},
		Status: result.StatusComplete,
	}
	report.Summary(os.Stdout, r)
	// Output:
	//
	// SQL statistics (threads: 4, status: complete):
	//     queries performed:
	//         read:                            70000
	//         write:                           20000
	//         other:                           10000
	//         total:                           100000
	//     transactions:                        5000       (500.00 per sec.)
	//     queries:                             100000     (10000.00 per sec.)
	//     errors:                              2          (0.20 per sec.)
	//     retries:                             10         (1.00 per sec., 0.20% of committed)
	//     reconnects:                          0          (0.00 per sec.)
	//
	// General statistics:
	//     measured time:                       10.000s (after 2.000s warm-up)
	//     client CPU:                          1.500s (300.00 µs/transaction, 15.00 µs/query)
	//
	// Latency (ms):
	//          min:         1.20
	//          avg:         7.95
	//          p50:         7.50
	//          p95:        12.25
	//          p99:        20.00
	//        p99.9:        31.50
	//          max:        40.00
	//
	// Per operation (latency in ms):
	//                op  count  errors  retries   min   avg   p50    p95    p99  p99.9    max
	//   oltp_read_write   5000       2       10  1.20  7.95  7.50  12.25  20.00  31.50  40.00
}

// A run whose server gave no metric (SQLite: only the time the samples
// covered) prints no "Server metrics" heading.
func ExampleSummary_noServerMetrics() {
	r := &result.Run{Threads: 1, DurationS: 1, Transactions: 10, TPS: 10, Status: result.StatusComplete,
		Server: map[string]float64{"interval_s": 1}}
	var b strings.Builder
	report.Summary(&b, r)
	fmt.Println(strings.Contains(b.String(), "Server metrics"))
	// Output:
	// false
}

// An overloaded run: transactions were still running at the end, longer
// than any that finished, and the summary says so.
func ExampleSummary_warnings() {
	r := &result.Run{
		Threads: 300, DurationS: 10, Transactions: 34, TPS: 3.4, Queries: 680, QPS: 68,
		LatencyMS:  histogram.Latency{Min: 410, Mean: 900, P50: 960, P95: 2100, P99: 2400, P999: 2400, Max: 2400},
		Unfinished: 300, UnfinishedMS: &result.Elapsed{P50: 8800, Max: 9990},
		Warnings: []string{
			"4 of 10 measured intervals had no transactions (ending at 3s, 4s, 7s, 9s)",
			"300 transactions were still running at the end, the longest for 9.990s, longer than any that finished (max 2400.000 ms): the latencies understate the response time",
		},
		Status: result.StatusComplete,
	}
	var b strings.Builder
	report.Summary(&b, r)
	out := b.String()
	os.Stdout.WriteString(out[strings.Index(out, "General statistics"):strings.Index(out, "\nLatency")] + "\n")
	os.Stdout.WriteString(out[strings.Index(out, "warning:"):])
	// Output:
	// General statistics:
	//     measured time:                       10.000s (after 0.000s warm-up)
	//     client CPU:                          0.000s (0.00 µs/transaction, 0.00 µs/query)
	//     unfinished at the end:               300        (running for p50 8800.00 ms, max 9990.00 ms)
	//
	// warning: 4 of 10 measured intervals had no transactions (ending at 3s, 4s, 7s, 9s)
	// warning: 300 transactions were still running at the end, the longest for 9.990s, longer than any that finished (max 2400.000 ms): the latencies understate the response time
}

// A script's commands, as pgbench -r lists them: each command's
// executions, failures and retries, its latencies and its text.
func ExampleStepsTable() {
	report.StepsTable(os.Stdout, []result.Op{{Name: "a.sql", Steps: []result.Step{
		{Name: "command 0 (line 1)", Text: `\set aid random(1, 100000 * :scale)`, Count: 1200, LatencyMS: histogram.Latency{Mean: 0.002, P95: 0.003, Max: 0.04}},
		{Name: "command 1 (line 2)", Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;", Count: 1198, Failures: 2, Retries: 1,
			LatencyMS: histogram.Latency{Mean: 0.41, P95: 0.9, Max: 3.2}},
	}}, {Name: "oltp"}})
	// Output:
	// op     step                count  failures  retries  avg    p95    max    text
	// a.sql  command 0 (line 1)  1200   0         0        0.002  0.003  0.040  \set aid random(1, 100000 * :scale)
	// a.sql  command 1 (line 2)  1198   2         1        0.410  0.900  3.200  SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
}

func ExampleSweepTable() {
	report.SweepTable(os.Stdout, []result.Run{
		{Threads: 1, TPS: 812.5, QPS: 16250, LatencyMS: histogram.Latency{P50: 1.2, P95: 1.5, P99: 2}, ClientCPUPerQueryUS: 9.5, Status: "complete"},
		{Threads: 8, TPS: 4100, QPS: 82000, LatencyMS: histogram.Latency{P50: 1.9, P95: 3.1, P99: 5.2, P999: 9.75}, Retries: 4, RetriesPerS: 0.4, RetryPct: 0.01, ClientCPUPerQueryUS: 10.25, Status: "complete"},
	})
	// Output:
	// threads      tps       qps  p50 ms  p95 ms  p99 ms  p99.9 ms  errors  retries  retries/s  retry %  cpu µs/query    status
	//         1   812.50  16250.00    1.20    1.50    2.00      0.00       0        0       0.00     0.00          9.50  complete
	//         8  4100.00  82000.00    1.90    3.10    5.20      9.75       0        4       0.40     0.01         10.25  complete
}

// Behind a pooler the server's statistics could not be read in most
// samples: the end of the run says so (the informational notes stay in
// the result file).
func ExampleMonitorProblems() {
	report.MonitorProblems(os.Stdout, &result.Monitor{
		Sources: []string{"postgres", "process"},
		Notes: []string{
			"disk: the data directory is on an overlay file system",
			"counter server.cpu_us went backwards in 1 interval(s) (statistics reset or server restart): the metrics that need it are absent there",
			"postgres: 20 of 23 samples failed, the last with: prepared statement does not exist",
		},
		Problems: []string{
			"counter server.cpu_us went backwards in 1 interval(s) (statistics reset or server restart): the metrics that need it are absent there",
			"postgres: 20 of 23 samples failed, the last with: prepared statement does not exist",
		},
	})
	report.MonitorProblems(os.Stdout, nil) // not sampled: nothing to say
	// Output:
	// warning: server metrics: counter server.cpu_us went backwards in 1 interval(s) (statistics reset or server restart): the metrics that need it are absent there
	// warning: server metrics: postgres: 20 of 23 samples failed, the last with: prepared statement does not exist
}

// A run's thresholds: what each observed, in its limit's unit, and
// whether it held; one whose metric the run lacks fails with the reason.
func ExampleThresholds() {
	f := func(v float64) *float64 { return &v }
	b := func(v bool) *bool { return &v }
	run := &result.Run{Thresholds: []result.Threshold{
		{Expr: "p99<50ms", Observed: f(12.3456), Unit: "ms", Pass: b(true)},
		{Expr: "tps>1000", Observed: f(812.5), Unit: "/s", Pass: b(false)},
		{Expr: "server_cpu_pct<90", Pass: b(false), Note: "the run has no server_cpu_pct (not sampled)"},
		{Expr: "errors<0.1%"},
	}}
	report.Thresholds(os.Stdout, run)
	// Output:
	// Thresholds:
	//     threshold          observed   result
	//     p99<50ms           12.346 ms  pass
	//     tps>1000           812.5/s    FAIL
	//     server_cpu_pct<90  -          FAIL (the run has no server_cpu_pct (not sampled))
	//     errors<0.1%        -          not evaluated
}

// Judged metrics print the rule they are checked by and its verdict; a
// file written before rules were recorded prints its limit.
func ExampleMetricsTable() {
	yes, no := true, false
	share, band, p90 := 21.348, 100.0, 2000.0
	report.MetricsTable(os.Stdout, []result.Metric{
		{Name: "TR/s", Value: 56.85, Unit: "/s", Higher: true},
		{Name: "tr_per_s_pct_of_nominal", Value: 2842.5, Unit: "%", Limit: &band, Rule: "80–102% of the nominal 2.00 TR/s (1000 customers / scale factor 500)", Pass: &no},
		{Name: "mix trade_status", Value: 21.5, Unit: "%", Limit: &share, Rule: "21.3% ± 5% relative (20.28–22.42%)", Pass: &yes},
		{Name: "p90 trade_result", Value: 12.5, Unit: "ms", Limit: &p90, Pass: &yes},
	})
	// Output:
	//     TR/s:                     56.85 /s
	//     tr_per_s_pct_of_nominal:  2842.5%   (80–102% of the nominal 2.00 TR/s (1000 customers / scale factor 500): FAIL)
	//     mix trade_status:         21.5%     (21.3% ± 5% relative (20.28–22.42%): pass)
	//     p90 trade_result:         12.50 ms  (at most 2000 ms: pass)
}
