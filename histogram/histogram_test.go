package histogram

import (
	"fmt"
	"testing"
	"time"
)

// Values below 2048 µs are stored exactly at three significant digits, so
// percentiles of 1..100 ms-scale samples can be computed by hand.
func TestPercentilesHandComputed(t *testing.T) {
	h := New()
	for us := int64(1); us <= 1000; us++ { // 1 µs … 1000 µs, once each
		if err := h.RecordValue(us); err != nil {
			t.Fatal(err)
		}
	}
	// The p-th percentile of 1..1000 is the smallest value v with
	// count(<= v) >= p% of 1000, i.e. v = 10*p.
	for _, tc := range []struct {
		p    float64
		want float64 // ms
	}{
		{50, 0.500}, {95, 0.950}, {99, 0.990}, {99.9, 0.999}, {100, 1.000},
	} {
		t.Run(fmt.Sprintf("p=%v", tc.p), func(t *testing.T) {
			if got := Percentile(h, tc.p); got != tc.want {
				t.Errorf("Percentile(%v) = %v ms, want %v ms", tc.p, got, tc.want)
			}
		})
	}
	s := Summarize(h)
	if s.Min != 0.001 || s.Max != 1.0 || s.Mean != 0.5005 {
		t.Errorf("Summarize = %+v, want min 0.001 max 1 mean 0.5005", s)
	}
}

// The percentile scale is percent, not a fraction: asking for 0.99 must
// give the 0.99th percentile (the lesson of a quantile-for-percentile bug).
func TestPercentileScaleIsPercent(t *testing.T) {
	h := New()
	for us := int64(1); us <= 1000; us++ {
		_ = h.RecordValue(us)
	}
	if got := Percentile(h, 0.99); got >= 0.5 {
		t.Errorf("Percentile(0.99) = %v ms; the scale must be percent", got)
	}
}

func TestEmpty(t *testing.T) {
	if s := Summarize(New()); s != (Latency{}) {
		t.Errorf("Summarize(empty) = %+v", s)
	}
}

func TestMicrosClamps(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{
		{0, MinMicros}, {500 * time.Nanosecond, MinMicros}, {1500 * time.Microsecond, 1500},
		{2 * time.Hour, MaxMicros},
	} {
		if got := Micros(tc.d); got != tc.want {
			t.Errorf("Micros(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

// Merging per-worker recorders gives the same percentiles as recording
// everything in one histogram, and Collect starts a fresh interval.
func TestRecorderCollectMerges(t *testing.T) {
	a, b := NewRecorder(2), NewRecorder(2)
	for i := 1; i <= 500; i++ {
		a.Success(0, time.Duration(i)*time.Microsecond, Queries{Reads: 1})
		b.Success(0, time.Duration(500+i)*time.Microsecond, Queries{Writes: 1})
	}
	b.Success(1, 3*time.Millisecond, Queries{Other: 2})
	a.Failure(1, false, Queries{Reads: 1})
	a.Failure(1, true, Queries{})
	b.Failure(0, true, Queries{})
	b.Reconnect()

	iv := NewInterval(2)
	a.Collect(iv)
	b.Collect(iv)
	if got := iv.Ops[0].Hist.TotalCount(); got != 1000 {
		t.Fatalf("op 0 count = %d, want 1000", got)
	}
	if got := Percentile(iv.Ops[0].Hist, 50); got != 0.5 {
		t.Errorf("merged p50 = %v ms, want 0.5", got)
	}
	if got := iv.Transactions(); got != 1001 {
		t.Errorf("Transactions = %d, want 1001", got)
	}
	if iv.Errors() != 1 || iv.Retries() != 2 || iv.Reconnects != 1 {
		t.Errorf("errors/retries/reconnects = %d/%d/%d, want 1/2/1", iv.Errors(), iv.Retries(), iv.Reconnects)
	}
	if want := (Queries{Reads: 501, Writes: 500, Other: 2}); iv.Queries != want {
		t.Errorf("Queries = %+v, want %+v", iv.Queries, want)
	}

	// The next interval starts empty.
	next := NewInterval(2)
	a.Success(0, time.Millisecond, Queries{})
	a.Collect(next)
	b.Collect(next)
	if next.Transactions() != 1 || next.Errors() != 0 || next.Retries() != 0 || next.Queries.Total() != 0 {
		t.Errorf("second interval = %d tx %d err %d retries %d queries, want 1/0/0/0",
			next.Transactions(), next.Errors(), next.Retries(), next.Queries.Total())
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	h := New()
	for i := int64(1); i < 5000; i += 7 {
		_ = h.RecordValue(i * 3)
	}
	s, err := Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equals(h) {
		t.Error("decoded histogram differs from the original")
	}
	if Summarize(back) != Summarize(h) {
		t.Errorf("summaries differ: %+v vs %+v", Summarize(back), Summarize(h))
	}
}

func BenchmarkRecorderSuccess(b *testing.B) {
	r := NewRecorder(1)
	q := Queries{Reads: 1}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Success(0, time.Duration(i%5000)*time.Microsecond, q)
	}
}

// The rank is taken upwards: among 1..10 µs the 21st percentile is 3 µs
// (2 values are only 20%), where rounding the rank to the nearest would
// give 2 µs.
func TestPercentileNearestRankUpwards(t *testing.T) {
	h := New()
	for us := int64(1); us <= 10; us++ {
		_ = h.RecordValue(us)
	}
	for _, tc := range []struct {
		p    float64
		want float64
	}{{0, 0.001}, {10, 0.001}, {20, 0.002}, {21, 0.003}, {25, 0.003}, {99.9, 0.010}, {100, 0.010}} {
		if got := Percentile(h, tc.p); got != tc.want {
			t.Errorf("Percentile(%v) of 1..10 µs = %v ms, want %v ms", tc.p, got, tc.want)
		}
	}
	for _, tc := range []struct {
		p    float64
		n    int64
		want int64
	}{{50, 10, 5}, {21, 10, 3}, {99.9, 1000, 999}, {99.9, 10000, 9990}, {99.9, 10001, 9991}, {95, 1, 1}, {0, 5, 1}, {100, 7, 7}, {99.99, 100_000_000_000, 99_990_000_000}} {
		if got := Rank(tc.p, tc.n); got != tc.want {
			t.Errorf("Rank(%v, %d) = %d, want %d", tc.p, tc.n, got, tc.want)
		}
	}
}

// A histogram merged with copies of itself keeps every percentile, so
// merging shards that saw the same distribution changes nothing.
func TestPercentilesSurviveSelfMerge(t *testing.T) {
	for n := int64(1); n <= 300; n += 7 {
		h := New()
		for i := int64(0); i < n; i++ {
			_ = h.RecordValue(1 + i*i%1999)
		}
		for k := 2; k <= 3; k++ {
			m := New()
			for range k {
				m.Merge(h)
			}
			for _, p := range []float64{1, 10, 25, 33.3, 50, 66.7, 90, 95, 99, 99.9, 99.99, 100} {
				if a, b := Percentile(h, p), Percentile(m, p); a != b {
					t.Errorf("n=%d ×%d: Percentile(%v) = %v ms, merged %v ms", n, k, p, a, b)
				}
			}
		}
	}
}
