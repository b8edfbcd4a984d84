package main

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Every tool runs once in every position over as many rounds as tools.
func TestOrderRotates(t *testing.T) {
	want := [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2}}
	for r, w := range want {
		if got := order(3, r); !slices.Equal(got, w) {
			t.Errorf("order(3, %d) = %v; want %v", r, got, w)
		}
	}
	if got := order(2, 1); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("order(2, 1) = %v", got)
	}
}

// Seven rounds: the median is the fourth value, the distribution-free
// interval the range (98.4 %: 1 − 2 × 0.5⁷).
func TestSummarizeSevenRounds(t *testing.T) {
	s := summarize([]float64{1.10, 0.95, 1.02, 0.90, 1.30, 1.05, 0.99})
	if s.Center != 1.02 || s.Lo != 0.90 || s.Hi != 1.30 || s.N != 7 || math.Abs(s.Confidence-(1-2*math.Pow(0.5, 7))) > 1e-9 {
		t.Errorf("summarize = %+v", s)
	}
	if reading(s) != "noise (the interval holds 1)" {
		t.Errorf("reading = %q", reading(s))
	}
	if got := reading(summarize([]float64{1.1, 1.2, 1.15, 1.3, 1.12, 1.25, 1.18})); got != "above 1" {
		t.Errorf("reading above = %q", got)
	}
	if got := reading(summarize([]float64{0.8, 0.85, 0.9, 0.82, 0.88, 0.86, 0.84})); got != "below 1" {
		t.Errorf("reading below = %q", got)
	}
}

// Too few rounds for a 95 % interval: the median stands alone.
func TestSummarizeFewRounds(t *testing.T) {
	s := summarize([]float64{2, 1, 3})
	if s.Center != 2 || s.hasInterval() || reading(s) != "too few rounds" || interval(s, 3) != "too few rounds" {
		t.Errorf("summarize(3 values) = %+v", s)
	}
	if s := summarize([]float64{math.NaN()}); !math.IsNaN(s.Center) || interval(s, 3) != "–" {
		t.Errorf("summarize(NaN) = %+v", s)
	}
}

func TestPairedRatios(t *testing.T) {
	got := pairedRatios([]float64{2, 3, 4, math.NaN()}, []float64{1, 0, 8, 1})
	if got[0] != 2 || !math.IsNaN(got[1]) || got[2] != 0.5 || !math.IsNaN(got[3]) {
		t.Errorf("pairedRatios = %v", got)
	}
}

func TestBarVerdict(t *testing.T) {
	le := bar{"<=", 1}
	for _, tc := range []struct {
		vs   []float64
		want string
		pass bool
	}{
		{[]float64{0.8, 0.85, 0.9, 0.82, 0.88, 0.86, 0.84}, "PASS", true},
		{[]float64{0.8, 0.95, 0.9, 0.82, 1.05, 0.86, 0.84}, "PASS (the interval holds the bar)", true},
		{[]float64{1.1, 1.2, 1.15, 1.3, 1.12, 1.25, 1.18}, "FAIL", false},
		{[]float64{1.1}, "FAIL (too few rounds for an interval)", false},
	} {
		got, pass := le.verdict(summarize(tc.vs))
		if got != tc.want || pass != tc.pass {
			t.Errorf("verdict(%v) = %q, %v; want %q, %v", tc.vs, got, pass, tc.want, tc.pass)
		}
	}
	if (bar{">=", 3}).String() != "≥ 3" || (bar{"<", 1}).meets(1) {
		t.Error("bar String or meets")
	}
}

// A case's report: the ratio table first, with the median of the paired
// ratios, its interval, the rounds, the reading and the verdict.
func TestWriteCase(t *testing.T) {
	k := &kase{title: "t", tools: []string{"peer", "dbarena"}, cols: []column{{"qps", "QPS", 0}},
		ratios: []ratio{{"QPS, dbarena ÷ peer", ref{"dbarena", "qps"}, ref{"peer", "qps"}, &bar{">=", 1}}}}
	for r, v := range []float64{1.1, 1.2, 1.15, 1.3, 1.12, 1.25, 1.18} {
		k.orders = append(k.orders, []string{"peer", "dbarena"})
		k.runs = append(k.runs, map[string]obs{"peer": {"qps": 1000}, "dbarena": {"qps": 1000 * v}})
		_ = r
	}
	var b strings.Builder
	fails := writeCase(&b, k, "1.")
	out := b.String()
	for _, want := range []string{
		"| QPS, dbarena ÷ peer | **1.180** | 1.100 – 1.300 (98.4 %) | 7 | above 1 | ≥ 1 | **PASS** | 1.100 1.200 1.150 1.300 1.120 1.250 1.180 |",
		"| dbarena | 1180 |",
		"| 7 | 2 | dbarena | 1180 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if fails != 0 {
		t.Errorf("fails = %d", fails)
	}
}
