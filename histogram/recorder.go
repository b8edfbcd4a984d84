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
	// Late are transactions run under an arrival rate that started later
	// than their intended start by more than the runner's tolerance
	// (Recorder.Open); they are in the histograms too.
	Late int64
}

func (c *Counts) add(o Counts) {
	c.Errors += o.Errors
	c.Retries += o.Retries
	c.Rollbacks += o.Rollbacks
	c.Late += o.Late
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

// Frame is what one worker recorded in one interval: its latencies (in a
// small buffer first, in a lazily allocated histogram per op once the
// buffer fills), counters and statements. Recorder.Take hands it to the
// collector, Interval.Add empties it into an interval, Recorder.Recycle
// gives it back. Under an arrival rate it also holds each transaction's
// service time and start lag (series of their own, empty in the closed
// model) and the arrivals skipped and dropped.
type Frame struct {
	// epoch is the interval the frame records.
	epoch int64
	// lat holds the latencies; svc and lag the service times and start
	// lags of transactions run under an arrival rate.
	lat, svc, lag series
	counts        []Counts
	queries       Queries
	reconnects    int64
	// skipped and dropped count arrivals that never started (Missed).
	skipped, dropped int64
	// steps are the ops' steps (EnableSteps), nil until the first.
	steps *stepFrame
}

// series is one kind of value a frame records per op: op<<48 | µs in a
// buffer, moved into per-op histograms (allocated lazily) once a worker
// records more than the buffer holds in one interval.
type series struct {
	vals  []uint64
	hists []*hdr.Histogram // per op; each nil until vals first overflows
	// limit is how many values vals grows to before they spill into
	// hists; 0 means frameValues.
	limit int
}

// newFrame returns an empty frame; its buffers are allocated by the first
// recording into them.
func newFrame(ops int) *Frame {
	return &Frame{lat: newSeries(ops), svc: newSeries(ops), lag: newSeries(ops), counts: make([]Counts, ops)}
}

// newSeries returns an empty series of ops ops.
func newSeries(ops int) series { return series{hists: make([]*hdr.Histogram, ops)} }

// record adds one value of op (µs): straight into op's histogram once
// the series has one (a worker that records many per interval), into the
// buffer until then.
func (s *series) record(op int, us int64) {
	if h := s.hists[op]; h != nil {
		_ = h.RecordValue(us) // cannot fail: us is clamped to range
		return
	}
	if len(s.vals) == cap(s.vals) {
		switch {
		case s.vals == nil:
			s.vals = make([]uint64, 0, frameValues)
		case cap(s.vals) < s.limit:
			s.vals = append(make([]uint64, 0, min(2*cap(s.vals), s.limit)), s.vals...)
		default:
			s.spill()
		}
	}
	s.vals = append(s.vals, uint64(op)<<48|uint64(us))
}

// spill moves the buffered values into the per-op histograms.
func (s *series) spill() {
	for _, v := range s.vals {
		op := int(v >> 48)
		if s.hists[op] == nil {
			s.hists[op] = New()
		}
		_ = s.hists[op].RecordValue(int64(v & (1<<48 - 1)))
	}
	s.vals = s.vals[:0]
}

// empty tells whether the series holds no value.
func (s *series) empty() bool {
	if len(s.vals) > 0 {
		return false
	}
	for _, h := range s.hists {
		if h != nil && h.TotalCount() > 0 {
			return false
		}
	}
	return true
}

// drain empties the series into the per-op histograms get returns.
func (s *series) drain(get func(op int) *hdr.Histogram) {
	for _, v := range s.vals {
		_ = get(int(v >> 48)).RecordValue(int64(v & (1<<48 - 1)))
	}
	s.vals = s.vals[:0]
	for i, h := range s.hists {
		if h != nil && h.TotalCount() > 0 {
			get(i).Merge(h)
			h.Reset()
		}
	}
}

// Recorder is one worker's view: what it recorded in the current interval
// (a Frame).
//
// Intervals are numbered by an epoch that the run shares among its
// recorders and advances at each interval's end: advancing it is all a
// tick does on its critical path, whatever the number of workers. A
// recording goes into the worker's frame of the current epoch: the worker
// itself turns to a new frame when it sees that the epoch advanced, so
// what it recorded is in the interval it happened in, however late the
// collector gets to it. Take hands the collector a worker's frame of one
// epoch, turning the frame of a worker that has not recorded since. A
// mutex, uncontended but for the instant of a Take, guards the frames.
type Recorder struct {
	mu    sync.Mutex
	cur   *Frame
	done  []*Frame // frames turned, in epoch order, not taken yet
	free  []*Frame // frames recycled
	epoch *atomic.Int64
	ops   int
	// steps, set by EnableSteps, wait for the transaction's outcome.
	steps  *Steps
	nsteps int
}

// NewRecorder returns a recorder for ops operations with an epoch of its
// own (Collect advances it).
func NewRecorder(ops int) *Recorder { return NewRecorderOn(ops, new(atomic.Int64)) }

// NewRecorderOn returns a recorder for ops operations whose intervals are
// numbered by epoch, which the caller advances (one epoch shared by the
// recorders of a run).
func NewRecorderOn(ops int, epoch *atomic.Int64) *Recorder {
	r := &Recorder{ops: ops, epoch: epoch, cur: newFrame(ops)}
	r.cur.epoch = epoch.Load()
	return r
}

// frame returns the frame of the current epoch. r.mu is held.
func (r *Recorder) frame() *Frame {
	if e := r.epoch.Load(); r.cur.epoch < e {
		r.turn(e)
	}
	return r.cur
}

// turn replaces the current frame by one of epoch e; the old one waits in
// done to be taken. r.mu is held.
func (r *Recorder) turn(e int64) {
	var n *Frame
	if k := len(r.free); k > 0 {
		n, r.free = r.free[k-1], r.free[:k-1]
	} else {
		n = newFrame(r.ops)
	}
	n.epoch = e
	r.done = append(r.done, r.cur)
	r.cur = n
}

// Success records one successful transaction of op that took d, and the
// statements it sent.
func (r *Recorder) Success(op int, d time.Duration, q Queries) {
	us := Micros(d)
	r.mu.Lock()
	f := r.frame()
	f.lat.record(op, us)
	f.queries.Add(q)
	r.takeSteps(f, false)
	r.mu.Unlock()
}

// Rollback records one transaction of op that the workload rolled back on
// purpose: it completed (its latency is recorded) and is counted apart.
func (r *Recorder) Rollback(op int, d time.Duration, q Queries) {
	us := Micros(d)
	r.mu.Lock()
	f := r.frame()
	f.lat.record(op, us)
	f.counts[op].Rollbacks++
	f.queries.Add(q)
	r.takeSteps(f, false)
	r.mu.Unlock()
}

// Arrival is how one transaction run under an arrival rate went: its
// latency from the intended start (what the latency histogram records),
// its service time from the actual start, the lag between the two, and
// whether it started late or was rolled back on purpose.
type Arrival struct {
	Latency, Service, Lag time.Duration
	Late, Rollback        bool
}

// Open records one transaction of op that ran under an arrival rate and
// ended well: a success, or a rollback when a.Rollback. Its latency goes
// where Success puts it; its service time and lag into series of their
// own.
func (r *Recorder) Open(op int, a Arrival, q Queries) {
	lat, svc, lag := Micros(a.Latency), Micros(a.Service), Micros(a.Lag)
	r.mu.Lock()
	f := r.frame()
	f.lat.record(op, lat)
	f.svc.record(op, svc)
	f.lag.record(op, lag)
	if a.Rollback {
		f.counts[op].Rollbacks++
	}
	if a.Late {
		f.counts[op].Late++
	}
	f.queries.Add(q)
	r.takeSteps(f, false)
	r.mu.Unlock()
}

// Missed records arrivals that never started: skipped (too late to start
// within the latency limit) and dropped (past the queue's bound, or still
// waiting when the run ended). They belong to no op: the workload picks
// a transaction's op when it runs it.
func (r *Recorder) Missed(skipped, dropped int64) {
	r.mu.Lock()
	f := r.frame()
	f.skipped += skipped
	f.dropped += dropped
	r.mu.Unlock()
}

// Failure records one failed transaction of op; retried says whether the
// runner restarts it. Statements sent before the failure are counted.
func (r *Recorder) Failure(op int, retried bool, q Queries) {
	r.mu.Lock()
	f := r.frame()
	if retried {
		f.counts[op].Retries++
	} else {
		f.counts[op].Errors++
	}
	f.queries.Add(q)
	r.takeSteps(f, retried)
	r.mu.Unlock()
}

// Lost records a transaction that ended with its connection: it is
// neither a success nor an error (Reconnect counts the replacement);
// the statements it sent are counted.
func (r *Recorder) Lost(q Queries) {
	r.mu.Lock()
	f := r.frame()
	f.queries.Add(q)
	r.takeSteps(f, false)
	r.mu.Unlock()
}

// Reconnect records one reconnection after a lost connection.
func (r *Recorder) Reconnect() {
	r.mu.Lock()
	r.frame().reconnects++
	r.mu.Unlock()
}

// Take returns the worker's frame of epoch k (nil when the worker
// recorded nothing in it), once the epoch has advanced past k. A worker
// that has not recorded since the epoch advanced has its frame turned
// here. It is called by one collector goroutine at a time, for each epoch
// once; it waits only for a recording in progress.
func (r *Recorder) Take(k int64) *Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur.epoch <= k {
		r.turn(max(r.epoch.Load(), k+1))
	}
	for i, f := range r.done {
		if f.epoch == k {
			r.done = append(r.done[:i], r.done[i+1:]...)
			return f
		}
	}
	return nil
}

// Recycle gives back a frame Take returned, once Interval.Add emptied it,
// for the worker to reuse.
func (r *Recorder) Recycle(f *Frame) {
	if f == nil {
		return
	}
	r.mu.Lock()
	if len(r.free) < 2 {
		r.free = append(r.free, f)
	}
	r.mu.Unlock()
}

// Collect adds everything recorded since the last Collect into iv and
// starts a new interval: it advances the recorder's epoch, then Take,
// Interval.Add and Recycle. It is for a recorder with an epoch of its own
// (NewRecorder).
func (r *Recorder) Collect(iv *Interval) {
	k := r.epoch.Add(1) - 1
	if f := r.Take(k); f != nil {
		iv.Add(f)
		r.Recycle(f)
	}
}

// OpInterval is one op's share of an interval. Service and Lag, the
// service times and start lags of transactions run under an arrival
// rate, are nil until the interval holds such a transaction.
type OpInterval struct {
	Hist         *hdr.Histogram
	Service, Lag *hdr.Histogram
	Counts       Counts
}

// Interval is everything recorded by all workers between two ticks.
type Interval struct {
	Ops []OpInterval
	// Steps are the ops' steps (Recorder.EnableSteps), in the order of
	// the ops and of their steps; empty until a frame with steps is
	// added.
	Steps      []StepInterval
	Queries    Queries
	Reconnects int64
	// Skipped and Dropped count arrivals that never started.
	Skipped, Dropped int64
}

// service and lag return op's histograms, allocated on first use.
func (iv *Interval) service(op int) *hdr.Histogram {
	if iv.Ops[op].Service == nil {
		iv.Ops[op].Service = New()
	}
	return iv.Ops[op].Service
}

func (iv *Interval) lag(op int) *hdr.Histogram {
	if iv.Ops[op].Lag == nil {
		iv.Ops[op].Lag = New()
	}
	return iv.Ops[op].Lag
}

// Open tells whether iv holds transactions run under an arrival rate (or
// arrivals that never started).
func (iv *Interval) Open() bool {
	for _, o := range iv.Ops {
		if o.Service != nil {
			return true
		}
	}
	return iv.Skipped > 0 || iv.Dropped > 0
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
		o := &iv.Ops[i]
		o.Hist.Reset()
		if o.Service != nil {
			o.Service.Reset()
			o.Lag.Reset()
		}
		o.Counts = Counts{}
	}
	iv.Queries = Queries{}
	iv.Reconnects = 0
	iv.Skipped, iv.Dropped = 0, 0
	iv.resetSteps()
}

// Add empties a worker's frame into iv. Its cost is that of the values the
// frame holds (and of the histograms of the workers that filled their
// buffers), never of the number of workers that recorded nothing.
func (iv *Interval) Add(f *Frame) {
	// The latencies straight into the ops' histograms, as the closed
	// model needs nothing else.
	for _, v := range f.lat.vals {
		_ = iv.Ops[v>>48].Hist.RecordValue(int64(v & (1<<48 - 1)))
	}
	f.lat.vals = f.lat.vals[:0]
	for i, h := range f.lat.hists {
		if h != nil && h.TotalCount() > 0 {
			iv.Ops[i].Hist.Merge(h)
			h.Reset()
		}
	}
	if !f.svc.empty() {
		f.svc.drain(iv.service)
		f.lag.drain(iv.lag)
	}
	iv.Skipped += f.skipped
	iv.Dropped += f.dropped
	f.skipped, f.dropped = 0, 0
	for i := range f.counts {
		iv.Ops[i].Counts.add(f.counts[i])
		f.counts[i] = Counts{}
	}
	iv.Queries.Add(f.queries)
	f.queries = Queries{}
	iv.Reconnects += f.reconnects
	f.reconnects = 0
	if f.steps != nil {
		iv.addSteps(f.steps)
	}
}

// Merge adds o into iv.
func (iv *Interval) Merge(o *Interval) {
	for i := range iv.Ops {
		iv.Ops[i].Hist.Merge(o.Ops[i].Hist)
		if o.Ops[i].Service != nil {
			iv.service(i).Merge(o.Ops[i].Service)
			iv.lag(i).Merge(o.Ops[i].Lag)
		}
		iv.Ops[i].Counts.add(o.Ops[i].Counts)
	}
	iv.Queries.Add(o.Queries)
	iv.Reconnects += o.Reconnects
	iv.Skipped += o.Skipped
	iv.Dropped += o.Dropped
	iv.mergeSteps(o)
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

// Late is the number of transactions of all ops that started late.
func (iv *Interval) Late() int64 {
	var n int64
	for _, o := range iv.Ops {
		n += o.Counts.Late
	}
	return n
}

// AllService and AllLag merge every op's service times (start lags) into
// one new histogram, empty in the closed model.
func (iv *Interval) AllService() *hdr.Histogram {
	h := New()
	for _, o := range iv.Ops {
		if o.Service != nil {
			h.Merge(o.Service)
		}
	}
	return h
}

// AllLag: see AllService.
func (iv *Interval) AllLag() *hdr.Histogram {
	h := New()
	for _, o := range iv.Ops {
		if o.Lag != nil {
			h.Merge(o.Lag)
		}
	}
	return h
}

// All merges every op's histogram into one new histogram.
func (iv *Interval) All() *hdr.Histogram {
	h := New()
	for _, o := range iv.Ops {
		h.Merge(o.Hist)
	}
	return h
}
