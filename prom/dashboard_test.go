package prom_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/prom"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/sysmon"
	"github.com/dbarena/dbarena/workload"
)

// The Grafana dashboard in examples/ is valid JSON, and every metric its
// panels and variables query is one the exporter serves (or one of
// sysmon's server metrics) with the labels it filters on.
func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile("../examples/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("not valid JSON: %v", err)
	}
	e, err := prom.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Begin(prom.Labels{Target: "pg", Workload: "tpcc", Run: "threads=1"}, 1)
	e.SetRate(10)
	srv := sysmon.Interval{}
	for _, m := range sysmon.Metrics() {
		srv[m.Name] = 1
	}
	e.OnTick(runner.Tick{Threads: 1, Elapsed: time.Second, Length: time.Second, Ops: []workload.Op{{Name: "new_order"}, {Name: "payment"}},
		Interval: interval([]int64{100}, []int64{100}, 1), Server: srv, Metrics: []result.Metric{{Name: "NOPM", Value: 1}}})
	served := scrape(t, e.Addr())
	name := regexp.MustCompile(`dbarena_[a-z0-9_]+`)
	n := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, q := range p.Targets {
			for _, m := range name.FindAllString(q.Expr, -1) {
				base := strings.TrimSuffix(m, "_bucket")
				if served[base] == nil {
					t.Errorf("panel %q queries %s, which is not served", p.Title, m)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Error("the dashboard queries no dbarena metric")
	}
}
