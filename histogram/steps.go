package histogram

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Steps is where a worker records the steps of the transaction it runs,
// for workloads whose ops are made of steps reported on their own (a
// pgbench script's commands, as pgbench -r reports them): each step's
// latency when it completes, or its failure. The values wait in Steps
// until the runner records the transaction's outcome on the worker's
// Recorder (Success, Rollback, Open, Failure or Lost), which moves them
// into the same frame, so that a step is counted in the interval of its
// transaction, warm-up and cut-off alike; the steps of a transaction
// the runner does not count (one that ended after the run stopped) are
// never moved. A failed step of a transaction the runner retries counts
// as a retry of the step, else as a failure.
//
// Only the worker's goroutine touches a Steps (the runner records
// outcomes on it). A nil *Steps records nothing. Recording does not
// allocate once the buffer has grown to a transaction's steps.
type Steps struct {
	base []int    // the index of each op's first step among all steps
	vals []uint64 // stepFailed | step<<48 | µs
}

const (
	stepFailed = uint64(1) << 63
	stepMask   = uint64(1)<<15 - 1
	valueMask  = uint64(1)<<48 - 1
)

// MaxSteps is the largest number of steps of all ops together.
const MaxSteps = 1 << 15

// Done records that step (of op, from 0) completed after d.
func (s *Steps) Done(op, step int, d time.Duration) {
	if s == nil {
		return
	}
	s.vals = append(s.vals, uint64(s.base[op]+step)<<48|uint64(Micros(d)))
}

// Failed records that step (of op, from 0) failed, failing its
// transaction.
func (s *Steps) Failed(op, step int) {
	if s == nil {
		return
	}
	s.vals = append(s.vals, stepFailed|uint64(s.base[op]+step)<<48)
}

// EnableSteps makes r record steps: perOp[i] is the number of steps of
// op i. It returns the Steps the worker records into, which r's
// outcomes (Success, Rollback, Open, Failure, Lost) empty into the
// current frame. It is called before the worker starts; it panics on
// more than MaxSteps steps in all.
func (r *Recorder) EnableSteps(perOp []int) *Steps {
	s := &Steps{base: make([]int, len(perOp)), vals: make([]uint64, 0, 16)}
	n := 0
	for i, k := range perOp {
		s.base[i] = n
		n += k
	}
	if n > MaxSteps {
		panic("histogram: more than MaxSteps steps")
	}
	r.mu.Lock()
	r.steps, r.nsteps = s, n
	r.mu.Unlock()
	return s
}

// stepValues is how many step latencies a frame's buffer grows to
// before they spill into a histogram per step: an op of many steps
// would otherwise give every busy worker a histogram (188 KB) per step
// and frame, where a buffer of 64 Ki values is 512 KB at most, and much
// less at the rates of a transaction per round trip.
const stepValues = 1 << 16

// stepFrame is what a frame holds of steps: their latencies and their
// failures and retries, by step.
type stepFrame struct {
	lat               series
	failures, retries []int64
}

// takeSteps moves the steps waiting in r.steps into f; a failed step
// counts as a retry when retried. r.mu is held.
func (r *Recorder) takeSteps(f *Frame, retried bool) {
	s := r.steps
	if s == nil || len(s.vals) == 0 {
		return
	}
	if f.steps == nil {
		lat := newSeries(r.nsteps)
		lat.limit = stepValues
		f.steps = &stepFrame{lat: lat, failures: make([]int64, r.nsteps), retries: make([]int64, r.nsteps)}
	}
	for _, v := range s.vals {
		i := int(v >> 48 & stepMask)
		switch {
		case v&stepFailed == 0:
			f.steps.lat.record(i, int64(v&valueMask))
		case retried:
			f.steps.retries[i]++
		default:
			f.steps.failures[i]++
		}
	}
	s.vals = s.vals[:0]
}

// StepInterval is one step's share of an interval: the latencies of its
// completed executions, its failures and its retries.
type StepInterval struct {
	Hist              *hdr.Histogram
	Failures, Retries int64
}

// stepsFor makes iv hold at least n steps.
func (iv *Interval) stepsFor(n int) {
	for len(iv.Steps) < n {
		iv.Steps = append(iv.Steps, StepInterval{Hist: New()})
	}
}

// addSteps empties a frame's steps into iv.
func (iv *Interval) addSteps(f *stepFrame) {
	iv.stepsFor(len(f.failures))
	f.lat.drain(func(i int) *hdr.Histogram { return iv.Steps[i].Hist })
	for i := range f.failures {
		iv.Steps[i].Failures += f.failures[i]
		iv.Steps[i].Retries += f.retries[i]
		f.failures[i], f.retries[i] = 0, 0
	}
}

// mergeSteps adds o's steps into iv.
func (iv *Interval) mergeSteps(o *Interval) {
	iv.stepsFor(len(o.Steps))
	for i, s := range o.Steps {
		iv.Steps[i].Hist.Merge(s.Hist)
		iv.Steps[i].Failures += s.Failures
		iv.Steps[i].Retries += s.Retries
	}
}

// resetSteps empties iv's steps.
func (iv *Interval) resetSteps() {
	for i := range iv.Steps {
		iv.Steps[i].Hist.Reset()
		iv.Steps[i].Failures, iv.Steps[i].Retries = 0, 0
	}
}
