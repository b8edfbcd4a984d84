package load

import (
	"time"

	"github.com/dbarena/dbarena/engine"
)

// LoadTimes is where a prepare's time went. Generate, Write and Finish
// are loader time: the time of every loader summed, so with four loaders
// they add up to about four times the load's wall time. ForeignKeys is
// wall time, after the loaders are done.
type LoadTimes struct {
	// Generate is the loaders' time in the workload's data generator:
	// making each batch's RowSource (workload.Table.Rows) and its Next
	// and Values calls. Inside a BulkLoad it is sampled (see timedRows).
	Generate time.Duration
	// Write is the rest of the loaders' BulkLoad time: the engine's
	// encoding of the rows, the driver, the network, and waiting for the
	// server's inserts and commits.
	Write time.Duration
	// Finish is the loaders' time in Catalog.FinishTable once a table's
	// rows are in: deferred primary keys, secondary indexes, sequence
	// resets, ANALYZE (PostgreSQL), validators and indexes (MongoDB).
	Finish time.Duration
	// ForeignKeys is the time after every table was finished: a
	// Spec.FinishLoad and Catalog.AddForeignKeys.
	ForeignKeys time.Duration
}

// Loaders is the loader time: Generate + Write + Finish.
func (lt LoadTimes) Loaders() time.Duration { return lt.Generate + lt.Write + lt.Finish }

// Shares are Generate, Write and Finish as fractions of Loaders (zeros
// when nothing was timed).
func (lt LoadTimes) Shares() (generate, write, finish float64) {
	total := lt.Loaders()
	if total <= 0 {
		return 0, 0, 0
	}
	f := func(d time.Duration) float64 { return float64(d) / float64(total) }
	return f(lt.Generate), f(lt.Write), f(lt.Finish)
}

func (lt *LoadTimes) add(o LoadTimes) {
	lt.Generate += o.Generate
	lt.Write += o.Write
	lt.Finish += o.Finish
	lt.ForeignKeys += o.ForeignKeys
}

// Sampling of timedRows: the first timedHead rows of a batch are timed,
// then one row in sampleEvery (a power of two), picked at random.
const (
	timedHead   = 64
	sampleEvery = 64
)

// timedRows is a RowSource that measures the time the one it wraps
// spends in Next and Values, for a breakdown of loader time (LoadTimes).
// Reading the clock around every call would cost a loader a few percent
// on the cheapest generators, so it times whole rows (a Next and the
// Values after it) on a sample: every row of the first timedHead, which
// is all of a small batch, then one in sampleEvery picked by a
// pseudo-random draw (so that no period in a generator's costs lines up
// with the sample), and scales the sampled time up to the rows not
// timed. The draw is a xorshift step, a few instructions per row.
//
// Like any RowSource it belongs to one goroutine at a time; Generated
// may be read once BulkLoad has returned without error.
type timedRows struct {
	src engine.RowSource
	now func() time.Time

	rng    uint64
	rows   int64 // rows Next yielded so far
	timing bool  // the current row is timed
	// head is the time of the first timedHead rows (and of the Next
	// that found no more); sampled that of the sampled rows after
	// them, of which there are nSampled.
	head, sampled time.Duration
	nSampled      int64
}

func newTimedRows(src engine.RowSource, now func() time.Time, seed uint64) *timedRows {
	// A splitmix64 step spreads small seeds (table and batch numbers)
	// over every bit; xorshift needs a state other than zero.
	z := seed + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return &timedRows{src: src, now: now, rng: (z ^ z>>31) | 1}
}

func (r *timedRows) Next() bool {
	// Rows are counted when Next yields one; the call that ends the
	// source is timed exactly, never scaled.
	r.timing = r.rows < timedHead
	if !r.timing {
		r.rng ^= r.rng << 13
		r.rng ^= r.rng >> 7
		r.rng ^= r.rng << 17
		r.timing = r.rng&(sampleEvery-1) == 0
	}
	if !r.timing {
		ok := r.src.Next()
		if ok {
			r.rows++
		}
		return ok
	}
	t0 := r.now()
	ok := r.src.Next()
	d := r.now().Sub(t0)
	switch {
	case !ok || r.rows < timedHead:
		r.head += d
	default:
		r.sampled += d
		r.nSampled++
	}
	if ok {
		r.rows++
	}
	return ok
}

func (r *timedRows) Values() ([]any, error) {
	if !r.timing {
		return r.src.Values()
	}
	t0 := r.now()
	vals, err := r.src.Values()
	d := r.now().Sub(t0)
	if r.rows <= timedHead {
		r.head += d
	} else {
		r.sampled += d
	}
	return vals, err
}

func (r *timedRows) Err() error { return r.src.Err() }

// Generated is the estimated time spent in the wrapped source: the first
// rows' measured time and the others' scaled up from the sample (or, with
// no sample, from the first rows' average).
func (r *timedRows) Generated() time.Duration {
	rest := r.rows - timedHead
	if rest <= 0 {
		return r.head
	}
	if r.nSampled == 0 {
		return r.head + time.Duration(float64(r.head)/timedHead*float64(rest))
	}
	return r.head + time.Duration(float64(r.sampled)/float64(r.nSampled)*float64(rest))
}
