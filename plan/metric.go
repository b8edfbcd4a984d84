package plan

import (
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/workload"
)

// workloadMetrics names the figures wl reports of its own (NOPM, tpmC,
// transfers/min …) with its options as set: the names its Reporter gives
// for a whole measured phase in which every op ran once and every counter
// was read. Nil when wl reports none.
func workloadMetrics(wl workload.Workload) []string {
	rep, ok := wl.(workload.Reporter)
	if !ok {
		return nil
	}
	s := workload.Span{Length: time.Minute, Final: true}
	for _, op := range wl.Ops() {
		h := histogram.New()
		h.RecordValue(1000)
		s.Ops = append(s.Ops, workload.OpSpan{Name: op.Name, Count: 1, Hist: h})
	}
	if cr, ok := wl.(workload.CounterReader); ok {
		s.Counters = make([]int64, len(cr.Counters()))
	}
	var names []string
	for _, m := range rep.Metrics(s) {
		names = append(names, m.Name)
	}
	return names
}
