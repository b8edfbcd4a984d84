package runner

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/runner/timing"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func rate(r float64) *float64 { return &r }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

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
// (arrivals at 0, 10 ms, 20 ms …) on a fake clock.
func openWorker(rc timing.RateConfig) (timing.WorkerSchedule, *rateClock) {
	clock := &rateClock{now: t0}
	rc.TPS, rc.Arrival = rate(100), timing.ArrivalUniform
	s := timing.NewOpen(rc).Worker(timing.ScheduleEnv{Threads: 1, Start: t0, Now: clock.Now, Sleep: clock.Sleep})
	return s, clock
}

// A transaction that starts late is timed from its intended start: the
// recorder gets the latency from the arrival, the service time from the
// start and the lag between them, and counts it late.
func TestLatencyFromIntendedStart(t *testing.T) {
	s, clock := openWorker(timing.RateConfig{})
	var epoch atomic.Int64
	r := &run{open: timing.NewOpen(timing.RateConfig{TPS: rate(100)})}
	w := &worker{rec: histogram.NewRecorderOn(1, &epoch)}
	ctx := context.Background()

	slot, ok := s.Start(ctx) // the arrival at 0, on time
	if !ok || !slot.Intended.Equal(t0) || !slot.Began.Equal(t0) {
		t.Fatalf("first slot %v, %v (%v), want both at the start", slot.Intended.Sub(t0), slot.Began.Sub(t0), ok)
	}
	clock.now = clock.now.Add(ms(35)) // the server takes 35 ms
	r.recorded(w, 0, nil, slot, clock.now)
	slot, _ = s.Start(ctx) // the arrival at 10 ms starts at 35 ms
	if slot.Intended.Sub(t0) != ms(10) || slot.Began.Sub(t0) != ms(35) {
		t.Fatalf("second slot intended %v began %v, want 10ms and 35ms", slot.Intended.Sub(t0), slot.Began.Sub(t0))
	}
	clock.now = clock.now.Add(ms(2))
	r.recorded(w, 0, nil, slot, clock.now)
	for _, want := range []time.Duration{20, 30} { // due already: no wait
		if slot, _ = s.Start(ctx); slot.Intended.Sub(t0) != want*time.Millisecond || slot.Began.Sub(t0) != ms(37) {
			t.Fatalf("slot intended %v began %v, want %v and 37ms", slot.Intended.Sub(t0), slot.Began.Sub(t0), want*time.Millisecond)
		}
		r.recorded(w, 0, nil, slot, clock.now.Add(ms(1)))
	}
	clock.now = clock.now.Add(ms(1))                         // 38 ms
	if slot, _ = s.Start(ctx); clock.now.Sub(t0) != ms(40) { // waits for the arrival at 40 ms
		t.Fatalf("the schedule woke at %v, want 40ms", clock.now.Sub(t0))
	}
	if slot.Intended.Sub(t0) != ms(40) || slot.Began.Sub(t0) != ms(40) {
		t.Fatalf("slot intended %v began %v, want both 40ms", slot.Intended.Sub(t0), slot.Began.Sub(t0))
	}

	iv := histogram.NewInterval(1)
	epoch.Add(1)
	iv.Add(w.rec.Take(0))
	op := iv.Ops[0]
	// Latencies 35 ms (0 → 35), 27 ms (10 → 37), 18 ms (20 → 38), 8 ms
	// (30 → 38): the time the second waited counts.
	if op.Hist.TotalCount() != 4 || !op.Hist.ValuesAreEquivalent(op.Hist.Max(), 35000) || !op.Hist.ValuesAreEquivalent(op.Hist.Min(), 8000) ||
		!op.Hist.ValuesAreEquivalent(op.Hist.ValueAtPercentile(50), 18000) {
		t.Errorf("latency: %d values, min %d max %d median %d µs, want 4 from 8,000 to 35,000 µs, median 18,000", op.Hist.TotalCount(), op.Hist.Min(), op.Hist.Max(), op.Hist.ValueAtPercentile(50))
	}
	if !op.Service.ValuesAreEquivalent(op.Service.Max(), 35000) || !op.Service.ValuesAreEquivalent(op.Service.Min(), 1000) {
		t.Errorf("service: min %d max %d µs, want 1,000 and 35,000", op.Service.Min(), op.Service.Max())
	}
	if !op.Lag.ValuesAreEquivalent(op.Lag.Max(), 25000) {
		t.Errorf("lag max %d µs, want 25,000", op.Lag.Max())
	}
	if op.Counts.Late != 3 {
		t.Errorf("%d late, want 3 (the arrivals at 10, 20 and 30 ms)", op.Counts.Late)
	}
}

// Every rate option's problem names its flag and value, before any work.
func TestRateValidate(t *testing.T) {
	stages, _ := timing.ParseStages("30s:100,30s:0")
	for _, c := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"rate 0", func(c *Config) { c.Rate.TPS = rate(0) }, "--rate 0: must be a positive"},
		{"rate negative", func(c *Config) { c.Rate.TPS = rate(-5) }, "--rate -5: must be a positive"},
		{"arrival", func(c *Config) { c.Rate.TPS, c.Rate.Arrival = rate(5), "bursty" }, "--arrival bursty: must be poisson or uniform"},
		{"arrival closed", func(c *Config) { c.Rate.Arrival = "uniform" }, "--arrival uniform: needs --rate"},
		{"latency-limit closed", func(c *Config) { c.Rate.LatencyLimit = time.Second }, "--latency-limit 1s: needs --rate"},
		{"latency-limit negative", func(c *Config) { c.Rate.TPS, c.Rate.LatencyLimit = rate(5), -time.Second }, "--latency-limit -1s: must not be negative"},
		{"max-queue closed", func(c *Config) { c.Rate.MaxQueue = new(4) }, "--max-queue 4: needs --rate"},
		{"max-queue negative", func(c *Config) { c.Rate.TPS, c.Rate.MaxQueue = rate(5), new(-1) }, "--max-queue -1: must not be negative"},
		{"stages vs time", func(c *Config) { c.Rate.Stages = stages }, "--rate-stages 30s:100,30s:0: the stages last 1m0s, but --warmup 0s + --time 10s = 10s: they must agree (give --time 1m0s)"},
		{"stages all zero", func(c *Config) {
			c.Rate.Stages, c.Duration = []timing.RateStage{{Duration: time.Second}}, time.Second
		}, "--rate-stages 1s:0: every rate is 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.set(&cfg)
			errs := cfg.Validate()
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
				t.Errorf("Validate() = %v, want one error with %q", errs, c.want)
			}
		})
	}
	ok := DefaultConfig()
	ok.Rate = timing.RateConfig{Stages: stages, TPS: rate(0), Arrival: timing.ArrivalUniform, LatencyLimit: time.Second, MaxQueue: new(0)}
	ok.Warmup, ok.Duration = 20*time.Second, 40*time.Second
	if errs := ok.Validate(); len(errs) > 0 {
		t.Errorf("Validate() = %v for a valid rate", errs)
	}
	for _, bad := range []string{"30s", "30s:x", "0s:10", "30s:-1", "x:10", ""} {
		if _, err := timing.ParseStages(bad); err == nil {
			t.Errorf("timing.ParseStages(%q) accepted", bad)
		}
	}
}

// The rate options are run options: flags and plan fields alike.
func TestRateOptions(t *testing.T) {
	cfg := DefaultConfig()
	for field, v := range map[string]string{"rate": "250", "rate_stages": "10s:100,5s:0", "arrival": "uniform", "latency_limit": "50ms", "max_queue": "100"} {
		o, ok := LookupOption(field)
		if !ok {
			t.Fatalf("no run option %q", field)
		}
		if err := o.Value(&cfg).Set(v); err != nil {
			t.Fatalf("%s %s: %v", field, v, err)
		}
	}
	r := cfg.Rate
	if *r.TPS != 250 || timing.FormatStages(r.Stages) != "10s:100,5s:0" || r.Arrival != "uniform" || r.LatencyLimit != ms(50) || *r.MaxQueue != 100 {
		t.Errorf("rate options set %+v", r)
	}
}

// --rate and every stage's rate are bounded by what the clock can tell
// apart: arrivals at most one a nanosecond.
func TestRateBound(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"rate", func(c *Config) { c.Rate.TPS = rate(2e9) }, "--rate 2e+09: must be at most 1e+09 transactions per second"},
		{"stage", func(c *Config) {
			c.Rate.Stages, c.Duration = []timing.RateStage{{Duration: time.Second, Target: 5e9}}, time.Second
		}, "--rate-stages 1s:5e+09: a stage's rate must be at most 1e+09 transactions per second"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.set(&cfg)
			errs := cfg.Validate()
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
				t.Errorf("Validate() = %v, want one error with %q", errs, c.want)
			}
		})
	}
	ok := DefaultConfig()
	ok.Rate.TPS = rate(timing.MaxRate)
	if errs := ok.Validate(); len(errs) > 0 {
		t.Errorf("Validate() = %v for --rate %g", errs, timing.MaxRate)
	}
}
