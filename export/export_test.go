package export_test

import (
	"os"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/export"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	// The server metrics, their order and units, are sysmon's, which
	// registers them with the metric registry as in the binary.
	_ "github.com/dbarena/dbarena/sysmon"
)

func sample() []export.Input {
	f := &result.File{
		Workload: result.Workload{Name: "tpcc"},
		Target:   result.Target{Label: "pg|<b>", Engine: "postgres"},
		Runs: []result.Run{{
			Threads: 8, Status: result.StatusComplete, DurationS: 60, Transactions: 6000, TPS: 100,
			LatencyMS: histogram.Latency{P50: 1.5, P95: 4.25, Max: 30},
			Metrics:   []result.Metric{{Name: "NOPM", Value: 2610.5}},
			Ops:       []result.Op{{Name: "new_order", Count: 2700, Rollbacks: 27, LatencyMS: histogram.Latency{P95: 6}}},
			Intervals: []result.Interval{
				{TS: 1, Warmup: true, Transactions: 90, TPS: 90},
				{TS: 2, Transactions: 101, TPS: 101, Metrics: map[string]float64{"NOPM": 2700}},
			},
		}},
	}
	return []export.Input{{Path: "pg.json", File: f}}
}

func TestRunsCSV(t *testing.T) {
	tb, err := export.Build("runs", sample())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := export.WriteCSV(&b, tb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if !strings.HasPrefix(lines[0], "file,label,engine,workload,threads,status,duration_s,") || !strings.HasSuffix(lines[0], ",client_cpu_per_query_us,server_cpu_per_txn_us,server_cpu_per_query_us,NOPM") {
		t.Errorf("header %s", lines[0])
	}
	if !strings.HasPrefix(lines[1], `pg.json,pg|<b>,postgres,tpcc,8,complete,60,0,6000,100,`) || !strings.HasSuffix(lines[1], ",2610.5") ||
		!strings.Contains(lines[1], ",0,0,1.5,4.25,0,0,30,") {
		t.Errorf("row %s", lines[1])
	}
}

// TestRunsHasEveryRunMetric: the runs table has the retries and every
// server metric a run has (000's table puts CPU %, IOWAIT % and IOPS
// beside the throughput), in sysmon's order, and rounds derived figures.
func TestRunsHasEveryRunMetric(t *testing.T) {
	in := sample()
	r := &in[0].File.Runs[0]
	r.Retries, r.RetriesPerS, r.RetryPct = 12, 0.2, 0.2
	r.LatencyMS.Mean = 2.0 / 3
	r.Server = map[string]float64{"disk_iops": 120.5, "server_cpu_pct": 143.25, "host_iowait_pct": 2.5, "pg_checkpoints": 1, "interval_s": 60}
	tb, err := export.Build("runs", in)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	export.WriteCSV(&b, tb)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	for _, want := range []string{",retries,retries_per_s,retry_pct,", ",server_cpu_pct,host_iowait_pct,disk_iops,pg_checkpoints,NOPM"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("header lacks %q: %s", want, lines[0])
		}
	}
	if strings.Contains(lines[0], "interval_s") {
		t.Errorf("header has interval_s, which is no metric: %s", lines[0])
	}
	for _, want := range []string{",12,0.2,0.2,", ",0.6667,", ",143.25,2.5,120.5,1,2610.5"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row lacks %q: %s", want, lines[1])
		}
	}
}

// TestIntervalsHaveServerMetrics: the intervals table has the server
// metrics the intervals have, before the workload's.
func TestIntervalsHaveServerMetrics(t *testing.T) {
	in := sample()
	ivs := in[0].File.Runs[0].Intervals
	ivs[1].Server = map[string]float64{"host_iowait_pct": 7.5, "server_cpu_pct": 150, "interval_s": 1}
	tb, _ := export.Build("intervals", in)
	h := strings.Join(tb.Header, ",")
	if !strings.HasSuffix(h, ",max_ms,server_cpu_pct,host_iowait_pct,NOPM") {
		t.Fatalf("header %s", h)
	}
	n := len(tb.Header)
	if r := tb.Rows[0]; r[n-3] != nil || r[n-2] != nil {
		t.Errorf("an unsampled interval has server values: %v", r)
	}
	if r := tb.Rows[1]; r[n-3] != 150.0 || r[n-2] != 7.5 {
		t.Errorf("interval 2: %v", r)
	}
}

func TestIntervalsAndOps(t *testing.T) {
	tb, _ := export.Build("intervals", sample())
	if len(tb.Rows) != 2 || tb.Header[len(tb.Header)-1] != "NOPM" || tb.Rows[0][len(tb.Header)-1] != nil || tb.Rows[1][len(tb.Header)-1] != 2700.0 {
		t.Errorf("intervals: header %v rows %v", tb.Header, tb.Rows)
	}
	if tb.Rows[0][6] != "true" {
		t.Errorf("warm-up interval not marked: %v", tb.Rows[0])
	}
	tb, _ = export.Build("ops", sample())
	// 2700 New-Orders in 60 s: 45 per second.
	if len(tb.Rows) != 1 || tb.Rows[0][5] != "new_order" || tb.Rows[0][7] != 45.0 || tb.Rows[0][10] != int64(27) {
		t.Errorf("ops: %v", tb.Rows)
	}
	if _, err := export.Build("lines", sample()); err == nil || !strings.Contains(err.Error(), `--table "lines"`) {
		t.Errorf("unknown table: %v", err)
	}
}

func ExampleWriteMarkdown() {
	tb, _ := export.Build("ops", sample())
	export.WriteMarkdown(os.Stdout, tb)
	// Output:
	// | file | label | engine | workload | threads | op | count | tps | errors | retries | rollbacks | min_ms | mean_ms | p50_ms | p95_ms | p99_ms | p999_ms | max_ms |
	// | --- | --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
	// | pg.json | pg\|&lt;b&gt; | postgres | tpcc | 8 | new\_order | 2700 | 45.00 | 0 | 0 | 27 | 0.00 | 0.00 | 0.00 | 6.00 | 0.00 | 0.00 | 0.00 |
}
