package runner

import (
	"context"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
)

// monitorTimeout bounds one read of the database's counters.
const monitorTimeout = 5 * time.Second

// monitor reads a workload's database counters on a connection of its own,
// from the collector goroutine only.
type monitor struct {
	cr    *workload.Counters
	c     engine.Conn
	names []string
	// last is the latest successful read; lastOK tells whether the
	// latest read succeeded. begin is the reading at the start of the
	// measured phase.
	last, cur, begin []int64
	lastOK, beginOK  bool
}

func newMonitor(cr *workload.Counters, c engine.Conn) *monitor {
	n := len(cr.Names)
	return &monitor{cr: cr, c: c, names: cr.Names,
		last: make([]int64, n), cur: make([]int64, n), begin: make([]int64, n)}
}

// read fills m.cur. A cancelled run still gets its last reading: the read
// outlives ctx by up to monitorTimeout.
func (m *monitor) read(ctx context.Context) bool {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), monitorTimeout)
	defer cancel()
	return m.cr.Read(rctx, m.c, m.cur) == nil
}

// start takes the first reading.
func (m *monitor) start(ctx context.Context) {
	m.lastOK = m.read(ctx)
	copy(m.last, m.cur)
}

// tick takes a reading and returns the deltas since the previous one, or
// nil when either read failed.
func (m *monitor) tick(ctx context.Context) []int64 {
	ok := m.read(ctx)
	var deltas []int64
	if ok && m.lastOK {
		deltas = make([]int64, len(m.cur))
		for i := range m.cur {
			deltas[i] = m.cur[i] - m.last[i]
		}
	}
	m.lastOK = ok
	if ok {
		copy(m.last, m.cur)
	}
	return deltas
}

// markMeasureStart records the latest reading as the start of the
// measured phase.
func (m *monitor) markMeasureStart() {
	m.beginOK = m.lastOK
	copy(m.begin, m.last)
}

// measured returns the counters over the measured phase and their deltas,
// or nothing when a reading at either end failed.
func (m *monitor) measured() ([]result.Counter, []int64) {
	if !m.beginOK || !m.lastOK {
		return nil, nil
	}
	out := make([]result.Counter, len(m.names))
	deltas := make([]int64, len(m.names))
	for i, name := range m.names {
		out[i] = result.Counter{Name: name, Start: m.begin[i], End: m.last[i]}
		deltas[i] = m.last[i] - m.begin[i]
	}
	return out, deltas
}

// metrics asks the workload's Run for its figures over a span.
func (r *run) metrics(iv *histogram.Interval, length time.Duration, counters []int64, final bool) []result.Metric {
	if r.report == nil {
		return nil
	}
	s := workload.Span{Length: length, Final: final, Counters: counters, Ops: make([]workload.OpSpan, len(r.ops))}
	for i, op := range r.ops {
		o := iv.Ops[i]
		s.Ops[i] = workload.OpSpan{Name: op.Name, Count: o.Hist.TotalCount(), Rollbacks: o.Counts.Rollbacks,
			Errors: o.Counts.Errors, Retries: o.Counts.Retries, Hist: o.Hist}
	}
	return r.report(s)
}
