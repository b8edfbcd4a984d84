package script_test

import (
	"fmt"
	"testing"

	"github.com/aclements/go-moremath/mathx"

	"github.com/dbarena/dbarena/workload/script/lang"
)

// homogeneityAlpha is the significance of the distribution tests: two
// samples are taken for draws of different distributions when the
// chi-square test of homogeneity gives p below it.
const homogeneityAlpha = 0.001

// homogeneity is the chi-square test of homogeneity of two samples
// counted over the same bins (bins pooled, in order, until each holds
// at least 10 draws of both samples together, so that every expected
// count is large enough): the statistic, its degrees of freedom and the
// p-value, the chance of a statistic at least as large were the two
// samples drawn from one distribution.
func homogeneity(a, b []int) (x float64, df int, p float64) {
	var pa, pb []int
	ca, cb := 0, 0
	for i := range a {
		ca, cb = ca+a[i], cb+b[i]
		if ca+cb >= 10 {
			pa, pb = append(pa, ca), append(pb, cb)
			ca, cb = 0, 0
		}
	}
	if ca+cb > 0 && len(pa) > 0 {
		pa[len(pa)-1] += ca
		pb[len(pb)-1] += cb
	}
	na, nb := 0, 0
	for i := range pa {
		na, nb = na+pa[i], nb+pb[i]
	}
	for i := range pa {
		col := float64(pa[i] + pb[i])
		ea := col * float64(na) / float64(na+nb)
		eb := col * float64(nb) / float64(na+nb)
		x += (float64(pa[i])-ea)*(float64(pa[i])-ea)/ea + (float64(pb[i])-eb)*(float64(pb[i])-eb)/eb
	}
	df = len(pa) - 1
	if df < 1 {
		return x, df, 1
	}
	// The chi-square distribution's survival function: Q(df/2, x/2).
	return x, df, mathx.GammaIncComp(float64(df)/2, x/2)
}

// drawEnv is the environment of expressions drawing values: a generator
// and no variables.
type drawEnv struct{ r *lang.Rand }

func (e drawEnv) Variable(string) (lang.Value, bool, error) { return lang.Value{}, false, nil }
func (e drawEnv) Rand() *lang.Rand                          { return e.r }
func (e drawEnv) Debug(lang.Value)                          {}

// draws counts n values of expr (from 1 to 20) drawn with seed.
func draws(t *testing.T, expr string, seed uint64, n int) []int {
	t.Helper()
	e, err := lang.ParseExpr(expr)
	if err != nil {
		t.Fatal(err)
	}
	env := drawEnv{lang.NewRand(seed)}
	counts := make([]int, 20)
	for range n {
		v, err := lang.Eval(e, env)
		if err != nil {
			t.Fatal(err)
		}
		i, err := v.AsInt()
		if err != nil || i < 1 || i > 20 {
			t.Fatalf("%s = %v (%v), out of [1, 20]", expr, v, err)
		}
		counts[i-1]++
	}
	return counts
}

// TestHomogeneityTellsDistributionsApart is the control of the test
// against pgbench (TestDistributionsMatchPgbench), at its sample size:
// two samples of one distribution pass (p above homogeneityAlpha), and
// samples of a slightly different distribution (another parameter, an
// off-by-one range, another permutation) are rejected. The seeds are
// fixed, so the outcome is too.
func TestHomogeneityTellsDistributionsApart(t *testing.T) {
	const n = distributionDraws
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"random(1, 20)", "random(1, 20)", true},
		{"random_exponential(1, 20, 3)", "random_exponential(1, 20, 3)", true},
		{"random_gaussian(1, 20, 2.5)", "random_gaussian(1, 20, 2.5)", true},
		{"random_zipfian(1, 20, 1.5)", "random_zipfian(1, 20, 1.5)", true},
		{"permute(random_zipfian(1, 20, 1.5) - 1, 20, 5) + 1", "permute(random_zipfian(1, 20, 1.5) - 1, 20, 5) + 1", true},
		{"random(1, 20)", "random(1, 19)", false},
		{"random_exponential(1, 20, 3)", "random_exponential(1, 20, 3.5)", false},
		{"random_gaussian(1, 20, 2.5)", "random_gaussian(1, 20, 2.8)", false},
		{"random_zipfian(1, 20, 1.5)", "random_zipfian(1, 20, 1.6)", false},
		{"permute(random_zipfian(1, 20, 1.5) - 1, 20, 5) + 1", "permute(random_zipfian(1, 20, 1.5) - 1, 20, 6) + 1", false},
	} {
		t.Run(fmt.Sprintf("%s~%s", c.a, c.b), func(t *testing.T) {
			x, df, p := homogeneity(draws(t, c.a, 1, n), draws(t, c.b, 2, n))
			t.Logf("chi-square %.1f, %d degrees of freedom, p %.3g", x, df, p)
			if same := p > homogeneityAlpha; same != c.same {
				t.Errorf("p = %.3g (chi-square %.1f, %d degrees of freedom): same distribution %v, want %v", p, x, df, same, c.same)
			}
		})
	}
}
