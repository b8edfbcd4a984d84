package oltp

import (
	"fmt"
	"math"
	"testing"
)

func distFor(t testing.TB, typ string) distConfig {
	t.Helper()
	d, err := newDistConfig(typ, defRandSpecIter, defRandSpecPct, defRandSpecRes, defRandParetoH, defRandZipfianExp)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDistributionsStayInRange(t *testing.T) {
	ranges := [][2]uint32{{1, 1}, {1, 2}, {1, 10}, {5, 105}, {1, 10000}, {1, math.MaxInt32}}
	for _, typ := range distNames {
		for _, rg := range ranges {
			t.Run(fmt.Sprintf("%s/%d-%d", typ, rg[0], rg[1]), func(t *testing.T) {
				r := newRNG(42, distFor(t, typ))
				for i := 0; i < 20000; i++ {
					if v := r.def(rg[0], rg[1]); v < rg[0] || v > rg[1] {
						t.Fatalf("draw %d = %d outside [%d, %d]", i, v, rg[0], rg[1])
					}
				}
			})
		}
	}
}

func TestUniformCoversRange(t *testing.T) {
	r := newRNG(1, distFor(t, distUniform))
	var seen [10]int
	for i := 0; i < 100000; i++ {
		seen[r.uniform(1, 10)-1]++
	}
	for v, n := range seen {
		if n < 9500 || n > 10500 {
			t.Errorf("value %d drawn %d times of 100000, want ~10000", v+1, n)
		}
	}
}

// share draws n values in [1, size] and returns the fraction that fell
// into [lo, hi].
func share(r *rng, n int, size, lo, hi uint32) float64 {
	in := 0
	for i := 0; i < n; i++ {
		if v := r.def(1, size); v >= lo && v <= hi {
			in++
		}
	}
	return float64(in) / float64(n)
}

func TestDistributionShapes(t *testing.T) {
	const n, size = 200000, 10000
	cases := []struct {
		typ    string
		lo, hi uint32  // a window of [1, 10000]
		min    float64 // expected share of draws in it
		max    float64
		why    string
	}{
		{distUniform, 1, 2000, 0.19, 0.21, "20% of ids get 20% of draws"},
		// special: 75% of draws land uniformly in 1% of the range at its
		// centre, the rest is gaussian over the whole range.
		{distSpecial, 4950, 5051, 0.75, 0.79, "75% of draws in the central 1%"},
		{distSpecial, 1, 4900, 0.07, 0.14, "a quarter of draws, gaussian, half of it below the hot spot"},
		// gaussian: mean of 12 uniforms, sd = range/12: ±0.1 range = ±1.2 sd.
		{distGaussian, 4001, 6000, 0.74, 0.80, "~77% within ±1.2 sd"},
		// pareto h=0.2: the 80/20 rule.
		{distPareto, 1, 2000, 0.79, 0.81, "80% of draws in the first 20%"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d-%d", c.typ, c.lo, c.hi), func(t *testing.T) {
			got := share(newRNG(7, distFor(t, c.typ)), n, size, c.lo, c.hi)
			if got < c.min || got > c.max {
				t.Errorf("share in [%d, %d] = %.4f, want [%.2f, %.2f] (%s)", c.lo, c.hi, got, c.min, c.max, c.why)
			}
		})
	}
}

func TestZipfianMatchesPMF(t *testing.T) {
	const n, size = 400000, 10000
	const e = defRandZipfianExp
	hsum := 0.0
	for k := 1; k <= size; k++ {
		hsum += math.Pow(float64(k), -e)
	}
	r := newRNG(3, distFor(t, distZipfian))
	counts := make([]int, size+1)
	for i := 0; i < n; i++ {
		counts[r.def(1, size)]++
	}
	for _, k := range []int{1, 2, 3, 10, 100} {
		want := math.Pow(float64(k), -e) / hsum
		got := float64(counts[k]) / n
		sd := math.Sqrt(want * (1 - want) / n)
		if math.Abs(got-want) > 5*sd {
			t.Errorf("P(%d) = %.5f, want %.5f ± %.5f", k, got, want, 5*sd)
		}
	}
	// Exponent 0 is uniform.
	d, _ := newDistConfig(distZipfian, 12, 1, 75, 0.2, 0)
	if s := share(newRNG(5, d), 100000, size, 1, 2000); s < 0.19 || s > 0.21 {
		t.Errorf("zipfian exp 0: share of first 20%% = %.3f, want ~0.2", s)
	}
}

func TestSpecialAllSpecial(t *testing.T) {
	// --rand-spec-res=100: every draw is special (sysbench divides by zero
	// into +Inf and so never takes the gaussian branch).
	d, err := newDistConfig(distSpecial, 12, 1, 100, 0.2, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	if s := share(newRNG(9, d), 50000, 10000, 4950, 5051); s != 1 {
		t.Errorf("share in hot spot = %.4f, want 1", s)
	}
}

func TestRNGDeterministic(t *testing.T) {
	a, b := newRNG(11, distFor(t, distSpecial)), newRNG(11, distFor(t, distSpecial))
	c := newRNG(12, distFor(t, distSpecial))
	same := true
	for i := 0; i < 100; i++ {
		x, y, z := a.def(1, 1e6), b.def(1, 1e6), c.def(1, 1e6)
		if x != y {
			t.Fatal("same seed, different draws")
		}
		same = same && x == z
	}
	if same {
		t.Error("seeds 11 and 12 give the same draws")
	}
}

func TestFillDigitsUniform(t *testing.T) {
	r := newRNG(1, distFor(t, distUniform))
	var buf [CLen]byte
	var counts [10]int
	for i := 0; i < 10000; i++ {
		r.fillDigits(buf[:], CGroups)
		if !MatchesTemplate(string(buf[:]), CGroups) {
			t.Fatalf("bad template %q", buf)
		}
		for p, ch := range buf {
			if p%12 != 11 {
				counts[ch-'0']++
			}
		}
	}
	total := 10000 * CGroups * groupLen
	for d, n := range counts {
		if f := float64(n) / float64(total); f < 0.099 || f > 0.101 {
			t.Errorf("digit %d frequency %.4f, want 0.1", d, f)
		}
	}
}

func TestPermute31IsBijective(t *testing.T) {
	// Injective on a large slice of the domain, including both slot ends.
	seen := make(map[uint32]bool, 1<<20)
	for _, base := range []uint32{0, 1<<31 - 1<<19} {
		for i := uint32(0); i < 1<<19; i++ {
			v := permute31(base + i)
			if v >= 1<<31 {
				t.Fatalf("permute31(%d) = %d out of range", base+i, v)
			}
			if seen[v] {
				t.Fatalf("permute31 collision at %d", base+i)
			}
			seen[v] = true
		}
	}
}

func BenchmarkSpecial(b *testing.B) {
	r := newRNG(1, distFor(b, distSpecial))
	var s uint32
	for b.Loop() {
		s += r.def(1, 10000000)
	}
	_ = s
}
