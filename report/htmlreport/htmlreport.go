// Package htmlreport renders result files into one self-contained HTML
// file: charts of the workload's headline figure (TR/s, NOPM,
// transfers/min, tps) and latency against threads (latency on a log
// axis), the headline figure and p95 over time for every run, the
// server's metrics over time where they were sampled (CPU and IOPS, and
// the charts the engines' metrics name: metric.ServerMetric.Chart),
// per-operation tables, and the environment. Runs of the analytic timing
// model get per query their cold and hot seconds and their answers'
// agreement instead.
//
// The page needs no network: Apache ECharts 5.6.0 (assets/echarts.min.js,
// Apache License 2.0, from the npm package) is inlined, and the charts'
// options are JSON that html/template escapes like every other
// user-supplied string, so a label such as "<script>" stays text. A
// Content-Security-Policy allows inline script and style only: the browser
// refuses every other load.
package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/metric"
	"github.com/dbarena/dbarena/result"
)

//go:embed assets/echarts.min.js
var echartsJS string

//go:embed report.tmpl
var pageTemplate string

// EChartsVersion is the version of the inlined chart library.
const EChartsVersion = "5.6.0"

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{"wbr": wbr}).Parse(pageTemplate))

// wbr is name with a line-break opportunity after each underscore, so
// that an operation's name (customer_position) may wrap in a narrow
// table, escaped.
func wbr(name string) template.HTML {
	parts := strings.Split(name, "_")
	for i, p := range parts {
		parts[i] = template.HTMLEscapeString(p)
	}
	return template.HTML(strings.Join(parts, "_<wbr>"))
}

// Options are the page's own details.
type Options struct {
	Title     string    // default: the workloads' names
	Generated time.Time // shown in the header
	// Tool is the dbarena version that wrote the report ("0.1.0-dev"; a
	// leading "dbarena " is dropped, the page says it once).
	Tool string
	// Metric is the figure of every workload's headline chart and table
	// (compare.Options.Metric); empty: Metrics', else the workload's own
	// headline (compare.Headline: NOPM for tpcc, transfers/min for
	// payments, tps otherwise).
	Metric string
	// Metrics are the figures by workload name, where Metric is empty (a
	// plan's per-workload metric).
	Metrics map[string]string
	// Columns are figures shown beside each label's value in every
	// workload's headline table (compare.Options.Columns: server_cpu_pct,
	// host_iowait_pct, disk_iops …); nil: WorkloadColumns'.
	Columns []string
	// WorkloadColumns are the figures beside, by workload name, where
	// Columns is nil (a plan's per-workload columns).
	WorkloadColumns map[string][]string
	// Change is the headline tables' convention for a change
	// (compare.Changes; empty: vs-baseline), named in their titles.
	Change string
	// Average is the average row's convention (compare.Averages).
	Average string
	// Baseline is the label the headline tables' changes are against
	// (empty, or a label a workload lacks: its first).
	Baseline string
	// Relative divides the headline tables' and charts' values by the
	// baseline's at its lowest thread count (compare.Options.Relative);
	// the runs' charts over time stay in the figure's own unit.
	Relative bool
	// Vary names the workload options the comparison is about
	// (compare.Options.Vary): runs whose other options differ are
	// refused, as compare refuses them, unless Force.
	Vary []string
	// Force reports runs whose workload options differ, listing them.
	Force bool
	// Notes are lines under the page's header (a plan's repeat until
	// precise: how many rounds, how wide the intervals).
	Notes []string
}

// InputError is an error of the inputs or the options (runs that are
// not comparable, a metric or baseline no run has): nothing was written.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the error of compare that refused the inputs.
func (e *InputError) Unwrap() error { return e.Err }

// page is what the template renders.
type page struct {
	Title, Generated, Tool, ECharts string
	Notes                           []string
	Script                          template.JS
	Workloads                       []workloadSection
	Runs                            []runSection
	Env                             []envRow
	Charts                          []chart
	// StatsCharts tells that a run has a chart of its engine's own
	// metrics (runSection.StatsCharts).
	StatsCharts bool
	// TimeRuns and TriesRuns tell that some run has a chart over time,
	// some a table of tries.
	TimeRuns, TriesRuns bool
}

type chart struct {
	ID     string         `json:"id"`
	Option map[string]any `json:"option"`
}

type workloadSection struct {
	Name  string
	Title string // compare's title line
	// Reads says what the headline figure counts, where the workload
	// runs one transaction only ("tps counts booking transactions").
	Reads  string
	Header []string
	Rows   [][]string
	Notes  []string
	Labels []string
	// Legend is each label with its colour in the workload's charts,
	// drawn once above them: a chart's own legend pages once it holds
	// more names than fit in a line.
	Legend []legendItem
	// Bars tells the workload ran at one thread count: its charts are
	// bars, the latency chart's x-axis the percentiles.
	Bars        bool
	Differences []compare.Difference
	// MonitorProblems are the server monitor's problems of the
	// workload's files (result.Monitor.Problems), "label: problem".
	MonitorProblems   []string
	Throughput, Lat   string // chart ids
	ThroughputCaption string
	// Retries is the table of retries against threads (three columns
	// per label), RetriesChart the chart of retry % ("" when no run of
	// the workload retried).
	Retries      [][]string
	RetriesChart string
}

type legendItem struct{ Label, Color string }

type runSection struct {
	ID, Title, Status, Error string
	// Tries is a run of the analytic timing model's table of queries
	// (Chart its bars of cold and hot seconds), nil for the other
	// models; such a run has no Ops and no over-time chart.
	Tries *triesRun
	// Warnings are the run's (result.Run.Warnings).
	Warnings []string
	// Disturbed names what disturbed the run (result.Run.Disturbed's
	// causes, "other processes, steal"), "" when nothing did: the title
	// is marked, the warnings say how much.
	Disturbed string
	Summary   [][2]string
	Chart     string
	// ServerChart is the id of the server-metrics chart, "" without one.
	ServerChart string
	// StatsCharts are the ids of the charts of the engine's own metrics
	// (metric.ServerMetric.Chart) the run has.
	StatsCharts []string
	// Ops are per operation its name, count, OpsCounts and latency
	// percentiles; OpsCounts name the counts of errors, retries and
	// rollbacks that some run of the workload has (the others are 0
	// everywhere and left out: the table fits half a page's width).
	Ops       [][]string
	OpsCounts []string
	Metrics   [][]string
}

type envRow struct {
	Label, File, Engine, Server, URL, Client, Tool, Workload, Options, Started, Status string
}

// Write renders inputs into w. Runs are grouped by workload as compare
// groups them, and refused as compare refuses them: runs whose workload
// options differ, unless Options.Vary names those options or
// Options.Force (the differences are listed). A workload's runs of the
// analytic timing model (--tries) get the study's table of queries; its
// other runs beside them the usual tables, as compare writes both. An
// error of the inputs or options is an *InputError, returned before
// anything is written.
func Write(w io.Writer, inputs []compare.Input, opt Options) error {
	if len(inputs) == 0 {
		return fmt.Errorf("report: no result files")
	}
	p := &page{Generated: opt.Generated.UTC().Format(time.RFC3339), Tool: strings.TrimPrefix(opt.Tool, "dbarena "), ECharts: EChartsVersion,
		Script: template.JS(echartsJS), Notes: opt.Notes}
	var names []string
	for _, in := range inputs {
		if !slices.Contains(names, in.File.Workload.Name) {
			names = append(names, in.File.Workload.Name)
		}
	}
	// figures are the figure of each workload's charts over time, answers
	// its tries' answers by query.
	figures := map[string]string{}
	answers := map[string]map[string][]answer{}
	for i, name := range names {
		ins := inputsOf(inputs, name)
		metric := opt.Metric
		if metric == "" {
			metric = opt.Metrics[name]
		}
		if metric == "" {
			metric = compare.Headline(ins)
		}
		columns := opt.Columns
		if columns == nil {
			columns = opt.WorkloadColumns[name]
		}
		baseline := opt.Baseline
		if !hasLabel(ins, baseline) {
			baseline = ""
		}
		tries, rest := compare.SplitTries(ins)
		if len(tries) > 0 {
			ws, charts, err := triesSection(tries, baseline, i)
			if err != nil {
				return &InputError{err}
			}
			if len(rest) > 0 {
				ws.Name += " (analytic timing model)"
			}
			p.Workloads, p.Charts = append(p.Workloads, ws), append(p.Charts, charts...)
			answers[name] = answersOf(tries)
		}
		if len(rest) == 0 {
			continue
		}
		ins = rest
		if !hasLabel(ins, baseline) {
			baseline = ""
		}
		ts, err := compare.Build(ins, compare.Options{Metric: metric, Columns: columns, Change: opt.Change, Average: opt.Average, Baseline: baseline,
			Relative: opt.Relative, Vary: opt.Vary, Force: opt.Force})
		if err != nil {
			return &InputError{err}
		}
		t := ts[0]
		figures[name] = overTimeFigure(ins, metric)
		ws := workloadSection{Name: t.Workload, Title: t.Title(), Notes: t.Notes, Differences: t.Differences}
		if op := onlyOp(ins); op != "" && t.Metric.Name == "tps" {
			ws.Reads = "tps counts " + op + " transactions: the workload has no other"
		}
		ws.Header, ws.Rows = t.Grid()
		ws.MonitorProblems = monitorProblems(ins)
		for c, col := range t.Columns {
			ws.Labels = append(ws.Labels, col.Label)
			ws.Legend = append(ws.Legend, legendItem{col.Label, palette[c%len(palette)]})
		}
		ws.Bars = len(t.Rows) == 1
		ws.Throughput = fmt.Sprintf("w%d-tps", i)
		p.Charts = append(p.Charts, chart{ws.Throughput, throughputChart(t)})
		ws.ThroughputCaption = "median of the runs at each thread count"
		var lat []*compare.Table
		for _, m := range []string{"p50", "p95", "p99", "p999"} {
			ts, err := compare.Build(ins, compare.Options{Metric: m, Force: true})
			if err != nil {
				return err
			}
			lat = append(lat, ts[0])
		}
		ws.Lat = fmt.Sprintf("w%d-lat", i)
		if ws.Bars {
			p.Charts = append(p.Charts, chart{ws.Lat, latencyBars(lat)})
		} else {
			p.Charts = append(p.Charts, chart{ws.Lat, latencyChart(lat)})
		}
		if retried(ins) {
			if err := retries(&ws, ins); err != nil {
				return err
			}
			ws.RetriesChart = fmt.Sprintf("w%d-retries", i)
			pct, err := compare.Build(ins, compare.Options{Metric: "retry_pct", Force: true})
			if err != nil {
				return err
			}
			p.Charts = append(p.Charts, chart{ws.RetriesChart, retriesChart(pct[0])})
		}
		p.Workloads = append(p.Workloads, ws)
	}
	p.Title = opt.Title
	if p.Title == "" {
		p.Title = "dbarena report: " + strings.Join(names, ", ")
	}
	n := 0
	stats := statsCharts()
	scales := map[string]*scale{}
	for _, in := range inputs {
		s := scales[in.File.Workload.Name]
		if s == nil {
			s = &scale{figure: figures[in.File.Workload.Name], stats: map[string]float64{}}
			scales[in.File.Workload.Name] = s
		}
		for i := range in.File.Runs {
			s.add(&in.File.Runs[i], stats)
		}
		s.counts = opsCounts(in, s.counts)
	}
	for _, in := range inputs {
		p.Env = append(p.Env, envOf(in))
		s := scales[in.File.Workload.Name]
		for i := range in.File.Runs {
			r := &in.File.Runs[i]
			n++
			rs := runOf(in, r, n, s.counts)
			if r.Tries != nil {
				rs = triesRunOf(in, r, n, answers[in.File.Workload.Name])
				p.Charts = append(p.Charts, chart{rs.Chart, tryBars(r)})
				p.TriesRuns = true
			} else {
				p.Charts = append(p.Charts, chart{rs.Chart, overTimeChart(r, s)})
				p.TimeRuns = true
			}
			if c := serverChart(r, s); c != nil {
				rs.ServerChart = fmt.Sprintf("run%d-server", n)
				p.Charts = append(p.Charts, chart{rs.ServerChart, c})
			}
			for k, sc := range stats {
				if c := sc.chart(r, s); c != nil {
					id := fmt.Sprintf("run%d-stats%d", n, k+1)
					rs.StatsCharts = append(rs.StatsCharts, id)
					p.StatsCharts = true
					p.Charts = append(p.Charts, chart{id, c})
				}
			}
			p.Runs = append(p.Runs, rs)
		}
	}
	return tmpl.Execute(w, p)
}

// inputsOf are the inputs of one workload.
// monitorProblems lists the server monitor's problems of inputs, each
// once per label.
func monitorProblems(inputs []compare.Input) []string {
	var out []string
	for _, in := range inputs {
		if m := in.File.Target.Monitor; m != nil {
			for _, p := range m.Problems {
				if l := in.File.Target.Label + ": server metrics: " + p; !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// hasLabel tells whether label names a column of inputs (compare's
// labels: the input's, else its target's).
func hasLabel(inputs []compare.Input, label string) bool {
	for _, in := range inputs {
		if l := in.Label; l == label || (l == "" && in.File.Target.Label == label) {
			return label != ""
		}
	}
	return false
}

// onlyOp is the one operation every run of inputs has, "" when a run has
// several or they differ.
func onlyOp(inputs []compare.Input) string {
	op := ""
	for _, in := range inputs {
		for _, r := range in.File.Runs {
			if len(r.Ops) != 1 || (op != "" && r.Ops[0].Name != op) {
				return ""
			}
			op = r.Ops[0].Name
		}
	}
	return op
}

func inputsOf(inputs []compare.Input, workload string) []compare.Input {
	var out []compare.Input
	for _, in := range inputs {
		if in.File.Workload.Name == workload {
			out = append(out, in)
		}
	}
	return out
}

func num(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return math.Round(v*1000) / 1000
}

// threadsAxis is the sweep charts' x axis: the rows' thread counts, or
// their arrival rates (compare.Table.RowLabel).
func threadsAxis(t *compare.Table) []string {
	var xs []string
	for _, r := range t.Rows {
		xs = append(xs, t.RowLabel(r))
	}
	return xs
}

// scale is the upper ends of the over-time charts' axes, shared by every
// run of a workload so that runs compare at a glance; every axis starts
// at zero. figure is the workload's figure over time (overTimeFigure),
// top its highest value; stats are the engines' charts' (statsChart), by
// title.
type scale struct {
	figure              string
	counts              []string // runSection.OpsCounts
	top, p95, pct, iops float64
	stats               map[string]float64
}

// add widens s to hold r's intervals, stats' charts included.
func (s *scale) add(r *result.Run, stats []statsChart) {
	for _, iv := range r.Intervals {
		for _, sc := range stats {
			for _, m := range sc.metrics {
				s.stats[sc.title] = max(s.stats[sc.title], iv.Server[m.Name])
			}
		}
		if v, ok := intervalFigure(iv, s.figure); ok {
			s.top = max(s.top, v)
		}
		s.p95 = max(s.p95, iv.LatencyMS.P95)
		for _, k := range []string{"server_cpu_pct", "host_cpu_pct", "host_iowait_pct"} {
			s.pct = max(s.pct, iv.Server[k])
		}
		s.iops = max(s.iops, iv.Server["disk_iops"])
	}
}

// niceMax is the axis end for values up to v: the next of 1, 2, 2.5, 5
// times a power of ten at or above v (1 for no positive value).
func niceMax(v float64) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// palette gives each label its colour in every chart (ECharts' default
// series colours).
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

// retried tells whether any run of inputs retried a transaction.
func retried(inputs []compare.Input) bool {
	for _, in := range inputs {
		for _, r := range in.File.Runs {
			if r.Retries > 0 {
				return true
			}
		}
	}
	return false
}

// retries fills ws's retries table as the airline study prints it: per
// thread count and label the retries, retries per second and retries in
// % of the committed transactions (medians of the repetitions).
func retries(ws *workloadSection, inputs []compare.Input) error {
	var ts []*compare.Table
	for _, m := range []string{"retries", "retries_per_s", "retry_pct"} {
		t, err := compare.Build(inputs, compare.Options{Metric: m, Force: true})
		if err != nil {
			return err
		}
		ts = append(ts, t[0])
	}
	for i, r := range ts[0].Rows {
		row := []string{strconv.Itoa(r.Threads)}
		for c := range ts[0].Columns {
			for k, t := range ts {
				cell := t.Rows[i].Cells[c]
				switch {
				case cell.N() == 0:
					row = append(row, "-")
				case k == 0:
					row = append(row, strconv.FormatFloat(cell.Center, 'f', -1, 64))
				case k == 2:
					row = append(row, f2(cell.Center)+"%")
				default:
					row = append(row, f2(cell.Center))
				}
			}
		}
		ws.Retries = append(ws.Retries, row)
	}
	return nil
}

// retriesChart is retries in % of the committed transactions against
// threads, one line per label.
func retriesChart(t *compare.Table) map[string]any {
	c := throughputChart(t)
	c["title"] = map[string]any{"text": "Retries vs threads (% of committed transactions)", "left": "center", "textStyle": map[string]any{"fontSize": 14}}
	c["yAxis"] = map[string]any{"type": "value", "name": "%", "min": 0}
	return c
}

// throughputChart is the headline figure against threads, one line per
// label.
func throughputChart(t *compare.Table) map[string]any {
	var series []any
	for c, col := range t.Columns {
		var data []any
		for _, r := range t.Rows {
			if r.Cells[c].N() == 0 {
				data = append(data, nil)
			} else {
				data = append(data, num(r.Cells[c].Center))
			}
		}
		s := map[string]any{"name": col.Label, "type": "line", "data": data, "symbolSize": 7, "connectNulls": true,
			"itemStyle": map[string]any{"color": palette[c%len(palette)]}}
		if len(t.Rows) == 1 {
			// One thread count: a line of one point is a dot.
			s = map[string]any{"name": col.Label, "type": "bar", "data": data, "itemStyle": map[string]any{"color": palette[c%len(palette)]}}
		}
		series = append(series, s)
	}
	title, yName := axisName(t.Metric)+" vs threads", axisName(t.Metric)
	if t.Relative && t.RelativeTo != 0 {
		// The table's convention: 1.00x is the baseline at its lowest
		// thread count.
		title = fmt.Sprintf("%s vs threads, relative to %s at %d %s", t.Metric.Name, t.Columns[t.Baseline].Label, t.RelativeThreads, plural(t.RelativeThreads, "thread", "threads"))
		yName = t.Metric.Name + " (x)"
	}
	return map[string]any{
		"animation": false,
		"title":     map[string]any{"text": title, "left": "center", "textStyle": map[string]any{"fontSize": 14}},
		"tooltip":   map[string]any{"trigger": "axis", "confine": true},
		// The labels' colours are in the page's legend above the charts.
		"legend": map[string]any{"show": false},
		"grid":   map[string]any{"top": 40, "left": 10, "right": 20, "bottom": 40, "containLabel": true},
		"xAxis":  map[string]any{"type": "category", "name": t.Header()[0], "nameLocation": "middle", "nameGap": 28, "data": threadsAxis(t)},
		"yAxis":  map[string]any{"type": "value", "name": yName, "min": 0},
		"series": series,
	}
}

// axisName is a metric with its unit, where the name does not already
// say it: "tps", "NOPM (/min)", "transfers/min", "p95 (ms)".
func axisName(m compare.Metric) string {
	if m.Unit == "" || m.Unit == "count" || strings.HasSuffix(m.Name, m.Unit) || m.Name == "tps" || m.Name == "qps" {
		return m.Name
	}
	return m.Name + " (" + m.Unit + ")"
}

// latencyChart is p50, p95, p99 and p99.9 against threads on a log axis.
func latencyChart(ts []*compare.Table) map[string]any {
	var series []any
	dash := map[string]any{"p50": "dotted", "p95": "solid", "p99": "dashed", "p999": []int{8, 3, 2, 3}}
	for _, t := range ts {
		for c, col := range t.Columns {
			var data []any
			for _, r := range t.Rows {
				if r.Cells[c].N() == 0 || r.Cells[c].Center <= 0 {
					data = append(data, nil)
				} else {
					data = append(data, num(r.Cells[c].Center))
				}
			}
			// One colour per label, one dash per percentile.
			color := palette[c%len(palette)]
			series = append(series, map[string]any{"name": col.Label + " " + t.Metric.Name, "type": "line", "data": data,
				"symbolSize": 6, "connectNulls": true, "itemStyle": map[string]any{"color": color},
				"lineStyle": map[string]any{"type": dash[t.Metric.Name], "color": color}})
		}
	}
	return map[string]any{
		"animation": false,
		"title":     map[string]any{"text": "Latency vs threads (ms, log scale)", "left": "center", "textStyle": map[string]any{"fontSize": 14}},
		"tooltip":   map[string]any{"trigger": "axis", "confine": true},
		// Colours (labels) and dashes (percentiles) are in the page's
		// legend above the charts: here they would need pages.
		"legend": map[string]any{"show": false},
		"grid":   map[string]any{"top": 40, "left": 10, "right": 20, "bottom": 40, "containLabel": true},
		"xAxis":  map[string]any{"type": "category", "name": ts[0].Header()[0], "nameLocation": "middle", "nameGap": 28, "data": threadsAxis(ts[0])},
		"yAxis":  map[string]any{"type": "log", "name": "ms", "logBase": 10},
		"series": series,
	}
}

// latencyBars is the latency chart of a workload run at one thread
// count: p50, p95, p99 and p99.9 on the x-axis, a bar per label, on a
// log axis: one 16.8 s p99 beside 2 ms medians would leave the medians
// no height on a linear one. The axis and its bars start a decade below
// the smallest value's power of ten, so that every bar has a height; a
// value of 0 (no latency measured) has no bar.
func latencyBars(ts []*compare.Table) map[string]any {
	var series []any
	var xs []string
	for _, t := range ts {
		xs = append(xs, percentileName(t.Metric.Name))
	}
	low := math.Inf(1)
	for c, col := range ts[0].Columns {
		var data []any
		for _, t := range ts {
			if cell := t.Rows[0].Cells[c]; cell.N() > 0 && cell.Center > 0 {
				data = append(data, num(cell.Center))
				low = min(low, cell.Center)
			} else {
				data = append(data, nil)
			}
		}
		series = append(series, map[string]any{"name": col.Label, "type": "bar", "data": data, "itemStyle": map[string]any{"color": palette[c%len(palette)]}})
	}
	y := map[string]any{"type": "log", "name": "ms", "logBase": 10}
	if !math.IsInf(low, 1) {
		// A bar on a log axis rises from 1 unless the axis' startValue
		// says otherwise (ECharts 5.5+): from a decade below the
		// smallest value, each bar has a visible height, and one under
		// 1 ms does not hang down from 1.
		start := math.Pow(10, math.Floor(math.Log10(low))-1)
		y["min"], y["startValue"] = start, start
	}
	return map[string]any{
		"animation": false,
		"title":     map[string]any{"text": "Latency at " + strconv.Itoa(ts[0].Rows[0].Threads) + " " + plural(ts[0].Rows[0].Threads, "thread", "threads") + " (ms, log scale)", "left": "center", "textStyle": map[string]any{"fontSize": 14}},
		"tooltip":   map[string]any{"trigger": "axis", "confine": true},
		"legend":    map[string]any{"show": false},
		"grid":      map[string]any{"top": 40, "left": 10, "right": 20, "bottom": 40, "containLabel": true},
		"xAxis":     map[string]any{"type": "category", "name": "percentile", "nameLocation": "middle", "nameGap": 28, "data": xs},
		"yAxis":     y,
		"series":    series,
	}
}

// percentileName is a latency metric as the tables write it: p999 is
// "p99.9".
func percentileName(m string) string {
	if m == "p999" {
		return "p99.9"
	}
	return m
}

// overTimeFigure is the figure a workload's charts over time plot: the
// headline's (metric, else the workload's own headline, compare.Headline:
// TR/s for tpce, NOPM for tpcc, transfers/min for payments) where the
// runs' intervals record it (result.Interval.Metrics, the workload's
// figures per interval; qps, which every interval has), else tps. A file
// whose intervals lack the workload's figures (older versions) is charted
// in tps: the report does not derive a workload's figure from its
// operations' counts, the workload defines it.
func overTimeFigure(inputs []compare.Input, metric string) string {
	if strings.EqualFold(metric, "qps") {
		return "qps"
	}
	for _, m := range []string{metric, compare.Headline(inputs)} {
		if m == "" || m == "tps" {
			continue
		}
		for _, in := range inputs {
			for _, r := range in.File.Runs {
				for _, iv := range r.Intervals {
					for k := range iv.Metrics {
						if strings.EqualFold(k, m) {
							return k
						}
					}
				}
			}
		}
	}
	return "tps"
}

// intervalFigure is iv's value of figure (overTimeFigure); ok is false
// when iv lacks it.
func intervalFigure(iv result.Interval, figure string) (float64, bool) {
	switch figure {
	case "tps", "":
		return iv.TPS, true
	case "qps":
		return iv.QPS, true
	}
	v, ok := iv.Metrics[figure]
	return v, ok
}

// overTimeChart is one run's figure (s.figure: the workload's headline,
// or tps) on the left axis and p95 on the right per interval, the
// warm-up shaded.
func overTimeChart(r *result.Run, s *scale) map[string]any {
	var fig, p95 []any
	warmEnd := 0.0
	for _, iv := range r.Intervals {
		if v, ok := intervalFigure(iv, s.figure); ok {
			fig = append(fig, []any{num(iv.TS), num(v)})
		}
		p95 = append(p95, []any{num(iv.TS), num(iv.LatencyMS.P95)})
		if iv.Warmup {
			warmEnd = iv.TS
		}
	}
	tpsSeries := map[string]any{"name": s.figure, "type": "line", "data": fig, "showSymbol": false, "yAxisIndex": 0}
	if warmEnd > 0 {
		tpsSeries["markArea"] = map[string]any{
			"silent":    true,
			"itemStyle": map[string]any{"color": "rgba(150,150,150,0.18)"},
			"label":     map[string]any{"show": true, "position": "insideTop", "color": "#666"},
			"data":      []any{[]any{map[string]any{"name": "warm-up", "xAxis": 0}, map[string]any{"xAxis": num(warmEnd)}}},
		}
	}
	return timeChart(
		[]any{map[string]any{"type": "value", "name": s.figure, "min": 0, "max": niceMax(s.top)},
			map[string]any{"type": "value", "name": "p95 ms", "min": 0, "max": niceMax(s.p95), "splitLine": map[string]any{"show": false}}},
		[]any{tpsSeries, map[string]any{"name": "p95 ms", "type": "line", "data": p95, "showSymbol": false, "yAxisIndex": 1}})
}

// timeChart is the options of a chart over a run's seconds with two value
// axes.
func timeChart(yAxis, series []any) map[string]any {
	return map[string]any{
		"animation": false,
		"tooltip":   map[string]any{"trigger": "axis"},
		"legend":    map[string]any{"top": 0},
		"grid":      map[string]any{"top": 36 + 20*((len(series)-1)/2), "left": 10, "right": 10, "bottom": 34, "containLabel": true},
		"xAxis":     map[string]any{"type": "value", "name": "seconds", "nameLocation": "middle", "nameGap": 24, "min": 0},
		"yAxis":     yAxis,
		"series":    series,
	}
}

// serverChart is one run's server metrics per interval: the server's
// CPU, the host's CPU and iowait in % (left axis) and the data disk's IOPS
// (right axis); nil when the run has none.
func serverChart(r *result.Run, s *scale) map[string]any {
	type line struct{ key, name string }
	lines := []line{{"server_cpu_pct", "server CPU %"}, {"host_cpu_pct", "host CPU %"}, {"host_iowait_pct", "iowait %"}, {"disk_iops", "disk IOPS"}}
	var series []any
	for _, l := range lines {
		var data []any
		for _, iv := range r.Intervals {
			if v, ok := iv.Server[l.key]; ok {
				data = append(data, []any{num(iv.TS), num(v)})
			}
		}
		if len(data) == 0 {
			continue
		}
		axis := 0
		if l.key == "disk_iops" {
			axis = 1
		}
		series = append(series, map[string]any{"name": l.name, "type": "line", "data": data, "showSymbol": false, "yAxisIndex": axis})
	}
	if len(series) == 0 {
		return nil
	}
	return timeChart(
		[]any{map[string]any{"type": "value", "name": "%", "min": 0, "max": niceMax(s.pct)},
			map[string]any{"type": "value", "name": "IOPS", "min": 0, "max": niceMax(s.iops), "splitLine": map[string]any{"show": false}}},
		series)
}

// statsChart is one of the engines' server charts over time: the metrics
// of the registry (metric.ServerMetrics) that name it as their Chart, in
// the registry's order, all of one unit.
type statsChart struct {
	title, unit string
	metrics     []metric.ServerMetric
}

// statsCharts are the engines' server charts, in the order of their first
// metrics in the registry.
func statsCharts() []statsChart {
	var out []statsChart
	for _, m := range metric.ServerMetrics() {
		if m.Chart == "" {
			continue
		}
		i := slices.IndexFunc(out, func(c statsChart) bool { return c.title == m.Chart })
		if i < 0 {
			out = append(out, statsChart{title: m.Chart, unit: m.Unit})
			i = len(out) - 1
		}
		out[i].metrics = append(out[i].metrics, m)
	}
	return out
}

// chart is c's options for r: one line per metric r's intervals hold, on
// one axis in c's unit that ends where s says; nil when r holds none.
func (c statsChart) chart(r *result.Run, s *scale) map[string]any {
	var series []any
	for _, m := range c.metrics {
		var data []any
		for _, iv := range r.Intervals {
			if v, ok := iv.Server[m.Name]; ok {
				data = append(data, []any{num(iv.TS), num(v)})
			}
		}
		if len(data) > 0 {
			series = append(series, map[string]any{"name": m.ChartLabel, "type": "line", "data": data, "showSymbol": false})
		}
	}
	if len(series) == 0 {
		return nil
	}
	o := timeChart([]any{map[string]any{"type": "value", "name": c.unit, "min": 0, "max": niceMax(s.stats[c.title])}}, series)
	o["title"] = map[string]any{"text": c.title, "left": "center", "top": 0, "textStyle": map[string]any{"fontSize": 13}}
	o["legend"] = map[string]any{"top": 20}
	grid := o["grid"].(map[string]any)
	// A title, a legend of short labels that wraps past four on a
	// phone's width, and the axis' name.
	grid["top"] = 60 + 26*((len(series)-1)/4)
	return o
}

// serverRows are a run's server metrics for its summary table: what the
// TPC-E study puts next to every throughput.
func serverRows(r *result.Run) [][2]string {
	s := r.Server
	var out [][2]string
	add := func(name string, keys []string, format func(vs []float64) string) {
		vs := make([]float64, len(keys))
		for i, k := range keys {
			v, ok := s[k]
			if !ok {
				return
			}
			vs[i] = v
		}
		out = append(out, [2]string{name, format(vs)})
	}
	add("server CPU % / µs per transaction", []string{"server_cpu_pct"}, func(vs []float64) string {
		return f2(vs[0]) + " / " + f2(r.ServerCPUPerTxnUS)
	})
	add("host CPU % / iowait %", []string{"host_cpu_pct", "host_iowait_pct"}, func(vs []float64) string { return f2(vs[0]) + " / " + f2(vs[1]) })
	add("disk IOPS / read / write MB/s", []string{"disk_iops", "disk_read_mb_s", "disk_write_mb_s"}, func(vs []float64) string {
		return f2(vs[0]) + " / " + f2(vs[1]) + " / " + f2(vs[2])
	})
	add("WAL MB/s / checkpoints", []string{"pg_wal_mb_s", "pg_checkpoints"}, func(vs []float64) string { return f2(vs[0]) + " / " + f2(vs[1]) })
	add("buffer hit %", []string{"pg_blks_hit_pct"}, func(vs []float64) string { return f2(vs[0]) })
	add("InnoDB log MB/s / buffer pool hit %", []string{"mysql_log_mb_s", "mysql_bp_hit_pct"}, func(vs []float64) string { return f2(vs[0]) + " / " + f2(vs[1]) })
	add("MongoDB inserts / queries / updates / deletes per s", []string{"mongo_opcounters_insert_s", "mongo_opcounters_query_s", "mongo_opcounters_update_s", "mongo_opcounters_delete_s"}, slash)
	add("MongoDB transactions committed / aborted per s", []string{"mongo_txn_commits_s", "mongo_txn_aborts_s"}, slash)
	add("WiredTiger cache / dirty MB", []string{"mongo_cache_mb", "mongo_cache_dirty_mb"}, slash)
	add("read / write tickets available", []string{"mongo_tickets_read", "mongo_tickets_write"}, slash)
	add("network in / out MB/s / connections", []string{"mongo_net_in_mb_s", "mongo_net_out_mb_s", "mongo_connections"}, slash)
	return out
}

// slash writes values as "1.00 / 2.00".
func slash(vs []float64) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = f2(v)
	}
	return strings.Join(out, " / ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// opsCounts adds to have the counts of errors, retries and rollbacks
// that an operation of in has, in that order.
func opsCounts(in compare.Input, have []string) []string {
	for _, r := range in.File.Runs {
		for _, o := range r.Ops {
			for k, v := range map[string]int64{"errors": o.Errors, "retries": o.Retries, "rollbacks": o.Rollbacks} {
				if v != 0 && !slices.Contains(have, k) {
					have = append(have, k)
				}
			}
		}
	}
	order := []string{"errors", "retries", "rollbacks"}
	slices.SortFunc(have, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	return have
}

// ms writes a latency in milliseconds in at most five digits and no
// more than two decimals: 16800, 474.9, 72.70, 0.39.
func ms(v float64) string {
	switch {
	case v >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return f2(v)
}

func runOf(in compare.Input, r *result.Run, n int, counts []string) runSection {
	label := in.Label
	if label == "" {
		label = in.File.Target.Label
	}
	rs := runSection{ID: fmt.Sprintf("run%d", n), Chart: fmt.Sprintf("run%d-time", n),
		Title:  fmt.Sprintf("%s · %s · %d %s", label, in.File.Workload.Name, r.Threads, plural(r.Threads, "thread", "threads")),
		Status: r.Status, Error: r.Error, Warnings: r.Warnings, Disturbed: disturbedCauses(r)}
	rs.Summary = [][2]string{
		{"tps", f2(r.TPS)}, {"qps", f2(r.QPS)},
		{"latency p50 / p95 / p99 / p99.9 ms", f2(r.LatencyMS.P50) + " / " + f2(r.LatencyMS.P95) + " / " + f2(r.LatencyMS.P99) + " / " + f2(r.LatencyMS.P999)},
		{"errors / retries / reconnects", fmt.Sprintf("%d / %d / %d", r.Errors, r.Retries, r.Reconnects)},
		{"retries per s / % of committed", f2(r.RetriesPerS) + " / " + f2(r.RetryPct) + "%"},
		{"measured / warm-up s", f2(r.DurationS) + " / " + f2(r.WarmupS)},
		{"client CPU µs per transaction", f2(r.ClientCPUPerTxnUS)},
	}
	rs.Summary = append(rs.Summary, serverRows(r)...)
	rs.Summary = append(rs.Summary, [2]string{"file", in.Path})
	if r.Rollbacks > 0 {
		rs.Summary = append(rs.Summary, [2]string{"rollbacks (intended)", strconv.FormatInt(r.Rollbacks, 10)})
	}
	if r.Unfinished > 0 && r.UnfinishedMS != nil {
		rs.Summary = append(rs.Summary, [2]string{"unfinished at the end (running for p50 / max ms)",
			fmt.Sprintf("%d (%s / %s)", r.Unfinished, f2(r.UnfinishedMS.P50), f2(r.UnfinishedMS.Max))})
	}
	rs.OpsCounts = counts
	for _, o := range r.Ops {
		row := []string{o.Name, strconv.FormatInt(o.Count, 10)}
		for _, k := range counts {
			row = append(row, strconv.FormatInt(map[string]int64{"errors": o.Errors, "retries": o.Retries, "rollbacks": o.Rollbacks}[k], 10))
		}
		rs.Ops = append(rs.Ops, append(row, ms(o.LatencyMS.P50), ms(o.LatencyMS.P95), ms(o.LatencyMS.P99), ms(o.LatencyMS.P999), ms(o.LatencyMS.Max)))
	}
	for _, m := range r.Metrics {
		row := []string{m.Name, f2(m.Value) + " " + m.Unit, "", ""}
		switch {
		case m.Rule != "":
			row[2] = m.Rule
		case m.Limit != nil:
			// A file written before rules were recorded.
			row[2] = map[bool]string{true: "≥ ", false: "≤ "}[m.Higher] + f2(*m.Limit)
		}
		if m.Pass != nil {
			row[3] = map[bool]string{true: "pass", false: "FAIL"}[*m.Pass]
		}
		rs.Metrics = append(rs.Metrics, row)
	}
	return rs
}

func envOf(in compare.Input) envRow {
	f := in.File
	label := in.Label
	if label == "" {
		label = f.Target.Label
	}
	var opts []string
	for _, k := range slices.Sorted(maps.Keys(f.Workload.Options)) {
		opts = append(opts, "--"+k+"="+f.Workload.Options[k])
	}
	return envRow{
		Label: label, File: in.Path, Engine: f.Target.Product(), Server: f.Target.ServerVersion, URL: f.Target.URL,
		Client:   fmt.Sprintf("%s: %s, %d cores, %s, %s", f.Client.Hostname, f.Client.CPUModel, f.Client.Cores, f.Client.OS, f.Client.GoVersion),
		Tool:     f.Tool.Version + " (" + f.Tool.Commit + ")",
		Workload: f.Workload.Name, Options: strings.Join(opts, " "),
		Started: f.StartedAt.UTC().Format(time.RFC3339), Status: f.Status,
	}
}

// disturbedCauses names the causes that disturbed r, "" for none.
func disturbedCauses(r *result.Run) string {
	var out []string
	for _, d := range r.Disturbed {
		switch d.Cause {
		case result.DisturbedOther:
			out = append(out, "other processes")
		case result.DisturbedSteal:
			out = append(out, "the hypervisor's steal")
		case result.DisturbedClient:
			out = append(out, "dbarena's own CPU")
		default:
			out = append(out, d.Cause)
		}
	}
	return strings.Join(out, ", ")
}
