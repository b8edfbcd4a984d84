package timing

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func rate(r float64) *float64 { return &r }

// workerSeed is runner.WorkerSeed, the seed a run gives its worker id.
func workerSeed(seed uint64, id int) uint64 {
	z := seed + uint64(id+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// arrivals returns every arrival of every worker's share before end,
// sorted, as offsets from the start: the schedules' own generation, no
// waiting.
func arrivals(t *testing.T, rc RateConfig, threads int, end time.Duration) []time.Duration {
	t.Helper()
	o := NewOpen(rc)
	var all []time.Duration
	for id := range threads {
		s := o.Worker(ScheduleEnv{ID: id, Threads: threads, Seed: workerSeed(1, id), Start: t0, Now: func() time.Time { return t0 }}).(*openSchedule)
		for s.more && s.next.Before(t0.Add(end)) {
			all = append(all, s.next.Sub(t0))
			s.gen()
		}
	}
	slices.Sort(all)
	return all
}

// Poisson arrivals at 1,000/s shared by 8 workers: the count over 100 s,
// the counts per 20 ms (mean and variance both 20, as a Poisson count's)
// and the gaps (exponential: standard deviation equal to the mean) are
// within 5 standard errors of what the process gives.
func TestPoissonArrivals(t *testing.T) {
	const r, secs, threads = 1000.0, 100, 8
	all := arrivals(t, RateConfig{TPS: rate(r)}, threads, secs*time.Second)
	n := float64(len(all))
	if want := r * secs; math.Abs(n-want) > 5*math.Sqrt(want) {
		t.Errorf("%v arrivals in %ds, want %v ± %.0f", n, secs, want, 5*math.Sqrt(want))
	}
	const win = 20 * time.Millisecond
	counts := make([]float64, secs*time.Second/win)
	for _, a := range all {
		counts[a/win]++
	}
	mean, variance := meanVar(counts)
	k := float64(len(counts))
	lambda := r * win.Seconds()
	if se := math.Sqrt(lambda / k); math.Abs(mean-lambda) > 5*se {
		t.Errorf("mean count per %v %.3f, want %.0f ± %.3f", win, mean, lambda, 5*se)
	}
	// The sample variance of k Poisson counts has a standard error of
	// about λ·sqrt(2/(k−1)) (plus the fourth cumulant's λ/k).
	if se := math.Sqrt(2*lambda*lambda/(k-1) + lambda/k); math.Abs(variance-lambda) > 5*se {
		t.Errorf("variance of the counts per %v %.3f, want %.0f ± %.3f (uniform arrivals would give 0)", win, variance, lambda, 5*se)
	}
	gaps := make([]float64, len(all)-1)
	for i := range gaps {
		gaps[i] = (all[i+1] - all[i]).Seconds()
	}
	gm, gv := meanVar(gaps)
	if cv := math.Sqrt(gv) / gm; math.Abs(cv-1) > 0.05 {
		t.Errorf("the gaps' coefficient of variation is %.3f, want 1 (exponential)", cv)
	}
}

func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// Uniform arrivals at 200/s shared by 3 workers: exactly 6,000 in 30 s,
// 5 ms apart, the workers taking turns.
func TestUniformArrivals(t *testing.T) {
	all := arrivals(t, RateConfig{TPS: rate(200), Arrival: ArrivalUniform}, 3, 30*time.Second)
	if len(all) != 6000 {
		t.Fatalf("%d arrivals in 30 s at 200/s, want 6000", len(all))
	}
	for i, a := range all {
		if want := time.Duration(i) * 5 * time.Millisecond; (a - want).Abs() > time.Microsecond {
			t.Fatalf("arrival %d at %v, want %v", i, a, want)
		}
	}
}

// Stages ramp the rate linearly: 0 → 100/s over 10 s (500 arrivals),
// → 1000/s over 20 s (11,000), → 0 over 10 s (5,000), and none after.
func TestStagesRamp(t *testing.T) {
	stages, err := ParseStages("10s:100,20s:1000,10:0")
	if err != nil {
		t.Fatal(err)
	}
	all := arrivals(t, RateConfig{Stages: stages, Arrival: ArrivalUniform}, 4, time.Hour)
	count := func(from, to time.Duration) int {
		n := 0
		for _, a := range all {
			if a >= from && a < to {
				n++
			}
		}
		return n
	}
	s := time.Second
	for _, c := range []struct {
		from, to time.Duration
		want     int
	}{{0, 10 * s, 500}, {10 * s, 30 * s, 11000}, {30 * s, 40 * s, 5000}, {40 * s, time.Hour, 0},
		// Within a ramp, a second holds the rate at its middle.
		{4 * s, 5 * s, 45}, {19 * s, 20 * s, 527}, {35 * s, 36 * s, 450}} {
		if got := count(c.from, c.to); got < c.want-1 || got > c.want+1 {
			t.Errorf("%d arrivals in [%v, %v), want %d ± 1", got, c.from, c.to, c.want)
		}
	}
	o := NewOpen(RateConfig{Stages: stages})
	for _, c := range []struct {
		from, to time.Duration
		want     float64
	}{{0, 10 * s, 50}, {10 * s, 30 * s, 550}, {0, 40 * s, 412.5}} {
		if got := o.Offered(c.from, c.to); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("offered rate over [%v, %v) %v, want %v", c.from, c.to, got, c.want)
		}
	}
	// Poisson arrivals follow the same ramp, within 5 standard deviations.
	pois := arrivals(t, RateConfig{Stages: stages}, 4, time.Hour)
	if n := float64(len(pois)); math.Abs(n-16500) > 5*math.Sqrt(16500) {
		t.Errorf("%v Poisson arrivals over the stages, want 16500 ± %.0f", n, 5*math.Sqrt(16500))
	}
	if pois[len(pois)-1] >= 40*s {
		t.Errorf("a Poisson arrival at %v, after the stages", pois[len(pois)-1])
	}
}

// rateClock is a clock that only Sleep moves.
type rateClock struct{ now time.Time }

func (c *rateClock) Now() time.Time { return c.now }
func (c *rateClock) Sleep(_ context.Context, d time.Duration) bool {
	if d == time.Duration(math.MaxInt64) {
		return false
	}
	c.now = c.now.Add(max(d, 0))
	return true
}

// openWorker returns a schedule of one worker at 100/s evenly spaced
// (arrivals at 0, 10 ms, 20 ms …) on a fake clock, and the counts of the
// arrivals it reported missed.
func openWorker(rc RateConfig) (*openSchedule, *rateClock, *[2]int64) {
	clock := &rateClock{now: t0}
	rc.TPS, rc.Arrival = rate(100), ArrivalUniform
	missed := new([2]int64)
	s := NewOpen(rc).Worker(ScheduleEnv{Threads: 1, Start: t0, Now: clock.Now, Sleep: clock.Sleep,
		Missed: func(sk, dr int64) { missed[0] += sk; missed[1] += dr }}).(*openSchedule)
	return s, clock, missed
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// With a bounded queue, the arrivals that come while the worker is busy
// and find its queue full are dropped; with a latency limit, those that
// cannot start within it are skipped. Both are counted, never run.
func TestSkippedAndDropped(t *testing.T) {
	ctx := context.Background()
	t.Run("max-queue=2", func(t *testing.T) {
		s, clock, missed := openWorker(RateConfig{MaxQueue: new(2)})
		s.Start(ctx)                       // arrival 0
		clock.now = clock.now.Add(ms(100)) // busy: 10 … 90 ms arrive, 2 wait, 7 are dropped; 100 ms comes as the worker is free
		var got []time.Duration
		for range 3 {
			slot, _ := s.Start(ctx)
			got = append(got, slot.Intended.Sub(t0))
		}
		if want := []time.Duration{ms(10), ms(20), ms(100)}; !slices.Equal(got, want) {
			t.Errorf("started %v, want %v", got, want)
		}
		if *missed != [2]int64{0, 7} {
			t.Errorf("skipped, dropped = %v, want 0, 7", *missed)
		}
	})
	t.Run("max-queue=0", func(t *testing.T) {
		s, clock, missed := openWorker(RateConfig{MaxQueue: new(0)})
		s.Start(ctx)
		clock.now = clock.now.Add(ms(25)) // 10 and 20 ms arrive while busy
		if slot, _ := s.Start(ctx); slot.Intended.Sub(t0) != ms(30) {
			t.Errorf("started %v, want the arrival at 30ms", slot.Intended.Sub(t0))
		}
		if *missed != [2]int64{0, 2} {
			t.Errorf("skipped, dropped = %v, want 0, 2", *missed)
		}
	})
	t.Run("latency-limit=15ms", func(t *testing.T) {
		s, clock, missed := openWorker(RateConfig{LatencyLimit: ms(15)})
		s.Start(ctx)
		clock.now = clock.now.Add(ms(100)) // 10 … 80 ms are more than 15 ms late
		var got []time.Duration
		for range 2 {
			slot, _ := s.Start(ctx)
			got = append(got, slot.Intended.Sub(t0))
		}
		if want := []time.Duration{ms(90), ms(100)}; !slices.Equal(got, want) {
			t.Errorf("started %v, want %v", got, want)
		}
		if *missed != [2]int64{8, 0} {
			t.Errorf("skipped, dropped = %v, want 8, 0", *missed)
		}
	})
	t.Run("unstarted", func(t *testing.T) {
		s, clock, _ := openWorker(RateConfig{MaxQueue: new(3)})
		s.Start(ctx)
		clock.now = clock.now.Add(ms(45)) // 10 … 40 ms arrive: 3 wait, 1 dropped
		s.admit(clock.now)
		if n := s.unstarted(t0.Add(ms(100))); n != 3+5 {
			t.Errorf("%d unstarted at 100 ms, want 8: 3 waiting and 50 … 90 ms", n)
		}
	})
}

// within runs f and fails the test when it has not returned after d: a
// loop that counts arrivals one by one at a high rate would not.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s has not returned after %v", what, d)
	}
}

// fastWorker is a schedule of one worker at 1e8 arrivals per second (one
// every 10 ns) on a fake clock, with the counts of the arrivals it
// reported missed.
func fastWorker(rc RateConfig) (*openSchedule, *rateClock, *[2]int64) {
	clock := &rateClock{now: t0}
	rc.TPS = rate(1e8)
	if rc.Arrival == "" {
		rc.Arrival = ArrivalUniform
	}
	missed := new([2]int64)
	s := NewOpen(rc).Worker(ScheduleEnv{Threads: 1, Seed: 7, Start: t0, Now: clock.Now, Sleep: clock.Sleep,
		Missed: func(sk, dr int64) { missed[0] += sk; missed[1] += dr }}).(*openSchedule)
	return s, clock, missed
}

// Arrivals that never start are counted, never stepped through one by
// one: a worker that comes back after a minute at 1e8 arrivals a second
// skips (--latency-limit) or drops (--max-queue) six billion of them at
// once, and counts as many unstarted at the end.
func TestMissedArrivalsCounted(t *testing.T) {
	ctx := context.Background()
	const minute = 60 * time.Second
	near := func(t *testing.T, what string, got, want, tol int64) {
		t.Helper()
		if got < want-tol || got > want+tol {
			t.Errorf("%s %d, want %d ± %d", what, got, want, tol)
		}
	}
	t.Run("latency-limit", func(t *testing.T) {
		for _, arrival := range []string{ArrivalUniform, ArrivalPoisson} {
			s, clock, missed := fastWorker(RateConfig{LatencyLimit: ms(1), Arrival: arrival})
			s.Start(ctx)
			clock.now = clock.now.Add(minute)
			var slot Slot
			within(t, 10*time.Second, "Start", func() { slot, _ = s.Start(ctx) })
			if lag := slot.Began.Sub(slot.Intended); lag > ms(1) || lag < 0 {
				t.Errorf("%s: started an arrival %v late, want within the 1ms limit", arrival, lag)
			}
			// The arrivals of (0, 60 s − 1 ms): 1e8/s × 59.999 s, less the first.
			want := int64(59.999e8) - 1
			tol := int64(1)
			if arrival == ArrivalPoisson {
				tol = int64(5 * math.Sqrt(float64(want)))
			}
			near(t, arrival+": skipped", missed[0], want, tol)
		}
	})
	t.Run("max-queue", func(t *testing.T) {
		s, clock, missed := fastWorker(RateConfig{MaxQueue: new(2)})
		s.Start(ctx)
		clock.now = clock.now.Add(minute)
		var slot Slot
		within(t, 10*time.Second, "Start", func() { slot, _ = s.Start(ctx) })
		if slot.Intended.Sub(t0) != 10*time.Nanosecond {
			t.Errorf("started the arrival at %v, want the oldest waiting, at 10ns", slot.Intended.Sub(t0))
		}
		// 6e9 arrivals before 60 s: the first ran, two waited, the rest
		// were dropped.
		near(t, "dropped", missed[1], 6e9-3, 1)
	})
	t.Run("unstarted", func(t *testing.T) {
		for _, arrival := range []string{ArrivalUniform, ArrivalPoisson} {
			s, _, _ := fastWorker(RateConfig{Arrival: arrival})
			s.Start(ctx)
			var n int64
			within(t, 10*time.Second, "unstarted", func() { n = s.unstarted(t0.Add(minute)) })
			tol := int64(1)
			if arrival == ArrivalPoisson {
				tol = int64(5 * math.Sqrt(6e9))
			}
			near(t, arrival+": unstarted", n, 6e9-1, tol)
		}
	})
	t.Run("stages", func(t *testing.T) {
		// 0 → 1e8/s over 30 s, back to 0 over 30 s: 3e9 arrivals.
		stages, err := ParseStages("30s:1e8,30s:0")
		if err != nil {
			t.Fatal(err)
		}
		clock := &rateClock{now: t0}
		s := NewOpen(RateConfig{Stages: stages, Arrival: ArrivalUniform, LatencyLimit: ms(1)}).Worker(ScheduleEnv{Threads: 1, Start: t0, Now: clock.Now, Sleep: clock.Sleep}).(*openSchedule)
		s.Start(ctx)
		clock.now = clock.now.Add(30 * time.Second) // at the peak
		within(t, 10*time.Second, "Start", func() { s.Start(ctx) })
		var n int64
		within(t, 10*time.Second, "unstarted", func() { n = s.UnstartedWaits(t0.Add(minute), histogram.New()) })
		// The arrivals from 29.999 s on (within the limit at 30 s) to
		// the end, less the one started: 3e9 − 1e8/60 × 29.999² − 1.
		near(t, "unstarted", n, 1500099997, 2)
	})
}

// poissonCount's draws have a Poisson count's mean and variance (both
// the mean), within 5 standard errors, on both sides of its switch of
// method at 10 and far above.
func TestPoissonCount(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range []float64{0.3, 4, 10, 37.5, 1e4, 6e9} {
		const n = 20000
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(poissonCount(r, m))
		}
		mean, variance := meanVar(xs)
		if se := math.Sqrt(m / n); math.Abs(mean-m) > 5*se {
			t.Errorf("mean %v: drew a mean of %v, want ± %v", m, mean, 5*se)
		}
		if se := math.Sqrt(2*m*m/(n-1) + m/n); math.Abs(variance-m) > 5*se {
			t.Errorf("mean %v: drew a variance of %v, want %v ± %v", m, variance, m, 5*se)
		}
	}
	if poissonCount(r, 0) != 0 || poissonCount(r, math.NaN()) != 0 {
		t.Error("a mean of 0 or NaN drew arrivals")
	}
}

// The arrivals a worker never started are recorded with how long each
// had waited at the end, from its intended start: one by one when they
// are few (exactly), spread over the rate's integral when they are many
// (within a thousandth of the range), in constant time either way.
func TestUnstartedWaits(t *testing.T) {
	ctx := context.Background()
	t.Run("few", func(t *testing.T) {
		s, _, _ := openWorker(RateConfig{})
		s.Start(ctx) // the arrival at 0
		h := histogram.New()
		// 10 … 990 ms did not start by 1 s: they waited 990 … 10 ms.
		if n := s.UnstartedWaits(t0.Add(time.Second), h); n != 99 || h.TotalCount() != 99 {
			t.Fatalf("%d unstarted, %d waits, want 99", n, h.TotalCount())
		}
		// Each value to the histogram's three significant digits.
		l := histogram.Summarize(h)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"min", l.Min, 10}, {"p50", l.P50, 500}, {"p95", l.P95, 950}, {"max", l.Max, 990}} {
			if math.Abs(c.got-c.want) > c.want*1e-3 {
				t.Errorf("%s wait %v ms, want %v ms", c.name, c.got, c.want)
			}
		}
	})
	t.Run("many", func(t *testing.T) {
		s, _, _ := fastWorker(RateConfig{})
		s.Start(ctx)
		h := histogram.New()
		var n int64
		within(t, 10*time.Second, "unstartedWaits", func() { n = s.UnstartedWaits(t0.Add(time.Minute), h) })
		if n != 6e9-1 || h.TotalCount() != n {
			t.Fatalf("%d unstarted, %d waits, want 6e9-1", n, h.TotalCount())
		}
		// Evenly spread over the minute: the waits' percentiles are the
		// minute's.
		l := histogram.Summarize(h)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"p50", l.P50, 30e3}, {"p95", l.P95, 57e3}, {"p99", l.P99, 59.4e3}, {"max", l.Max, 60e3}} {
			if math.Abs(c.got-c.want) > c.want*2e-3 {
				t.Errorf("%s wait %v ms, want %v ms ± 0.2%%", c.name, c.got, c.want)
			}
		}
		if l.Min > 60 {
			t.Errorf("shortest wait %v ms, want within a thousandth of the minute", l.Min)
		}
	})
}
