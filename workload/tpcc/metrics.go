package tpcc

import (
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
)

// TPC-C's figures of merit and limits.
const (
	// MaxTpmCPerWarehouse is the most tpmC a warehouse can produce with
	// the specification's keying and think times: efficiency is measured
	// against it.
	MaxTpmCPerWarehouse = 12.86
)

// p90Limit is the 90th-percentile response time each transaction type
// must meet (clause 5.2.5.3): 5 s, and 20 s for Stock-Level.
var p90Limit = [numOps]time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second, 20 * time.Second}

// Metric names.
const (
	MetricNOPM       = "NOPM"
	MetricNOPMClient = "NO/min"
	MetricTPM        = "TPM"
	MetricTpmC       = "tpmC"
	MetricEfficiency = "efficiency"
)

// metricNames are the names metrics reports for a whole run in which
// every transaction type ran (Spec.Metrics), under --wait when wait.
func metricNames(wait bool) []string {
	out := []string{MetricNOPM, MetricNOPMClient, MetricTPM}
	if !wait {
		return out
	}
	out = append(out, MetricTpmC, MetricEfficiency)
	for _, n := range opNames {
		out = append(out, "p90 "+n)
	}
	return out
}

// metrics computes the workload's figures over a span (Run.Metrics):
//   - NOPM, HammerDB's New-Orders per minute: the growth of
//     sum(d_next_o_id), which only committed New-Orders advance, read
//     from the database itself;
//   - NO/min, the same counted by dbarena: New-Orders completed minus
//     those rolled back;
//   - TPM, transactions of all five types per minute, rollbacks included.
//
// Under --wait it adds tpmC (completed New-Orders per minute, rollbacks
// included, as clause 5.4 counts them), the efficiency against
// 12.86 tpmC per warehouse and, for the whole run, the 90th percentile
// of every type that ran against its limit.
func (r *run) metrics(s workload.Span) []result.Metric {
	minutes := s.Length.Minutes()
	if minutes <= 0 {
		return nil
	}
	perMin := func(n int64) float64 { return round2(float64(n) / minutes) }
	no := s.Ops[opNewOrder]
	var all int64
	for _, o := range s.Ops {
		all += o.Count
	}
	var out []result.Metric
	if s.Counters != nil {
		out = append(out, result.Metric{Name: MetricNOPM, Value: perMin(s.Counters[0]), Unit: "/min", Higher: true})
	}
	out = append(out,
		result.Metric{Name: MetricNOPMClient, Value: perMin(no.Count - no.Rollbacks), Unit: "/min", Higher: true},
		result.Metric{Name: MetricTPM, Value: perMin(all), Unit: "/min", Higher: true})
	if !r.opts.wait {
		return out
	}
	tpmC := perMin(no.Count)
	out = append(out,
		result.Metric{Name: MetricTpmC, Value: tpmC, Unit: "/min", Higher: true},
		result.Metric{Name: MetricEfficiency, Value: round2(100 * tpmC / (MaxTpmCPerWarehouse * float64(r.opts.warehouses))), Unit: "%", Higher: true})
	if !s.Final {
		return out
	}
	for i, o := range s.Ops {
		if o.Count == 0 {
			continue // nothing measured, nothing to judge
		}
		limit := float64(p90Limit[i].Milliseconds())
		p90 := histogram.Percentile(o.Hist, 90)
		pass := p90 <= limit
		out = append(out, result.Metric{Name: "p90 " + o.Name, Value: p90, Unit: "ms", Limit: &limit, Rule: "≤ " + p90Limit[i].String(), Pass: &pass})
	}
	return out
}

func round2(x float64) float64 {
	if x < 0 {
		return -round2(-x)
	}
	return float64(int64(x*100+0.5)) / 100
}
