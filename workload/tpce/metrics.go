package tpce

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbarena/dbarena/histogram"
	"github.com/dbarena/dbarena/result"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpce/internal/ce"
)

// Metric names.
const (
	// MetricTRps is the headline: Trade-Results completed per second.
	MetricTRps = "TR/s"
	// MetricNominal is TR/s in % of the nominal throughput,
	// customers / --scale-factor TR/s.
	MetricNominal = "tr_per_s_pct_of_nominal"
	// MetricWindow is the measured window's length.
	MetricWindow = "measured_window"
	// MetricEmulator says which emulator the run used: 0 for one per
	// worker, N for one shared by every worker with N works in flight
	// (--mee shared is 1).
	MetricEmulator = "mee_shared_in_flight"
)

// The specification's validity rules (reported, not enforced).
const (
	// NominalLow and NominalHigh bound a valid run's TR/s in % of the
	// nominal throughput (clause 6.7.1.2: 80–100% is reported as
	// measured, 100–102% as nominal, anything else is invalid).
	NominalLow, NominalHigh = 80.0, 102.0
	// MixTolerance is how far, relative to its share of the deck, each
	// dealt transaction's share of the dealt transactions may be.
	MixTolerance = 0.05
	// MinWindow is the specification's shortest measured interval.
	MinWindow = 2 * time.Hour
)

// p90Limit is the 90th-percentile response time limit of each op (the
// commonly cited table of the specification; Data-Maintenance has none).
var p90Limit = [numOps]time.Duration{
	opBrokerVolume: 3 * time.Second, opCustomerPosition: 3 * time.Second, opMarketFeed: 2 * time.Second,
	opMarketWatch: 3 * time.Second, opSecurityDetail: 3 * time.Second, opTradeLookup: 3 * time.Second,
	opTradeOrder: 2 * time.Second, opTradeResult: 2 * time.Second, opTradeStatus: time.Second,
	opTradeUpdate: 3 * time.Second,
}

// metricNames are the names metrics reports for a whole run in which
// every op ran (Spec.Metrics), in its order.
func metricNames() []string {
	out := []string{MetricTRps, MetricEmulator, MetricNominal}
	for _, op := range dealtOp {
		out = append(out, "mix "+opNames[op])
	}
	for i, n := range opNames {
		if p90Limit[i] != 0 {
			out = append(out, "p90 "+n)
		}
	}
	return append(out, MetricWindow, metricCustomers, metricITD)
}

// The database's size against the specification's.
const (
	metricCustomers = "customers_vs_spec_minimum"
	metricITD       = "initial_trade_days_vs_spec"
)

// metrics are the run's figures (Run.Metrics). For every span: TR/s, the
// Trade-Results completed per second (the headline, DBT-5's trtps). For
// the whole measured phase it adds which emulator ran (MetricEmulator)
// and the specification's validity figures, reported, not enforced:
// TR/s against the nominal customers / --scale-factor (valid within
// NominalLow–NominalHigh %); each dealt transaction's share of the dealt
// transactions (completed, rolled back or failed) against its share of
// the deck, within MixTolerance relative; every op's 90th percentile
// against its limit; the measured window against 2 hours; and the
// database's size: at least 5,000 customers and 300 initial trade days.
func (r *runState) metrics(s workload.Span) []result.Metric {
	secs := s.Length.Seconds()
	if secs <= 0 || len(s.Ops) != numOps {
		return nil
	}
	trps := float64(s.Ops[opTradeResult].Count) / secs
	out := []result.Metric{{Name: MetricTRps, Value: round3(trps), Unit: "/s", Higher: true}}
	if !s.Final {
		return out
	}
	flag := func(ok bool) *bool { return &ok }
	limit := func(v float64) *float64 { return &v }
	shared := 0.0
	if r.mode.Shared {
		shared = float64(r.mode.Deliveries)
	}
	out = append(out, result.Metric{Name: MetricEmulator, Value: shared})
	nominal := float64(r.opts.customers) / float64(r.opts.scaleFactor)
	pct := 100 * trps / nominal
	out = append(out, result.Metric{Name: MetricNominal, Value: round3(pct), Unit: "%", Limit: limit(100),
		Rule: fmt.Sprintf("%g–%g%% of the nominal %.2f TR/s (%d customers / scale factor %d)", NominalLow, NominalHigh, nominal, r.opts.customers, r.opts.scaleFactor),
		Pass: flag(pct >= NominalLow && pct <= NominalHigh)})
	var dealt int64
	for _, op := range dealtOp {
		dealt += s.Ops[op].Count + s.Ops[op].Errors
	}
	if dealt > 0 {
		for k, op := range dealtOp {
			o := s.Ops[op]
			share := 100 * float64(o.Count+o.Errors) / float64(dealt)
			want := 100 * float64(ce.Cards[k]) / ce.DeckSize
			out = append(out, result.Metric{Name: "mix " + o.Name, Value: round3(share), Unit: "%", Limit: limit(round3(want)),
				Rule: fmt.Sprintf("%.1f%% ± %g%% relative (%.2f–%.2f%%)", want, 100*MixTolerance, want*(1-MixTolerance), want*(1+MixTolerance)),
				Pass: flag(math.Abs(share-want) <= MixTolerance*want)})
		}
	}
	for i, o := range s.Ops {
		if o.Count == 0 || p90Limit[i] == 0 || o.Hist == nil {
			continue // nothing measured, or no limit: nothing to judge
		}
		lim := float64(p90Limit[i].Milliseconds())
		p90 := histogram.Percentile(o.Hist, 90)
		out = append(out, result.Metric{Name: "p90 " + o.Name, Value: p90, Unit: "ms", Limit: &lim, Rule: "≤ " + p90Limit[i].String(), Pass: flag(p90 <= lim)})
	}
	out = append(out,
		result.Metric{Name: MetricWindow, Value: round3(secs), Unit: "s", Limit: limit(MinWindow.Seconds()), Rule: "≥ " + strings.TrimSuffix(MinWindow.String(), "0m0s"), Pass: flag(s.Length >= MinWindow), Higher: true},
		result.Metric{Name: metricCustomers, Value: float64(r.opts.customers), Limit: limit(DefaultCustomers), Rule: fmt.Sprintf("≥ %d customers", DefaultCustomers), Pass: flag(!r.opts.belowMinimum()), Higher: true},
		result.Metric{Name: metricITD, Value: float64(r.opts.itd), Limit: limit(DefaultITD), Rule: fmt.Sprintf("= %d initial trade days", DefaultITD), Pass: flag(r.opts.itd == DefaultITD)})
	return out
}

// round3 rounds x to three decimals.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
