package metric_test

import (
	"slices"
	"testing"

	"github.com/dbarena/dbarena/metric"
	"github.com/dbarena/dbarena/result"
)

// server is the server metrics this test registers, as sysmon does in
// the binary; listed is how often the registry asked for them.
var (
	server = []metric.ServerMetric{
		{Name: "server_cpu_pct", Unit: "%", Help: "CPU"},
		{Name: "xx_commits", Unit: "count", Help: "commits", Summed: true},
		{Name: "xx_cache_hit_pct", Unit: "%", Help: "hits"},
	}
	listed int
)

func init() {
	metric.RegisterServerMetrics(func() []metric.ServerMetric {
		listed++
		return slices.Clone(server)
	})
}

// The run's own figures come first, then the registered server metrics
// in their order: lower is better but for hit ratios, a summed one counts
// events.
func TestRunMetricsEndWithTheServers(t *testing.T) {
	before := listed
	all := metric.RunMetrics()
	if listed == before {
		t.Error("RunMetrics did not ask the registered list")
	}
	if len(all) < len(server)+20 || all[0].Name != "duration_s" {
		t.Fatalf("RunMetrics: %d metrics, the first %q", len(all), all[0].Name)
	}
	tail := all[len(all)-len(server):]
	for i, m := range tail {
		want := server[i]
		if m.Name != want.Name || m.Column != want.Name || m.Unit != want.Unit || m.Help != want.Help || !m.Server || m.Count != want.Summed || m.Higher != (want.Name == "xx_cache_hit_pct") {
			t.Errorf("server metric %d = %+v, want it from %+v", i, m, want)
		}
	}
	for _, m := range all[:len(all)-len(server)] {
		if m.Server || m.Value == nil {
			t.Errorf("run metric %s: Server %v, Value %v", m.Name, m.Server, m.Value != nil)
		}
	}
}

func TestLookupRunMetric(t *testing.T) {
	for name, want := range map[string]string{
		"tps": "tps", " P99 ": "p99", "p99_ms": "p99", "cpu": "client_cpu_per_txn_us", "p99.9": "p999",
		"avg": "mean", "XX_COMMITS": "xx_commits",
	} {
		if m, ok := metric.LookupRunMetric(name); !ok || m.Name != want {
			t.Errorf("LookupRunMetric(%q) = %q %v, want %q", name, m.Name, ok, want)
		}
	}
	run := &result.Run{TPS: 7, Server: map[string]float64{metric.IntervalKey: 1, "newer_metric_s": 3}}
	if _, ok := metric.LookupRunMetric("nope", run); ok {
		t.Error("an unknown name is found")
	}
	if _, ok := metric.LookupRunMetric(metric.IntervalKey, run); ok {
		t.Errorf("%s is found: it is no metric", metric.IntervalKey)
	}
	m, ok := metric.LookupRunMetric("newer_metric_s", run)
	if !ok || !m.Server {
		t.Fatalf("a server metric only a run has: %+v %v", m, ok)
	}
	if v, ok := m.Value(run); !ok || v != 3 {
		t.Errorf("its value = %v %v, want 3", v, ok)
	}
	if m, _ := metric.LookupRunMetric("tps"); m.Unit != "/s" || !m.Higher {
		t.Errorf("tps: %+v", m)
	} else if v, ok := m.Value(run); !ok || v != 7 {
		t.Errorf("tps of the run = %v %v", v, ok)
	}
}

// ServerColumns: the server metrics the runs have, in the registered
// order, then the unknown ones sorted; never the interval.
func TestServerColumns(t *testing.T) {
	runs := []*result.Run{
		{Server: map[string]float64{"xx_cache_hit_pct": 99, metric.IntervalKey: 1, "zz_s": 1}},
		{Server: map[string]float64{"server_cpu_pct": 50, "aa_s": 2}},
	}
	var got []string
	for _, m := range metric.ServerColumns(runs) {
		got = append(got, m.Name)
	}
	if want := []string{"server_cpu_pct", "xx_cache_hit_pct", "aa_s", "zz_s"}; !slices.Equal(got, want) {
		t.Errorf("ServerColumns = %q, want %q", got, want)
	}
}

func TestRegisterServerMetricsOnce(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second registration did not panic")
		}
	}()
	metric.RegisterServerMetrics(func() []metric.ServerMetric { return nil })
}
