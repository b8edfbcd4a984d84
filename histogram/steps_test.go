package histogram_test

import (
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
)

// TestStepsFollowTheirTransaction: steps recorded during a transaction
// land in the interval its outcome is recorded in, by op and step; a
// failed step counts as a failure, or as a retry when the transaction
// is retried; steps of a transaction whose outcome is never recorded
// stay out; more values than a frame buffers spill into histograms
// without loss; and intervals merge their steps.
func TestStepsFollowTheirTransaction(t *testing.T) {
	r := histogram.NewRecorder(2)
	s := r.EnableSteps([]int{2, 3}) // op 0: steps 0-1, op 1: steps 2-4
	q := histogram.Queries{}

	s.Done(0, 0, time.Millisecond)
	s.Done(0, 1, 3*time.Millisecond)
	r.Success(0, 4*time.Millisecond, q)
	s.Done(1, 0, time.Millisecond)
	s.Failed(1, 1)
	r.Failure(1, true, q) // retried
	s.Done(1, 0, time.Millisecond)
	s.Failed(1, 2)
	r.Failure(1, false, q)
	for range 70000 { // more than a frame buffers (stepValues)
		s.Done(1, 2, 2*time.Millisecond)
		r.Rollback(1, 2*time.Millisecond, q)
	}
	iv := histogram.NewInterval(2)
	r.Collect(iv)

	s.Done(0, 0, time.Second) // a transaction the runner did not count
	iv2 := histogram.NewInterval(2)
	r.Collect(iv2)
	if len(iv2.Steps) != 0 {
		t.Errorf("uncounted steps reached the next interval: %+v", iv2.Steps)
	}

	want := []struct {
		count, failures, retries int64
		maxMS                    float64
	}{{1, 0, 0, 1}, {1, 0, 0, 3}, {2, 0, 0, 1}, {0, 0, 1, 0}, {70000, 1, 0, 2}}
	check := func(name string, iv *histogram.Interval, mult int64) {
		t.Helper()
		if len(iv.Steps) != len(want) {
			t.Fatalf("%s: %d steps, want %d", name, len(iv.Steps), len(want))
		}
		for i, w := range want {
			got := iv.Steps[i]
			if got.Hist.TotalCount() != w.count*mult || got.Failures != w.failures*mult || got.Retries != w.retries*mult {
				t.Errorf("%s: step %d: count %d failures %d retries %d; want %d %d %d", name, i,
					got.Hist.TotalCount(), got.Failures, got.Retries, w.count*mult, w.failures*mult, w.retries*mult)
			}
			// Within the histogram's three significant digits.
			if m := histogram.Percentile(got.Hist, 100); w.count*mult > 0 && (m < w.maxMS || m > w.maxMS*1.001) {
				t.Errorf("%s: step %d: max %v ms, want %v", name, i, m, w.maxMS)
			}
		}
	}
	check("interval", iv, 1)
	total := histogram.NewInterval(2)
	total.Merge(iv)
	total.Merge(iv)
	check("merged", total, 2)
	total.Reset()
	check("reset", total, 0)

	var none *histogram.Steps
	none.Done(0, 0, time.Millisecond) // a nil Steps records nothing
	none.Failed(0, 0)
}

// BenchmarkStepsDone is the cost of recording a step and moving it at
// the transaction's end: no allocation.
func BenchmarkStepsDone(b *testing.B) {
	r := histogram.NewRecorder(1)
	s := r.EnableSteps([]int{4})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for j := range 4 {
			s.Done(0, j, time.Millisecond)
		}
		r.Success(0, 4*time.Millisecond, histogram.Queries{})
	}
}
