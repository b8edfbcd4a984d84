package htmlreport_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/report/htmlreport"
	"github.com/dbarena/dbarena/result"
)

// tpceOps are the operations of a TPC-E run, with the longest names a
// report's operations table holds.
var tpceOps = []string{"broker_volume", "customer_position", "market_feed", "market_watch", "security_detail", "trade_lookup",
	"trade_order", "trade_result", "trade_status", "trade_update", "data_maintenance"}

// tpce is a result file of tpce at 4 threads in the given mode: TR/s
// (the headline) per interval and for the run, tps ten times higher, p50
// 2 ms and p99 p99ms; its operations have errors, retries and rollbacks
// and counts in the millions, the widest operations table there is.
func tpce(label, mode string, trps, p99ms float64) *result.File {
	f := &result.File{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "dbarena", Version: "1.2.3", Commit: "abc1234"},
		Workload:      result.Workload{Name: "tpce", Options: map[string]string{"customers": "1000", "mode": mode}},
		Target:        result.Target{Label: label, Engine: "postgres", URL: "postgres://bench:xxxxx@db:5432/bench", ServerVersion: "PostgreSQL 16.4"},
		Client:        result.Client{Hostname: "bench1", CPUModel: "EPYC", Cores: 2, OS: "linux/amd64", GoVersion: "go1.26"},
		StartedAt:     time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
		Status:        result.StatusComplete,
	}
	r := result.Run{Threads: 4, DurationS: 10, WarmupS: 2, TPS: 10 * trps, QPS: 200 * trps, Transactions: int64(100 * trps), Status: result.StatusComplete,
		LatencyMS: histogram.Latency{P50: 2, P95: p99ms / 2, P99: p99ms, P999: p99ms, Max: p99ms},
		Metrics:   []result.Metric{{Name: "TR/s", Value: trps, Unit: "/s", Higher: true}}}
	for i, name := range tpceOps {
		r.Ops = append(r.Ops, result.Op{Name: name, Count: 1234567 + int64(i), Errors: 12345, Retries: 23456, Rollbacks: 34567,
			LatencyMS: histogram.Latency{P50: 2.25, P95: 1234.5, P99: p99ms, P999: p99ms, Max: p99ms}})
	}
	for s := 1; s <= 12; s++ {
		tr := trps * (0.8 + 0.04*float64(s%5))
		r.Intervals = append(r.Intervals, result.Interval{TS: float64(s), Warmup: s <= 2, TPS: 10 * tr,
			LatencyMS: result.IntervalLatency{P50: 2, P95: 30 + float64(s%3), P99: 60, Max: 90},
			Metrics:   map[string]float64{"TR/s": tr}})
	}
	f.Runs = []result.Run{r}
	return f
}

// tpceInputs are two tpce targets of one mode, the second with a 16.8 s
// p99.
func tpceInputs() []compare.Input {
	return []compare.Input{{Path: "pg.json", File: tpce("pg", "client", 40, 60)}, {Path: "slow.json", File: tpce("slow", "client", 20, 16800)}}
}

func write(t *testing.T, inputs []compare.Input, opt htmlreport.Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := htmlreport.Write(&b, inputs, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestLatencyLogAxis: a workload at one thread count has its latency
// bars on a log axis that starts below its smallest value, so that a
// 2 ms p50 beside a 16.8 s p99 is a bar with a height.
func TestLatencyLogAxis(t *testing.T) {
	o := chartOptions(t, write(t, tpceInputs(), htmlreport.Options{}))["w0-lat"]
	y := o["yAxis"].(map[string]any)
	if y["type"] != "log" {
		t.Fatalf("latency axis %v, want log", y)
	}
	low, _ := y["min"].(float64)
	if !(low > 0 && low < 2) || y["startValue"] != y["min"] {
		t.Errorf("latency axis starts at %v, its bars at %v; want both above 0 and below the 2 ms p50", y["min"], y["startValue"])
	}
	var values []float64
	for _, s := range o["series"].([]any) {
		for _, v := range s.(map[string]any)["data"].([]any) {
			values = append(values, v.(float64))
		}
	}
	// p50 p95 p99 p99.9 of each label.
	if want := []float64{2, 30, 60, 60, 2, 8400, 16800, 16800}; fmt.Sprint(values) != fmt.Sprint(want) {
		t.Errorf("bars %v, want %v", values, want)
	}
	if title := o["title"].(map[string]any)["text"]; title != "Latency at 4 threads (ms, log scale)" {
		t.Errorf("title %q", title)
	}
}

// TestRelativeReport: Options.Relative shows the headline table and
// chart as multiples of the baseline at its lowest thread count, the
// runs' charts over time in their own unit.
func TestRelativeReport(t *testing.T) {
	page := write(t, tpceInputs(), htmlreport.Options{Relative: true})
	for _, want := range []string{"values relative to pg at 4 threads (40.00 = 1.00x)", "<td>1.00x</td>", "<td>0.50x</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	charts := chartOptions(t, page)
	c := charts["w0-tps"]
	if title := c["title"].(map[string]any)["text"]; title != "TR/s vs threads, relative to pg at 4 threads" {
		t.Errorf("headline chart's title %q", title)
	}
	var bars []any
	for _, s := range c["series"].([]any) {
		bars = append(bars, s.(map[string]any)["data"].([]any)...)
	}
	if fmt.Sprint(bars) != "[1 0.5]" {
		t.Errorf("headline bars %v, want [1 0.5]", bars)
	}
	if top := charts["run1-time"]["yAxis"].([]any)[0].(map[string]any)["max"]; top != 50.0 {
		t.Errorf("run1's TR/s axis ends at %v, want 50 (TR/s, not relative)", top)
	}
	if p := write(t, tpceInputs(), htmlreport.Options{}); strings.Contains(p, "1.00x") {
		t.Error("a report not asked to be relative is")
	}
}

// TestHeadlineOverTime: the runs' charts over time plot the workload's
// headline figure per interval (TR/s for tpce), on an axis the runs
// share; a file whose intervals lack it plots tps.
func TestHeadlineOverTime(t *testing.T) {
	charts := chartOptions(t, write(t, tpceInputs(), htmlreport.Options{}))
	for _, id := range []string{"run1-time", "run2-time"} {
		c := charts[id]
		axis := c["yAxis"].([]any)[0].(map[string]any)
		s := c["series"].([]any)[0].(map[string]any)
		if axis["name"] != "TR/s" || s["name"] != "TR/s" || axis["max"] != 50.0 {
			t.Errorf("%s: left axis %v, first series %v; want TR/s up to 50", id, axis, s["name"])
		}
		if first := s["data"].([]any)[0].([]any); first[1] != 40.0*0.84 && first[1] != 20.0*0.84 {
			t.Errorf("%s: first point %v, want the first interval's TR/s", id, first)
		}
	}
	// The same files without the workload's figures per interval.
	ins := tpceInputs()
	for _, in := range ins {
		for i := range in.File.Runs[0].Intervals {
			in.File.Runs[0].Intervals[i].Metrics = nil
		}
	}
	c := chartOptions(t, write(t, ins, htmlreport.Options{}))["run1-time"]
	if axis := c["yAxis"].([]any)[0].(map[string]any); axis["name"] != "tps" || axis["max"] != 500.0 {
		t.Errorf("without TR/s per interval: left axis %v, want tps up to 500", axis)
	}
}

// TestOptionsRefused: runs whose workload options differ are refused as
// compare refuses them, naming the option, unless Vary names it or
// Force; then the difference is listed.
func TestOptionsRefused(t *testing.T) {
	ins := tpceInputs()
	ins[1].File.Workload.Options["mode"] = "procedure"
	var b bytes.Buffer
	err := htmlreport.Write(&b, ins, htmlreport.Options{})
	var ie *htmlreport.InputError
	if !errors.As(err, &ie) || !errors.Is(err, compare.ErrMismatch) || !strings.Contains(err.Error(), `--mode is "client" in pg.json; "procedure" in slow.json`) {
		t.Fatalf("mixed modes: %v, want an InputError naming --mode", err)
	}
	if b.Len() > 0 {
		t.Error("a refused report wrote something")
	}
	for _, opt := range []htmlreport.Options{{Vary: []string{"mode"}}, {Force: true}} {
		if p := write(t, ins, opt); !strings.Contains(p, `<td class="l">option --mode</td><td class="l">client</td><td class="l">procedure</td>`) {
			t.Errorf("%+v: the differing mode is not listed", opt)
		}
	}
	if err := htmlreport.Write(&b, ins, htmlreport.Options{Vary: []string{"nosuch"}}); !errors.As(err, &ie) || !strings.Contains(err.Error(), "--vary nosuch: not an option of tpce") {
		t.Errorf("--vary nosuch: %v", err)
	}
}

// TestOpsTable: the operations table has the counts some run has
// (errors, retries, rollbacks), not columns of zeros, and latencies in
// at most five digits.
func TestOpsTable(t *testing.T) {
	page := write(t, tpceInputs(), htmlreport.Options{})
	want := `<th rowspan="2">errors</th><th rowspan="2">retries</th><th rowspan="2">rollbacks</th><th colspan="5">latency ms</th>`
	if !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
	if want := `<td class="l op">customer_<wbr>position</td><td>1234568</td><td>12345</td><td>23456</td><td>34567</td><td>2.25</td><td>1234</td><td>60.00</td>`; !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
	ins := tpceInputs()
	for _, in := range ins {
		for i := range in.File.Runs[0].Ops {
			o := &in.File.Runs[0].Ops[i]
			o.Errors, o.Rollbacks = 0, 0
		}
	}
	page = write(t, ins, htmlreport.Options{})
	if want := `<th rowspan="2">count</th><th rowspan="2">retries</th><th colspan="5">latency ms</th>`; !strings.Contains(page, want) {
		t.Errorf("without errors and rollbacks the page lacks %q", want)
	}
}

// docolap are the recorded runs of the analytic timing model of the
// docolap study: postgres and mongodb, two tries of five queries.
func docolap(t *testing.T) []compare.Input {
	t.Helper()
	dir := filepath.Join("..", "..", "plan", "testdata", "studies", "docolap-study-results")
	var ins []compare.Input
	for _, name := range []string{"postgres__docolap__t1__r1.json", "mongodb__docolap__t1__r1.json"} {
		f, err := result.Read(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, compare.Input{Path: name, File: f})
	}
	return ins
}

// TestTriesRuns: a run of the analytic timing model shows its queries'
// cold and hot seconds and its answers against the other columns', not
// a chart over time nor tps and latency; a workload with runs of both
// models gets both sections.
func TestTriesRuns(t *testing.T) {
	ins := docolap(t)
	// One answer of mongodb's differs.
	q := &ins[1].File.Runs[0].Tries.Queries[2]
	for i := range q.Tries {
		q.Tries[i].Hash = "0123456789abcdef0123456789abcdef"
	}
	page := write(t, ins, htmlreport.Options{})
	charts := chartOptions(t, page)
	for _, id := range []string{"w0-cold", "w0-hot", "run1-tries", "run2-tries"} {
		if charts[id] == nil {
			t.Errorf("no chart %s", id)
		}
	}
	if charts["run1-time"] != nil || strings.Contains(page, `<table class="ops">`) || strings.Contains(page, "latency p50 / p95") {
		t.Error("a run of tries has a chart over time, operations or latencies")
	}
	c := charts["run1-tries"]
	s := c["series"].([]any)
	if len(s) != 2 || s[0].(map[string]any)["name"] != "cold (first try)" || fmt.Sprint(c["xAxis"].(map[string]any)["data"]) != "[A B C D D2]" {
		t.Errorf("run1's tries chart: %v", c)
	}
	cold := s[0].(map[string]any)["data"].([]any)[0].(float64)
	if math.Abs(cold-0.169638808) > 1e-9 {
		t.Errorf("run1's cold A %v, want 0.169638808", cold)
	}
	run1 := page[strings.Index(page, `id="run1"`):strings.Index(page, `id="run2"`)]
	for _, want := range []string{
		"postgres · docolap · 2 tries of each query",
		"answers: 1 of 5 queries differ (C)",
		`<td class="l">A</td><td>0.1696</td><td>0.001565</td><td>—</td><td>0</td><td>97</td><td class="l">4545193bdb19</td><td class="l">same</td>`,
		`<td class="l">differs from mongodb</td>`,
		`<th class="l">first tries</th><td class="l">cold</td>`,
	} {
		if !strings.Contains(run1, want) {
			t.Errorf("run1 lacks %q", want)
		}
	}
	if !strings.Contains(page, "query C: the answers differ: postgres 10 rows (f93fe0385884), mongodb 10 rows (0123456789ab)") {
		t.Error("the workload's section does not name the query whose answers differ")
	}

	// The same workload run in the closed model too: both sections, the
	// closed run with its chart over time.
	closed := sweep("postgres", 1)
	closed.Workload = ins[0].File.Workload
	page = write(t, append(docolap(t), compare.Input{Path: "closed.json", File: closed}), htmlreport.Options{})
	for _, want := range []string{"<h2>Workload docolap (analytic timing model)</h2>", "<h2>Workload docolap</h2>", `id="run3-time"`, `id="run1-tries"`} {
		if !strings.Contains(page, want) {
			t.Errorf("mixed models: the page lacks %q", want)
		}
	}
}
