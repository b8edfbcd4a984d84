package histogram

import (
	"sync"
	"sync/atomic"
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

// frameValues is how many latencies a Frame keeps before it moves them
// into per-op histograms: a worker that records fewer per interval (every
// worker of a run with a thousand of them) never allocates one.
const frameValues = 1024

// Frame is what one worker recorded between two ticks: its latencies (in a
// small buffer first, in a lazily allocated histogram per op once the
// buffer fills), counters and statements. Recorder.Swap hands it to the
// collector, Interval.Add empties it into an interval, Recorder.Recycle
// gives it back.
type Frame struct {
	// vals holds op<<48 | µs of the latencies not yet in hists.
	vals       []uint64
	hists      []*hdr.Histogram // per op; nil until vals first overflows
	counts     []Counts
	queries    Queries
	reconnects int64
}

func newFrame(ops int) *Frame {
	return &Frame{vals: make([]uint64, 0, frameValues), hists: make([]*hdr.Histogram, ops), counts: make([]Counts, ops)}
}

// record adds one latency of op (µs).
func (f *Frame) record(op int, us int64) {
	if len(f.vals) == cap(f.vals) {
		f.spill()
	}
	f.vals = append(f.vals, uint64(op)<<48|uint64(us))
}

// spill moves the buffered latencies into the per-op histograms.
func (f *Frame) spill() {
	for _, v := range f.vals {
		op := int(v >> 48)
		if f.hists[op] == nil {
			f.hists[op] = New()
		}
		_ = f.hists[op].RecordValue(int64(v & (1<<48 - 1)))
	}
	f.vals = f.vals[:0]
}

// Recorder is one worker's view: what it recorded since the last tick (a
// Frame) and the start of the transaction it runs. The worker's goroutine
// records; the collector takes the frame with Swap, which only exchanges
// pointers, so a tick costs the same whatever each worker recorded. A
// mutex guards the swap; it is uncontended except for the instant of a
// tick.
type Recorder struct {
	mu         sync.Mutex
	cur, spare *Frame
	ops        int
	// started is the start (Unix ns) of the transaction in flight, 0
	// between transactions.
	started atomic.Int64
}

// NewRecorder returns a recorder for ops operations.
func NewRecorder(ops int) *Recorder {
	return &Recorder{cur: newFrame(ops), spare: newFrame(ops), ops: ops}
}

// Begin marks the start of a transaction: until Success, Rollback,
// Failure or Lost, it is in flight (Swap tells since when).
func (r *Recorder) Begin(at time.Time) { r.started.Store(at.UnixNano()) }

// Success records one successful transaction of op that took d, and the
// statements it sent.
func (r *Recorder) Success(op int, d time.Duration, q Queries) {
	us := Micros(d)
	r.mu.Lock()
	r.cur.record(op, us)
	r.cur.queries.Add(q)
	r.started.Store(0)
	r.mu.Unlock()
}

// Rollback records one transaction of op that the workload rolled back on
// purpose: it completed (its latency is recorded) and is counted apart.
func (r *Recorder) Rollback(op int, d time.Duration, q Queries) {
	us := Micros(d)
	r.mu.Lock()
	r.cur.record(op, us)
	r.cur.counts[op].Rollbacks++
	r.cur.queries.Add(q)
	r.started.Store(0)
	r.mu.Unlock()
}

// Failure records one failed transaction of op; retried says whether the
// runner restarts it. Statements sent before the failure are counted.
func (r *Recorder) Failure(op int, retried bool, q Queries) {
	r.mu.Lock()
	if retried {
		r.cur.counts[op].Retries++
	} else {
		r.cur.counts[op].Errors++
	}
	r.cur.queries.Add(q)
	r.started.Store(0)
	r.mu.Unlock()
}

// Lost records a transaction that ended with its connection: it is
// neither a success nor an error (Reconnect counts the replacement);
// the statements it sent are counted.
func (r *Recorder) Lost(q Queries) {
	r.mu.Lock()
	r.cur.queries.Add(q)
	r.started.Store(0)
	r.mu.Unlock()
}

// Reconnect records one reconnection after a lost connection.
func (r *Recorder) Reconnect() {
	r.mu.Lock()
	r.cur.reconnects++
	r.mu.Unlock()
}

// Swap ends the worker's interval: it returns everything recorded since
// the last Swap and the start of the transaction in flight (the zero
// time when there is none), and starts a new frame. It only exchanges
// pointers (a new frame is allocated only when the previous one was not
// recycled yet). It is called by one collector goroutine only.
func (r *Recorder) Swap() (*Frame, time.Time) {
	r.mu.Lock()
	f := r.cur
	if r.spare != nil {
		r.cur, r.spare = r.spare, nil
	} else {
		r.cur = newFrame(r.ops)
	}
	started := r.started.Load()
	r.mu.Unlock()
	var at time.Time
	if started != 0 {
		at = time.Unix(0, started)
	}
	return f, at
}

// Recycle gives back a frame Swap returned, once Interval.Add emptied it,
// for a later Swap to reuse.
func (r *Recorder) Recycle(f *Frame) {
	r.mu.Lock()
	if r.spare == nil {
		r.spare = f
	}
	r.mu.Unlock()
}

// Collect adds everything recorded since the last Collect (or Swap) into
// iv and starts a new interval: Swap, Interval.Add and Recycle at once.
func (r *Recorder) Collect(iv *Interval) {
	f, _ := r.Swap()
	iv.Add(f)
	r.Recycle(f)
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

// Add empties a worker's frame into iv. Its cost is that of the values the
// frame holds (and of the histograms of the workers that filled their
// buffers), never of the number of workers that recorded nothing.
func (iv *Interval) Add(f *Frame) {
	for _, v := range f.vals {
		_ = iv.Ops[v>>48].Hist.RecordValue(int64(v & (1<<48 - 1)))
	}
	f.vals = f.vals[:0]
	for i, h := range f.hists {
		if h != nil && h.TotalCount() > 0 {
			iv.Ops[i].Hist.Merge(h)
			h.Reset()
		}
	}
	for i := range f.counts {
		iv.Ops[i].Counts.add(f.counts[i])
		f.counts[i] = Counts{}
	}
	iv.Queries.Add(f.queries)
	f.queries = Queries{}
	iv.Reconnects += f.reconnects
	f.reconnects = 0
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
