package compare_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dbarena/dbarena/compare"
)

// repeat runs the rule on cells whose values are means × (1 + noise·N(0,1)),
// one value per cell a round, each round taking roundTime on a fake
// clock, until the rule says stop.
func repeat(p compare.Precision, means, noise []float64, roundTime time.Duration, seed uint64) (compare.Verdict, int, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	cells := make([][]float64, len(means))
	var elapsed time.Duration
	for round := 1; ; round++ {
		for i := range cells {
			cells[i] = append(cells[i], means[i]*(1+noise[i]*rng.NormFloat64()))
		}
		elapsed += roundTime
		if v := p.Check(round, cells, elapsed, roundTime); v.Done {
			return v, round, cells
		}
	}
}

// Two cells with 2% and 1% noise: the rule stops by itself once both
// intervals are within ±2%, never before the 6 rounds an interval needs.
func TestPrecisionReached(t *testing.T) {
	p := compare.Precision{Width: 0.02, Min: 5, Max: 30}
	for seed := uint64(1); seed <= 20; seed++ {
		v, rounds, cells := repeat(p, []float64{1000, 2000}, []float64{0.02, 0.01}, time.Minute, seed)
		if v.Stop != compare.StopReached {
			t.Errorf("seed %d: stopped by %s after %d rounds at ±%.1f%%", seed, v.Stop, rounds, 100*v.Widest)
			continue
		}
		if rounds < compare.MinRounds {
			t.Errorf("seed %d: stopped after %d rounds, before an interval exists", seed, rounds)
		}
		for i, vs := range cells {
			if w := compare.HalfWidth(vs); w > 0.02 {
				t.Errorf("seed %d: cell %d at ±%.2f%% when the rule stopped", seed, i, 100*w)
			}
		}
	}
}

// The rule looks at widths only: the same noise stops after the same
// rounds whether the cells' medians differ or not.
func TestPrecisionIgnoresDifferences(t *testing.T) {
	p := compare.Precision{Width: 0.02, Min: 5, Max: 30}
	for seed := uint64(1); seed <= 10; seed++ {
		_, same, _ := repeat(p, []float64{1000, 1000}, []float64{0.03, 0.03}, time.Minute, seed)
		_, apart, _ := repeat(p, []float64{1000, 1500}, []float64{0.03, 0.03}, time.Minute, seed)
		if same != apart {
			t.Errorf("seed %d: %d rounds for equal cells, %d for different ones", seed, same, apart)
		}
	}
}

func TestPrecisionMaxAndBudget(t *testing.T) {
	// 20% noise cannot reach ±2% in 12 rounds.
	v, rounds, _ := repeat(compare.Precision{Width: 0.02, Min: 5, Max: 12}, []float64{100}, []float64{0.2}, time.Minute, 1)
	if v.Stop != compare.StopMax || rounds != 12 || v.Widest <= 0.02 {
		t.Errorf("max: %+v after %d rounds", v, rounds)
	}
	// A 10-minute budget of 1-minute rounds: 10 fit; no round starts
	// that would end past it.
	v, rounds, _ = repeat(compare.Precision{Width: 0.02, Min: 5, Max: 30, Budget: 10 * time.Minute}, []float64{100}, []float64{0.2}, time.Minute, 1)
	if v.Stop != compare.StopBudget || rounds != 10 {
		t.Errorf("budget: %+v after %d rounds, want the budget after 10", v, rounds)
	}
	o := compare.Precision{Width: 0.02, Min: 5, Max: 30, Budget: 10 * time.Minute}.Outcome("NOPM", rounds, v)
	if got := compare.PrecisionText(o); !strings.HasPrefix(got, "until-ci ±2%: budget reached at ±") || !strings.HasSuffix(got, "after 10 rounds") {
		t.Errorf("text %q", got)
	}
	if o.Metric != "NOPM" || o.BudgetS != 600 || o.WidestPct == nil {
		t.Errorf("outcome %+v", o)
	}
}

func TestParseWidth(t *testing.T) {
	for in, want := range map[string]float64{"2%": 0.02, "0.5%": 0.005, "0.02": 0.02, " 10% ": 0.1} {
		if got, err := compare.ParseWidth("--until-ci", in); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("%q: %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "two", "0%", "-1%", "100%", "NaN"} {
		if _, err := compare.ParseWidth("--until-ci", in); err == nil || !strings.Contains(err.Error(), "--until-ci") {
			t.Errorf("%q: %v", in, err)
		}
	}
	if err := (compare.Precision{Width: 0.02, Min: 5, Max: 4}).Validate(); err == nil || !strings.Contains(err.Error(), "max 4: below min 5") {
		t.Errorf("max below min: %v", err)
	}
}
