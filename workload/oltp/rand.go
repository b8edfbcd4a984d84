package oltp

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
)

// The distributions below reproduce the ones sysbench 1.0.20 offers through
// --rand-type (src/sb_rand.c): the same parameters, the same defaults and
// the same arithmetic on the same [a, b] ranges, so that the access skew of
// a dbarena run matches a sysbench run with the same options. The random
// source itself differs (sysbench uses xoroshiro128+ seeded from libc
// random(); dbarena uses PCG seeded from the run seed), so individual draws
// differ while their distribution is the same.

// Distribution names accepted by --rand-type.
const (
	distUniform  = "uniform"
	distGaussian = "gaussian"
	distSpecial  = "special"
	distPareto   = "pareto"
	distZipfian  = "zipfian"
)

var distNames = []string{distUniform, distGaussian, distSpecial, distPareto, distZipfian}

type distKind uint8

const (
	kindUniform distKind = iota
	kindGaussian
	kindSpecial
	kindPareto
	kindZipfian
)

// distConfig is the validated, precomputed form of the --rand-* options.
// It is a small value type copied into every generator.
type distConfig struct {
	kind distKind

	iter         int     // --rand-spec-iter, used by gaussian and special
	iterMult     float64 // 1 / iter
	specPctMult  float64 // pct / 100
	specPct2Mult float64 // pct / 200
	specResMult  float64 // 100 / (100 - res)

	paretoPower float64 // log(h) / log(1-h)

	zipfExp float64 // exponent (theta)
	zipfS   float64 // precomputed acceptance shortcut
	zipfHX1 float64 // hIntegral(1.5) - 1
}

// newDistConfig checks the --rand-* values and precomputes the constants.
func newDistConfig(typ string, specIter, specPct, specRes int, paretoH, zipfExp float64) (distConfig, error) {
	var c distConfig
	switch typ {
	case distUniform:
		c.kind = kindUniform
	case distGaussian:
		c.kind = kindGaussian
	case distSpecial:
		c.kind = kindSpecial
	case distPareto:
		c.kind = kindPareto
	case distZipfian:
		c.kind = kindZipfian
	default:
		return c, fmt.Errorf("unknown distribution %q (want one of %s)", typ, strings.Join(distNames, ", "))
	}
	if specIter < 1 {
		return c, fmt.Errorf("rand-spec-iter must be >= 1")
	}
	c.iter = specIter
	c.iterMult = 1 / float64(specIter)
	c.specPctMult = float64(specPct) / 100
	c.specPct2Mult = float64(specPct) / 200
	// With --rand-spec-res=100 this is +Inf: every draw is a special one,
	// as in sysbench.
	c.specResMult = 100 / (100 - float64(specRes))
	c.paretoPower = math.Log(paretoH) / math.Log(1-paretoH)
	c.zipfExp = zipfExp
	c.zipfS = 2 - zipfHIntegralInverse(zipfHIntegral(2.5, zipfExp)-zipfH(2, zipfExp), zipfExp)
	c.zipfHX1 = zipfHIntegral(1.5, zipfExp) - 1
	return c, nil
}

// rng is one goroutine's random source plus the configured default
// distribution. It is not safe for concurrent use. The zero value is not
// usable; build one with newRNG.
type rng struct {
	src  rand.PCG
	dist distConfig

	// cache of hIntegral(n + 0.5) for the last zipfian n
	zipfN  uint32
	zipfHN float64
}

func newRNG(seed uint64, d distConfig) *rng {
	r := &rng{dist: d}
	r.seed(seed)
	return r
}

func (r *rng) seed(seed uint64) {
	s1 := splitmix64(seed)
	s2 := splitmix64(s1 ^ 0x9e3779b97f4a7c15)
	r.src.Seed(s1, s2)
}

// splitmix64 is the SplitMix64 finalizer: a bijective 64-bit mix used to
// turn small, correlated seeds into well-spread PCG seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// float64 is uniform in [0, 1) with 53 random bits.
func (r *rng) float64() float64 {
	return float64(r.src.Uint64()>>11) * (1.0 / (1 << 53))
}

// uniform is sysbench's sb_rand_uniform: an integer in [a, b].
func (r *rng) uniform(a, b uint32) uint32 {
	return a + uint32(r.float64()*float64(b-a+1))
}

// def draws from the distribution chosen by --rand-type, in [a, b]
// (sysbench's sb_rand_default, used for every id and k).
func (r *rng) def(a, b uint32) uint32 {
	switch r.dist.kind {
	case kindGaussian:
		return r.gaussian(a, b)
	case kindSpecial:
		return r.special(a, b)
	case kindPareto:
		return r.pareto(a, b)
	case kindZipfian:
		return r.zipfian(a, b)
	default:
		return r.uniform(a, b)
	}
}

// gaussian approximates a normal distribution centred on the middle of
// [a, b] by averaging --rand-spec-iter uniform draws.
func (r *rng) gaussian(a, b uint32) uint32 {
	t := float64(b - a + 1)
	sum := 0.0
	for i := 0; i < r.dist.iter; i++ {
		sum += r.float64() * t
	}
	return a + uint32(sum*r.dist.iterMult)
}

// special is sysbench's default distribution: --rand-spec-res percent of
// the draws fall uniformly into --rand-spec-pct percent of the range (at
// its centre); the rest follow the gaussian approximation over the whole
// range. The single uniform draw both picks the branch and, on the special
// branch, places the value, exactly as sysbench does.
func (r *rng) special(a, b uint32) uint32 {
	t := float64(b - a)
	rangeSize := t * r.dist.specResMult
	rnd := r.float64()
	res := rnd * rangeSize
	if res < t {
		sum := 0.0
		for i := 0; i < r.dist.iter; i++ {
			sum += r.float64()
		}
		return a + uint32(sum*t*r.dist.iterMult)
	}
	d := t * r.dist.specPctMult
	res = rnd * (d + 1)
	res += t/2 - t*r.dist.specPct2Mult
	return a + uint32(res)
}

// pareto skews draws towards a: with h = 0.2, 80% of the draws fall into
// the first 20% of the range.
func (r *rng) pareto(a, b uint32) uint32 {
	return a + uint32(float64(b-a+1)*math.Pow(r.float64(), r.dist.paretoPower))
}

// zipfian draws k in [a, b] with P(a+i) proportional to 1/(i+1)^exponent,
// by rejection-inversion sampling (Hörmann and Derflinger, "Rejection-
// inversion to generate variates from monotone discrete distributions",
// ACM TOMACS 6(3), 1996), the method sysbench uses.
func (r *rng) zipfian(a, b uint32) uint32 {
	return a + r.zipfianN(b-a+1) - 1
}

func (r *rng) zipfianN(n uint32) uint32 {
	e := r.dist.zipfExp
	if n != r.zipfN || r.zipfHN == 0 {
		r.zipfN = n
		r.zipfHN = zipfHIntegral(float64(n)+0.5, e)
	}
	hN, hX1 := r.zipfHN, r.dist.zipfHX1
	for {
		u := hN + r.float64()*(hX1-hN)
		x := zipfHIntegralInverse(u, e)
		kf := x + 0.5
		var k uint32
		switch {
		case kf < 1:
			k = 1
		case kf > float64(n):
			k = n
		default:
			k = uint32(kf)
		}
		if float64(k)-x <= r.dist.zipfS || u >= zipfHIntegral(float64(k)+0.5, e)-zipfH(float64(k), e) {
			return k
		}
	}
}

// zipfHIntegral is H(x) = (x^(1-e) - 1) / (1-e), or log(x) when e = 1: an
// antiderivative of h.
func zipfHIntegral(x, e float64) float64 {
	lx := math.Log(x)
	return expm1OverX((1-e)*lx) * lx
}

// zipfH is h(x) = x^-e.
func zipfH(x, e float64) float64 { return math.Exp(-e * math.Log(x)) }

// zipfHIntegralInverse is the inverse of zipfHIntegral.
func zipfHIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1 // guard against rounding just below the domain
	}
	return math.Exp(log1pOverX(t) * x)
}

// log1pOverX is log(1+x)/x, by its Taylor series near 0.
func log1pOverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// expm1OverX is (exp(x)-1)/x, by its Taylor series near 0.
func expm1OverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}

// Templates of sysbench's c and pad columns: groups of 11 random digits
// joined by '-'.
const (
	CGroups   = 10
	PadGroups = 5
	groupLen  = 11
	CLen      = CGroups*groupLen + CGroups - 1     // 119
	PadLen    = PadGroups*groupLen + PadGroups - 1 // 59
)

// fillDigits writes groups of 11 random decimal digits separated by '-'
// into buf, which must be groups*12-1 bytes long. Each group consumes one
// 64-bit draw: the digits are the first 11 decimal digits of the draw read
// as a fraction in [0, 1), which are uniform to within 1e-8. Those digits,
// read as a number, are the high word of draw × 10^11; it is written out
// two digits at a time.
func (r *rng) fillDigits(buf []byte, groups int) {
	p := 0
	for g := 0; g < groups; g++ {
		if g > 0 {
			buf[p] = '-'
			p++
		}
		n, _ := bits.Mul64(r.src.Uint64(), 1e11)
		hi, lo := n/1e8, n%1e8 // 3 + 8 digits
		d := (hi % 100) * 2
		buf[p], buf[p+1], buf[p+2] = byte('0'+hi/100), digitPairs[d], digitPairs[d+1]
		binary.LittleEndian.PutUint64(buf[p+3:p+groupLen], eightDigits(uint32(lo)))
		p += groupLen
	}
}

// eightDigits returns the 8 decimal digits of x < 10^8 as ASCII bytes, the
// first digit in the lowest byte (so a little-endian store writes them in
// order). The lanes of one 64-bit word are split in parallel: 4+4 digits,
// then 2+2 in each half, then 1+1; no product overflows its lane.
func eightDigits(x uint32) uint64 {
	v := uint64(x/10000) | uint64(x%10000)<<32
	q := (v * 10486 >> 20) & 0x0000007f_0000007f // lane / 100, lanes < 10^4
	v = q | (v-q*100)<<16
	q = (v * 103 >> 10) & 0x000f000f_000f000f // lane / 10, lanes < 100
	v = q | (v-q*10)<<8
	return v + 0x30303030_30303030
}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"
