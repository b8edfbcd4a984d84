package htmlreport

import (
	"fmt"

	"github.com/dbarena/dbarena/compare"
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
	ws.Throughput, ws.Lat = fmt.Sprintf("w%d-tps", i), fmt.Sprintf("w%d-lat", i)
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
