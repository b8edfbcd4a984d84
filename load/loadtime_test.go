package load

import (
	"fmt"
	"testing"
	"time"

	"github.com/dbarena/dbarena/engine"
	"github.com/dbarena/dbarena/engine/sqlite"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/oltp"
)

// fakeClock is a clock that moves only when a row source spends time.
type fakeClock struct {
	t     time.Time
	reads int
}

func (c *fakeClock) now() time.Time { c.reads++; return c.t }

// costlyRows is n rows whose Next costs cost(i) on clock and whose
// Values costs a fixed 100 ns.
type costlyRows struct {
	n, i  int
	clock *fakeClock
	cost  func(i int) time.Duration
	row   []any
}

func (s *costlyRows) Next() bool {
	if s.i >= s.n {
		return false
	}
	s.clock.t = s.clock.t.Add(s.cost(s.i))
	s.i++
	return true
}

func (s *costlyRows) Values() ([]any, error) {
	s.clock.t = s.clock.t.Add(100 * time.Nanosecond)
	return s.row, nil
}

func (s *costlyRows) Err() error { return nil }

// drain reads src to the end, as a BulkLoad does.
func drain(t testing.TB, src engine.RowSource) int {
	n := 0
	for src.Next() {
		if _, err := src.Values(); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func TestTimedRowsEstimate(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows int
		cost func(i int) time.Duration
		// tolerance of the estimate, as a fraction of the true time
		tolerance float64
	}{
		// Rows that all cost the same: the scaled sample is exact.
		{"rows=10000/even", 10000, func(int) time.Duration { return time.Microsecond }, 0},
		// A small batch is timed row by row.
		{"rows=50/varied", 50, func(i int) time.Duration { return time.Duration(i) * time.Microsecond }, 0},
		// Every 16th row costs 100 times the others: a sample taken
		// every 16th row would be 16 times off, either way.
		{"rows=1000000/periodic", 1000000, func(i int) time.Duration {
			if i%16 == 0 {
				return 100 * time.Microsecond
			}
			return time.Microsecond
		}, 0.1},
	} {
		for seed := range uint64(5) { // the seeds of batches 0-4 of table 0
			t.Run(fmt.Sprintf("%s/seed=%d", tc.name, seed), func(t *testing.T) {
				clock := &fakeClock{t: time.Unix(0, 0)}
				src := &costlyRows{n: tc.rows, clock: clock, cost: tc.cost}
				tr := newTimedRows(src, clock.now, seed)
				if n := drain(t, tr); n != tc.rows {
					t.Fatalf("read %d rows, want %d", n, tc.rows)
				}
				truth := clock.t.Sub(time.Unix(0, 0))
				got := tr.Generated()
				if off := float64(got-truth) / float64(truth); off > tc.tolerance || off < -tc.tolerance {
					t.Errorf("Generated() = %v, the source spent %v (%.1f%% off, tolerance %.0f%%)", got, truth, 100*off, 100*tc.tolerance)
				}
				// The clock is read around the rows of the sample only:
				// four reads per timed row, every row of the first
				// timedHead, then about one in sampleEvery.
				timed := min(tc.rows+1, timedHead) + max(tc.rows+1-timedHead, 0)/sampleEvery
				if clock.reads > 4*timed*3/2 {
					t.Errorf("%d clock reads for %d rows, want about %d", clock.reads, tc.rows, 4*timed)
				}
			})
		}
	}
}

func TestLoadTimesShares(t *testing.T) {
	lt := LoadTimes{Generate: 35 * time.Second, Write: 50 * time.Second, Finish: 15 * time.Second, ForeignKeys: time.Hour}
	if lt.Loaders() != 100*time.Second {
		t.Errorf("Loaders() = %v, want 100s", lt.Loaders())
	}
	if g, w, f := lt.Shares(); g != 0.35 || w != 0.5 || f != 0.15 {
		t.Errorf("Shares() = %v, %v, %v; want 0.35, 0.5, 0.15", g, w, f)
	}
	if g, w, f := (LoadTimes{}).Shares(); g != 0 || w != 0 || f != 0 {
		t.Errorf("Shares() of nothing = %v, %v, %v; want zeros", g, w, f)
	}
}

// oltpBatch is one batch of sbtest1's rows as prepare loads them.
func oltpBatch(b *testing.B) func() engine.RowSource {
	m, ok := workload.Lookup("oltp_read_write")
	if !ok {
		b.Fatal("oltp_read_write is not registered")
	}
	w := m.New()
	if err := w.Define().Options.Parse([]string{"--tables", "1", "--table-size", "100000"}); err != nil {
		b.Fatal(err)
	}
	t := w.Define().Tables(sqlite.Dialect{})[0]
	return func() engine.RowSource { return t.Rows(0) }
}

var _ = oltp.CLen // the workload is registered by its package

// BenchmarkRowSource drains one batch of sysbench rows (the cheapest
// generator dbarena has, so the one the timing costs most against)
// bare, through timedRows, and timed at every row, per row.
// The source "null" yields 10,000 empty rows at no cost: its ns/row is
// the wrapper's own cost per row.
func BenchmarkRowSource(b *testing.B) {
	row := []any{}
	for _, src := range []struct {
		name string
		rows func() engine.RowSource
	}{
		{"oltp", oltpBatch(b)},
		{"null", func() engine.RowSource { return workload.FuncRows(10000, func(int) []any { return row }) }},
	} {
		for _, bc := range []struct {
			name string
			wrap func(engine.RowSource) engine.RowSource
		}{
			{"bare", func(s engine.RowSource) engine.RowSource { return s }},
			{"sampled", func(s engine.RowSource) engine.RowSource { return newTimedRows(s, time.Now, 1) }},
			{"every-row", func(s engine.RowSource) engine.RowSource { return &everyRow{src: s} }},
		} {
			b.Run("source="+src.name+"/timing="+bc.name, func(b *testing.B) {
				n := 0
				for b.Loop() {
					n += drain(b, bc.wrap(src.rows()))
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/row")
			})
		}
	}
}

// everyRow times every Next and Values call: what timedRows avoids.
type everyRow struct {
	src engine.RowSource
	d   time.Duration
}

func (r *everyRow) Next() bool {
	t0 := time.Now()
	ok := r.src.Next()
	r.d += time.Since(t0)
	return ok
}

func (r *everyRow) Values() ([]any, error) {
	t0 := time.Now()
	v, err := r.src.Values()
	r.d += time.Since(t0)
	return v, err
}

func (r *everyRow) Err() error { return r.src.Err() }
