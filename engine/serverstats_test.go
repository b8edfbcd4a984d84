package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/engine"
)

// The engines whose servers tell statistics register them; the others do
// not.
func TestServerStatsRegistered(t *testing.T) {
	for name, want := range map[string]bool{"postgres": true, "mysql": true, "sqlite": false, "mongodb": true} {
		r, ok := engine.Lookup(name)
		if !ok {
			t.Fatalf("no engine %s", name)
		}
		if got := r.ServerStats != nil && len(r.ServerStats.Metrics) > 0; got != want {
			t.Errorf("%s: server statistics %v, want %v", name, got, want)
		}
	}
}

// An incomplete ServerStats is a programming error: Register panics,
// naming what is wrong.
func TestRegisterBadServerStats(t *testing.T) {
	open := func(context.Context, engine.Conn) engine.ServerStatsOpening { return engine.ServerStatsOpening{} }
	rate := engine.StatsMetric{Name: "x_s", Unit: "/s", Help: "x", Kind: engine.MetricRate, Counters: []string{"x"}}
	for _, tc := range []struct {
		name  string
		stats engine.ServerStats
		want  string
	}{
		{"no open", engine.ServerStats{}, "ServerStats without Open"},
		{"no help", engine.ServerStats{Open: open, Metrics: []engine.StatsMetric{{Name: "x_s", Unit: "/s", Kind: engine.MetricRate, Counters: []string{"x"}}}}, "Name, Unit and Help are required"},
		{"twice", engine.ServerStats{Open: open, Metrics: []engine.StatsMetric{rate, rate}}, "metric listed twice: x_s"},
		{"no kind", engine.ServerStats{Open: open, Metrics: []engine.StatsMetric{{Name: "x_s", Unit: "/s", Help: "x", Counters: []string{"x"}}}}, "unknown kind 0"},
		{"hit without parts", engine.ServerStats{Open: open, Metrics: []engine.StatsMetric{{Name: "x_pct", Unit: "%", Help: "x", Kind: engine.MetricHitPct, Counters: []string{"h", "m"}}}}, "a hit percentage needs"},
		{"count's unit", engine.ServerStats{Open: open, Metrics: []engine.StatsMetric{{Name: "x", Unit: "/s", Help: "x", Kind: engine.MetricCount, Counters: []string{"x"}}}}, `a count's unit is "count"`},
		{"chart without label", engine.ServerStats{Open: open, Metrics: []engine.StatsMetric{{Name: "x_s", Unit: "/s", Help: "x", Kind: engine.MetricRate, Counters: []string{"x"}, Chart: "X"}}}, "a place in a chart needs a ChartLabel"},
		{"chart of two units", engine.ServerStats{Open: open, Metrics: []engine.StatsMetric{
			{Name: "x_s", Unit: "/s", Help: "x", Kind: engine.MetricRate, Counters: []string{"x"}, Chart: "X", ChartLabel: "x"},
			{Name: "y_mb", Unit: "MB", Help: "y", Kind: engine.MetricGauge, Counters: []string{"y"}, Chart: "X", ChartLabel: "y"}}}, `chart "X" draws /s, not MB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, tc.want) {
					t.Errorf("panic %q, want one with %q", msg, tc.want)
				}
			}()
			stats := tc.stats
			engine.Register(engine.Registration{Name: "bad_" + strings.ReplaceAll(tc.name, " ", "_"), Family: engine.FamilySQL,
				Open: func(context.Context, engine.Target, engine.Options) (engine.Engine, error) { return nil, nil }, ServerStats: &stats})
		})
	}
}
