package threshold

import (
	"fmt"
	"slices"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/runner"
)

// AbortError is the error of a run stopped because a threshold could no
// longer hold (--abort-on-fail). It wraps ErrFailed.
type AbortError struct {
	Expr     string
	Observed float64
	// At is the elapsed time of the interval the threshold broke in.
	At string
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("stopped early: threshold %s can no longer hold (%s at %s)", e.Expr, formatValue(e.Observed), e.At)
}

// Unwrap returns ErrFailed.
func (e *AbortError) Unwrap() error { return ErrFailed }

// Abortable tells whether a threshold can be known to fail before the
// end of a run: an upper bound (< or <=) on a count of the run that only
// grows (transactions, queries, reads, writes, other, errors, retries,
// rollbacks, reconnects; not as a percentage) or on the max latency,
// whose measured value so far can only rise.
func (t Threshold) Abortable() bool {
	if t.workload || t.Percent || t.pct > 0 || (t.Cmp != "<" && t.Cmp != "<=") {
		return false
	}
	switch t.Metric {
	case "transactions", "errors", "retries", "rollbacks", "max":
		return true
	case "reconnects", "queries", "reads", "writes", "other":
		return t.Op == ""
	}
	return false
}

// Watch is a runner.Observer that adds up the measured intervals and, as
// soon as an abortable threshold is crossed, fails the run through
// Tick.Abort with an *AbortError, after passing the tick on to Next.
// It is used for one run; NewWatch makes it.
type Watch struct {
	Next runner.Observer
	ts   []Threshold
	// so far, over the measured intervals
	transactions, errors, retries, rollbacks, reconnects int64
	reads, writes, other                                 int64
	opCounts                                             []histogram.Counts
	opTransactions                                       []int64
	maxMS                                                float64
	opMaxMS                                              []float64
	ops                                                  []string
	done                                                 bool
}

// NewWatch watches the abortable thresholds of ts; nil when there is
// none, and the run needs no watching.
func NewWatch(ts []Threshold, next runner.Observer) *Watch {
	var mine []Threshold
	for _, t := range ts {
		if t.Abortable() {
			mine = append(mine, t)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	return &Watch{Next: next, ts: mine}
}

var _ runner.Observer = (*Watch)(nil)

// OnTick passes t on, then adds its measured figures and aborts the run
// when a threshold broke.
func (w *Watch) OnTick(t runner.Tick) {
	if w.Next != nil {
		w.Next.OnTick(t)
	}
	if t.Warmup || w.done || t.Interval == nil {
		return
	}
	iv := t.Interval
	if w.ops == nil {
		for _, o := range t.Ops {
			w.ops = append(w.ops, o.Name)
		}
		w.opCounts = make([]histogram.Counts, len(iv.Ops))
		w.opTransactions = make([]int64, len(iv.Ops))
		w.opMaxMS = make([]float64, len(iv.Ops))
	}
	w.transactions += iv.Transactions()
	w.reads += iv.Queries.Reads
	w.writes += iv.Queries.Writes
	w.other += iv.Queries.Other
	w.errors += iv.Errors()
	w.retries += iv.Retries()
	w.rollbacks += iv.Rollbacks()
	w.reconnects += iv.Reconnects
	for i := range iv.Ops {
		if i >= len(w.opCounts) {
			break
		}
		c := iv.Ops[i].Counts
		w.opTransactions[i] += iv.Ops[i].Hist.TotalCount()
		w.opCounts[i].Errors += c.Errors
		w.opCounts[i].Retries += c.Retries
		w.opCounts[i].Rollbacks += c.Rollbacks
		if h := iv.Ops[i].Hist; h.TotalCount() > 0 {
			m := float64(h.Max()) / 1000
			w.opMaxMS[i] = max(w.opMaxMS[i], m)
			w.maxMS = max(w.maxMS, m)
		}
	}
	for _, th := range w.ts {
		v, ok := w.value(th)
		if ok && !th.Holds(v) {
			w.done = true
			if t.Abort != nil {
				t.Abort(&AbortError{Expr: th.Expr, Observed: v, At: fmt.Sprintf("%.3gs", t.Elapsed.Seconds())})
			}
			return
		}
	}
}

// value is a watched threshold's metric so far.
func (w *Watch) value(t Threshold) (float64, bool) {
	if t.Op == "" {
		switch t.Metric {
		case "transactions":
			return float64(w.transactions), true
		case "queries":
			return float64(w.reads + w.writes + w.other), true
		case "reads":
			return float64(w.reads), true
		case "writes":
			return float64(w.writes), true
		case "other":
			return float64(w.other), true
		case "errors":
			return float64(w.errors), true
		case "retries":
			return float64(w.retries), true
		case "rollbacks":
			return float64(w.rollbacks), true
		case "reconnects":
			return float64(w.reconnects), true
		case "max":
			return w.maxMS, true
		}
		return 0, false
	}
	k := slices.Index(w.ops, t.Op)
	if k < 0 || k >= len(w.opCounts) {
		return 0, false
	}
	switch t.Metric {
	case "transactions":
		return float64(w.opTransactions[k]), true
	case "errors":
		return float64(w.opCounts[k].Errors), true
	case "retries":
		return float64(w.opCounts[k].Retries), true
	case "rollbacks":
		return float64(w.opCounts[k].Rollbacks), true
	case "max":
		return w.opMaxMS[k], true
	}
	return 0, false
}
