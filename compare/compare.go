// Package compare lines up the runs of several result files into the
// tables the database studies publish: one row per thread count, one
// column per target (a label), each other column's change against a
// baseline in percent, and an average row. A table of one thread count
// and three columns or more is written turned (Table.Grid), a line per
// column with the figures beside it, as the studies print a table of
// configurations.
//
// A cell may hold several measurements of the same thing: several result
// files under one label, or several runs of one thread count. The cell
// then shows their median and its 95% confidence interval, and a change is
// marked as not significant ("~") when a Mann-Whitney U test cannot tell
// the two samples apart. Both come from golang.org/x/perf/benchmath, the
// statistics behind Go's benchstat, with no assumption about the
// distribution.
//
// Runs are only comparable when they ran the same workload with the same
// options: Build refuses otherwise (unless forced) and names the options.
// Everything else that differs between the columns (server version and
// settings, client host, dbarena version) is listed with the table, so an
// unfair comparison is visible.
package compare

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/metric"
	"github.com/dbarena/dbarena/result"
)

// Input is one result file and the column it belongs to.
type Input struct {
	// Label names the column; empty means the file's target label (its
	// engine when that is empty too).
	Label string
	// Path is where the file came from, for messages.
	Path string
	File *result.File
}

// Options choose the figure compared and how it is shown.
type Options struct {
	// Metric is any of metric.RunMetrics by name or column (tps, the default;
	// qps, p50 … p999, retries, retry_pct, server_cpu_pct, disk_iops …;
	// cpu is client_cpu_per_txn_us), or the name of a workload metric
	// (NOPM, tpmC, …; any case).
	Metric string
	// Op restricts tps and latencies to one operation (transaction
	// type), e.g. new_order.
	Op string
	// Baseline is the label of the column the others are compared with;
	// empty means the first.
	Baseline string
	// Relative divides every value by the baseline's at its lowest
	// thread count, which then reads 1.00x.
	Relative bool
	// Vary names the workload options the comparison is about (the
	// isolation level, the mode): they may differ between the columns and
	// are listed with the differences. Any other option that differs is
	// refused unless Force.
	Vary []string
	// Force compares runs whose workload options differ.
	Force bool
	// Change is how a column's change is computed (ChangeVsBaseline when
	// empty): see Changes.
	Change string
	// Average is how the average row's change is computed
	// (AverageChangeOfMeans when empty): see Averages.
	Average string
	// Columns are figures shown beside each column's value, in this
	// order: any of metric.RunMetrics (server_cpu_pct, host_iowait_pct,
	// disk_iops, p95 …) or a workload metric, each the median of the
	// cell's runs (of the whole run, also under Op). They change neither
	// the compared figure nor its changes. A name that is no metric of
	// the runs is refused (ErrNoMetric); one the runs of a workload lack
	// (a server not sampled) shows "-" and a note.
	Columns []string
}

// The conventions of a change, in percent; A is the column the change is
// against, B the column it belongs to.
const (
	// ChangeVsBaseline is (B − A) / A with A the baseline: how much the
	// column gained on the baseline.
	ChangeVsBaseline = "vs-baseline"
	// ChangeVsBetter is the baseline's lead over the column, in percent of
	// the baseline (the one expected to be better): (A − B) / A for a
	// figure where higher is better, (B − A) / A where lower is better,
	// positive when the baseline is better. KubeBlocks' table of QPS
	// "improvement" reads so.
	ChangeVsBetter = "vs-better"
	// ChangeVsPrevious is (B − A) / A with A the column before: the step
	// each column makes in a study that turns one knob after another.
	ChangeVsPrevious = "vs-previous"
)

// The conventions of the average row's change.
const (
	// AverageChangeOfMeans is the change between the two columns' means
	// over the rows where both have a value: a row of small values (+1000%
	// on 2 tps) does not swing it.
	AverageChangeOfMeans = "change-of-means"
	// AverageMeanOfChanges is the mean of the rows' changes: the
	// "Average" row of a study's spreadsheet (KubeBlocks' 46.78%).
	AverageMeanOfChanges = "mean-of-changes"
)

// Averages are the conventions Options.Average takes.
var Averages = []string{AverageChangeOfMeans, AverageMeanOfChanges}

// CheckAverage returns an error naming the flag when s is no convention
// of Averages ("" is AverageChangeOfMeans).
func CheckAverage(s string) error {
	if s == "" || slices.Contains(Averages, s) {
		return nil
	}
	return fmt.Errorf("--average %q: want %s", s, strings.Join(Averages, ", "))
}

// Changes are the conventions Options.Change takes.
var Changes = []string{ChangeVsBaseline, ChangeVsBetter, ChangeVsPrevious}

// CheckChange returns an error naming the flag when s is no convention
// of Changes ("" is ChangeVsBaseline).
func CheckChange(s string) error {
	if s == "" || slices.Contains(Changes, s) {
		return nil
	}
	return fmt.Errorf("--change %q: want %s", s, strings.Join(Changes, ", "))
}

// Confidence is the level of the confidence intervals.
const Confidence = 0.95

// ErrMismatch is returned when runs are not comparable.
var ErrMismatch = errors.New("not comparable")

// ErrNoMetric is returned when no run has the metric asked for, or a
// column asked for is no metric (or is asked twice).
var ErrNoMetric = errors.New("no such metric in the runs")

// Table is one workload's comparison.
type Table struct {
	Workload string
	Metric   Metric
	Op       string
	Columns  []Column
	Baseline int // index into Columns
	// Change is the convention of the changes (one of Changes).
	Change string
	// AverageOf is the convention of the average row's change (one of
	// Averages).
	AverageOf string
	Relative  bool
	// RelativeTo is the baseline value every value was divided by, at
	// RelativeThreads threads.
	RelativeTo      float64
	RelativeThreads int
	Rows            []Row
	// Beside are the figures shown beside each column's value
	// (Options.Columns), in the order asked: the server's CPU, iowait and
	// IOPS beside the throughput, as the TPC-E study prints them.
	Beside []Metric
	// Average holds each column's mean over the rows where it has a
	// value, and for each change, by AverageOf, the change between the
	// means of the two columns over the rows where both have a value
	// (the default: a row of small values cannot swing it, +1000% on
	// 2 tps is not a ten-fold average) or the mean of the rows' changes.
	Average Row
	// Differences lists what is not the same between (or within) the
	// columns: workload options when forced, server, client, tool.
	Differences []Difference
	// Notes are warnings for the reader: skipped runs, samples too small
	// for an interval or a test.
	Notes []string
}

// Metric describes the compared figure.
type Metric struct {
	Name   string // as shown: "tps", "p95", "NOPM"
	Unit   string // "/s", "ms", "µs", "/min"
	Higher bool   // larger is better
}

// Column is one label and the files behind it.
type Column struct {
	Label string
	Files []string
}

// Row is one thread count, or one arrival rate (with its threads) for
// runs of the open model.
type Row struct {
	Threads int
	// Rate is the runs' arrival rate (result.Open's rate_tps), 0 for
	// runs of the closed model.
	Rate    float64
	Cells   []Cell   // by column
	Changes []Change // by column; the baseline's is empty
	// Beside holds, by column, the cells of Table.Beside in its order
	// (nil without Beside); in the average row their means.
	Beside [][]Cell
}

// rowKey is what a row stands for: runs with the same threads and
// arrival rate.
type rowKey struct {
	threads int
	rate    float64
}

func keyOf(r *result.Run) rowKey {
	k := rowKey{threads: r.Threads}
	if r.Open != nil {
		k.rate = r.Open.RateTPS
	}
	return k
}

// compareKeys orders rows by rate, then threads.
func compareKeys(a, b rowKey) int {
	if c := cmp.Compare(a.rate, b.rate); c != 0 {
		return c
	}
	return cmp.Compare(a.threads, b.threads)
}

// Cell is the measurements of one column at one thread count.
type Cell struct {
	Values []float64 // sorted; empty when the column has no such run
	// Center is the median; Lo and Hi bound its confidence interval
	// (±Inf when there are too few values for one; equal to Center for
	// a single value).
	Center, Lo, Hi float64
	// Disturbed counts the cell's runs whose host disturbed them
	// (result.Run.Disturbed): the figure is marked "!".
	Disturbed int
}

// DisturbedNote explains the mark beside a figure that holds a disturbed
// run (Cell.Disturbed); the notes of its file's warnings say what
// disturbed it.
const DisturbedNote = "! marks a figure with a disturbed run (other processes, the hypervisor's steal or dbarena's own CPU took the host's CPU beyond the run's limits): the notes starting \"disturbed:\" say which and how much"

// N is the number of measurements.
func (c Cell) N() int { return len(c.Values) }

// Change is a column's difference from the baseline in one row.
type Change struct {
	Present bool
	// Pct is the change of the medians in percent, by the table's
	// convention (ChangeVsBaseline: (column ÷ baseline − 1) × 100).
	Pct float64
	// Tested is true when both cells have at least two values; P is then
	// the U test's p-value and Significant tells whether P < 0.05.
	Tested      bool
	P           float64
	Significant bool
}

// Difference is one property and its value per column ("mixed: a, b"
// when a column's files disagree).
type Difference struct {
	Name   string
	Values []string
}

// Build makes one table per workload found in inputs, in the order the
// workloads first appear.
func Build(inputs []Input, opt Options) ([]*Table, error) {
	if len(inputs) == 0 {
		return nil, errors.New("compare: no result files")
	}
	if err := CheckChange(opt.Change); err != nil {
		return nil, err
	}
	if err := CheckAverage(opt.Average); err != nil {
		return nil, err
	}
	if opt.Change == ChangeVsPrevious && opt.Baseline != "" {
		return nil, fmt.Errorf("--baseline %q: --change vs-previous compares each column with the one before it, not with a baseline", opt.Baseline)
	}
	spec, err := parseMetric(opt.Metric, inputs)
	if err != nil {
		return nil, err
	}
	beside, err := parseColumns(opt.Columns, inputs)
	if err != nil {
		return nil, err
	}
	if err := checkVary(opt.Vary, inputs); err != nil {
		return nil, err
	}
	var order []string
	byWorkload := map[string][]Input{}
	for _, in := range inputs {
		name := in.File.Workload.Name
		if _, ok := byWorkload[name]; !ok {
			order = append(order, name)
		}
		byWorkload[name] = append(byWorkload[name], in)
	}
	var tables []*Table
	for _, name := range order {
		t, err := build(byWorkload[name], spec, beside, opt)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// metricSpec is the compared figure and how a run gives it.
type metricSpec struct {
	Metric
	// run is the run metric; nil for a workload metric, found by name in
	// each run's Metrics.
	run *metric.RunMetric
}

func parseMetric(s string, inputs []Input) (metricSpec, error) {
	if strings.TrimSpace(s) == "" {
		s = "tps"
	}
	if strings.ContainsAny(s, "\n\t") {
		return metricSpec{}, fmt.Errorf("--metric %q: not a metric", s)
	}
	var runs []*result.Run
	for _, in := range inputs {
		for i := range in.File.Runs {
			runs = append(runs, &in.File.Runs[i])
		}
	}
	if m, ok := metric.LookupRunMetric(s, runs...); ok {
		name := m.Name
		if strings.EqualFold(s, "cpu") {
			name = "client CPU per transaction"
		}
		return metricSpec{Metric{name, m.Unit, m.Higher}, &m}, nil
	}
	// A workload's own metric; its unit and direction come from the runs.
	return metricSpec{Metric: Metric{Name: s, Higher: true}}, nil
}

// parseColumns resolves the figures shown beside each column: run
// metrics, or workload metrics some run has; a name that is neither, or
// is asked twice, is refused, naming --columns and the name.
func parseColumns(names []string, inputs []Input) ([]metricSpec, error) {
	var runs []*result.Run
	for _, in := range inputs {
		for i := range in.File.Runs {
			runs = append(runs, &in.File.Runs[i])
		}
	}
	var out []metricSpec
	seen := map[string]bool{}
	for _, s := range names {
		if m, ok := metric.LookupRunMetric(s, runs...); ok {
			if seen[m.Name] {
				return nil, metricError(fmt.Sprintf("--columns %q: asked twice", s))
			}
			seen[m.Name] = true
			out = append(out, metricSpec{Metric{m.Name, m.Unit, m.Higher}, &m})
			continue
		}
		var own *result.Metric
		set := map[string]bool{}
		for _, r := range runs {
			for i, x := range r.Metrics {
				set[x.Name] = true
				if own == nil && strings.EqualFold(x.Name, strings.TrimSpace(s)) {
					own = &r.Metrics[i]
				}
			}
		}
		if own == nil {
			what := "the workloads report no metric of their own"
			if len(set) > 0 {
				what = "the workloads' own are " + strings.Join(slices.Sorted(maps.Keys(set)), ", ")
			}
			return nil, metricError(fmt.Sprintf("--columns %q: no such metric (%s; every run has tps, qps, p50 … p999, errors, retries, retry_pct and the server's metrics such as server_cpu_pct, host_iowait_pct, disk_iops)", s, what))
		}
		if seen[own.Name] {
			return nil, metricError(fmt.Sprintf("--columns %q: asked twice", s))
		}
		seen[own.Name] = true
		out = append(out, metricSpec{Metric: Metric{own.Name, own.Unit, own.Higher}})
	}
	return out, nil
}

// value returns the compared figure of r (of its op named op, when op is
// set and the metric has per-op values), or false when r does not have it.
func (m *metricSpec) value(r *result.Run, op string) (float64, bool) {
	if m.run != nil {
		if op != "" && m.run.OpValue != nil {
			i := slices.IndexFunc(r.Ops, func(o result.Op) bool { return o.Name == op })
			if i < 0 {
				return 0, false
			}
			return m.run.OpValue(r, &r.Ops[i])
		}
		return m.run.Value(r)
	}
	for _, x := range r.Metrics {
		if strings.EqualFold(x.Name, m.Name) {
			m.Name, m.Unit, m.Higher = x.Name, x.Unit, x.Higher
			return x.Value, true
		}
	}
	return 0, false
}

// Column is the label of the column in stands in: its Label, else its
// target's label, else the server's product.
func (in Input) Column() string {
	switch {
	case in.Label != "":
		return in.Label
	case in.File.Target.Label != "":
		return in.File.Target.Label
	}
	return in.File.Target.Product()
}

func build(inputs []Input, m metricSpec, beside []metricSpec, opt Options) (*Table, error) {
	t := &Table{Workload: inputs[0].File.Workload.Name, Op: opt.Op, Relative: opt.Relative, Change: opt.Change, AverageOf: opt.Average}
	if t.AverageOf == "" {
		t.AverageOf = AverageChangeOfMeans
	}
	if t.Change == "" {
		t.Change = ChangeVsBaseline
	}
	// Columns in the order their labels first appear.
	col := map[string]int{}
	var colInputs [][]Input
	for _, in := range inputs {
		l := in.Column()
		i, ok := col[l]
		if !ok {
			i = len(t.Columns)
			col[l] = i
			t.Columns = append(t.Columns, Column{Label: l})
			colInputs = append(colInputs, nil)
		}
		t.Columns[i].Files = append(t.Columns[i].Files, in.Path)
		colInputs[i] = append(colInputs[i], in)
	}
	if opt.Baseline != "" {
		i, ok := col[opt.Baseline]
		if !ok {
			labels := make([]string, len(t.Columns))
			for i, c := range t.Columns {
				labels[i] = c.Label
			}
			return nil, fmt.Errorf("--baseline %q: no such column in %s (columns: %s)", opt.Baseline, t.Workload, strings.Join(labels, ", "))
		}
		t.Baseline = i
	}

	if err := checkOptions(t, inputs, opt.Vary, opt.Force); err != nil {
		return nil, err
	}
	diffs, partial := differences(colInputs)
	t.Differences = append(t.Differences, diffs...)
	if partial > 0 {
		what := fmt.Sprintf("%d server settings are", partial)
		if partial == 1 {
			what = "1 server setting is"
		}
		t.Notes = append(t.Notes, what+" reported by only some of the files (other engines or versions) and not compared")
	}

	// Samples per (threads and rate, column), and of each figure beside
	// per (threads and rate, column, figure).
	samples := map[rowKey][][]float64{}
	disturbed := map[rowKey][]int{} // disturbed runs per (row, column)
	besides := map[rowKey][][][]float64{}
	besideFound := make([]bool, len(beside))
	found := false
	for _, ins := range colInputs {
		for _, in := range ins {
			if p := in.File.Precision; p != nil {
				t.Notes = append(t.Notes, fmt.Sprintf("%s: %s", in.Path, PrecisionText(p)))
			}
		}
	}
	for c, ins := range colInputs {
		for _, in := range ins {
			for i := range in.File.Runs {
				r := &in.File.Runs[i]
				switch r.Status {
				case "", result.StatusComplete:
				case result.StatusKilled:
					// Rebuilt by dbarena recover from the intervals it
					// logged: all there is of it, its figures sound
					// over the time it ran.
					t.Notes = append(t.Notes, fmt.Sprintf("%s: the run with %d threads was killed: its figures are those of the %g s it logged", in.Path, r.Threads, r.DurationS))
				default:
					t.Notes = append(t.Notes, fmt.Sprintf("%s: the run with %d threads is %s; left out", in.Path, r.Threads, r.Status))
					continue
				}
				for _, w := range r.Warnings {
					t.Notes = append(t.Notes, fmt.Sprintf("%s: the run with %d threads: %s", in.Path, r.Threads, w))
				}
				v, ok := m.value(r, opt.Op)
				if !ok {
					continue
				}
				found = true
				k := keyOf(r)
				if samples[k] == nil {
					samples[k] = make([][]float64, len(t.Columns))
				}
				samples[k][c] = append(samples[k][c], v)
				if len(r.Disturbed) > 0 {
					if disturbed[k] == nil {
						disturbed[k] = make([]int, len(t.Columns))
					}
					disturbed[k][c]++
				}
				if len(beside) == 0 {
					continue
				}
				if besides[k] == nil {
					besides[k] = make([][][]float64, len(t.Columns))
				}
				if besides[k][c] == nil {
					besides[k][c] = make([][]float64, len(beside))
				}
				for b := range beside {
					if v, ok := beside[b].value(r, ""); ok {
						besides[k][c][b] = append(besides[k][c][b], v)
						besideFound[b] = true
					}
				}
			}
		}
	}
	if !found {
		what := m.Name
		if opt.Op != "" {
			what += " of op " + opt.Op
		}
		name := opt.Metric
		if strings.TrimSpace(name) == "" {
			name = m.Name
		}
		return nil, metricError(fmt.Sprintf("--metric %s: no run of %s has %s%s", name, t.Workload, what, metricHint(m, inputs)))
	}
	t.Metric = m.Metric
	for k := range beside {
		t.Beside = append(t.Beside, beside[k].Metric)
		if !besideFound[k] {
			t.Notes = append(t.Notes, fmt.Sprintf("no run has %s%s: its columns are empty", beside[k].Name, metricHint(beside[k], inputs)))
		}
	}

	keys := slices.SortedFunc(maps.Keys(samples), compareKeys)
	small, marked := false, false
	for _, n := range keys {
		row := Row{Threads: n.threads, Rate: n.rate, Cells: make([]Cell, len(t.Columns)), Changes: make([]Change, len(t.Columns))}
		for c, vs := range samples[n] {
			row.Cells[c] = summarize(vs)
			if d := disturbed[n]; d != nil && d[c] > 0 {
				row.Cells[c].Disturbed = d[c]
				marked = true
			}
			if len(vs) > 1 && (math.IsInf(row.Cells[c].Lo, 0) || math.IsInf(row.Cells[c].Hi, 0)) {
				small = true
			}
		}
		if len(beside) > 0 {
			row.Beside = make([][]Cell, len(t.Columns))
			for c := range t.Columns {
				row.Beside[c] = make([]Cell, len(beside))
				for k := range beside {
					if b := besides[n][c]; b != nil {
						row.Beside[c][k] = summarize(b[k])
					}
				}
			}
		}
		for c := range t.Columns {
			if ref := t.Ref(c); ref >= 0 {
				row.Changes[c] = t.change(row.Cells[ref], row.Cells[c])
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if small {
		need := minSamples()
		t.Notes = append(t.Notes, fmt.Sprintf("a median's %.0f%% confidence interval needs at least %d values; ±∞ marks cells with fewer", Confidence*100, need))
	}
	if marked {
		t.Notes = append(t.Notes, DisturbedNote)
	}
	t.Average = average(t)
	if opt.Relative {
		relative(t)
	}
	return t, nil
}

// summarize is a cell's median and confidence interval.
func summarize(vs []float64) Cell {
	if len(vs) == 0 {
		return Cell{}
	}
	s := benchmath.NewSample(slices.Clone(vs), &benchmath.DefaultThresholds)
	if len(vs) == 1 {
		return Cell{Values: s.Values, Center: vs[0], Lo: vs[0], Hi: vs[0]}
	}
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	return Cell{Values: s.Values, Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi}
}

// minSamples is the smallest sample with a finite interval at Confidence.
func minSamples() int {
	n := 2
	for ; n <= 50; n++ {
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = float64(i)
		}
		if c := summarize(vs); !math.IsInf(c.Lo, 0) && !math.IsInf(c.Hi, 0) {
			break
		}
	}
	return n
}

// Ref is the column column c's change is against, -1 when it has none
// (the baseline; the first column under ChangeVsPrevious).
func (t *Table) Ref(c int) int {
	if t.Change == ChangeVsPrevious {
		return c - 1
	}
	if c == t.Baseline {
		return -1
	}
	return t.Baseline
}

// pct is the change from a to b in percent by t's convention; false when a
// is 0.
func (t *Table) pct(a, b float64) (float64, bool) {
	if a == 0 {
		return 0, false
	}
	if t.Change == ChangeVsBetter {
		if t.Metric.Higher {
			return (a - b) / a * 100, true
		}
		return (b - a) / a * 100, true
	}
	return (b/a - 1) * 100, true
}

// change is c's change against base, tested when both have two values.
func (t *Table) change(base, c Cell) Change {
	if base.N() == 0 || c.N() == 0 {
		return Change{}
	}
	pct, ok := t.pct(base.Center, c.Center)
	if !ok {
		return Change{}
	}
	ch := Change{Present: true, Pct: pct}
	if base.N() >= 2 && c.N() >= 2 {
		th := &benchmath.DefaultThresholds
		cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(base.Values), th), benchmath.NewSample(slices.Clone(c.Values), th))
		ch.Tested, ch.P = true, cmp.P
		ch.Significant = cmp.P < cmp.Alpha
	}
	return ch
}

// average is the mean of each column's medians, and each column's change
// by t.AverageOf: of the means (between its mean and its reference
// column's mean over the rows where both have a value) or the mean of
// its rows' changes.
func average(t *Table) Row {
	avg := Row{Cells: make([]Cell, len(t.Columns)), Changes: make([]Change, len(t.Columns))}
	for c := range t.Columns {
		var sum float64
		var n int
		for _, r := range t.Rows {
			if r.Cells[c].N() > 0 {
				sum += r.Cells[c].Center
				n++
			}
		}
		if n > 0 {
			m := sum / float64(n)
			avg.Cells[c] = Cell{Values: []float64{m}, Center: m, Lo: m, Hi: m}
		}
		if len(t.Beside) > 0 {
			if avg.Beside == nil {
				avg.Beside = make([][]Cell, len(t.Columns))
			}
			avg.Beside[c] = make([]Cell, len(t.Beside))
			for k := range t.Beside {
				var sum float64
				var n int
				for _, r := range t.Rows {
					if b := r.Beside[c][k]; b.N() > 0 {
						sum += b.Center
						n++
					}
				}
				if n > 0 {
					m := sum / float64(n)
					avg.Beside[c][k] = Cell{Values: []float64{m}, Center: m, Lo: m, Hi: m}
				}
			}
		}
		ref := t.Ref(c)
		if ref < 0 {
			continue
		}
		if t.AverageOf == AverageMeanOfChanges {
			var sum float64
			var n int
			for _, r := range t.Rows {
				if ch := r.Changes[c]; ch.Present {
					sum += ch.Pct
					n++
				}
			}
			if n > 0 {
				avg.Changes[c] = Change{Present: true, Pct: sum / float64(n)}
			}
			continue
		}
		var sa, sb float64
		var nb int
		for _, r := range t.Rows {
			if r.Cells[c].N() > 0 && r.Cells[ref].N() > 0 {
				sa += r.Cells[ref].Center
				sb += r.Cells[c].Center
				nb++
			}
		}
		if nb > 0 {
			if pct, ok := t.pct(sa/float64(nb), sb/float64(nb)); ok {
				avg.Changes[c] = Change{Present: true, Pct: pct}
			}
		}
	}
	return avg
}

// relative divides every value by the baseline's median at its lowest
// thread count.
func relative(t *Table) {
	for _, r := range t.Rows {
		if c := r.Cells[t.Baseline]; c.N() > 0 && c.Center != 0 {
			t.RelativeTo, t.RelativeThreads = c.Center, r.Threads
			break
		}
	}
	if t.RelativeTo == 0 {
		return
	}
	div := func(c *Cell) {
		if c.N() == 0 {
			return
		}
		vs := make([]float64, len(c.Values))
		for i, v := range c.Values {
			vs[i] = v / t.RelativeTo
		}
		c.Values = vs
		c.Center /= t.RelativeTo
		c.Lo /= t.RelativeTo
		c.Hi /= t.RelativeTo
	}
	for i := range t.Rows {
		for c := range t.Rows[i].Cells {
			div(&t.Rows[i].Cells[c])
		}
	}
	for c := range t.Average.Cells {
		div(&t.Average.Cells[c])
	}
}

// checkOptions refuses runs whose workload options differ, naming them,
// except the options in vary (or all, when forced), which it lists.
// checkVary refuses a --vary name that is an option of no input's
// workload: it would allow nothing and say nothing.
func checkVary(vary []string, inputs []Input) error {
	var errs []error
	for _, k := range vary {
		found := false
		var names []string
		for _, in := range inputs {
			if _, ok := in.File.Workload.Options[k]; ok {
				found = true
				break
			}
			if !slices.Contains(names, in.File.Workload.Name) {
				names = append(names, in.File.Workload.Name)
			}
		}
		if !found {
			errs = append(errs, fmt.Errorf("--vary %s: not an option of %s (dbarena list shows their options)", k, strings.Join(names, " or ")))
		}
	}
	return errors.Join(errs...)
}

func checkOptions(t *Table, inputs []Input, vary []string, force bool) error {
	keys := map[string]bool{}
	for _, in := range inputs {
		for k := range in.File.Workload.Options {
			keys[k] = true
		}
	}
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		seen := map[string][]string{}
		var values []string
		for _, in := range inputs {
			v, ok := in.File.Workload.Options[k]
			if !ok {
				v = "(not set)"
			}
			if _, dup := seen[v]; !dup {
				values = append(values, v)
			}
			seen[v] = append(seen[v], in.Path)
		}
		if len(values) < 2 {
			continue
		}
		var parts []string
		for _, v := range values {
			parts = append(parts, fmt.Sprintf("%s in %s", strconv.Quote(v), strings.Join(seen[v], ", ")))
		}
		varied := slices.Contains(vary, k)
		if !varied {
			bad = append(bad, fmt.Sprintf("--%s is %s", k, strings.Join(parts, "; ")))
		}
		if force || varied {
			d := Difference{Name: "option --" + k}
			for _, c := range t.Columns {
				var vs []string
				for _, in := range inputs {
					if in.Column() == c.Label {
						v, ok := in.File.Workload.Options[k]
						if !ok {
							v = "(not set)"
						}
						vs = append(vs, v)
					}
				}
				d.Values = append(d.Values, joinValues(vs))
			}
			t.Differences = append(t.Differences, d)
		}
	}
	if len(bad) > 0 && !force {
		return fmt.Errorf("%w: the %s runs have different workload options (name the ones compared with --vary, or --force): %s",
			ErrMismatch, t.Workload, strings.Join(bad, "; "))
	}
	return nil
}

// joinValues is the one value of vs, or "mixed: a, b" when they differ.
func joinValues(vs []string) string {
	var distinct []string
	for _, v := range vs {
		if !slices.Contains(distinct, v) {
			distinct = append(distinct, v)
		}
	}
	if len(distinct) == 1 {
		return distinct[0]
	}
	return "mixed: " + strings.Join(distinct, ", ")
}

// differences lists the properties of server, client and tool whose values
// differ between or within columns, in the order a reader looks for
// them: the settings the servers were asked for (result.Target.Knobs),
// the settings every engine has under a name of its own, side by side
// under their common name (engine.CommonSettings: "buffer pool" is
// shared_buffers or innodb_buffer_pool_size), then engine, versions and
// hosts, then the other settings. Settings that say where a server is or
// follow from others (engine.SettingRoles.Incidental: paths, ports,
// derived sizes) are left out. The other settings are compared only
// where every file reports them (different engines share few); the
// second result counts the settings left out for that reason.
func differences(cols [][]Input) ([]Difference, int) {
	type prop struct {
		name string
		get  func(f *result.File) string
	}
	var files []*result.File
	for _, ins := range cols {
		for _, in := range ins {
			files = append(files, in.File)
		}
	}
	roles := func(f *result.File) engine.SettingRoles {
		r, _ := engine.Lookup(f.Target.Engine)
		return r.Settings
	}
	oneEngine := true
	for _, f := range files {
		oneEngine = oneEngine && f.Target.Engine == files[0].Target.Engine
	}
	// Settings of a common name: by the engines' own names when there is
	// one engine, by the common name across engines.
	var asked, common, rest []prop
	handled := map[string]bool{} // settings shown in a row of their own
	askedCommon := map[string]bool{}
	knobs := map[string]bool{}
	for _, f := range files {
		for k := range f.Target.Knobs {
			knobs[k] = true
			if c := roles(f).CommonName(k); c != "" {
				askedCommon[c] = true
			}
		}
	}
	setting := func(k string) prop {
		return prop{"setting " + k, func(f *result.File) string {
			if v, ok := f.Target.Settings[k]; ok {
				return v
			}
			if v, ok := f.Target.Knobs[k]; ok {
				return v
			}
			return "—"
		}}
	}
	for _, c := range engine.CommonSettings() {
		var names []string
		for _, f := range files {
			if s, _, ok := roles(f).Setting(c, f.Target.Settings); ok && !slices.Contains(names, s) {
				names = append(names, s)
			}
		}
		if len(names) == 0 {
			continue
		}
		for _, f := range files {
			for _, s := range roles(f).Common[c] {
				handled[s] = true
			}
		}
		var ps []prop
		if oneEngine {
			for _, s := range names {
				ps = append(ps, setting(s))
			}
		} else {
			ps = append(ps, prop{c, func(f *result.File) string {
				if s, v, ok := roles(f).Setting(c, f.Target.Settings); ok {
					if c == engine.SettingBufferPool || c == engine.SettingWALSize {
						v = withSize(v)
					}
					return s + " = " + v
				}
				return "—"
			}})
		}
		if askedCommon[c] {
			asked = append(asked, ps...)
		} else {
			common = append(common, ps...)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		if !handled[k] {
			handled[k] = true
			asked = append(asked, setting(k))
		}
	}
	slices.SortStableFunc(asked, func(a, b prop) int { return strings.Compare(a.name, b.name) })
	telling := map[string]bool{}
	for _, f := range files {
		for _, k := range roles(f).Telling {
			for _, g := range files {
				if _, ok := g.Target.Settings[k]; ok && !handled[k] {
					telling[k] = true
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(telling)) {
		handled[k] = true
		common = append(common, setting(k))
	}
	seen := map[string]int{}
	for _, f := range files {
		for k := range f.Target.Settings {
			if !handled[k] && !roles(f).IsIncidental(k) {
				seen[k]++
			}
		}
	}
	partial := 0
	for _, k := range slices.Sorted(maps.Keys(seen)) {
		if seen[k] < len(files) {
			partial++
			continue
		}
		rest = append(rest, setting(k))
	}
	props := append(asked, common...)
	props = append(props,
		prop{"engine", func(f *result.File) string { return f.Target.Product() }},
		prop{"server version", func(f *result.File) string { return f.Target.ServerVersion }},
		prop{"dbarena version", func(f *result.File) string { return f.Tool.Version + " (" + f.Tool.Commit + ")" }},
		prop{"client host", func(f *result.File) string { return f.Client.Hostname }},
		prop{"client CPU", func(f *result.File) string { return fmt.Sprintf("%s, %d cores", f.Client.CPUModel, f.Client.Cores) }},
		prop{"client OS", func(f *result.File) string { return f.Client.OS }},
	)
	props = append(props, rest...)
	var out []Difference
	for _, p := range props {
		d := Difference{Name: p.name}
		all := map[string]bool{}
		for _, ins := range cols {
			var vs []string
			for _, in := range ins {
				v := p.get(in.File)
				vs = append(vs, v)
				all[v] = true
			}
			d.Values = append(d.Values, joinValues(vs))
		}
		if len(all) > 1 {
			out = append(out, d)
		}
	}
	return out, partial
}

// withSize adds to a size in bytes the same in PostgreSQL's units
// ("134217728 (128MB)"), for a row beside PostgreSQL's "128MB"; other
// values stay as they are.
func withSize(v string) string {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n < 1<<20 {
		return v
	}
	for _, u := range []struct {
		name string
		size uint64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%s (%d%s)", v, n/u.size, u.name)
			}
			if n >= 10*u.size || u.name == "MB" {
				return fmt.Sprintf("%s (%.1f%s)", v, float64(n)/float64(u.size), u.name)
			}
		}
	}
	return v
}

// metricHint says why a metric no run has may be missing: a server
// metric needs the server sampled; a workload metric is one of the
// workload's, which are listed.
func metricHint(m metricSpec, inputs []Input) string {
	if m.run != nil {
		if m.run.Server {
			return " (the server was not sampled, or does not report it)"
		}
		return ""
	}
	set := map[string]bool{}
	for _, in := range inputs {
		for _, r := range in.File.Runs {
			for _, x := range r.Metrics {
				set[x.Name] = true
			}
		}
	}
	if len(set) == 0 {
		return " (it is no run metric, and the workload reports none of its own)"
	}
	return " (the workload's own metrics are " + strings.Join(slices.Sorted(maps.Keys(set)), ", ") + ")"
}

// metricError is the error of a metric no run has; it matches
// ErrNoMetric.
type metricError string

func (e metricError) Error() string        { return string(e) }
func (e metricError) Is(target error) bool { return target == ErrNoMetric }
