package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/metric"
	"github.com/dbarena/dbarena/result"
)

// Precision is the rule of repeating until precise (run --until-ci, a
// plan's repetitions: {until_ci: …}): cells are repeated in interleaved
// rounds until the 95% confidence interval of every cell's median (the
// interval compare shows) is within ±Width of that median, or Max rounds
// or the Budget are spent.
//
// The rule looks at the intervals' widths only, never at whether two
// cells differ: it is a fixed-width sequential procedure, so stopping
// when the intervals are narrow does not make differences look
// significant more often than the test says.
type Precision struct {
	// Width is the half-width aimed at, as a fraction of the median
	// (0.02 for ±2%).
	Width float64
	// Min and Max bound the rounds. The rule is not looked at before
	// Min rounds, nor before MinRounds, the fewest values that give a
	// distribution-free 95% interval of a median.
	Min, Max int
	// Budget, when positive, bounds the time of all rounds: no round
	// starts once it is spent.
	Budget time.Duration
}

// The defaults of a Precision's rounds.
const (
	DefaultPrecisionMin = 5
	DefaultPrecisionMax = 30
)

// MinRounds is the fewest values whose median has a finite
// distribution-free 95% confidence interval (6): with fewer the rule
// cannot be met.
var MinRounds = minSamples()

// ParseWidth reads a width as a percentage ("2%", "0.5%") or a fraction
// ("0.02"); flag names the flag or field in errors.
func ParseWidth(flag, s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %q: want a width such as 2%% (the interval within ±2%% of the median)", flag, s)
	}
	if pct {
		v /= 100
	}
	if v <= 0 || v >= 1 {
		return 0, fmt.Errorf("%s %q: want a width above 0%% and below 100%%", flag, s)
	}
	return v, nil
}

// Validate names the field of a rule that cannot work.
func (p Precision) Validate() error {
	var errs []error
	if p.Width <= 0 || p.Width >= 1 {
		errs = append(errs, fmt.Errorf("until_ci %g: want a width above 0%% and below 100%%", p.Width))
	}
	if p.Min < 1 {
		errs = append(errs, fmt.Errorf("min %d: at least 1 round", p.Min))
	}
	if p.Max < p.Min {
		errs = append(errs, fmt.Errorf("max %d: below min %d", p.Max, p.Min))
	}
	if p.Max < MinRounds {
		errs = append(errs, fmt.Errorf("max %d: a median's 95%% interval needs %d rounds at least", p.Max, MinRounds))
	}
	if p.Budget < 0 {
		errs = append(errs, fmt.Errorf("budget %s: negative", p.Budget))
	}
	return errors.Join(errs...)
}

// HalfWidth is the half-width of the 95% confidence interval of vs's
// median, as a fraction of the median: +Inf with too few values for an
// interval, or a median of 0.
func HalfWidth(vs []float64) float64 {
	c := summarize(vs)
	if c.N() < 2 || math.IsInf(c.Lo, 0) || math.IsInf(c.Hi, 0) || c.Center == 0 {
		return math.Inf(1)
	}
	return math.Max(c.Hi-c.Center, c.Center-c.Lo) / math.Abs(c.Center)
}

// Stop is why repeating stopped.
type Stop string

const (
	StopReached Stop = "reached" // every interval within the width
	StopMax     Stop = "max"     // Max rounds run
	StopBudget  Stop = "budget"  // the budget spent
)

// Verdict is the rule applied after a round.
type Verdict struct {
	// Done is true when no round follows; Stop says why.
	Done bool
	Stop Stop
	// Widest is the largest half-width among the cells (a fraction of
	// its median; +Inf while some cell has no interval), Cell its index.
	Widest float64
	Cell   int
}

// Check applies the rule after rounds rounds, cells holding each cell's
// values so far and elapsed the time spent; next is the time the next
// round takes (0 when unknown), which must fit in the budget.
func (p Precision) Check(rounds int, cells [][]float64, elapsed, next time.Duration) Verdict {
	v := Verdict{Cell: -1}
	for i, vs := range cells {
		if w := HalfWidth(vs); v.Cell < 0 || w > v.Widest {
			v.Widest, v.Cell = w, i
		}
	}
	switch {
	case rounds >= p.Min && rounds >= MinRounds && v.Widest <= p.Width:
		v.Done, v.Stop = true, StopReached
	case rounds >= p.Max:
		v.Done, v.Stop = true, StopMax
	case p.Budget > 0 && elapsed+next > p.Budget:
		v.Done, v.Stop = true, StopBudget
	}
	return v
}

// Outcome is the result file's record of the rule (result.Precision).
func (p Precision) Outcome(metric string, rounds int, v Verdict) *result.Precision {
	o := &result.Precision{Metric: metric, WidthPct: round3(100 * p.Width), Min: p.Min, Max: p.Max, Rounds: rounds, Stop: string(v.Stop)}
	if p.Budget > 0 {
		o.BudgetS = p.Budget.Seconds()
	}
	if !math.IsInf(v.Widest, 0) {
		w := round3(100 * v.Widest)
		o.WidestPct = &w
	}
	return o
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// PrecisionText says how a repeat-until-precise ended: "every interval
// within ±2% (the widest ±1.8%) after 9 rounds", "budget reached at
// ±3.4% after 12 rounds (asked ±2%)".
func PrecisionText(o *result.Precision) string {
	widest := "no interval yet"
	if o.WidestPct != nil {
		widest = fmt.Sprintf("±%s%%", strconv.FormatFloat(*o.WidestPct, 'f', 1, 64))
	}
	asked := strconv.FormatFloat(o.WidthPct, 'g', -1, 64)
	switch Stop(o.Stop) {
	case StopReached:
		return fmt.Sprintf("until-ci ±%s%%: every interval within it (the widest %s) after %d rounds", asked, widest, o.Rounds)
	case StopBudget:
		return fmt.Sprintf("until-ci ±%s%%: budget reached at %s after %d rounds", asked, widest, o.Rounds)
	case StopMax:
		return fmt.Sprintf("until-ci ±%s%%: %d rounds (max) reached at %s", asked, o.Rounds, widest)
	default:
		return fmt.Sprintf("until-ci ±%s%%: stopped after %d rounds at %s, before the rule was met", asked, o.Rounds, widest)
	}
}

// RunValue is run's figure named metric (compare's --metric: a run
// metric such as tps, or a workload metric such as NOPM), false when it
// has none.
func RunValue(r *result.Run, name string) (float64, bool) {
	m := metricSpec{Metric: Metric{Name: name}}
	if rm, ok := metric.LookupRunMetric(name); ok {
		m.run = &rm
	}
	return m.value(r, "")
}
