// Package export turns result files into flat tables for spreadsheets and
// documents: one line per run, per reporting interval, or per operation of
// a run, as CSV or Markdown.
package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/markdown"
	"github.com/dbarena/dbarena/metric"
	"github.com/dbarena/dbarena/result"
)

// Input is one result file and the name it is known by.
type Input struct {
	// Label is the label its lines carry; empty means the target's.
	Label string
	Path  string
	File  *result.File
}

// Table is a header and its rows. A value is a string, an int64 or a
// float64; nil is an empty field.
type Table struct {
	Header []string
	Rows   [][]any
}

// Kinds are the tables Export can make.
var Kinds = []string{"runs", "intervals", "ops", "tries"}

// Build makes the table of kind ("runs", "intervals", "ops" or "tries")
// from inputs.
func Build(kind string, inputs []Input) (*Table, error) {
	switch kind {
	case "runs":
		return runs(inputs), nil
	case "intervals":
		return intervals(inputs), nil
	case "ops":
		return ops(inputs), nil
	case "tries":
		return tries(inputs), nil
	}
	return nil, fmt.Errorf("--table %q: want one of %s", kind, strings.Join(Kinds, ", "))
}

// ids are the columns that say which run a line belongs to.
var ids = []string{"file", "label", "engine", "workload", "threads"}

func idValues(in Input, r *result.Run) []any {
	label := in.Label
	if label == "" {
		label = in.File.Target.Label
	}
	return []any{in.Path, label, in.File.Target.Engine, in.File.Workload.Name, int64(r.Threads)}
}

func latencyColumns(prefix string) []string {
	return []string{prefix + "min_ms", prefix + "mean_ms", prefix + "p50_ms", prefix + "p95_ms", prefix + "p99_ms", prefix + "p999_ms", prefix + "max_ms"}
}

func latencyValues(l histogram.Latency) []any {
	return []any{l.Min, l.Mean, l.P50, l.P95, l.P99, l.P999, l.Max}
}

// metricNames is the union of the workload metrics' names, sorted, found
// by each.
func metricNames(inputs []Input, each func(r *result.Run, add func(string))) []string {
	set := map[string]bool{}
	for _, in := range inputs {
		for i := range in.File.Runs {
			each(&in.File.Runs[i], func(n string) { set[n] = true })
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// runs is one line per run: every run metric (metric.RunMetrics), the
// server metrics any run has, then the workload metrics any run has.
func runs(inputs []Input) *Table {
	names := metricNames(inputs, func(r *result.Run, add func(string)) {
		for _, m := range r.Metrics {
			add(m.Name)
		}
	})
	var all []*result.Run
	for _, in := range inputs {
		for i := range in.File.Runs {
			all = append(all, &in.File.Runs[i])
		}
	}
	cols := metric.RunMetrics()
	cols = slices.DeleteFunc(cols, func(m metric.RunMetric) bool { return m.Server })
	cols = append(cols, metric.ServerColumns(all)...)
	t := &Table{Header: append(slices.Clone(ids), "status")}
	for _, m := range cols {
		t.Header = append(t.Header, m.Column)
	}
	t.Header = append(t.Header, names...)
	for _, in := range inputs {
		for i := range in.File.Runs {
			r := &in.File.Runs[i]
			row := append(idValues(in, r), r.Status)
			for _, m := range cols {
				v, ok := m.Value(r)
				switch {
				case !ok:
					row = append(row, nil)
				case m.Count && v == math.Trunc(v):
					row = append(row, int64(v))
				default:
					row = append(row, v)
				}
			}
			for _, n := range names {
				i := slices.IndexFunc(r.Metrics, func(m result.Metric) bool { return m.Name == n })
				if i < 0 {
					row = append(row, nil)
				} else {
					row = append(row, r.Metrics[i].Value)
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func intervals(inputs []Input) *Table {
	names := metricNames(inputs, func(r *result.Run, add func(string)) {
		for _, iv := range r.Intervals {
			for n := range iv.Metrics {
				add(n)
			}
		}
	})
	// The server metrics any interval has, in the runs table's order.
	var sampled []*result.Run
	for _, in := range inputs {
		for _, r := range in.File.Runs {
			for _, iv := range r.Intervals {
				if len(iv.Server) > 0 {
					sampled = append(sampled, &result.Run{Server: iv.Server})
				}
			}
		}
	}
	server := metric.ServerColumns(sampled)
	t := &Table{Header: append(slices.Clone(ids), "t_s", "warmup", "transactions", "tps", "queries", "qps",
		"errors", "retries", "reconnects", "rollbacks", "p50_ms", "p95_ms", "p99_ms", "max_ms")}
	for _, m := range server {
		t.Header = append(t.Header, m.Column)
	}
	t.Header = append(t.Header, names...)
	for _, in := range inputs {
		for i := range in.File.Runs {
			r := &in.File.Runs[i]
			for _, iv := range r.Intervals {
				row := append(idValues(in, r), iv.TS, strconv.FormatBool(iv.Warmup), iv.Transactions, iv.TPS, iv.Queries, iv.QPS,
					iv.Errors, iv.Retries, iv.Reconnects, iv.Rollbacks, iv.LatencyMS.P50, iv.LatencyMS.P95, iv.LatencyMS.P99, iv.LatencyMS.Max)
				for _, m := range server {
					if v, ok := iv.Server[m.Name]; ok {
						row = append(row, v)
					} else {
						row = append(row, nil)
					}
				}
				for _, n := range names {
					if v, ok := iv.Metrics[n]; ok {
						row = append(row, v)
					} else {
						row = append(row, nil)
					}
				}
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
}

func ops(inputs []Input) *Table {
	t := &Table{Header: append(slices.Clone(ids), "op", "count", "tps", "errors", "retries", "rollbacks")}
	t.Header = append(t.Header, latencyColumns("")...)
	for _, in := range inputs {
		for i := range in.File.Runs {
			r := &in.File.Runs[i]
			for _, o := range r.Ops {
				var tps any
				if r.DurationS > 0 {
					tps = float64(o.Count) / r.DurationS
				}
				row := append(idValues(in, r), o.Name, o.Count, tps, o.Errors, o.Retries, o.Rollbacks)
				t.Rows = append(t.Rows, append(row, latencyValues(o.LatencyMS)...))
			}
		}
	}
	return t
}

// WriteCSV writes t, numbers rounded to four decimals (what a result
// file's figures carry at most; derived rates would otherwise print
// binary noise such as 33.333333333333336).
func WriteCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	cw.Write(t.Header)
	rec := make([]string, len(t.Header))
	for _, r := range t.Rows {
		for i, v := range r {
			if f, ok := v.(float64); ok {
				v = math.Round(f*1e4) / 1e4
			}
			rec[i] = format(v, -1)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes t as a Markdown table, numbers right-aligned and
// rounded to two decimals, user-supplied text escaped.
func WriteMarkdown(w io.Writer, t *Table) error {
	var b strings.Builder
	b.WriteString("|")
	for _, h := range t.Header {
		b.WriteString(" " + h + " |")
	}
	b.WriteString("\n|")
	for i := range t.Header {
		align := " --- |"
		if slices.ContainsFunc(t.Rows, func(r []any) bool { return isNumber(r[i]) }) {
			align = " ---: |"
		}
		b.WriteString(align)
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, v := range r {
			b.WriteString(" " + markdown.Escape(format(v, 2)) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64:
		return true
	}
	return false
}

func format(v any, prec int) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', prec, 64)
	}
	return fmt.Sprint(v)
}
