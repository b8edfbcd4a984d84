package histogram

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Counts are the per-op counters of one interval.
type Counts struct {
	Errors  int64 // failed transactions that were not retried
	Retries int64 // failed transactions restarted (serialization, deadlock …)
	// Rollbacks are completed transactions the workload rolled back on
	// purpose; they are in the histogram too.
	Rollbacks int64
}

func (c *Counts) add(o Counts) {
	c.Errors += o.Errors
	c.Retries += o.Retries
	c.Rollbacks += o.Rollbacks
}

// Queries counts statements: reads, writes and other (BEGIN, COMMIT …).
type Queries struct {
	Reads, Writes, Other int64
}

// Add adds o to q.
func (q *Queries) Add(o Queries) {
	q.Reads += o.Reads
	q.Writes += o.Writes
	q.Other += o.Other
}

// Total is the number of statements.
func (q Queries) Total() int64 { return q.Reads + q.Writes + q.Other }

// Recorder is one worker's view: a histogram and counters per op for the
// current interval. The worker's goroutine records; the collector takes
// the interval with Collect. A mutex guards the swap; it is uncontended
// except for the instant of a tick.
type Recorder struct {
	mu         sync.Mutex
	cur, spare []*hdr.Histogram
	counts     []Counts
	queries    Queries
	reconnects int64
}

// NewRecorder returns a recorder for ops operations.
func NewRecorder(ops int) *Recorder {
	r := &Recorder{
		cur:    make([]*hdr.Histogram, ops),
		spare:  make([]*hdr.Histogram, ops),
		counts: make([]Counts, ops),
	}
	for i := range r.cur {
		r.cur[i] = New()
		r.spare[i] = New()
	}
	return r
}

// Success records one successful transaction of op that took d, and the
// statements it sent.
func (r *Recorder) Success(op int, d time.Duration, q Queries) {
	us := Micros(d)
	r.mu.Lock()
	_ = r.cur[op].RecordValue(us) // cannot fail: us is clamped to range
	r.queries.Add(q)
	r.mu.Unlock()
}

// Rollback records one transaction of op that the workload rolled back on
// purpose: it completed (its latency is recorded) and is counted apart.
func (r *Recorder) Rollback(op int, d time.Duration, q Queries) {
	us := Micros(d)
	r.mu.Lock()
	_ = r.cur[op].RecordValue(us)
	r.counts[op].Rollbacks++
	r.queries.Add(q)
	r.mu.Unlock()
}

// Failure records one failed transaction of op; retried says whether the
// runner restarts it. Statements sent before the failure are counted.
func (r *Recorder) Failure(op int, retried bool, q Queries) {
	r.mu.Lock()
	if retried {
		r.counts[op].Retries++
	} else {
		r.counts[op].Errors++
	}
	r.queries.Add(q)
	r.mu.Unlock()
}

// Reconnect records one reconnection after a lost connection.
func (r *Recorder) Reconnect() {
	r.mu.Lock()
	r.reconnects++
	r.mu.Unlock()
}

// Collect adds everything recorded since the last Collect into iv and
// starts a new interval. It is called by one collector goroutine only.
func (r *Recorder) Collect(iv *Interval) {
	r.mu.Lock()
	r.cur, r.spare = r.spare, r.cur
	for i := range r.counts {
		iv.Ops[i].Counts.add(r.counts[i])
		r.counts[i] = Counts{}
	}
	iv.Queries.Add(r.queries)
	r.queries = Queries{}
	iv.Reconnects += r.reconnects
	r.reconnects = 0
	r.mu.Unlock()
	// r.spare now holds the finished interval; merge it outside the lock.
	for i, h := range r.spare {
		if h.TotalCount() > 0 {
			iv.Ops[i].Hist.Merge(h)
			h.Reset()
		}
	}
}

// OpInterval is one op's share of an interval.
type OpInterval struct {
	Hist   *hdr.Histogram
	Counts Counts
}

// Interval is everything recorded by all workers between two ticks.
type Interval struct {
	Ops        []OpInterval
	Queries    Queries
	Reconnects int64
}

// NewInterval returns an empty interval for ops operations.
func NewInterval(ops int) *Interval {
	iv := &Interval{Ops: make([]OpInterval, ops)}
	for i := range iv.Ops {
		iv.Ops[i].Hist = New()
	}
	return iv
}

// Reset empties iv for reuse.
func (iv *Interval) Reset() {
	for i := range iv.Ops {
		iv.Ops[i].Hist.Reset()
		iv.Ops[i].Counts = Counts{}
	}
	iv.Queries = Queries{}
	iv.Reconnects = 0
}

// Merge adds o into iv.
func (iv *Interval) Merge(o *Interval) {
	for i := range iv.Ops {
		iv.Ops[i].Hist.Merge(o.Ops[i].Hist)
		iv.Ops[i].Counts.add(o.Ops[i].Counts)
	}
	iv.Queries.Add(o.Queries)
	iv.Reconnects += o.Reconnects
}

// Transactions is the number of successful transactions of all ops.
func (iv *Interval) Transactions() int64 {
	var n int64
	for _, o := range iv.Ops {
		n += o.Hist.TotalCount()
	}
	return n
}

// Errors is the number of failed, not retried transactions of all ops.
func (iv *Interval) Errors() int64 {
	var n int64
	for _, o := range iv.Ops {
		n += o.Counts.Errors
	}
	return n
}

// Retries is the number of restarted transactions of all ops.
func (iv *Interval) Retries() int64 {
	var n int64
	for _, o := range iv.Ops {
		n += o.Counts.Retries
	}
	return n
}

// Rollbacks is the number of transactions of all ops rolled back on
// purpose.
func (iv *Interval) Rollbacks() int64 {
	var n int64
	for _, o := range iv.Ops {
		n += o.Counts.Rollbacks
	}
	return n
}

// All merges every op's histogram into one new histogram.
func (iv *Interval) All() *hdr.Histogram {
	h := New()
	for _, o := range iv.Ops {
		h.Merge(o.Hist)
	}
	return h
}
