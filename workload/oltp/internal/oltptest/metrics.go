package oltptest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/workload"
)

// CheckMetrics checks that w's Spec.Metrics name exactly the figures its
// Run's Metrics report, in order, for a Final span of a minute in which
// every op completed one transaction (and, with Spec.Counters, every
// counter's delta is 0). It opens the run with env and needs no server.
func CheckMetrics(t *testing.T, w workload.Workload, env workload.RunEnv) {
	t.Helper()
	spec := w.Define()
	run, err := w.Open(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	if run.Close != nil {
		defer run.Close()
	}
	s := workload.Span{Length: time.Minute, Final: true}
	for _, op := range spec.Ops {
		h := histogram.New()
		h.RecordValue(1000)
		s.Ops = append(s.Ops, workload.OpSpan{Name: op.Name, Count: 1, Hist: h})
	}
	if spec.Counters != nil {
		s.Counters = make([]int64, len(spec.Counters.Names))
	}
	var got []string
	if run.Metrics != nil {
		for _, m := range run.Metrics(s) {
			got = append(got, m.Name)
		}
	}
	if !slices.Equal(got, spec.Metrics) {
		t.Errorf("Run.Metrics reports %q, Spec.Metrics names %q", got, spec.Metrics)
	}
}
