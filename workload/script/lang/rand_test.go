package lang

import (
	"math"
	"testing"
)

// chiSquare returns Pearson's statistic of observed counts against
// expected probabilities, and its degrees of freedom.
func chiSquare(counts []int, probs []float64, total int) (float64, int) {
	x := 0.0
	for i, c := range counts {
		e := probs[i] * float64(total)
		x += (float64(c) - e) * (float64(c) - e) / e
	}
	return x, len(counts) - 1
}

// checkFits fails unless the counts fit the probabilities: the statistic
// must stay below df + 6·sqrt(2·df), far in the tail of the chi-square
// distribution (the seeds are fixed, so a pass is not luck to be
// repeated), while a wrong distribution's statistic over this many draws
// is orders of magnitude larger.
func checkFits(t *testing.T, name string, counts []int, probs []float64, total int) {
	t.Helper()
	sum := 0.0
	for _, p := range probs {
		sum += p
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("%s: probabilities sum to %v", name, sum)
	}
	x, df := chiSquare(counts, probs, total)
	if limit := float64(df) + 6*math.Sqrt(2*float64(df)); x > limit {
		t.Errorf("%s: chi-square %.1f with %d degrees of freedom, above %.1f", name, x, df, limit)
	}
}

const draws = 200000

func TestUniformDistribution(t *testing.T) {
	r := NewRand(11)
	const lb, ub = -3, 16
	counts := make([]int, ub-lb+1)
	probs := make([]float64, len(counts))
	for i := 0; i < draws; i++ {
		x := r.Uniform(lb, ub)
		if x < lb || x > ub {
			t.Fatalf("Uniform(%d, %d) = %d", lb, ub, x)
		}
		counts[x-lb]++
	}
	for i := range probs {
		probs[i] = 1 / float64(len(probs))
	}
	checkFits(t, "uniform", counts, probs, draws)
	if got := r.Uniform(math.MaxInt64-1, math.MaxInt64); got < math.MaxInt64-1 {
		t.Errorf("Uniform at the top of int64 = %d", got)
	}
}

// TestExponentialDistribution checks random_exponential against the
// density pgbench documents: over n = ub-lb+1 values, value lb+k has
// probability (exp(-p·k/n) - exp(-p·(k+1)/n)) / (1 - exp(-p)).
func TestExponentialDistribution(t *testing.T) {
	for _, p := range []float64{0.5, 3, 10} {
		r := NewRand(12)
		const lb, ub = 1, 30
		n := float64(ub - lb + 1)
		counts := make([]int, ub-lb+1)
		probs := make([]float64, len(counts))
		for i := 0; i < draws; i++ {
			x := r.Exponential(lb, ub, p)
			if x < lb || x > ub {
				t.Fatalf("Exponential = %d", x)
			}
			counts[x-lb]++
		}
		for k := range probs {
			probs[k] = (math.Exp(-p*float64(k)/n) - math.Exp(-p*float64(k+1)/n)) / (1 - math.Exp(-p))
		}
		checkFits(t, "exponential", counts, probs, draws)
	}
}

// TestGaussianDistribution checks random_gaussian against pgbench's
// definition: a standard normal truncated to [-p, p) mapped linearly onto
// the range, so value lb+k has probability (Φ(z(k+1)) - Φ(z(k))) /
// (2Φ(p) - 1) with z(k) = -p + 2p·k/n.
func TestGaussianDistribution(t *testing.T) {
	phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	for _, p := range []float64{2, 4, 10} {
		r := NewRand(13)
		const lb, ub = 10, 49
		n := float64(ub - lb + 1)
		counts := make([]int, ub-lb+1)
		probs := make([]float64, len(counts))
		for i := 0; i < draws; i++ {
			x := r.Gaussian(lb, ub, p)
			if x < lb || x > ub {
				t.Fatalf("Gaussian = %d", x)
			}
			counts[x-lb]++
		}
		z := func(k int) float64 { return -p + 2*p*float64(k)/n }
		for k := range probs {
			probs[k] = (phi(z(k+1)) - phi(z(k))) / (2*phi(p) - 1)
		}
		checkFits(t, "gaussian", counts, probs, draws)
	}
	// pgbench's documentation: with parameter 4.0, about 67% of the values
	// fall in the middle quarter of the range, 95% in the middle half.
	r := NewRand(14)
	quarter, half := 0, 0
	for i := 0; i < draws; i++ {
		x := r.Gaussian(0, 9999, 4)
		if x >= 3750 && x < 6250 {
			quarter++
		}
		if x >= 2500 && x < 7500 {
			half++
		}
	}
	if q, h := float64(quarter)/draws, float64(half)/draws; math.Abs(q-0.67) > 0.02 || math.Abs(h-0.95) > 0.01 {
		t.Errorf("parameter 4: %.3f in the middle quarter, %.3f in the middle half; want about 0.67 and 0.95", q, h)
	}
}

// TestZipfianDistribution checks random_zipfian against its definition:
// counting from 1 at lb, value k has probability k^-s / Σ j^-s.
func TestZipfianDistribution(t *testing.T) {
	for _, s := range []float64{1.07, 2.5, 1000} {
		r := NewRand(15)
		const lb, ub = 5, 54
		counts := make([]int, ub-lb+1)
		probs := make([]float64, len(counts))
		for i := 0; i < draws; i++ {
			x := r.Zipfian(lb, ub, s)
			if x < lb || x > ub {
				t.Fatalf("Zipfian = %d", x)
			}
			counts[x-lb]++
		}
		sum := 0.0
		for k := range probs {
			probs[k] = math.Pow(float64(k+1), -s)
			sum += probs[k]
		}
		var keep []int
		var keepP []float64
		rest, restP := 0, 0.0
		for k := range probs {
			probs[k] /= sum
			// Pool the values too rare to test on their own.
			if probs[k]*draws < 20 {
				rest += counts[k]
				restP += probs[k]
				continue
			}
			keep, keepP = append(keep, counts[k]), append(keepP, probs[k])
		}
		if restP > 0 {
			keep, keepP = append(keep, rest), append(keepP, restP)
		}
		if len(keep) > 1 {
			checkFits(t, "zipfian", keep, keepP, draws)
		}
	}
	// pgbench's documentation: with parameter 2.5, 1 is drawn about
	// (2/1)^2.5 = 5.66 times as often as 2.
	r := NewRand(16)
	one, two := 0, 0
	for i := 0; i < draws; i++ {
		switch r.Zipfian(1, 1000, 2.5) {
		case 1:
			one++
		case 2:
			two++
		}
	}
	if ratio := float64(one) / float64(two); math.Abs(ratio-5.66) > 0.25 {
		t.Errorf("zipfian 2.5: 1 drawn %.2f times as often as 2, want about 5.66", ratio)
	}
}

func TestPermuteIsABijection(t *testing.T) {
	for size := int64(1); size <= 300; size++ {
		for _, seed := range []int64{0, 1, -7, 123456789} {
			seen := make([]bool, size)
			for i := int64(0); i < size; i++ {
				v := Permute(i, size, seed)
				if v < 0 || v >= size || seen[v] {
					t.Fatalf("permute(%d, %d, %d) = %d: out of range or repeated", i, size, seed, v)
				}
				seen[v] = true
				if w := Permute(i+size, size, seed); w != v {
					t.Fatalf("permute(%d, %d, %d) = %d, but %d for i+size", i, size, seed, v, w)
				}
			}
		}
	}
}

// TestDocumentedExamples holds the examples of pgbench's documentation of
// its functions.
func TestDocumentedExamples(t *testing.T) {
	env := newTestEnv(map[string]string{"default_seed": "1"})
	for _, c := range []struct{ expr, want string }{
		{"abs(-17)", "int 17"},
		{"debug(5432.1)", "double 5432.1"},
		{"double(5432)", "double 5432"},
		{"exp(1.0)", "double 2.71828182845905"},
		{"greatest(5, 4, 3, 2)", "int 5"},
		{"hash_fnv1a(10, 5432)", "int -7793829335365542153"},
		{"hash_murmur2(10, 5432)", "int -5817877081768721676"},
		{"int(5.4 + 3.8)", "int 9"},
		{"least(5, 4, 3, 2.1)", "double 2.1"},
		{"ln(2.718281828459045)", "double 1"},
		{"mod(54, 32)", "int 22"},
		{"pi()", "double 3.14159265358979"},
		{"pow(2.0, 10)", "double 1024"},
		{"power(2.0, 10)", "double 1024"},
		{"sqrt(2.0)", "double 1.4142135623731"},
		{"5 + 4", "int 9"}, {"3 - 2.0", "double 1"}, {"3 * 2", "int 6"}, {"5.0 / 2", "double 2.5"},
		{"5 / 2", "int 2"}, {"3 % 2", "int 1"}, {"2 + 3 * 2", "int 8"},
		{"91 & 15", "int 11"}, {"32 | 3", "int 35"}, {"17 # 5", "int 20"}, {"~ 21", "int -22"},
		{"1 << 4", "int 16"}, {"8 >> 2", "int 2"},
		{"2 < 3", "boolean true"}, {"2 <= 3", "boolean true"}, {"2 > 3", "boolean false"}, {"2 >= 3", "boolean false"},
		{"2 = 3", "boolean false"}, {"2 <> 3", "boolean true"}, {"2 != 3", "boolean true"},
		{"true AND false", "boolean false"}, {"true OR false", "boolean true"}, {"NOT false", "boolean true"},
		{"1 IS NULL", "boolean false"}, {"1 ISNULL", "boolean false"}, {"1 NOTNULL", "boolean true"},
	} {
		if got := evalText(c.expr, env); got != c.want {
			t.Errorf("%s = %q, want %q", c.expr, got, c.want)
		}
	}
	if len(env.debugs) != 1 || env.debugs[0] != "double 5432.1" {
		t.Errorf("debug received %q", env.debugs)
	}
	for i := 0; i < 100; i++ {
		if got := evalText("permute(0, 4)", env); got < "int 0" || got > "int 3" || len(got) != 5 {
			t.Fatalf("permute(0, 4) = %s, want an int in [0, 3]", got)
		}
	}
}
