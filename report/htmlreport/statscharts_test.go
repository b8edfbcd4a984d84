package htmlreport_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/compare"
	_ "github.com/dbarena/dbarena/engine/all" // the engines' server metrics
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/report/htmlreport"
	"github.com/dbarena/dbarena/result"
	_ "github.com/dbarena/dbarena/sysmon" // registers the metric list (metric.ServerMetrics)
)

// mongoFile is a docolap run on MongoDB at 2 and 8 threads whose
// intervals carry serverStatus' metrics, as sysmon writes them; the
// 8-thread run's counters are higher.
func mongoFile() *result.File {
	f := &result.File{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "dbarena", Version: "1.2.3", Commit: "abc1234"},
		Workload:      result.Workload{Name: "docolap"},
		Target:        result.Target{Label: "mongo", Engine: "mongodb", URL: "mongodb://bench:xxxxx@127.0.0.1:57017/bench", ServerVersion: "MongoDB 6.0.5"},
		Client:        result.Client{Hostname: "bench1", CPUModel: "EPYC", Cores: 2, OS: "linux/amd64", GoVersion: "go1.26"},
		StartedAt:     time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
		Status:        result.StatusComplete,
	}
	for _, th := range []int{2, 8} {
		k := float64(th)
		r := result.Run{Threads: th, DurationS: 3, TPS: 50 * k, Transactions: int64(150 * k), Status: result.StatusComplete,
			LatencyMS: histogram.Latency{P50: 1, P95: 2, P99: 3, Max: 4},
			Ops:       []result.Op{{Name: "count_by_type", Count: int64(150 * k), LatencyMS: histogram.Latency{P95: 2}}}}
		for s := 1; s <= 3; s++ {
			r.Intervals = append(r.Intervals, result.Interval{TS: float64(s), TPS: 50 * k, LatencyMS: result.IntervalLatency{P50: 1, P95: 2, P99: 3, Max: 4},
				Server: map[string]float64{"interval_s": 1, "server_cpu_pct": 40 + k, "host_cpu_pct": 50, "host_iowait_pct": 1, "disk_iops": 30,
					"mongo_opcounters_insert_s": 10 * k, "mongo_opcounters_query_s": 2, "mongo_opcounters_update_s": 5 * k, "mongo_opcounters_delete_s": 0,
					"mongo_opcounters_getmore_s": 1, "mongo_opcounters_command_s": 60*k + float64(s),
					"mongo_txn_commits_s": 5 * k, "mongo_txn_aborts_s": 0.5,
					"mongo_cache_mb": 100 + 10*k*float64(s), "mongo_cache_dirty_mb": 3 * k,
					"mongo_tickets_read": 128 - k, "mongo_tickets_write": 127,
					"mongo_net_in_mb_s": 0.3, "mongo_net_out_mb_s": 0.2, "mongo_connections": 3 + k}})
		}
		f.Runs = append(f.Runs, r)
	}
	return f
}

// renderMongo writes a report of mongoFile beside one PostgreSQL file of
// the same workload with its CPU sampled and no MongoDB metrics.
func renderMongo(t *testing.T) (path, page string) {
	t.Helper()
	pg := mongoFile()
	pg.Target = result.Target{Label: "pg", Engine: "postgres", URL: "postgres://bench:xxxxx@db:5432/bench", ServerVersion: "PostgreSQL 16.4"}
	for i := range pg.Runs {
		for j := range pg.Runs[i].Intervals {
			pg.Runs[i].Intervals[j].Server = map[string]float64{"interval_s": 1, "server_cpu_pct": 70, "pg_wal_mb_s": 2}
		}
	}
	var b bytes.Buffer
	inputs := []compare.Input{{Path: "mongo.json", File: mongoFile()}, {Path: "pg.json", File: pg}}
	if err := htmlreport.Write(&b, inputs, htmlreport.Options{Generated: time.Unix(0, 0), Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b.String()
}

// TestStatsCharts: a MongoDB run whose intervals carry serverStatus'
// metrics gets, beside its server chart, a chart of operations per second
// by kind, of transactions committed and aborted, of the WiredTiger cache
// and its dirty part, of the tickets available and of the network, drawn
// from the metric registry's charts (metric.ServerMetric.Chart); the runs
// of a workload share each chart's axis; a PostgreSQL run gets none of
// them (TestStructure pins a PostgreSQL report's charts).
func TestStatsCharts(t *testing.T) {
	_, page := renderMongo(t)
	ids := strings.Join(chartIDs(page), " ")
	stats := func(run int) string {
		var out []string
		for k := 1; k <= 5; k++ {
			out = append(out, fmt.Sprintf("run%d-stats%d", run, k))
		}
		return strings.Join(out, " ")
	}
	want := "w0-tps w0-lat run1-time run1-server " + stats(1) + " run2-time run2-server " + stats(2) + " run3-time run3-server run4-time run4-server"
	if ids != want {
		t.Fatalf("charts\n%s\nwant\n%s", ids, want)
	}
	const says = "Further charts show the statistics the server itself keeps"
	if !strings.Contains(page, says) {
		t.Errorf("the runs' introduction does not say %q", says)
	}
	if pg, err := os.ReadFile(render(t)); err != nil || strings.Contains(string(pg), says) {
		t.Errorf("a PostgreSQL report says %q (%v)", says, err)
	}
	charts := chartOptions(t, page)
	type line struct {
		title, unit string
		series      []string
		max         float64 // the axis' end, shared by both runs
	}
	for k, w := range []line{
		{"MongoDB operations per second", "/s", []string{"insert", "query", "update", "delete", "getmore", "command"}, 500}, // command up to 483
		{"MongoDB transactions per second", "/s", []string{"committed", "aborted"}, 50},                                     // commits up to 40
		{"WiredTiger cache (MB)", "MB", []string{"in cache", "dirty"}, 500},                                                 // cache up to 340
		{"tickets available", "tickets", []string{"read", "write"}, 200},                                                    // up to 127
		{"MongoDB network (MB/s)", "MB/s", []string{"in", "out"}, 0.5},
	} {
		for run := 1; run <= 2; run++ {
			id := fmt.Sprintf("run%d-stats%d", run, k+1)
			o := charts[id]
			if got := o["title"].(map[string]any)["text"]; got != w.title {
				t.Errorf("%s: title %q, want %q", id, got, w.title)
			}
			axes := o["yAxis"].([]any)
			if len(axes) != 1 {
				t.Fatalf("%s: %d axes, want one", id, len(axes))
			}
			a := axes[0].(map[string]any)
			if a["name"] != w.unit || a["min"] != 0.0 || a["max"] != w.max {
				t.Errorf("%s: axis %v from %v to %v, want %s from 0 to %v", id, a["name"], a["min"], a["max"], w.unit, w.max)
			}
			var names []string
			for _, s := range o["series"].([]any) {
				s := s.(map[string]any)
				names = append(names, s["name"].(string))
				if n := len(s["data"].([]any)); n != 3 {
					t.Errorf("%s: series %s has %d points, want 3", id, s["name"], n)
				}
			}
			if strings.Join(names, " ") != strings.Join(w.series, " ") {
				t.Errorf("%s: series %q, want %q", id, names, w.series)
			}
		}
	}
	// The 8-thread run's inserts: 80/s at every second.
	ins := charts["run2-stats1"]["series"].([]any)[0].(map[string]any)["data"].([]any)
	if fmt.Sprint(ins) != "[[1 80] [2 80] [3 80]]" {
		t.Errorf("run2's inserts %v, want 80/s at seconds 1-3", ins)
	}
}

// TestStatsChartsInBrowser: the MongoDB charts draw in headless Chromium,
// and the page makes no request.
func TestStatsChartsInBrowser(t *testing.T) {
	path, _ := renderMongo(t)
	dom, requests := dumpDOM(t, path)
	if len(requests) > 0 {
		t.Errorf("the report made requests: %q", requests)
	}
	ids := chartIDs(dom)
	if len(ids) != 20 {
		t.Fatalf("%d chart containers in the rendered page, want 20: %q", len(ids), ids)
	}
	for i, id := range ids {
		start := strings.Index(dom, `id="`+id+`"`)
		end := len(dom)
		if i+1 < len(ids) {
			end = strings.Index(dom, `id="`+ids[i+1]+`"`)
		}
		if part := dom[start:end]; !strings.Contains(part, "<svg") || strings.Count(part, "<path") < 5 {
			t.Errorf("chart %s did not draw: %d paths", id, strings.Count(part, "<path"))
		}
	}
}
