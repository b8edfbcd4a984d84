package compare_test

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/compare"
	_ "github.com/dbarena/dbarena/engine/all" // the engines' server metrics (sysmon.Metrics)
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/metric"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/sysmon"
)

// file is a result file of workload oltp_read_write with one run per
// (threads, tps) pair.
func file(label string, tps map[int]float64) *result.File {
	f := &result.File{
		SchemaVersion: 1,
		Tool:          result.Tool{Name: "dbarena", Version: "1.0", Commit: "abc"},
		Workload:      result.Workload{Name: "oltp_read_write", Options: map[string]string{"tables": "8", "table-size": "10000"}},
		Target:        result.Target{Label: label, Engine: "postgres", ServerVersion: "PostgreSQL 15.18", Settings: map[string]string{"shared_buffers": "128MB"}},
		Client:        result.Client{Hostname: "bench1", CPUModel: "EPYC", Cores: 2, OS: "linux"},
		Status:        result.StatusComplete,
	}
	for _, th := range slices.Sorted(maps.Keys(tps)) {
		v := tps[th]
		f.Runs = append(f.Runs, result.Run{Threads: th, DurationS: 60, TPS: v, QPS: v * 20,
			LatencyMS: latency(1000 / v * float64(th)), Status: result.StatusComplete})
	}
	return f
}

func latency(p95 float64) histogram.Latency { return histogram.Latency{P95: p95} }

func in(label string, f *result.File) compare.Input {
	return compare.Input{Path: label + ".json", File: f}
}

func build(t *testing.T, opt compare.Options, inputs ...compare.Input) *compare.Table {
	t.Helper()
	tables, err := compare.Build(inputs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 {
		t.Fatalf("%d tables, want 1", len(tables))
	}
	return tables[0]
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// TestArithmetic checks changes and averages against a table worked out by
// hand: A = 100, 200; B = 150, 180 at 1 and 8 threads.
func TestArithmetic(t *testing.T) {
	tb := build(t, compare.Options{},
		in("A", file("A", map[int]float64{1: 100, 8: 200})),
		in("B", file("B", map[int]float64{1: 150, 8: 180})))
	if len(tb.Rows) != 2 || tb.Rows[0].Threads != 1 || tb.Rows[1].Threads != 8 {
		t.Fatalf("rows %+v", tb.Rows)
	}
	// B vs A: 150/100 − 1 = +50 %; 180/200 − 1 = −10 %; average: the
	// change of the means, 165/150 − 1 = +10 % (not the mean of the
	// changes, +20 %).
	for i, want := range []float64{50, -10} {
		if ch := tb.Rows[i].Changes[1]; !ch.Present || !near(ch.Pct, want) || ch.Tested {
			t.Errorf("row %d: change %+v, want %+.0f%%, untested", i, ch, want)
		}
	}
	if got := tb.Average.Changes[1].Pct; !near(got, 10) {
		t.Errorf("average change %v, want 10", got)
	}
	// Averages of the columns: (100+200)/2 = 150, (150+180)/2 = 165.
	if a, b := tb.Average.Cells[0].Center, tb.Average.Cells[1].Center; !near(a, 150) || !near(b, 165) {
		t.Errorf("averages %v, %v; want 150, 165", a, b)
	}
	if tb.Rows[0].Changes[0].Present {
		t.Error("the baseline has a change against itself")
	}
}

// TestBaselineAndRelative: --baseline B puts the changes against B;
// --relative divides by the baseline at its lowest thread count.
func TestBaselineAndRelative(t *testing.T) {
	a := in("A", file("A", map[int]float64{1: 100, 8: 176}))
	b := in("B", file("B", map[int]float64{1: 210, 8: 400}))
	tb := build(t, compare.Options{Baseline: "B"}, a, b)
	// A vs B: 100/210 − 1 = −52.38…%.
	if ch := tb.Rows[0].Changes[0]; !near(ch.Pct, (100.0/210-1)*100) {
		t.Errorf("A vs B at 1 thread: %v", ch.Pct)
	}
	tb = build(t, compare.Options{Relative: true}, a, b)
	want := [][]float64{{1, 2.1}, {1.76, 4}}
	for i, r := range tb.Rows {
		for c := range r.Cells {
			if got := r.Cells[c].Center; !near(got, want[i][c]) {
				t.Errorf("relative row %d column %d: %v, want %v", i, c, got, want[i][c])
			}
		}
	}
	if ch := tb.Rows[1].Changes[1]; !near(ch.Pct, (400.0/176-1)*100) {
		t.Errorf("relative values kept the changes of the absolute ones: %v", ch.Pct)
	}
	if _, err := compare.Build([]compare.Input{a, b}, compare.Options{Baseline: "C"}); err == nil || !strings.Contains(err.Error(), `--baseline "C"`) {
		t.Errorf("unknown baseline: %v", err)
	}
}

// repeated is one file per value, all at 8 threads, under label.
func repeated(label string, values ...float64) []compare.Input {
	var out []compare.Input
	for i, v := range values {
		f := file(label, map[int]float64{8: v})
		out = append(out, compare.Input{Path: label + "-" + string(rune('1'+i)) + ".json", File: f})
	}
	return out
}

// TestConfidenceInterval: the median of 1…6 is 3.5, and its 95% interval
// is [1, 6]: P(x(1) < median < x(6)) = 1 − 2·0.5⁶ = 0.969 ≥ 0.95, while
// [x(2), x(5)] covers only 1 − 2·7/64 = 0.78.
func TestConfidenceInterval(t *testing.T) {
	tb := build(t, compare.Options{}, repeated("A", 4, 2, 6, 1, 5, 3)...)
	c := tb.Rows[0].Cells[0]
	if c.N() != 6 || c.Center != 3.5 || c.Lo != 1 || c.Hi != 6 {
		t.Errorf("cell n=%d median %v [%v, %v]; want n=6 3.5 [1, 6]", c.N(), c.Center, c.Lo, c.Hi)
	}
	// Five values are too few for a 95% interval: it is infinite, and a
	// note says how many are needed.
	tb = build(t, compare.Options{}, repeated("A", 1, 2, 3, 4, 5)...)
	if c := tb.Rows[0].Cells[0]; !math.IsInf(c.Lo, -1) && !math.IsInf(c.Hi, 1) {
		t.Errorf("n=5: interval [%v, %v], want an infinite bound", c.Lo, c.Hi)
	}
	if len(tb.Notes) != 1 || !strings.Contains(tb.Notes[0], "at least 6 values") {
		t.Errorf("notes %q", tb.Notes)
	}
}

// TestSignificance: five runs each, fully separated, give the U test's
// smallest two-sided p-value for 5+5, 2/252 = 0.0079; overlapping samples
// are not significant.
func TestSignificance(t *testing.T) {
	a := repeated("A", 100, 102, 98, 101, 99)
	tb := build(t, compare.Options{}, append(a, repeated("B", 110, 111, 109, 112, 108)...)...)
	ch := tb.Rows[0].Changes[1]
	if !ch.Tested || !ch.Significant || !near(ch.Pct, 10) || math.Abs(ch.P-2.0/252) > 1e-4 {
		t.Errorf("separated samples: %+v; want +10%%, p = 0.0079, significant", ch)
	}
	tb = build(t, compare.Options{}, append(a, repeated("B", 100.5, 101.5, 99.5, 98.5, 102.5)...)...)
	if ch := tb.Rows[0].Changes[1]; !ch.Tested || ch.Significant {
		t.Errorf("overlapping samples: %+v; want not significant", ch)
	}
}

// TestOptionsDiffer: runs with different workload options are refused,
// naming the option and its values, unless forced.
func TestOptionsDiffer(t *testing.T) {
	a := in("A", file("A", map[int]float64{8: 100}))
	bf := file("B", map[int]float64{8: 120})
	bf.Workload.Options["table-size"] = "1000000"
	b := in("B", bf)
	_, err := compare.Build([]compare.Input{a, b}, compare.Options{})
	if !errors.Is(err, compare.ErrMismatch) {
		t.Fatalf("Build = %v, want ErrMismatch", err)
	}
	for _, want := range []string{"--table-size", `"10000" in A.json`, `"1000000" in B.json`, "--force"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	for _, opt := range []compare.Options{{Force: true}, {Vary: []string{"table-size"}}} {
		tb := build(t, opt, a, b)
		if len(tb.Differences) != 1 || tb.Differences[0].Name != "option --table-size" ||
			strings.Join(tb.Differences[0].Values, ",") != "10000,1000000" {
			t.Errorf("%+v: differences %+v", opt, tb.Differences)
		}
	}
	// --vary names what the comparison is about; anything else that
	// differs is still refused.
	bf.Workload.Options["tables"] = "16"
	if _, err := compare.Build([]compare.Input{a, b}, compare.Options{Vary: []string{"table-size"}}); !errors.Is(err, compare.ErrMismatch) ||
		!strings.Contains(err.Error(), "--tables") || strings.Contains(err.Error(), "--table-size") {
		t.Errorf("--vary table-size with --tables differing too: %v", err)
	}
}

// TestDifferences lists server, client and setting differences, and files
// of one column that disagree.
func TestDifferences(t *testing.T) {
	a1 := file("A", map[int]float64{8: 100})
	a2 := file("A", map[int]float64{8: 101})
	a2.Client.Hostname = "bench2"
	b := file("B", map[int]float64{8: 120})
	b.Target.ServerVersion = "PostgreSQL 16.4"
	b.Target.Settings["shared_buffers"] = "1GB"
	b.Target.Settings["io_method"] = "worker" // a setting the older server does not have
	tb := build(t, compare.Options{}, compare.Input{Path: "a1", File: a1}, compare.Input{Path: "a2", File: a2}, compare.Input{Path: "b", File: b})
	var got []string
	for _, d := range tb.Differences {
		got = append(got, d.Name+"="+strings.Join(d.Values, "|"))
	}
	// shared_buffers is the buffer pool, a setting of a common name:
	// listed before the others.
	want := "setting shared_buffers=128MB|1GB; server version=PostgreSQL 15.18|PostgreSQL 16.4; client host=mixed: bench1, bench2|bench1"
	if s := strings.Join(got, "; "); s != want {
		t.Errorf("differences\n got %s\nwant %s", s, want)
	}
	if len(tb.Notes) == 0 || !strings.HasPrefix(tb.Notes[0], "1 server setting is reported by only some of the files") {
		t.Errorf("notes %q", tb.Notes)
	}
}

// TestMetrics: latencies are lower-is-better, workload metrics match by
// name in any case and bring their unit, --op picks one operation.
func TestMetrics(t *testing.T) {
	a := file("A", map[int]float64{8: 100})
	a.Runs[0].Metrics = []result.Metric{{Name: "NOPM", Value: 30000, Unit: "/min", Higher: true}}
	a.Runs[0].Ops = []result.Op{{Name: "new_order", Count: 600}}
	a.Runs[0].Ops[0].LatencyMS.P95 = 12
	b := file("B", map[int]float64{8: 120})
	b.Runs[0].Metrics = []result.Metric{{Name: "NOPM", Value: 33000, Unit: "/min", Higher: true}}
	b.Runs[0].Ops = []result.Op{{Name: "new_order", Count: 900}}
	b.Runs[0].Ops[0].LatencyMS.P95 = 9
	ia, ib := in("A", a), in("B", b)

	tb := build(t, compare.Options{Metric: "nopm"}, ia, ib)
	if tb.Metric.Name != "NOPM" || tb.Metric.Unit != "/min" || !near(tb.Rows[0].Changes[1].Pct, 10) {
		t.Errorf("nopm: %+v, change %v", tb.Metric, tb.Rows[0].Changes[1].Pct)
	}
	tb = build(t, compare.Options{Metric: "p95", Op: "new_order"}, ia, ib)
	if tb.Metric.Higher || !near(tb.Rows[0].Changes[1].Pct, -25) || !strings.Contains(tb.Title(), "p95 of new_order (ms), lower is better") {
		t.Errorf("p95 of new_order: %q, change %v", tb.Title(), tb.Rows[0].Changes[1].Pct)
	}
	tb = build(t, compare.Options{Metric: "tps", Op: "new_order"}, ia, ib)
	if c := tb.Rows[0].Cells[0].Center; c != 10 { // 600 in 60 s
		t.Errorf("tps of new_order: %v, want 10", c)
	}
	if _, err := compare.Build([]compare.Input{ia, ib}, compare.Options{Metric: "tpmC"}); err == nil || !strings.Contains(err.Error(), "--metric tpmC") {
		t.Errorf("missing metric: %v", err)
	}
}

// TestRunMetrics: every number of a run's summary is a metric: retries,
// retry_pct, the server's metrics; a server metric no run has says why.
func TestRunMetrics(t *testing.T) {
	a := file("A", map[int]float64{8: 100})
	a.Runs[0].Retries, a.Runs[0].RetryPct = 10, 2
	a.Runs[0].Server = map[string]float64{"server_cpu_pct": 150, "host_iowait_pct": 4, "disk_iops": 200}
	b := file("B", map[int]float64{8: 120})
	b.Runs[0].Retries, b.Runs[0].RetryPct = 30, 5
	b.Runs[0].Server = map[string]float64{"server_cpu_pct": 180, "host_iowait_pct": 2, "disk_iops": 100}
	ia, ib := in("A", a), in("B", b)
	for _, tc := range []struct {
		metric, unit string
		higher       bool
		a, b         float64
	}{
		{"retries", "count", false, 10, 30},
		{"retry_pct", "%", false, 2, 5},
		{"server_cpu_pct", "%", false, 150, 180},
		{"HOST_IOWAIT_PCT", "%", false, 4, 2},
		{"disk_iops", "/s", false, 200, 100},
		{"p99.9", "ms", false, 0, 0},
	} {
		tb := build(t, compare.Options{Metric: tc.metric}, ia, ib)
		c := tb.Rows[0].Cells
		if tb.Metric.Unit != tc.unit || tb.Metric.Higher != tc.higher || c[0].Center != tc.a || c[1].Center != tc.b {
			t.Errorf("--metric %s: %+v, %v and %v; want %s, higher %v, %v and %v", tc.metric, tb.Metric, c[0].Center, c[1].Center, tc.unit, tc.higher, tc.a, tc.b)
		}
	}
	_, err := compare.Build([]compare.Input{ia, ib}, compare.Options{Metric: "pg_wal_mb_s"})
	if err == nil || !strings.Contains(err.Error(), "--metric pg_wal_mb_s: no run of oltp_read_write has pg_wal_mb_s (the server was not sampled") {
		t.Errorf("unsampled server metric: %v", err)
	}
	names := map[string]bool{}
	for _, m := range metric.RunMetrics() {
		if names[m.Name] || m.Value == nil {
			t.Errorf("run metric %q listed twice or without a value", m.Name)
		}
		names[m.Name] = true
	}
	for _, m := range sysmon.Metrics() {
		if !names[m.Name] {
			t.Errorf("server metric %s is not a run metric", m.Name)
		}
	}
}

// TestAverageIsTheChangeOfTheMeans: a row of small values cannot swing
// the average: 10 → 120 (+1100%) and 291.6 → 119.2 make means of 150.8
// and 119.6, a change of −20.69%, where the mean of the rows' changes
// would be +529.56%.
func TestAverageIsTheChangeOfTheMeans(t *testing.T) {
	tb := build(t, compare.Options{},
		in("A", file("A", map[int]float64{1: 10, 8: 291.6})),
		in("B", file("B", map[int]float64{1: 120, 8: 119.2})))
	if a, b := tb.Average.Cells[0].Center, tb.Average.Cells[1].Center; !near(a, 150.8) || !near(b, 119.6) {
		t.Errorf("means %v, %v", a, b)
	}
	if got, want := tb.Average.Changes[1].Pct, (119.6/150.8-1)*100; !near(got, want) {
		t.Errorf("average change %v, want %v", got, want)
	}
	if !strings.Contains(tb.Title(), "average: means, and the change of the means") {
		t.Errorf("the title does not say what the average is: %q", tb.Title())
	}
}

// TestAverageMeanOfChanges reproduces KubeBlocks' read-intensive QPS
// table (study 004): with vs-better and the mean of the rows' changes
// its average row reads 46.78%, where the change of the means is 46.82%.
func TestAverageMeanOfChanges(t *testing.T) {
	kb := map[int]float64{25: 229339.51, 50: 241774.12, 100: 242690.36, 150: 230210.45, 175: 219621.06}
	rds := map[int]float64{25: 78410.42, 50: 123801.16, 100: 140488.15, 150: 138984.83, 175: 137161.37}
	inputs := []compare.Input{in("KubeBlocks", file("KubeBlocks", kb)), in("RDS", file("RDS", rds))}
	mean := build(t, compare.Options{Change: compare.ChangeVsBetter, Average: compare.AverageMeanOfChanges}, inputs...)
	wantRows := []string{"65.81", "48.79", "42.11", "39.63", "37.55"}
	for i, r := range mean.Rows {
		if got := fmt.Sprintf("%.2f", r.Changes[1].Pct); got != wantRows[i] {
			t.Errorf("row %d threads: %s%%, the study printed %s%%", r.Threads, got, wantRows[i])
		}
	}
	if got := fmt.Sprintf("%.2f", mean.Average.Changes[1].Pct); got != "46.78" {
		t.Errorf("mean of changes %s%%, the study printed 46.78%%", got)
	}
	cells := mean.Cells()
	if last := cells[len(cells)-1]; last[0] != "average (mean of changes)" || last[len(last)-1] != "+46.78%" {
		t.Errorf("average row %q", last)
	}
	if !strings.Contains(mean.Title(), "average: means, and the mean of the rows' changes") {
		t.Errorf("the title does not say what the average is: %q", mean.Title())
	}
	means := build(t, compare.Options{Change: compare.ChangeVsBetter}, inputs...)
	if got := fmt.Sprintf("%.2f", means.Average.Changes[1].Pct); got != "46.82" {
		t.Errorf("change of means %s%%, want 46.82%%", got)
	}
	if _, err := compare.Build(inputs, compare.Options{Average: "median"}); err == nil || !strings.Contains(err.Error(), `--average "median"`) {
		t.Errorf("a bad --average gave %v", err)
	}
}

// TestChangeConventions: vs-better is the baseline's lead in % of the
// baseline (KubeBlocks' table: 229339.51 against 78410.42 is 65.81%);
// vs-previous puts each column against the one before.
func TestChangeConventions(t *testing.T) {
	kb := in("kb", file("kb", map[int]float64{16: 229339.51, 32: 241774.12}))
	rds := in("rds", file("rds", map[int]float64{16: 78410.42, 32: 123801.16}))
	tb := build(t, compare.Options{Change: compare.ChangeVsBetter}, kb, rds)
	if got := tb.Rows[0].Changes[1].Pct; math.Abs(got-65.81) > 0.005 {
		t.Errorf("vs-better at the first thread count: %v, want 65.81", got)
	}
	if h := tb.Header(); h[len(h)-1] != "kb over rds" || !strings.Contains(tb.Title(), "kb's lead over each column") {
		t.Errorf("vs-better: header %q, title %q", h, tb.Title())
	}
	// Lower is better: the baseline leads when the column is slower.
	tb = build(t, compare.Options{Metric: "p95", Change: compare.ChangeVsBetter}, kb, rds)
	a, b := tb.Rows[0].Cells[0].Center, tb.Rows[0].Cells[1].Center
	if got, want := tb.Rows[0].Changes[1].Pct, (b-a)/a*100; !near(got, want) || got <= 0 {
		t.Errorf("vs-better p95: %v, want %v > 0", got, want)
	}

	steps := []compare.Input{
		in("base", file("base", map[int]float64{8: 100})),
		in("wal", file("wal", map[int]float64{8: 135})),
		in("buffers", file("buffers", map[int]float64{8: 153.9})),
	}
	tb = build(t, compare.Options{Change: compare.ChangeVsPrevious}, steps...)
	if h := strings.Join(tb.Header(), ","); h != "threads,base,wal,buffers,wal vs base,buffers vs wal" {
		t.Errorf("vs-previous header %s", h)
	}
	if r := tb.Rows[0]; r.Changes[0].Present || !near(r.Changes[1].Pct, 35) || !near(r.Changes[2].Pct, 14) {
		t.Errorf("vs-previous changes %+v", r.Changes)
	}
	for _, tc := range []struct {
		opt  compare.Options
		want string
	}{
		{compare.Options{Change: "vs-worse"}, `--change "vs-worse": want vs-baseline, vs-better, vs-previous`},
		{compare.Options{Change: compare.ChangeVsPrevious, Baseline: "wal"}, `--baseline "wal": --change vs-previous`},
	} {
		if _, err := compare.Build(steps, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opt, err, tc.want)
		}
	}
}

// TestSkipsIncompleteRuns leaves interrupted runs out and says so.
func TestSkipsIncompleteRuns(t *testing.T) {
	a := file("A", map[int]float64{1: 100, 8: 200})
	a.Runs[1].Status = result.StatusInterrupted
	tb := build(t, compare.Options{}, in("A", a), in("B", file("B", map[int]float64{1: 110, 8: 210})))
	if tb.Rows[1].Cells[0].N() != 0 || tb.Rows[1].Changes[1].Present {
		t.Errorf("the interrupted run was used: %+v", tb.Rows[1])
	}
	if len(tb.Notes) != 1 || !strings.Contains(tb.Notes[0], "A.json: the run with 8 threads is interrupted") {
		t.Errorf("notes %q", tb.Notes)
	}
}

// A run rebuilt by dbarena recover (status killed) is all there is of
// it: it is compared like any other, with a note saying what it is.
func TestComparesKilledRuns(t *testing.T) {
	a := file("A", map[int]float64{1: 100, 8: 200})
	a.Runs[1].Status = result.StatusKilled
	tb := build(t, compare.Options{}, in("A", a), in("B", file("B", map[int]float64{1: 110, 8: 210})))
	if tb.Rows[1].Cells[0].N() != 1 || !tb.Rows[1].Changes[1].Present {
		t.Errorf("the killed run was left out: %+v", tb.Rows[1])
	}
	if len(tb.Notes) != 1 || !strings.Contains(tb.Notes[0], "A.json: the run with 8 threads was killed") {
		t.Errorf("notes %q", tb.Notes)
	}
	// A file of killed runs only compares too.
	tb = build(t, compare.Options{}, in("A", a))
	if len(tb.Rows) != 2 || tb.Rows[1].Cells[0].N() != 1 {
		t.Errorf("rows %+v", tb.Rows)
	}
}

// A complete run's warnings (result.Run.Warnings) reach the reader as
// notes of the table it is in.
func TestRunWarningsAreNotes(t *testing.T) {
	a := file("A", map[int]float64{1: 100, 8: 200})
	a.Runs[1].Warnings = []string{"2 of 10 measured intervals had no transactions (ending at 3s, 4s)"}
	tb := build(t, compare.Options{}, in("A", a), in("B", file("B", map[int]float64{1: 110, 8: 210})))
	if !tb.Rows[1].Changes[1].Present {
		t.Errorf("the run with a warning was left out: %+v", tb.Rows[1])
	}
	if len(tb.Notes) != 1 || tb.Notes[0] != "A.json: the run with 8 threads: 2 of 10 measured intervals had no transactions (ending at 3s, 4s)" {
		t.Errorf("notes %q", tb.Notes)
	}
}

// A cell holding a disturbed run marks its figure "!", and a note says
// what the mark means beside the run's own warning; cells of undisturbed
// runs are not marked.
func TestDisturbedMark(t *testing.T) {
	a := file("A", map[int]float64{1: 100, 8: 200})
	d := result.Disturbance{Cause: result.DisturbedOther, Metric: "host_other_cpu_pct", Limit: 25, Intervals: 9, Measured: 10, Mean: 61, Max: 70,
		Text: "processes other than dbarena and the server used 61% of the host's CPU (mean; up to 70%) in 9 of 10 measured intervals, above the limit of 25% (--disturbed-other)"}
	a.Runs[1].Disturbed = []result.Disturbance{d}
	a.Runs[1].Warnings = []string{result.DisturbedWarning(d)}
	tb := build(t, compare.Options{}, in("A", a), in("B", file("B", map[int]float64{1: 110, 8: 210})))
	var b strings.Builder
	compare.WriteText(&b, []*compare.Table{tb})
	out := b.String()
	for _, want := range []string{
		"8                          200.0 !  210.0",
		"note: A.json: the run with 8 threads: disturbed: processes other than dbarena and the server used 61% of the host's CPU",
		"note: " + compare.DisturbedNote,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "0 !") != 1 {
		t.Errorf("want one mark:\n%s", out)
	}
	if tb.Rows[1].Cells[0].Disturbed != 1 || tb.Rows[0].Cells[0].Disturbed != 0 || tb.Rows[1].Cells[1].Disturbed != 0 {
		t.Errorf("cells %+v", tb.Rows)
	}
}

func Example() {
	a := in("pg15", file("pg15", map[int]float64{1: 512.3, 8: 2890, 32: 3120}))
	b := in("pg16", file("pg16", map[int]float64{1: 540.1, 8: 3050, 32: 3010}))
	tables, _ := compare.Build([]compare.Input{a, b}, compare.Options{})
	compare.WriteText(os.Stdout, tables)
	// Output:
	// oltp_read_write: tps (/s), higher is better; changes against pg15; average: means, and the change of the means
	//
	// threads                     pg15   pg16  pg16 vs pg15
	// 1                          512.3  540.1        +5.43%
	// 8                           2890   3050        +5.54%
	// 32                          3120   3010        -3.53%
	// average (change of means)   2174   2200        +1.19%
}

func Example_markdown() {
	a := repeated("pg15", 2890, 2902, 2875, 2911, 2880, 2895)
	b := repeated("pg16", 3050, 3041, 3062, 3038, 3055, 3049)
	for _, in := range b {
		in.File.Target.ServerVersion = "PostgreSQL 16.4"
	}
	tables, _ := compare.Build(append(a, b...), compare.Options{})
	compare.WriteMarkdown(os.Stdout, tables)
	// Output:
	// **oltp\_read\_write: tps (/s), higher is better; changes against pg15**
	//
	// | threads | pg15 | pg16 | pg16 vs pg15 |
	// | --- | ---: | ---: | ---: |
	// | 8 | 2892 ±1% (n=6) | 3050 ±0% (n=6) | +5.43% (p=0.002 n=6+6) |
	//
	// Differences between the columns:
	//
	// |  | pg15 | pg16 |
	// | --- | --- | --- |
	// | server version | PostgreSQL 15.18 | PostgreSQL 16.4 |
}

// A MariaDB server is said to be one, though its result file's
// target.engine is the engine's name, "mysql": in a column without a
// label and in the differences.
func TestMariaDBIsNamed(t *testing.T) {
	maria := file("", map[int]float64{8: 100})
	maria.Target.Engine, maria.Target.ServerVersion, maria.Target.Settings = "mysql", "MariaDB 11.4.2", nil
	my := file("", map[int]float64{8: 90})
	my.Target.Engine, my.Target.ServerVersion, my.Target.Settings = "mysql", "MySQL 8.4.0", nil
	pg := file("", map[int]float64{8: 80})
	tb := build(t, compare.Options{}, compare.Input{Path: "m", File: maria}, compare.Input{Path: "y", File: my}, compare.Input{Path: "p", File: pg})
	var labels []string
	for _, c := range tb.Columns {
		labels = append(labels, c.Label)
	}
	if got := strings.Join(labels, ","); got != "mariadb,mysql,postgres" {
		t.Errorf("columns %s, want mariadb,mysql,postgres", got)
	}
	for _, d := range tb.Differences {
		if d.Name == "engine" && strings.Join(d.Values, ",") != "mariadb,mysql,postgres" {
			t.Errorf("engine row %q, want mariadb,mysql,postgres", d.Values)
		}
	}
	if maria.Target.Engine != "mysql" {
		t.Error("the result file's engine changed")
	}
}

func differenceList(tb *compare.Table) string {
	var got []string
	for _, d := range tb.Differences {
		got = append(got, d.Name+"="+strings.Join(d.Values, "|"))
	}
	return strings.Join(got, "; ")
}

// TestDifferencesKnobsFirst: the settings a managed server was asked for
// come first, then the other settings of a common name; paths, ports and
// derived sizes are left out.
func TestDifferencesKnobsFirst(t *testing.T) {
	mk := func(label, dir, port, wal, sb, shm, walBuffers string) *result.File {
		f := file(label, map[int]float64{8: 100})
		f.Target.Settings = map[string]string{
			"config_file": dir + "/postgresql.conf", "data_directory": dir, "hba_file": dir + "/pg_hba.conf",
			"port": port, "max_wal_size": wal, "shared_buffers": sb, "shared_memory_size": shm,
			"shared_memory_size_in_huge_pages": "21", "wal_buffers": walBuffers, "max_connections": "100",
		}
		f.Target.Knobs = map[string]string{"max_wal_size": wal}
		if label == "wal+sb" {
			f.Target.Knobs["shared_buffers"] = sb
			f.Target.Settings["shared_memory_size_in_huge_pages"] = "72"
		}
		return f
	}
	tb := build(t, compare.Options{},
		in("base", mk("base", "/tmp/a", "40313", "64MB", "32MB", "41MB", "1MB")),
		in("wal", mk("wal", "/tmp/b", "36917", "1GB", "32MB", "41MB", "1MB")),
		in("wal+sb", mk("wal+sb", "/tmp/c", "34577", "1GB", "128MB", "143MB", "4MB")))
	want := "setting max_wal_size=64MB|1GB|1GB; setting shared_buffers=32MB|32MB|128MB; setting wal_buffers=1MB|1MB|4MB"
	if got := differenceList(tb); got != want {
		t.Errorf("differences\n got %s\nwant %s", got, want)
	}
	if len(tb.Notes) != 0 {
		t.Errorf("notes %q", tb.Notes)
	}
}

// TestDifferencesAcrossEngines: the engines' settings of one meaning are
// side by side under a common name; the knob under study is not among
// the settings left out, nor are ports and message languages compared.
func TestDifferencesAcrossEngines(t *testing.T) {
	pg := file("postgres", map[int]float64{8: 100})
	pg.Target.Settings = map[string]string{"shared_buffers": "128MB", "max_wal_size": "1GB", "max_connections": "100",
		"port": "42567", "lc_messages": "C", "config_file": "/d/postgresql.conf", "work_mem": "4MB"}
	pg.Target.Knobs = map[string]string{"shared_buffers": "128MB"}
	my := file("mariadb", map[int]float64{8: 100})
	my.Target.Engine, my.Target.ServerVersion = "mysql", "MariaDB 10.11.19"
	my.Target.Settings = map[string]string{"innodb_buffer_pool_size": "134217728", "innodb_log_file_size": "100663296",
		"max_connections": "151", "port": "45651", "lc_messages": "en_US", "datadir": "/d/", "sort_buffer_size": "2097152"}
	my.Target.Knobs = map[string]string{"innodb_buffer_pool_size": "128M"}
	tb := build(t, compare.Options{}, in("postgres", pg), in("mariadb", my))
	// A size in bytes is shown in PostgreSQL's units too.
	want := "buffer pool=shared_buffers = 128MB|innodb_buffer_pool_size = 134217728 (128MB); " +
		"WAL size=max_wal_size = 1GB|innodb_log_file_size = 100663296 (96MB); " +
		"connections=max_connections = 100|max_connections = 151; " +
		"engine=postgres|mariadb; server version=PostgreSQL 15.18|MariaDB 10.11.19"
	if got := differenceList(tb); got != want {
		t.Errorf("differences\n got %s\nwant %s", got, want)
	}
	if len(tb.Notes) != 1 || !strings.HasPrefix(tb.Notes[0], "2 server settings are reported by only some of the files") {
		t.Errorf("notes %q", tb.Notes)
	}
}

// TestDifferencesPooler: a PgBouncer's own settings are compared with a
// column without one, which shows "—".
func TestDifferencesPooler(t *testing.T) {
	direct := file("direct", map[int]float64{8: 100})
	bouncer := file("pgbouncer", map[int]float64{8: 50})
	bouncer.Target.Settings["pgbouncer.pool_mode"] = "transaction"
	bouncer.Target.Settings["pgbouncer.default_pool_size"] = "20"
	bouncer.Target.Settings["pgbouncer.listen_port"] = "6432"
	bouncer.Target.Settings["pgbouncer.stats_period"] = "60"
	tb := build(t, compare.Options{}, in("direct", direct), in("pgbouncer", bouncer))
	want := "setting pgbouncer.default_pool_size=—|20; setting pgbouncer.pool_mode=—|transaction"
	if got := differenceList(tb); got != want {
		t.Errorf("differences\n got %s\nwant %s", got, want)
	}
	if len(tb.Notes) != 1 || !strings.HasPrefix(tb.Notes[0], "1 server setting is reported by only some") {
		t.Errorf("notes %q", tb.Notes)
	}
}

// withServer sets the server metrics of f's run at threads.
func withServer(f *result.File, threads int, cpu, iowait, iops float64) {
	for i := range f.Runs {
		if f.Runs[i].Threads == threads {
			f.Runs[i].Server = map[string]float64{"server_cpu_pct": cpu, "host_iowait_pct": iowait, "disk_iops": iops}
		}
	}
}

// TestColumns: the figures asked with Columns stand beside each column's
// value, medians of the cell's runs (means in the average row), and
// change neither the compared figure nor its changes.
func TestColumns(t *testing.T) {
	var ins []compare.Input
	for i, v := range []struct{ tps, cpu, iowait, iops float64 }{{100, 90, 1, 1000}, {110, 95, 3, 1200}, {105, 80, 2, 1100}} {
		f := file("A", map[int]float64{1: v.tps, 8: 2 * v.tps})
		withServer(f, 1, v.cpu, v.iowait, v.iops)
		withServer(f, 8, v.cpu+100, v.iowait, v.iops)
		ins = append(ins, compare.Input{Path: "a" + string(rune('1'+i)) + ".json", File: f})
	}
	b := file("B", map[int]float64{1: 150, 8: 300})
	withServer(b, 1, 60, 0.5, 2000)
	withServer(b, 8, 70, 0.25, 2500)
	ins = append(ins, in("B", b))

	plain := build(t, compare.Options{}, ins...)
	tb := build(t, compare.Options{Columns: []string{"server_cpu_pct", "HOST_IOWAIT_PCT", "disk_iops"}}, ins...)
	if len(tb.Beside) != 3 || tb.Beside[0].Name != "server_cpu_pct" || tb.Beside[1].Name != "host_iowait_pct" || tb.Beside[2].Unit != "/s" {
		t.Fatalf("beside %+v", tb.Beside)
	}
	for i, r := range tb.Rows {
		for c := range r.Cells {
			if r.Cells[c].Center != plain.Rows[i].Cells[c].Center || r.Changes[c] != plain.Rows[i].Changes[c] {
				t.Errorf("row %d column %d changed by the columns beside: %+v %+v", i, c, r.Cells[c], r.Changes[c])
			}
		}
	}
	// A at 1 thread: CPU 80, 90, 95 → 90; iowait 1, 2, 3 → 2; IOPS → 1100.
	if got := tb.Rows[0].Beside[0]; got[0].Center != 90 || got[1].Center != 2 || got[2].Center != 1100 || got[0].N() != 3 {
		t.Errorf("A at 1 thread: %+v", got)
	}
	// The average: the mean of the rows' medians, (90 + 190) / 2.
	if got := tb.Average.Beside[0][0].Center; got != 140 {
		t.Errorf("average CPU of A %v, want 140", got)
	}
	wantHeader := []string{"threads", "A", "A server_cpu_pct", "A host_iowait_pct", "A disk_iops", "B", "B server_cpu_pct", "B host_iowait_pct", "B disk_iops", "B vs A"}
	if h := tb.Header(); strings.Join(h, "|") != strings.Join(wantHeader, "|") {
		t.Errorf("header %q, want %q", h, wantHeader)
	}
	cells := tb.Cells()
	if got, want := strings.Join(cells[0][1:], "|"), "105.0 ±∞ (n=3)|90.00|2.00|1100|150.0|60.00|0.500|2000|+42.86% (n=3+1)"; got != want {
		t.Errorf("row at 1 thread %q, want %q", got, want)
	}
	if got := cells[2]; got[0] != "average (change of means)" || got[2] != "140.0" || got[6] != "65.00" {
		t.Errorf("average row %q", got)
	}
	if !strings.HasSuffix(tb.Title(), "; beside each column its server_cpu_pct, host_iowait_pct, disk_iops (/s) (medians of the runs)") {
		t.Errorf("title %q", tb.Title())
	}
	var csv strings.Builder
	if err := compare.WriteCSV(&csv, []*compare.Table{tb}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(csv.String(), "\n")
	if !strings.HasSuffix(lines[0], ",change,server_cpu_pct,host_iowait_pct,disk_iops") || !strings.HasSuffix(lines[1], ",vs-baseline,90,2,1100") {
		t.Errorf("CSV:\n%s", csv.String())
	}
	// Without Columns the CSV has no such fields.
	csv.Reset()
	compare.WriteCSV(&csv, []*compare.Table{plain})
	if strings.Contains(csv.String(), "server_cpu_pct") {
		t.Errorf("CSV without columns:\n%s", csv.String())
	}

	// A workload metric beside, and one no run has: "-" and a note.
	ins[3].File.Runs[0].Metrics = []result.Metric{{Name: "NOPM", Value: 900, Unit: "/min", Higher: true}}
	tb = build(t, compare.Options{Columns: []string{"nopm", "pg_wal_mb_s"}}, ins...)
	if c := tb.Cells(); c[0][5] != "900.0" || c[0][2] != "-" || c[0][3] != "-" {
		t.Errorf("NOPM and pg_wal_mb_s beside: %q", c[0])
	}
	if len(tb.Notes) == 0 || !strings.Contains(strings.Join(tb.Notes, "\n"), "no run has pg_wal_mb_s (the server was not sampled") {
		t.Errorf("notes %q", tb.Notes)
	}

	for _, tc := range []struct {
		columns []string
		want    string
	}{
		{[]string{"server_cpu"}, `--columns "server_cpu": no such metric (the workloads' own are NOPM;`},
		{[]string{"disk_iops", "DISK_IOPS"}, `--columns "DISK_IOPS": asked twice`},
		{[]string{"p99.9", "p999"}, `--columns "p999": asked twice`},
	} {
		_, err := compare.Build(ins, compare.Options{Columns: tc.columns})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, compare.ErrNoMetric) {
			t.Errorf("--columns %q: %v, want %q", tc.columns, err, tc.want)
		}
	}
}

// The TPC-E study's layout: the server's CPU, iowait and IOPS beside each
// target's throughput.
func Example_columns() {
	a := file("tuned", map[int]float64{16: 2890, 32: 3120})
	withServer(a, 16, 98, 1, 4200)
	withServer(a, 32, 99, 0.5, 4400)
	b := file("default", map[int]float64{16: 2410, 32: 2380})
	withServer(b, 16, 67, 10, 3900)
	withServer(b, 32, 71, 12, 3800)
	tables, _ := compare.Build([]compare.Input{in("tuned", a), in("default", b)},
		compare.Options{Change: compare.ChangeVsBetter, Columns: []string{"server_cpu_pct", "host_iowait_pct", "disk_iops"}})
	compare.WriteMarkdown(os.Stdout, tables)
	// Output:
	// **oltp\_read\_write: tps (/s), higher is better; tuned's lead over each column in % of tuned; average: means, and the change of the means; beside each column its server\_cpu\_pct, host\_iowait\_pct, disk\_iops (/s) (medians of the runs)**
	//
	// | threads | tuned | tuned server\_cpu\_pct | tuned host\_iowait\_pct | tuned disk\_iops | default | default server\_cpu\_pct | default host\_iowait\_pct | default disk\_iops | tuned over default |
	// | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
	// | 16 | 2890 | 98.00 | 1.00 | 4200 | 2410 | 67.00 | 10.00 | 3900 | +16.61% |
	// | 32 | 3120 | 99.00 | 0.500 | 4400 | 2380 | 71.00 | 12.00 | 3800 | +23.72% |
	// | **average (change of means)** | 3005 | 98.50 | 0.750 | 4300 | 2395 | 69.00 | 11.00 | 3850 | +20.30% |
}

// TestByColumn: a table of one thread count and three columns or more
// is written turned, one line per column with its value and change, as a
// study's table of configurations; two columns, or several thread
// counts, keep a line per thread count.
func TestByColumn(t *testing.T) {
	a := in("A", file("A", map[int]float64{8: 100}))
	b := in("B", file("B", map[int]float64{8: 150}))
	c := in("C", file("C", map[int]float64{8: 50}))
	tb := build(t, compare.Options{Relative: true}, a, b, c)
	if !tb.ByColumn() {
		t.Fatal("one row, three columns: not by column")
	}
	h, rows := tb.Grid()
	if want := []string{"8 threads", "tps (relative)", "change"}; !slices.Equal(h, want) {
		t.Errorf("header %q, want %q", h, want)
	}
	want := [][]string{{"A", "1.00x", "baseline"}, {"B", "1.50x", "+50.00%"}, {"C", "0.50x", "-50.00%"}}
	if len(rows) != 3 {
		t.Fatalf("rows %q", rows)
	}
	for i, r := range rows {
		if !slices.Equal(r, want[i]) {
			t.Errorf("row %d %q, want %q", i, r, want[i])
		}
	}
	var md strings.Builder
	if err := compare.WriteMarkdown(&md, []*compare.Table{tb}); err != nil || !strings.Contains(md.String(), "| B | 1.50x | +50.00% |") {
		t.Errorf("markdown %v:\n%s", err, md.String())
	}
	// Two columns, or two thread counts: a line per thread count.
	if build(t, compare.Options{}, a, b).ByColumn() {
		t.Error("two columns turned")
	}
	two := in("D", file("D", map[int]float64{1: 10, 8: 20}))
	if build(t, compare.Options{Force: true}, two, in("E", file("E", map[int]float64{1: 1, 8: 2})), in("F", file("F", map[int]float64{1: 1, 8: 2}))).ByColumn() {
		t.Error("two thread counts turned")
	}
}
