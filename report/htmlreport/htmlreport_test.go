package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/report/htmlreport"
	"github.com/dbarena/dbarena/result"
)

// hostile is a label that would run script if the report did not escape
// it, in HTML text as much as in the charts' JSON.
const hostile = `</script><script>document.body.setAttribute("data-pwned","1")</script><img src=x onerror="document.body.setAttribute('data-pwned','2')">`

// sweep is a result file: a sweep over 1, 4 and 16 threads with a warm-up
// interval, two ops and a workload metric.
func sweep(label string, scale float64) *result.File {
	f := &result.File{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "dbarena", Version: "1.2.3", Commit: "abc1234"},
		Workload:      result.Workload{Name: "oltp_read_write", Options: map[string]string{"tables": "4", "table-size": "10000"}},
		Target: result.Target{Label: label, Engine: "postgres", URL: "postgres://bench:xxxxx@db:5432/bench", ServerVersion: "PostgreSQL 15.18",
			Settings: map[string]string{"shared_buffers": "128MB", "note": hostile}},
		Client:    result.Client{Hostname: "bench1", CPUModel: "EPYC", Cores: 2, OS: "linux/amd64", GoVersion: "go1.26"},
		StartedAt: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
		Status:    result.StatusComplete,
	}
	for _, th := range []int{1, 4, 16} {
		tps := scale * 100 * float64(th) / (1 + float64(th)/8)
		r := result.Run{Threads: th, DurationS: 4, WarmupS: 1, TPS: tps, QPS: tps * 20, Transactions: int64(tps * 4),
			LatencyMS: histogram.Latency{P50: 1 * float64(th), P95: 2 * float64(th), P99: 3 * float64(th), Max: 9 * float64(th)},
			Status:    result.StatusComplete,
			Ops: []result.Op{{Name: "read", Count: 10, LatencyMS: histogram.Latency{P95: 1}},
				{Name: "write", Count: 5, Errors: 1, Retries: 2, LatencyMS: histogram.Latency{P95: 3}}},
			Metrics: []result.Metric{{Name: "TPM", Value: tps * 60, Unit: "/min", Higher: true}}}
		// The first target's first run has its server sampled.
		sampled := scale == 1 && th == 1
		for s := 1; s <= 5; s++ {
			iv := result.Interval{TS: float64(s), Warmup: s == 1, TPS: tps * (0.9 + 0.05*float64(s%3)),
				LatencyMS: result.IntervalLatency{P50: 1, P95: 2 + float64(s%2), P99: 4, Max: 6}}
			if sampled {
				iv.Server = map[string]float64{"server_cpu_pct": 80 + float64(s), "host_cpu_pct": 60, "host_iowait_pct": 3, "disk_iops": 120, "interval_s": 1}
			}
			r.Intervals = append(r.Intervals, iv)
		}
		if sampled {
			r.Server = map[string]float64{"server_cpu_pct": 83.5, "host_cpu_pct": 60, "host_iowait_pct": 3, "disk_iops": 120,
				"disk_read_mb_s": 0.5, "disk_write_mb_s": 2.25, "pg_wal_mb_s": 1.5, "pg_checkpoints": 1, "interval_s": 4}
			r.ServerCPUPerTxnUS = 412.5
		}
		f.Runs = append(f.Runs, r)
	}
	return f
}

// render writes a report of two targets, the second labelled hostile.
func render(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	inputs := []compare.Input{{Path: "pg15.json", File: sweep("pg15", 1)}, {Path: "evil.json", File: sweep(hostile, 1.3)}}
	inputs[1].File.Target.ServerVersion = "PostgreSQL 16.4"
	if err := htmlreport.Write(&b, inputs, htmlreport.Options{Generated: time.Unix(0, 0), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// chartIDs are the ids of the chart containers in a page, in order.
var chartDiv = regexp.MustCompile(`<div class="chart[^"]*" id="([^"]+)"`)

func chartIDs(page string) []string {
	var ids []string
	for _, m := range chartDiv.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// TestStructure checks the page without a browser: one throughput and one
// latency chart per workload and one chart per run, each with its options;
// the tables; nothing fetched from elsewhere; every hostile string escaped.
func TestStructure(t *testing.T) {
	b, err := os.ReadFile(render(t))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	ids := chartIDs(page)
	want := []string{"w0-tps", "w0-lat", "run1-time", "run1-server", "run2-time", "run3-time", "run4-time", "run5-time", "run6-time"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("charts %v, want %v", ids, want)
	}
	for _, id := range ids {
		if !strings.Contains(page, `"id":"`+id+`"`) {
			t.Errorf("no options for chart %s", id)
		}
	}
	for _, want := range []string{
		"<title>dbarena report: oltp_read_write</title>",
		// The browser refuses any load but inline script and style.
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">`,
		`<table class="compare">`, `<table class="differences">`, `<table class="ops">`, `<table class="metrics">`, `<table class="env">`,
		"<td class=\"l\">server version</td><td class=\"l\">PostgreSQL 15.18</td><td class=\"l\">PostgreSQL 16.4</td>",
		"postgres://bench:xxxxx@db:5432/bench", "--table-size=10000 --tables=4", "Apache ECharts 5.6.0",
		"pg15 · oltp_read_write · 1 thread", "pg15 · oltp_read_write · 16 threads",
		"<th class=\"l\">server CPU % / µs per transaction</th><td class=\"l\">83.50 / 412.50</td>",
		"<th class=\"l\">WAL MB/s / checkpoints</th><td class=\"l\">1.50 / 1.00</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Exactly the two script elements of the page, and no URL that a
	// browser would load: no src=, no href= but the empty data: icon.
	if n := strings.Count(page, "<script>"); n != 2 {
		t.Errorf("%d <script> elements, want 2 (the library and the charts)", n)
	}
	if regexp.MustCompile(`(?i)<(script|img|link|iframe)[^>]*\s(src|href)=["']?(https?:|//)`).MatchString(page) {
		t.Error("the page references a remote resource")
	}
	if strings.Contains(page, `setAttribute("data-pwned"`) || strings.Contains(page, `<img src=x`) {
		t.Error("a hostile label reached the page unescaped")
	}
}

// chromium is the browser the end-to-end test drives: $DBARENA_TEST_CHROMIUM
// or chromium on PATH (scripts/testservers install puts it there).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DBARENA_TEST_CHROMIUM"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not found: run scripts/testservers install (it installs Debian's chromium) or set DBARENA_TEST_CHROMIUM")
	}
	return p
}

// dumpDOM loads path in headless chromium and returns the DOM once the
// page's scripts have run, and the network requests the page made: those
// in chromium's net log whose initiator is an origin. The browser's own
// traffic (component updates, network time, sign-in) has no initiator
// origin ("not an origin") and is left out.
func dumpDOM(t *testing.T, path string) (dom string, requests []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	netlog := filepath.Join(dir, "netlog.json")
	cmd := exec.CommandContext(ctx, chromium(t), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--log-net-log="+netlog, "--net-log-capture-mode=Default",
		"--virtual-time-budget=10000", "--dump-dom", "file://"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("chromium wrote no net log: %v", err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Method    string `json:"method"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("net log: %v", err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("net log: no URL_REQUEST_START_JOB event type")
	}
	for _, e := range log.Events {
		if e.Type == start && e.Params.URL != "" && e.Params.Initiator != "not an origin" {
			requests = append(requests, e.Params.Method+" "+e.Params.URL+" (initiator "+e.Params.Initiator+")")
		}
	}
	return stdout.String(), requests
}

// TestInBrowser opens a report in headless Chromium: every chart must
// have drawn (an SVG with paths in its container), the page may make no
// network request, and no hostile label may have run. A control page that
// does load a remote image proves the request check can fail.
func TestInBrowser(t *testing.T) {
	control := filepath.Join(t.TempDir(), "control.html")
	if err := os.WriteFile(control, []byte(`<!DOCTYPE html><html><body><img src="http://dbarena-probe.invalid/x.png"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, got := dumpDOM(t, control); !strings.Contains(strings.Join(got, "\n"), "dbarena-probe.invalid") {
		t.Fatalf("the control page's request is not among the requests seen (%q): the check below would prove nothing", got)
	}

	dom, requests := dumpDOM(t, render(t))
	if len(requests) > 0 {
		t.Errorf("the report made requests: %q", requests)
	}
	ids := chartIDs(dom)
	if len(ids) != 9 {
		t.Fatalf("%d chart containers in the rendered page, want 9", len(ids))
	}
	for i, id := range ids {
		start := strings.Index(dom, `id="`+id+`"`)
		end := len(dom)
		if i+1 < len(ids) {
			end = strings.Index(dom, `id="`+ids[i+1]+`"`)
		}
		part := dom[start:end]
		if !strings.Contains(part, "<svg") || strings.Count(part, "<path") < 5 {
			t.Errorf("chart %s did not draw: %d paths", id, strings.Count(part, "<path"))
		}
	}
	if strings.Contains(dom, "data-pwned") && regexp.MustCompile(`<body[^>]*data-pwned`).MatchString(dom) {
		t.Error("a hostile label ran script")
	}
	if !strings.Contains(dom, "&lt;/script&gt;&lt;script&gt;document.body.setAttribute") {
		t.Error("the hostile label is not shown as text")
	}
}

// TestHeadlineMetric: the headline chart and table show the workload's
// own headline figure (NOPM for tpcc) unless Options.Metric names
// another; a workload that retried gets the airline study's retries table
// and a retries chart; p99.9 is in the tables.
func TestHeadlineMetric(t *testing.T) {
	inputs := func() []compare.Input {
		var ins []compare.Input
		for i, label := range []string{"pg", "mongo"} {
			f := sweep(label, float64(i+1))
			f.Workload.Name = "tpcc"
			for j := range f.Runs {
				r := &f.Runs[j]
				r.Metrics = append([]result.Metric{{Name: "NOPM", Value: 1000 * float64(r.Threads*(i+1)), Unit: "/min", Higher: true}}, r.Metrics...)
				r.Retries, r.RetriesPerS, r.RetryPct = int64(38*r.Threads), 9.5*float64(r.Threads), 0.25*float64(i+1)
				r.LatencyMS.P999 = 77.5
			}
			ins = append(ins, compare.Input{Path: label + ".json", File: f})
		}
		return ins
	}
	page := func(opt htmlreport.Options) string {
		var b bytes.Buffer
		if err := htmlreport.Write(&b, inputs(), opt); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	p := page(htmlreport.Options{})
	for _, want := range []string{
		"tpcc: NOPM (/min), higher is better", `"text":"NOPM (/min) vs threads"`,
		`<table class="retries">`, `<th colspan="3">mongo</th>`, "<td class=\"l\">4</td><td>152</td><td>38.00</td><td>0.25%</td><td>152</td><td>38.00</td><td>0.50%</td>",
		`id="w0-retries"`, `"text":"Retries vs threads (% of committed transactions)"`,
		`<th colspan="5">latency ms</th>`, "<th>p99.9</th>", "77.50", "latency p50 / p95 / p99 / p99.9 ms",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if p := page(htmlreport.Options{Metrics: map[string]string{"tpcc": "p99"}}); !strings.Contains(p, "tpcc: p99 (ms), lower is better") {
		t.Error("Options.Metrics did not choose the figure")
	}
	if p := page(htmlreport.Options{Metric: "qps", Metrics: map[string]string{"tpcc": "p99"}}); !strings.Contains(p, "tpcc: qps (/s), higher is better") {
		t.Error("Options.Metric did not choose the figure")
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, inputs(), htmlreport.Options{Metric: "nosuch"}); err == nil || !strings.Contains(err.Error(), "--metric nosuch") {
		t.Errorf("unknown metric: %v", err)
	}
}

// A run's warnings and its unfinished transactions are on its section.
func TestRunWarnings(t *testing.T) {
	f := sweep("pg15", 1)
	f.Runs[2].Warnings = []string{"3 of 4 measured intervals had no transactions (ending at 2s, 3s, 4s)"}
	f.Runs[2].Unfinished, f.Runs[2].UnfinishedMS = 16, &result.Elapsed{P50: 2500, Max: 3900}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, []compare.Input{{Path: "pg15.json", File: f}}, htmlreport.Options{Generated: time.Unix(0, 0), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	run := page[strings.Index(page, `id="run2"`):]
	for _, want := range []string{
		`<li>warning: 3 of 4 measured intervals had no transactions (ending at 2s, 3s, 4s)</li>`,
		`unfinished at the end (running for p50 / max ms)</th><td class="l">16 (2500.00 / 3900.00)`,
	} {
		if !strings.Contains(run, want) {
			t.Errorf("the run's section lacks %q", want)
		}
	}
	if strings.Count(page, "warning:") != 1 {
		t.Errorf("%d warnings on the page, want the one run's", strings.Count(page, "warning:"))
	}
}

// A disturbed run's section is marked with what disturbed it and its
// warning says how much; its figure in the table is marked "!"; the
// other runs are not marked.
func TestRunDisturbed(t *testing.T) {
	f := sweep("pg15", 1)
	d := result.Disturbance{Cause: result.DisturbedOther, Metric: "host_other_cpu_pct", Limit: 25, Intervals: 4, Measured: 4, Mean: 61, Max: 70,
		Text: "processes other than dbarena and the server used 61% of the host's CPU (mean; up to 70%) in 4 of 4 measured intervals, above the limit of 25% (--disturbed-other)"}
	f.Runs[2].Disturbed = []result.Disturbance{d}
	f.Runs[2].Warnings = []string{result.DisturbedWarning(d)}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, []compare.Input{{Path: "pg15.json", File: f}}, htmlreport.Options{Generated: time.Unix(0, 0), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	run := page[strings.Index(page, `id="run2"`):]
	for _, want := range []string{
		`! disturbed by other processes</span></h3>`,
		`<li>warning: disturbed: processes other than dbarena and the server used 61% of the host&#39;s CPU (mean; up to 70%) in 4 of 4 measured intervals`,
	} {
		if !strings.Contains(run, want) {
			t.Errorf("the run's section lacks %q", want)
		}
	}
	if n := strings.Count(page, "! disturbed by"); n != 1 {
		t.Errorf("%d runs marked disturbed, want 1", n)
	}
	if !strings.Contains(page, " !</td>") || !strings.Contains(page, "note: ! marks a figure with a disturbed run") {
		t.Errorf("the table's figure is not marked, or the mark not explained")
	}
}

// The server monitor's problems are warnings in the workload's section,
// named by the column they belong to; its informational notes are not.
func TestMonitorProblems(t *testing.T) {
	a, b := sweep("pg15", 1), sweep("bouncer", 1)
	b.Target.Monitor = &result.Monitor{Sources: []string{"postgres"},
		Notes:    []string{"disk: not on this host", "postgres: 20 of 23 samples failed, the last with: EOF"},
		Problems: []string{"postgres: 20 of 23 samples failed, the last with: EOF"}}
	var buf bytes.Buffer
	if err := htmlreport.Write(&buf, []compare.Input{{Path: "pg15.json", File: a}, {Path: "bouncer.json", File: b}},
		htmlreport.Options{Generated: time.Unix(0, 0), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	want := `<li>warning: bouncer: server metrics: postgres: 20 of 23 samples failed, the last with: EOF</li>`
	if !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
	if strings.Contains(page, "warning: bouncer: server metrics: disk") {
		t.Error("an informational note is shown as a warning")
	}
}

// TestHeadlineTableOptions: the headline table takes the columns beside,
// the change convention and the baseline asked for (a baseline no column
// has: the first); a workload of one transaction says what tps counts.
func TestHeadlineTableOptions(t *testing.T) {
	inputs := []compare.Input{{Path: "a.json", File: sweep("a", 1)}, {Path: "b.json", File: sweep("b", 2)}}
	page := func(opt htmlreport.Options) string {
		var b bytes.Buffer
		if err := htmlreport.Write(&b, inputs, opt); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	p := page(htmlreport.Options{Metric: "tps", Columns: []string{"server_cpu_pct", "p95"}, Change: compare.ChangeVsBetter, Baseline: "b"})
	for _, want := range []string{
		"b&#39;s lead over each column in % of b", "beside each column its server_cpu_pct, p95 (ms) (medians of the runs)",
		"<th>a server_cpu_pct</th><th>a p95</th><th>b</th><th>b server_cpu_pct</th><th>b p95</th><th>b over a</th>",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	p = page(htmlreport.Options{WorkloadColumns: map[string][]string{"oltp_read_write": {"disk_iops"}}, Baseline: "nosuch"})
	if !strings.Contains(p, "changes against a;") || !strings.Contains(p, "<th>b disk_iops</th>") {
		t.Error("WorkloadColumns, or the first column as the baseline of none")
	}
	if strings.Contains(p, "tps counts") {
		t.Error("a workload of two transactions said what tps counts")
	}
	for _, in := range inputs {
		for i := range in.File.Runs {
			in.File.Runs[i].Ops = in.File.Runs[i].Ops[:1]
		}
	}
	if p := page(htmlreport.Options{Metric: "tps"}); !strings.Contains(p, "tps counts read transactions: the workload has no other") {
		t.Error("a workload of one transaction does not say what tps counts")
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, inputs, htmlreport.Options{Columns: []string{"iops"}}); err == nil || !strings.Contains(err.Error(), `--columns "iops"`) {
		t.Errorf("unknown column: %v", err)
	}
}
