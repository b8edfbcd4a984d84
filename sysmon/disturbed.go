package sysmon

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dbarena/dbarena/result"
)

// Limits say when the host disturbed a run: when, in at least Share
// percent of its measured intervals (and at least one), processes other
// than dbarena and the server used more than Other percent of the host's
// CPUs (host_other_cpu_pct), the hypervisor stole more than Steal percent
// of them (host_steal_pct), or dbarena's own process used more than
// Client percent of the cores it drives the workers with (client_cpu_pct:
// the load generator near saturation). A limit of 0 is never crossed.
type Limits struct {
	Other, Steal, Client, Share float64
}

// DefaultLimits are the limits of `dbarena run` and of plans: other work
// above 25% of the host, steal above 5%, dbarena above 90% of its cores,
// in 10% of the measured intervals.
func DefaultLimits() Limits { return Limits{Other: 25, Steal: 5, Client: 90, Share: 10} }

// limit is one cause's metric and its limit in the metric's unit; 0 when
// the cause is not judged.
type limit struct {
	cause, metric string
	value         float64
}

// limits are the three causes in their order, clientCores the cores
// dbarena drives the workers with (0: its own CPU is not judged).
func (l Limits) limits(clientCores float64) [3]limit {
	client := 0.0
	if clientCores > 0 {
		client = l.Client * clientCores // % of one core
	}
	return [3]limit{
		{result.DisturbedOther, "host_other_cpu_pct", l.Other},
		{result.DisturbedSteal, "host_steal_pct", l.Steal},
		{result.DisturbedClient, "client_cpu_pct", client},
	}
}

// Causes lists the causes whose metric is above its limit in iv, in the
// order other, steal, client; nil when none is. clientCores is as for
// Judge.
func (l Limits) Causes(iv Interval, clientCores float64) []string {
	var out []string
	for _, lim := range l.limits(clientCores) {
		if v, ok := iv[lim.metric]; ok && lim.value > 0 && v > lim.value {
			out = append(out, lim.cause)
		}
	}
	return out
}

// Judge says what disturbed a run whose measured intervals are ivs (the
// warm-up left out): one Disturbance per cause above its limit in at
// least Share percent of the intervals that have its metric, and in at
// least one. clientCores is how many cores dbarena drives the workers
// with (its client threads, else GOMAXPROCS, at most the host's CPUs),
// 0 when its CPU is the database's (an embedded engine) and is not
// judged. Judge returns nil for an undisturbed run.
func (l Limits) Judge(ivs []Interval, clientCores float64) []result.Disturbance {
	var out []result.Disturbance
	for _, lim := range l.limits(clientCores) {
		if lim.value <= 0 {
			continue
		}
		d := result.Disturbance{Cause: lim.cause, Metric: lim.metric, Limit: round3(lim.value)}
		sum := 0.0
		for _, iv := range ivs {
			v, ok := iv[lim.metric]
			if !ok {
				continue
			}
			d.Measured++
			if v > lim.value {
				d.Intervals++
				sum += v
				d.Max = max(d.Max, v)
			}
		}
		if d.Intervals == 0 || float64(d.Intervals)*100 < l.Share*float64(d.Measured) {
			continue
		}
		d.Mean, d.Max = round3(sum/float64(d.Intervals)), round3(d.Max)
		d.Text = disturbedText(d, l, clientCores)
		out = append(out, d)
	}
	return out
}

// disturbedText says what disturbed the run, by how much and against
// which limit (naming its flag).
func disturbedText(d result.Disturbance, l Limits, clientCores float64) string {
	in := fmt.Sprintf("in %d of %d measured intervals", d.Intervals, d.Measured)
	switch d.Cause {
	case result.DisturbedOther:
		return fmt.Sprintf("processes other than dbarena and the server used %.0f%% of the host's CPU (mean; up to %.0f%%) %s, above the limit of %s%% (--disturbed-other)",
			d.Mean, d.Max, in, num(l.Other))
	case result.DisturbedSteal:
		return fmt.Sprintf("the hypervisor stole %.1f%% of the host's CPU (mean; up to %.1f%%) %s, above the limit of %s%% (--disturbed-steal)",
			d.Mean, d.Max, in, num(l.Steal))
	default:
		return fmt.Sprintf("dbarena itself used %.2f of the %s cores it drives the workers with (mean; up to %.2f) %s, above the limit of %s%% (--disturbed-client): the load generator may have been the bottleneck",
			d.Mean/100, num(clientCores), d.Max/100, in, num(l.Client))
	}
}

func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}
