package htmlreport

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/result"
)

// triesSection is the section of a workload whose runs are in the
// analytic timing model: the study's table of queries (compare.BuildTries:
// cold and hot seconds per label, the % speedup, the tries' spread, the
// answers that differ) and two bar charts of seconds per query, cold and
// hot. i numbers the workload's charts.
func triesSection(ins []compare.Input, baseline string, i int) (workloadSection, []chart, error) {
	tables, err := compare.BuildTries(ins, baseline)
	if err != nil {
		return workloadSection{}, nil, err
	}
	t := tables[0]
	ws := workloadSection{Name: t.Workload, Title: t.Title(), Header: t.Header(), Rows: t.Cells(),
		Differences: t.Differences, Bars: true, MonitorProblems: monitorProblems(ins)}
	if n := t.FirstTriesNote(); n != "" {
		ws.Notes = append(ws.Notes, n)
	}
	ws.Notes = append(ws.Notes, t.Notes...)
	for c, l := range t.Labels {
		ws.Labels = append(ws.Labels, l)
		ws.Legend = append(ws.Legend, legendItem{l, palette[c%len(palette)]})
	}
	ws.Throughput, ws.Lat = fmt.Sprintf("w%d-cold", i), fmt.Sprintf("w%d-hot", i)
	ws.ThroughputCaption = "a try that failed has no bar"
	cold := queryBars(t, "Cold: seconds per query (the first try)", func(r compare.TriesRow) []compare.Timing { return r.Cold })
	hot := queryBars(t, "Hot: seconds per query (the best of the later tries)", func(r compare.TriesRow) []compare.Timing { return r.Hot })
	return ws, []chart{{ws.Throughput, cold}, {ws.Lat, hot}}, nil
}

// queryBars is a bar chart of one kind of timing: the queries on the
// x-axis, a bar per label.
func queryBars(t *compare.TriesTable, title string, of func(compare.TriesRow) []compare.Timing) map[string]any {
	var queries []string
	for _, r := range t.Rows {
		queries = append(queries, r.Query)
	}
	var series []any
	for c, l := range t.Labels {
		var data []any
		for _, r := range t.Rows {
			if tm := of(r)[c]; tm.Best != nil {
				data = append(data, *tm.Best)
			} else {
				data = append(data, nil)
			}
		}
		series = append(series, map[string]any{"name": l, "type": "bar", "data": data, "itemStyle": map[string]any{"color": palette[c%len(palette)]}})
	}
	return map[string]any{
		"animation": false,
		"title":     map[string]any{"text": title, "left": "center", "textStyle": map[string]any{"fontSize": 14}},
		"tooltip":   map[string]any{"trigger": "axis", "confine": true},
		"legend":    map[string]any{"show": false},
		"grid":      map[string]any{"top": 40, "left": 10, "right": 20, "bottom": 40, "containLabel": true},
		"xAxis":     map[string]any{"type": "category", "name": "query", "nameLocation": "middle", "nameGap": 28, "data": queries},
		"yAxis":     map[string]any{"type": "value", "name": "s", "min": 0},
		"series":    series,
	}
}

// triesRun is a run of the timing model in the runs' list: its table of
// queries and what its answers agree with.
type triesRun struct {
	// Rows are per query: the query, the first try's seconds, the best
	// of the others with their range, the tries that failed, the
	// answer's rows and hash, and whether it agrees (agreement).
	Rows [][]string
	// Agreement sums up the answers in one line.
	Agreement string
}

// answer is one run's answer to a query: its label, rows and hash.
type answer struct {
	label string
	rows  int64
	hash  string
}

// answersOf are the answers of every run of the timing model in ins, by
// query (a run whose tries of a query all failed gives none).
func answersOf(ins []compare.Input) map[string][]answer {
	out := map[string][]answer{}
	for _, in := range ins {
		for _, r := range in.File.Runs {
			if r.Tries == nil {
				continue
			}
			for _, q := range r.Tries.Queries {
				if rows, hash, _, ok := q.Answer(); ok {
					out[q.Name] = append(out[q.Name], answer{in.Column(), rows, hash})
				}
			}
		}
	}
	return out
}

// triesRunOf is run r of the timing model, the n-th of the page: a
// summary of how its tries ran, and per query its cold and hot seconds
// and its answer against the other columns' (all, the workload's answers
// by query). The closed model's figures (tps, latency percentiles,
// operations) are not shown: a run of tries has none that mean anything.
func triesRunOf(in compare.Input, r *result.Run, n int, all map[string][]answer) runSection {
	label := in.Column()
	rs := runSection{ID: fmt.Sprintf("run%d", n), Chart: fmt.Sprintf("run%d-tries", n),
		Title:  fmt.Sprintf("%s · %s · %d %s of each query", label, in.File.Workload.Name, r.Tries.Count, plural(r.Tries.Count, "try", "tries")),
		Status: r.Status, Error: r.Error, Warnings: r.Warnings, Tries: &triesRun{}}
	var firsts []string
	failed, same, differ, alone := 0, 0, 0, 0
	var differs []string
	for _, q := range r.Tries.Queries {
		if l := q.FirstLabel(); l != "" && !slices.Contains(firsts, l) {
			firsts = append(firsts, l)
		}
		failed += q.Errors()
		rows, hash, triesDiffer, ok := q.Answer()
		ans, nrows, agrees := "—", "—", "—"
		if ok {
			ans, nrows = shortHash(hash), strconv.FormatInt(rows, 10)
			var others, unlike []string
			for _, a := range all[q.Name] {
				if a.label == label {
					continue
				}
				if a.rows == rows && a.hash == hash {
					others = append(others, a.label)
				} else if !slices.Contains(unlike, a.label) {
					unlike = append(unlike, a.label)
				}
			}
			switch {
			case triesDiffer:
				agrees, differ = "the tries differ", differ+1
				differs = append(differs, q.Name)
			case len(unlike) > 0:
				agrees, differ = "differs from "+strings.Join(unlike, ", "), differ+1
				differs = append(differs, q.Name)
			case len(others) > 0:
				agrees, same = "same", same+1
			default:
				agrees, alone = "no other answer", alone+1
			}
		}
		// The range of the hot tries, where there were several.
		spread, hot := "—", 0
		for _, tr := range q.Tries {
			if !tr.First() && tr.S != nil {
				hot++
			}
		}
		if lo, hi, ok := q.Spread(); ok && hot > 1 {
			spread = seconds(lo) + "–" + seconds(hi)
		}
		rs.Tries.Rows = append(rs.Tries.Rows, []string{q.Name, secondsOf(q.Cold()), secondsOf(q.Hot()), spread,
			strconv.Itoa(q.Errors()), nrows, ans, agrees})
	}
	queries := len(r.Tries.Queries)
	switch {
	case differ > 0:
		rs.Tries.Agreement = fmt.Sprintf("answers: %d of %d queries differ (%s)", differ, queries, strings.Join(differs, ", "))
	case same == queries && queries > 0:
		rs.Tries.Agreement = fmt.Sprintf("answers: all %d the same as every other column's that answered, rows and hash", queries)
	case same > 0:
		rs.Tries.Agreement = fmt.Sprintf("answers: %d of %d the same as the other columns'; %d answered here only", same, queries, alone)
	default:
		rs.Tries.Agreement = "answers: no other column answered these queries"
	}
	timeout := "none"
	if r.Tries.QueryTimeoutS > 0 {
		timeout = seconds(r.Tries.QueryTimeoutS)
	}
	rs.Summary = [][2]string{
		{"first tries", strings.Join(firsts, ", ")},
		{"tries failed / query timeout", strconv.Itoa(failed) + " / " + timeout},
		{"file", in.Path},
	}
	return rs
}

// tryBars is run r's seconds per query: the first try and the best of
// the others, two bars per query.
func tryBars(r *result.Run) map[string]any {
	var queries []string
	var cold, hot []any
	val := func(v *float64) any {
		if v == nil {
			return nil
		}
		return *v
	}
	for _, q := range r.Tries.Queries {
		queries = append(queries, q.Name)
		cold, hot = append(cold, val(q.Cold())), append(hot, val(q.Hot()))
	}
	return map[string]any{
		"animation": false,
		"tooltip":   map[string]any{"trigger": "axis", "confine": true},
		"legend":    map[string]any{"top": 0},
		"grid":      map[string]any{"top": 36, "left": 10, "right": 10, "bottom": 34, "containLabel": true},
		"xAxis":     map[string]any{"type": "category", "name": "query", "nameLocation": "middle", "nameGap": 24, "data": queries},
		"yAxis":     map[string]any{"type": "value", "name": "s", "min": 0},
		"series": []any{
			map[string]any{"name": "cold (first try)", "type": "bar", "data": cold, "itemStyle": map[string]any{"color": "#5470c6"}},
			map[string]any{"name": "hot (best of the others)", "type": "bar", "data": hot, "itemStyle": map[string]any{"color": "#ee6666"}},
		},
	}
}

// secondsOf writes a try's time in seconds, "null" for none (a try that
// failed): never a zero.
func secondsOf(v *float64) string {
	if v == nil {
		return "null"
	}
	return seconds(*v)
}

// seconds writes seconds with four significant digits.
func seconds(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
