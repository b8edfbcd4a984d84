package timing

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
)

// Arrival processes of the arrival-rate model.
const (
	// ArrivalPoisson draws the gaps between arrivals from an exponential
	// distribution: arrivals are independent, as users' requests are.
	ArrivalPoisson = "poisson"
	// ArrivalUniform spaces arrivals evenly: exactly rate × time of them.
	ArrivalUniform = "uniform"
)

// LateTolerance is how much later than its intended start a transaction
// may start without counting as late: the wake-up delay of a timer and
// the clock reads between the schedule and the first statement. A
// transaction that starts later is counted late (its lag is recorded
// either way).
const LateTolerance = time.Millisecond

// MaxRate bounds --rate and every stage's rate, in transactions per
// second: one arrival a nanosecond, the finest instants the clock tells
// apart (time.Duration's unit). No database runs near it.
const MaxRate = 1e9

// RateStage is one stage of a ramping arrival rate: the rate changes
// linearly from the previous stage's target (the first stage's from the
// start rate) to Target over Duration.
type RateStage struct {
	Duration time.Duration
	// Target is in transactions per second across all workers.
	Target float64
}

// RateConfig is the arrival-rate (open) model of a run: transactions
// arrive at a rate of their own, whatever the server does, and each is
// timed from its intended start. Unset (neither TPS nor Stages), the run
// is closed: Threads workers back to back.
type RateConfig struct {
	// TPS is the arrival rate, in transactions per second across all
	// workers (--rate); with Stages it is the rate the first stage ramps
	// from (default 0).
	TPS *float64
	// Stages ramp the rate (--rate-stages 30s:100,2m:1000,30s:0); they
	// span the warm-up and the measured phase, whose sum they must
	// equal.
	Stages []RateStage
	// Arrival is ArrivalPoisson (default) or ArrivalUniform.
	Arrival string
	// LatencyLimit, when positive, skips an arrival that cannot start
	// within it of its intended start (pgbench -L): it is counted as
	// skipped, not run.
	LatencyLimit time.Duration
	// MaxQueue, when set, bounds the arrivals waiting for a worker, for
	// the run, split evenly among the workers: an arrival that finds its
	// worker's share full is dropped and counted. Unset, arrivals wait
	// however many there are.
	MaxQueue *int
}

// Open tells whether the run has an arrival rate.
func (r RateConfig) Open() bool { return r.TPS != nil || len(r.Stages) > 0 }

// StagesTotal is the stages' summed duration.
func (r RateConfig) StagesTotal() time.Duration {
	var d time.Duration
	for _, s := range r.Stages {
		d += s.Duration
	}
	return d
}

// arrival returns the arrival process, defaulted.
func (r RateConfig) arrival() string {
	if r.Arrival == "" {
		return ArrivalPoisson
	}
	return r.Arrival
}

// Validate reports every problem of r against a run of warm-up plus dur,
// each a *workload.OptionError naming the option's flag and value
// (runner.Config.Validate reports them with the run's others).
func (r RateConfig) Validate(warmup, dur time.Duration) []error {
	var errs []error
	bad := func(flag string, v any, msg string) {
		errs = append(errs, &workload.OptionError{Flag: flag, Value: fmt.Sprint(v), Err: msg})
	}
	if r.TPS != nil && (*r.TPS < 0 || math.IsNaN(*r.TPS) || math.IsInf(*r.TPS, 0) || (*r.TPS == 0 && len(r.Stages) == 0)) {
		if len(r.Stages) == 0 {
			bad("rate", *r.TPS, "must be a positive number of transactions per second")
		} else {
			bad("rate", *r.TPS, "the rate the stages start from must be a number of transactions per second, 0 or more")
		}
	} else if r.TPS != nil && *r.TPS > MaxRate {
		bad("rate", *r.TPS, fmt.Sprintf("must be at most %g transactions per second (one arrival a nanosecond, the clock's resolution)", MaxRate))
	}
	switch r.Arrival {
	case "", ArrivalPoisson, ArrivalUniform:
	default:
		bad("arrival", r.Arrival, "must be poisson or uniform")
	}
	if !r.Open() {
		if r.Arrival != "" {
			bad("arrival", r.Arrival, "needs --rate or --rate-stages")
		}
		if r.LatencyLimit != 0 {
			bad("latency-limit", r.LatencyLimit, "needs --rate or --rate-stages (it bounds the lag behind an arrival schedule)")
		}
		if r.MaxQueue != nil {
			bad("max-queue", *r.MaxQueue, "needs --rate or --rate-stages (it bounds the arrivals waiting for a worker)")
		}
		return errs
	}
	if r.LatencyLimit < 0 {
		bad("latency-limit", r.LatencyLimit, "must not be negative")
	}
	if r.MaxQueue != nil && *r.MaxQueue < 0 {
		bad("max-queue", *r.MaxQueue, "must not be negative")
	}
	if len(r.Stages) > 0 {
		stages := FormatStages(r.Stages)
		peak := 0.0
		if r.TPS != nil {
			peak = *r.TPS
		}
		top := 0.0
		for _, s := range r.Stages {
			top = max(top, s.Target)
		}
		peak = max(peak, top)
		if top > MaxRate {
			bad("rate-stages", stages, fmt.Sprintf("a stage's rate must be at most %g transactions per second (one arrival a nanosecond, the clock's resolution)", MaxRate))
		}
		if peak <= 0 {
			bad("rate-stages", stages, "every rate is 0: no transaction would arrive")
		}
		if total := r.StagesTotal(); total != warmup+dur {
			bad("rate-stages", stages, fmt.Sprintf("the stages last %v, but --warmup %v + --time %v = %v: they must agree (give --time %v)", total, warmup, dur, warmup+dur, max(total-warmup, 0)))
		}
	}
	return errs
}

// ParseStages reads --rate-stages: stages "duration:rate" separated by
// commas, such as 30s:100,2m:1000,30s:0. A duration is a Go duration or
// plain seconds; a rate a number of transactions per second, 0 or more.
func ParseStages(s string) ([]RateStage, error) {
	var out []RateStage
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		d, r, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("%q: want stages such as 30s:100,2m:1000,30s:0 (duration:rate, comma-separated)", part)
		}
		dur, err := ParseDuration(strings.TrimSpace(d))
		if err != nil {
			return nil, fmt.Errorf("stage %q: %v", part, err)
		}
		if dur <= 0 {
			return nil, fmt.Errorf("stage %q: the duration must be positive", part)
		}
		rate, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil || rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
			return nil, fmt.Errorf("stage %q: the rate must be a number of transactions per second, 0 or more", part)
		}
		out = append(out, RateStage{Duration: dur, Target: rate})
	}
	return out, nil
}

// ParseDuration reads a duration as the run options take it: a Go
// duration ("60s", "5m") or plain seconds ("60"), as sysbench's --time
// does.
func ParseDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(n * float64(time.Second)), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want a duration such as 60s, 5m or plain seconds", s)
	}
	return v, nil
}

// FormatStages writes stages as ParseStages reads them.
func FormatStages(stages []RateStage) string {
	parts := make([]string, len(stages))
	for i, s := range stages {
		parts[i] = s.Duration.String() + ":" + strconv.FormatFloat(s.Target, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// profile is a run's arrival rate over time: linear segments from the
// run's start. count(t) is the number of arrivals expected by t (the
// rate's integral), which is what the schedules step through: the k-th
// arrival of an evenly spaced schedule is at count⁻¹(k), and a Poisson
// process of unit rate in count's scale is a Poisson process of the
// profile's rate in time.
type profile struct {
	segs []segment
}

// segment: from t0 (seconds since the start) for d seconds (+Inf for the
// last of a constant rate), the rate goes linearly from r0 to r1; c0 is
// count(t0).
type segment struct {
	t0, d, r0, r1, c0 float64
}

// newProfile returns the profile of rc: a constant rate, or the stages'
// ramps (the rate is 0 after the last stage).
func newProfile(rc RateConfig) *profile {
	start := 0.0
	if rc.TPS != nil {
		start = *rc.TPS
	}
	if len(rc.Stages) == 0 {
		return &profile{segs: []segment{{d: math.Inf(1), r0: start, r1: start}}}
	}
	p := &profile{}
	t, c, r := 0.0, 0.0, start
	for _, s := range rc.Stages {
		d := s.Duration.Seconds()
		p.segs = append(p.segs, segment{t0: t, d: d, r0: r, r1: s.Target, c0: c})
		t += d
		c += (r + s.Target) / 2 * d
		r = s.Target
	}
	return p
}

// count returns the arrivals expected by t seconds after the start.
func (p *profile) count(t float64) float64 {
	if t <= 0 {
		return 0
	}
	for i := len(p.segs) - 1; i >= 0; i-- {
		s := p.segs[i]
		if t < s.t0 {
			continue
		}
		x := min(t-s.t0, s.d)
		return s.c0 + s.r0*x + (s.r1-s.r0)/(2*s.d)*x*x // 0 for a constant rate's endless segment
	}
	return 0
}

// at returns the instant (seconds after the start) when count reaches c,
// searching from segment *cur on (the schedules ask in increasing order),
// and false when it never does (the rate falls to 0 before).
func (p *profile) at(c float64, cur *int) (float64, bool) {
	for i := *cur; i < len(p.segs); i++ {
		s := p.segs[i]
		if i+1 < len(p.segs) && c >= p.segs[i+1].c0 {
			continue
		}
		dc := c - s.c0
		var x float64
		if math.IsInf(s.d, 1) || s.r1 == s.r0 {
			if s.r0 <= 0 {
				if dc > 0 {
					continue
				}
			} else {
				x = dc / s.r0
			}
		} else {
			// c0 + r0·x + a·x² = c with a = (r1−r0)/2d, solved in the
			// form that stays exact when a is small or negative.
			a := (s.r1 - s.r0) / (2 * s.d)
			disc := s.r0*s.r0 + 4*a*dc
			if disc < 0 {
				continue
			}
			if den := s.r0 + math.Sqrt(disc); den > 0 {
				x = 2 * dc / den
			} else if dc > 0 {
				continue
			}
		}
		if x > s.d {
			continue
		}
		*cur = i
		return s.t0 + max(x, 0), true
	}
	*cur = len(p.segs)
	return 0, false
}

// mean returns the mean rate between a and b seconds after the start.
func (p *profile) mean(a, b float64) float64 {
	if b <= a {
		return 0
	}
	return (p.count(b) - p.count(a)) / (b - a)
}

// Open is the arrival-rate (open) model: transactions arrive at the
// rate of a RateConfig, Poisson or evenly spaced, whatever the server
// does; Threads workers (the concurrency's cap) start them, each timed
// from its intended start.
//
// Each worker owns its share of the arrivals and draws it on its own, so
// the hot path writes nothing shared: with n workers, worker i takes
// every n-th arrival of an evenly spaced schedule (i, i+n, i+2n … in the
// rate's integral), or a Poisson process of 1/n of the rate from its own
// random source. Together they make exactly the schedule asked for: the
// evenly spaced one, or a Poisson process of the whole rate (the sum of
// independent Poisson processes). An arrival waits for its own worker,
// as a pgbench -R client's scheduled transactions do; unlike k6's
// arrival-rate executors, which hand each arrival to any idle VU from a
// shared pool (and drop it when none is idle), no arrival moves to
// another worker, which would take a shared queue.
type Open struct {
	rc   RateConfig
	prof *profile
}

var (
	_ Arrivals        = (*Open)(nil)
	_ ArrivalSchedule = (*openSchedule)(nil)
)

// NewOpen returns the arrival-rate model of rc (which RateConfig.Validate
// checked).
func NewOpen(rc RateConfig) *Open { return &Open{rc: rc, prof: newProfile(rc)} }

// Offered returns the mean arrival rate asked for between from and to
// after the run's start.
func (o *Open) Offered(from, to time.Duration) float64 {
	return o.prof.mean(from.Seconds(), to.Seconds())
}

// Worker returns worker env.ID's schedule.
func (o *Open) Worker(env ScheduleEnv) WorkerSchedule {
	s := &openSchedule{env: env, prof: o.prof, step: float64(max(env.Threads, 1)),
		poisson: o.rc.arrival() == ArrivalPoisson, limit: o.rc.LatencyLimit,
		rng: rand.New(rand.NewPCG(env.Seed, 0x6f70656e6c6f6f70))}
	if q := o.rc.MaxQueue; q != nil {
		s.bounded = true
		// The run's bound split evenly: the first q mod n workers hold
		// one more.
		n := *q / env.Threads
		if env.ID < *q%env.Threads {
			n++
		}
		s.queue = make([]int64, n)
	}
	if s.env.Sleep == nil {
		s.timer = time.NewTimer(time.Hour)
		s.timer.Stop()
		s.env.Sleep = s.sleep
	}
	if s.poisson {
		s.pos = s.step * s.rng.ExpFloat64()
	} else {
		s.pos = float64(env.ID)
	}
	s.gen()
	return s
}

// openSchedule is one worker's share of the arrivals. Its queue holds
// the arrivals that came while the worker was busy, oldest first:
// implicitly (the arrivals not generated yet that are due) when it is
// unbounded, in a ring of the worker's share of --max-queue when it is
// bounded. Arrivals that never start (skipped, dropped, unstarted at the
// end) are counted in the rate's integral (skipTo), never one by one:
// however far behind the worker is, a call costs the same.
type openSchedule struct {
	env     ScheduleEnv
	prof    *profile
	seg     int // the profile's segment the last arrival fell in
	rng     *rand.Rand
	poisson bool
	step    float64 // the workers: the spacing of a worker's arrivals in the rate's integral
	cur     float64 // the rate's integral at the next arrival
	pos     float64 // the rate's integral at the arrival after next
	next    time.Time
	more    bool // next is an arrival: false once the rate fell to 0 for good
	limit   time.Duration

	// bounded: the queue is a ring; busy: the worker has started a
	// transaction (before, it was idle since the run's start).
	bounded, busy    bool
	queue            []int64 // ring of intended starts (Unix ns)
	head, n          int
	skipped, dropped int64
	timer            *time.Timer
}

// gen makes the arrival at the rate's integral s.pos the next one, and
// draws where the one after it is.
func (s *openSchedule) gen() {
	t, ok := s.prof.at(s.pos, &s.seg)
	s.more = ok
	if !ok {
		return
	}
	s.next = s.env.Start.Add(time.Duration(t * float64(time.Second)))
	s.cur = s.pos
	if s.poisson {
		s.pos += s.step * s.rng.ExpFloat64()
	} else {
		s.pos += s.step
	}
}

// skipTo passes over the worker's arrivals intended before t and
// returns how many there were, in constant time whatever their number:
// evenly spaced ones are counted in the rate's integral; Poisson ones
// past the next two are a Poisson count of the integral's span
// (poissonCount), the process starting afresh at t, which a Poisson
// process may (it has no memory).
func (s *openSchedule) skipTo(t time.Time) int64 {
	if !s.more || !s.next.Before(t) {
		return 0
	}
	n := int64(1) // next
	if c := s.prof.count(t.Sub(s.env.Start).Seconds()); s.pos < c {
		if s.poisson {
			n += 1 + poissonCount(s.rng, (c-s.pos)/s.step)
			s.pos = c + s.step*s.rng.ExpFloat64()
		} else {
			k := math.Ceil((c - s.pos) / s.step) // the arrivals at pos + i·step below c
			seg := s.seg
			if at, ok := s.prof.at(s.pos+(k-1)*s.step, &seg); ok && !s.env.Start.Add(time.Duration(at*float64(time.Second))).Before(t) {
				k-- // the last of them is at t, rounded: it is not before t
			}
			n += int64(k)
			s.pos += k * s.step
		}
	}
	s.gen()
	for s.more && s.next.Before(t) { // rounded below t: gen decides
		n++
		s.gen()
	}
	return n
}

// admit queues the arrivals due before now, which came while the worker
// was busy, while the queue has room; the others are dropped.
func (s *openSchedule) admit(now time.Time) {
	for s.n < len(s.queue) && s.more && s.next.Before(now) {
		s.queue[(s.head+s.n)%len(s.queue)] = s.next.UnixNano()
		s.n++
		s.gen()
	}
	s.dropped += s.skipTo(now)
}

// expire skips the arrivals that can no longer start within the latency
// limit at now: those intended more than the limit before it.
func (s *openSchedule) expire(now time.Time) {
	late := now.Add(-s.limit)
	for s.n > 0 && s.queue[s.head] < late.UnixNano() {
		s.head = (s.head + 1) % len(s.queue)
		s.n--
		s.skipped++
	}
	if s.n == 0 {
		s.skipped += s.skipTo(late)
	}
}

// take returns the oldest arrival waiting at now.
func (s *openSchedule) take(now time.Time) (time.Time, bool) {
	if s.n > 0 {
		t := s.queue[s.head]
		s.head = (s.head + 1) % len(s.queue)
		s.n--
		return time.Unix(0, t), true
	}
	if !s.more || s.next.After(now) {
		return time.Time{}, false
	}
	t := s.next
	s.gen()
	return t, true
}

// Start waits for the worker's next arrival, unless one is waiting
// already; arrivals that cannot start within the latency limit are
// skipped.
func (s *openSchedule) Start(ctx context.Context) (Slot, bool) {
	defer s.flush()
	for {
		now := s.env.Now()
		if s.bounded && s.busy {
			s.admit(now)
		}
		s.busy = true // from the first start on, between two calls
		if s.limit > 0 {
			s.expire(now)
		}
		t, ok := s.take(now)
		if !ok {
			if !s.more {
				// No arrival is left: wait for the end of the run.
				s.env.Sleep(ctx, time.Duration(math.MaxInt64))
				return Slot{}, false
			}
			if !s.env.Sleep(ctx, s.next.Sub(now)) {
				return Slot{}, false
			}
			if now = s.env.Now(); s.next.After(now) {
				continue
			}
			// The arrival came while the worker waited for it.
			t = s.next
			s.gen()
			if s.limit > 0 && now.Sub(t) > s.limit {
				s.skipped++ // the wait overslept the limit
				continue
			}
		}
		return Slot{Intended: t, Began: now}, true
	}
}

// flush reports the arrivals skipped and dropped since the last call.
func (s *openSchedule) flush() {
	if s.skipped == 0 && s.dropped == 0 {
		return
	}
	if s.env.Missed != nil {
		s.env.Missed(s.skipped, s.dropped)
	}
	s.skipped, s.dropped = 0, 0
}

// sleep is Sleep on the schedule's own timer.
func (s *openSchedule) sleep(ctx context.Context, d time.Duration) bool {
	if d > 0 {
		s.timer.Reset(d)
		select {
		case <-s.timer.C:
		case <-s.env.Stopped:
			s.timer.Stop()
			return false
		case <-ctx.Done():
			s.timer.Stop()
			return false
		}
	}
	select {
	case <-s.env.Stopped:
		return false
	default:
		return ctx.Err() == nil
	}
}

// unstarted counts the worker's arrivals intended before end that it did
// not start: those waiting in its queue and those it never got to. It is
// called once the worker has returned.
func (s *openSchedule) unstarted(end time.Time) int64 { return s.UnstartedWaits(end, nil) }

// waitPoints is how many values at most UnstartedWaits records for the
// arrivals a worker never got to, each standing for its share of them.
const waitPoints = 1024

// UnstartedWaits is unstarted, and records into waits (unless nil) how
// long each of those arrivals had waited at end, from its intended
// start. The queued ones are recorded one by one (the queue is bounded);
// the ones the worker never got to are spread evenly over the rate's
// integral from the first of them to end, which is where evenly spaced
// arrivals are and where Poisson ones are expected: up to waitPoints of
// them one by one, more as waitPoints equal groups, each recorded at its
// middle with its count. A percentile of their waits is then off by at
// most half a group, 1/2048 of their span, within the histogram's own
// precision, whatever their number.
func (s *openSchedule) UnstartedWaits(end time.Time, waits *hdr.Histogram) int64 {
	var n int64
	for i := 0; i < s.n; i++ {
		if t := s.queue[(s.head+i)%len(s.queue)]; t < end.UnixNano() {
			n++
			if waits != nil {
				_ = waits.RecordValue(histogram.Micros(end.Sub(time.Unix(0, t))))
			}
		}
	}
	if !s.more || !s.next.Before(end) {
		return n
	}
	first, seg := s.cur, s.seg
	c := s.prof.count(end.Sub(s.env.Start).Seconds())
	m := s.skipTo(end)
	if waits == nil || m == 0 {
		return n + m
	}
	span := max(c-first, 0)
	record := func(j float64, count int64) { // the j-th of the m arrivals, from 0
		at, ok := s.prof.at(first+span*j/float64(m), &seg)
		if !ok {
			return
		}
		_ = waits.RecordValues(histogram.Micros(end.Sub(s.env.Start.Add(time.Duration(at*float64(time.Second))))), count)
	}
	if m <= waitPoints {
		for j := range m {
			record(float64(j), 1)
		}
		return n + m
	}
	var lo int64
	for i := range waitPoints {
		hi := m
		if i < waitPoints-1 {
			hi = int64(float64(i+1) * float64(m) / waitPoints)
		}
		if hi > lo {
			record((float64(lo)+float64(hi-1))/2, hi-lo)
		}
		lo = hi
	}
	return n + m
}

// poissonCount draws a Poisson count of mean m, in constant expected
// time: by multiplying uniform numbers below a mean of 10 (Knuth), by
// Hörmann's transformed rejection with squeeze (PTRS, "The transformed
// rejection method for generating Poisson random variables", 1993, as
// NumPy draws them) from 10 on.
func poissonCount(r *rand.Rand, m float64) int64 {
	switch {
	case !(m > 0):
		return 0
	case m < 10:
		limit, p := math.Exp(-m), r.Float64()
		var k int64
		for p > limit {
			k++
			p *= r.Float64()
		}
		return k
	}
	slam, logm := math.Sqrt(m), math.Log(m)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invAlpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := r.Float64() - 0.5
		v := r.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + m + 0.43)
		if us >= 0.07 && v <= vr {
			return int64(k)
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v)+math.Log(invAlpha)-math.Log(a/(us*us)+b) <= -m+k*logm-lg {
			return int64(k)
		}
	}
}

// Describe returns the model as the result file records it.
func (o *Open) Describe() *result.Open { return o.rc.Describe() }

// Describe returns the arrival rate as the result file records it
// (result.Run.Open); nil in the closed model.
func (rc RateConfig) Describe() *result.Open {
	if !rc.Open() {
		return nil
	}
	d := &result.Open{Arrival: rc.arrival(), RateStages: FormatStages(rc.Stages),
		LatencyLimitMS: float64(rc.LatencyLimit.Microseconds()) / 1000}
	if rc.TPS != nil {
		d.RateTPS = *rc.TPS
	}
	if q := rc.MaxQueue; q != nil {
		n := *q
		d.MaxQueue = &n
	}
	return d
}

// MinStarted is the share of a run's offered arrivals below which the
// run warns that it did not keep up with its arrival rate (Shortfall).
const MinStarted = 0.95

// Shortfall returns the warning of a run of the arrival-rate model that
// started less than MinStarted of the arrivals offered, "" otherwise:
// the arrivals that never started are in no latency percentile, so the
// percentiles alone hide that most of the load was never served. The
// run's warnings hold it, and `dbarena run` prints it on its standard
// error too.
func Shortfall(r *result.Run) string {
	if r.Offered == 0 || float64(r.Started) >= MinStarted*float64(r.Offered) {
		return ""
	}
	w := fmt.Sprintf("only %.1f%% of the %d arrivals offered started (%d started, %d unstarted at the end, %d skipped, %d dropped): the target did not keep up with the arrival rate, and the latency percentiles are those of the started ones only",
		float64(r.Started)*100/float64(r.Offered), r.Offered, r.Started, r.Unstarted, r.Skipped, r.Dropped)
	if u := r.UnstartedMS; u != nil {
		w += fmt.Sprintf("; the unstarted had waited up to %.3fs (p50 %.3fs) by the end", u.Max/1000, u.P50/1000)
	}
	return w
}
