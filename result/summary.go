package result

import (
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbarena/dbarena/histogram"
)

// This file owns how a run's and an interval's figures are derived from
// counts, lengths and histograms: the runner uses it for what it measured,
// Merge for what it added up, so both give the same numbers for the same
// counts.

// IntervalOf returns the result interval of one reporting tick: iv's counts,
// rates over length, latency percentiles of all ops, and each op's counts
// and encoded histogram. elapsed is the time since the run started at the
// end of the interval.
func IntervalOf(iv *histogram.Interval, elapsed, length time.Duration, warmup bool) Interval {
	out := Interval{
		TS:           round(elapsed.Seconds(), 3),
		LengthS:      round(length.Seconds(), 6),
		Warmup:       warmup,
		Transactions: iv.Transactions(),
		Queries:      iv.Queries.Total(),
		Reads:        iv.Queries.Reads,
		Writes:       iv.Queries.Writes,
		Other:        iv.Queries.Other,
		Errors:       iv.Errors(),
		Retries:      iv.Retries(),
		Reconnects:   iv.Reconnects,
		Rollbacks:    iv.Rollbacks(),
	}
	out.setRates(length.Seconds())
	out.LatencyMS = intervalLatency(iv.All())
	open := iv.Open()
	if open {
		out.Late, out.Skipped, out.Dropped = iv.Late(), iv.Skipped, iv.Dropped
		svc, lag := intervalLatency(iv.AllService()), intervalLatency(iv.AllLag())
		out.ServiceMS, out.LagMS = &svc, &lag
	}
	for i, o := range iv.Ops {
		op := IntervalOp{Op: i, Count: o.Hist.TotalCount(), Errors: o.Counts.Errors, Retries: o.Counts.Retries, Rollbacks: o.Counts.Rollbacks, Late: o.Counts.Late}
		if op.Count == 0 && op.Errors == 0 && op.Retries == 0 && op.Rollbacks == 0 {
			continue
		}
		if op.Count > 0 {
			op.HDR = encode(o.Hist)
			if o.Service != nil && o.Service.TotalCount() > 0 {
				op.ServiceHDR, op.LagHDR = encode(o.Service), encode(o.Lag)
			}
		}
		out.Ops = append(out.Ops, op)
	}
	return out
}

// Fill sets r's totals from the measured phase: counts and rates over dur,
// client CPU cpu, latency of all ops and, per op (named by ops, in the
// order of total.Ops), counts, latency and encoded histogram.
func (r *Run) Fill(total *histogram.Interval, ops []string, dur, cpu time.Duration) {
	r.DurationS = round(dur.Seconds(), 3)
	r.Transactions = total.Transactions()
	r.Queries = total.Queries.Total()
	r.Reads, r.Writes, r.Other = total.Queries.Reads, total.Queries.Writes, total.Queries.Other
	r.Errors = total.Errors()
	r.Retries = total.Retries()
	r.Reconnects = total.Reconnects
	r.Rollbacks = total.Rollbacks()
	r.ClientCPUS = round(cpu.Seconds(), 3)
	r.setRates(dur.Seconds(), float64(cpu.Microseconds()))
	r.LatencyMS = histogram.Summarize(total.All())
	open := total.Open()
	if open {
		r.Late, r.Skipped, r.Dropped = total.Late(), total.Skipped, total.Dropped
		r.ServiceMS, r.LagMS = summary(total.AllService()), summary(total.AllLag())
	}
	r.Ops = make([]Op, len(ops))
	for i, name := range ops {
		o := &total.Ops[i]
		h := o.Hist
		r.Ops[i] = Op{
			Name:      name,
			Count:     h.TotalCount(),
			Errors:    o.Counts.Errors,
			Retries:   o.Counts.Retries,
			Rollbacks: o.Counts.Rollbacks,
			LatencyMS: histogram.Summarize(h),
			HDR:       encode(h),
		}
		if open {
			r.Ops[i].Late = o.Counts.Late
			svc, lag := o.Service, o.Lag
			if svc == nil {
				svc, lag = histogram.New(), histogram.New()
			}
			r.Ops[i].ServiceMS, r.Ops[i].ServiceHDR = summary(svc), encode(svc)
			r.Ops[i].LagMS, r.Ops[i].LagHDR = summary(lag), encode(lag)
		}
	}
}

// FillSteps fills the steps of r's ops (filled by Fill) from total's:
// steps[i] names op i's steps, in order, as the recorders numbered them
// (histogram.Recorder.EnableSteps). A step without executions has an
// empty histogram.
func (r *Run) FillSteps(total *histogram.Interval, steps [][]Step) {
	n := 0
	for i := range r.Ops {
		if i >= len(steps) {
			break
		}
		r.Ops[i].Steps = make([]Step, len(steps[i]))
		for j, st := range steps[i] {
			var h *hdr.Histogram
			if n < len(total.Steps) {
				t := total.Steps[n]
				h, st.Failures, st.Retries = t.Hist, t.Failures, t.Retries
			} else {
				h = histogram.New()
			}
			st.Count, st.LatencyMS, st.HDR = h.TotalCount(), histogram.Summarize(h), encode(h)
			r.Ops[i].Steps[j] = st
			n++
		}
	}
}

// summary is histogram.Summarize's, by pointer.
func summary(h *hdr.Histogram) *histogram.Latency {
	l := histogram.Summarize(h)
	return &l
}

// setRates derives the run's rates from its counts: secs is the measured
// time, cpuUS the client's CPU time in microseconds.
func (r *Run) setRates(secs, cpuUS float64) {
	r.TPS, r.QPS, r.RetriesPerS, r.RetryPct = 0, 0, 0, 0
	r.ClientCPUPerTxnUS, r.ClientCPUPerQueryUS = 0, 0
	if secs > 0 {
		r.TPS = round(float64(r.Transactions)/secs, 2)
		r.QPS = round(float64(r.Queries)/secs, 2)
		r.RetriesPerS = round(float64(r.Retries)/secs, 2)
	}
	if committed := r.Transactions - r.Rollbacks; committed > 0 {
		r.RetryPct = round(float64(r.Retries)*100/float64(committed), 3)
	}
	if r.Transactions > 0 {
		r.ClientCPUPerTxnUS = round(cpuUS/float64(r.Transactions), 2)
	}
	if r.Queries > 0 {
		r.ClientCPUPerQueryUS = round(cpuUS/float64(r.Queries), 2)
	}
}

// SetServerCPU derives ServerCPUPerTxnUS and ServerCPUPerQueryUS from the
// server_cpu_pct of r.Server (the server process's CPU, 100 = one core)
// over the measured time DurationS; both are 0 without that metric.
func (r *Run) SetServerCPU() {
	r.ServerCPUPerTxnUS, r.ServerCPUPerQueryUS = 0, 0
	cpu, ok := r.Server["server_cpu_pct"]
	if !ok {
		return
	}
	cpuUS := cpu / 100 * r.DurationS * 1e6
	if r.Transactions > 0 {
		r.ServerCPUPerTxnUS = round(cpuUS/float64(r.Transactions), 2)
	}
	if r.Queries > 0 {
		r.ServerCPUPerQueryUS = round(cpuUS/float64(r.Queries), 2)
	}
}

// setRates derives the interval's rates from its counts over secs.
func (iv *Interval) setRates(secs float64) {
	iv.TPS, iv.QPS = 0, 0
	if secs > 0 {
		iv.TPS = round(float64(iv.Transactions)/secs, 2)
		iv.QPS = round(float64(iv.Queries)/secs, 2)
	}
}

func intervalLatency(all *hdr.Histogram) IntervalLatency {
	return IntervalLatency{
		P50: histogram.Percentile(all, 50),
		P95: histogram.Percentile(all, 95),
		P99: histogram.Percentile(all, 99),
		Max: histogram.Percentile(all, 100),
	}
}

func encode(h *hdr.Histogram) string {
	s, _ := histogram.Encode(h) // encoding an in-memory histogram cannot fail
	return s
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
