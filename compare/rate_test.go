package compare_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/compare"
	"github.com/dbarena/dbarena/result"
)

// rated is a result file of runs of the open model at 8 threads, one per
// (arrival rate, p99 from the intended start) pair.
func rated(label string, p99 map[float64]float64) *result.File {
	f := file(label, nil)
	for _, r := range []float64{100, 200, 400} {
		if v, ok := p99[r]; ok {
			run := result.Run{Threads: 8, DurationS: 60, TPS: r, Status: result.StatusComplete,
				Open: &result.Open{Arrival: "poisson", RateTPS: r}, OfferedTPS: r}
			run.LatencyMS.P99 = v
			f.Runs = append(f.Runs, run)
		}
	}
	return f
}

// Runs of an arrival rate are compared rate by rate: the rows are the
// rates (latency against offered load), named by their rate.
func TestRowsByRate(t *testing.T) {
	tb := build(t, compare.Options{Metric: "p99"},
		in("A", rated("A", map[float64]float64{400: 9, 100: 2, 200: 4})),
		in("B", rated("B", map[float64]float64{100: 3, 200: 6, 400: 30})))
	var rates []float64
	for _, r := range tb.Rows {
		rates = append(rates, r.Rate)
	}
	if !slices.Equal(rates, []float64{100, 200, 400}) {
		t.Fatalf("rows at rates %v, want 100, 200, 400", rates)
	}
	if c := tb.Rows[2].Cells; c[0].Center != 9 || c[1].Center != 30 {
		t.Errorf("at 400/s: %v and %v, want 9 and 30", c[0].Center, c[1].Center)
	}
	if h := tb.Header(); h[0] != "rate" {
		t.Errorf("header %v, want the rate first", h)
	}
	var labels []string
	for _, row := range tb.Cells() {
		labels = append(labels, row[0])
	}
	if want := []string{"100/s", "200/s", "400/s", "average (change of means)"}; !slices.Equal(labels, want) {
		t.Errorf("rows named %v, want %v", labels, want)
	}
	// The CSV names each line's rate next to its threads.
	var csv strings.Builder
	if err := compare.WriteCSV(&csv, []*compare.Table{tb}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(csv.String(), "\n")
	if !strings.HasPrefix(lines[0], "workload,metric,unit,op,threads,rate_tps,label,") || !strings.Contains(lines[1], ",8,100,A,") {
		t.Errorf("CSV:\n%s", csv.String())
	}
}
