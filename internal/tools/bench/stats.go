package main

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// confidence is the level asked of every interval. benchmath's
// distribution-free interval (order statistics) can only give certain
// levels: it returns the narrowest one at or above this, and says which.
const confidence = 0.95

// summary is a sample's median and its confidence interval.
type summary struct {
	Center, Lo, Hi float64
	Confidence     float64 // the interval's actual level; 0 when there is none
	N              int
}

// summarize is the median of vs with its distribution-free 95% interval
// (benchmath.AssumeNothing, as benchstat's). NaNs are left out. With too
// few values for an interval, Lo and Hi are ±Inf.
func summarize(vs []float64) summary {
	vs = slices.DeleteFunc(slices.Clone(vs), func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
	if len(vs) == 0 {
		return summary{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	s := benchmath.NewSample(vs, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	out := summary{Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Confidence: sum.Confidence, N: len(vs)}
	if math.IsInf(out.Lo, 0) || math.IsInf(out.Hi, 0) || math.IsNaN(out.Lo) {
		out.Lo, out.Hi, out.Confidence = math.Inf(-1), math.Inf(1), 0
	}
	return out
}

// hasInterval says whether the rounds gave a finite interval.
func (s summary) hasInterval() bool { return s.Confidence > 0 }

// holds says whether x lies in the interval (always, without one).
func (s summary) holds(x float64) bool { return !s.hasInterval() || (s.Lo <= x && x <= s.Hi) }

// pairedRatios divides round by round: num[i] ÷ den[i]; a round without
// both figures, or with a zero denominator, gives NaN.
func pairedRatios(num, den []float64) []float64 {
	out := make([]float64, min(len(num), len(den)))
	for i := range out {
		if den[i] == 0 || math.IsNaN(num[i]) || math.IsNaN(den[i]) {
			out[i] = math.NaN()
			continue
		}
		out[i] = num[i] / den[i]
	}
	return out
}

// order is round r's (0-based) order of n tools: the list rotated by r,
// so that over n rounds every tool runs once in every position.
func order(n, r int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (i + r) % n
	}
	return out
}

// bar is a requirement on a ratio: ratio OP limit.
type bar struct {
	Op    string // "<=", ">=", "<", ">"
	Limit float64
}

func (b bar) String() string {
	op := map[string]string{"<=": "≤", ">=": "≥", "<": "<", ">": ">"}[b.Op]
	return op + " " + trimFloat(b.Limit)
}

func (b bar) meets(x float64) bool {
	switch b.Op {
	case "<=":
		return x <= b.Limit
	case ">=":
		return x >= b.Limit
	case "<":
		return x < b.Limit
	case ">":
		return x > b.Limit
	}
	panic("bench: bar operator " + b.Op)
}

// verdict judges a ratio's summary against a bar: PASS or FAIL by the
// median of the paired ratios, and whether the interval settles it (lies
// wholly on one side of the limit) or not. pass is false only on FAIL.
func (b bar) verdict(s summary) (text string, pass bool) {
	if math.IsNaN(s.Center) {
		return "not measured", true
	}
	pass = b.meets(s.Center)
	text = "FAIL"
	if pass {
		text = "PASS"
	}
	switch {
	case !s.hasInterval():
		text += " (too few rounds for an interval)"
	case s.holds(b.Limit):
		text += " (the interval holds the bar)"
	}
	return text, pass
}

// reading says what a ratio's interval tells: it holds 1 (noise), or the
// ratio is above or below 1.
func reading(s summary) string {
	switch {
	case math.IsNaN(s.Center):
		return "–"
	case !s.hasInterval():
		return "too few rounds"
	case s.holds(1):
		return "noise (the interval holds 1)"
	case s.Lo > 1:
		return "above 1"
	}
	return "below 1"
}

// interval formats a summary's interval with its actual level.
func interval(s summary, prec int) string {
	switch {
	case math.IsNaN(s.Center):
		return "–"
	case !s.hasInterval():
		return "too few rounds"
	}
	return fmt.Sprintf("%.*f – %.*f (%.1f %%)", prec, s.Lo, prec, s.Hi, 100*s.Confidence)
}

func trimFloat(v float64) string { return fmt.Sprintf("%g", v) }
