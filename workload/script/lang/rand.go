package lang

import (
	"math"
	"math/bits"
)

// Rand is the pseudo-random generator of the random functions and of
// permute: xoroshiro128** (Blackman and Vigna), seeded by two rounds of
// splitmix64, the generator PostgreSQL's pgbench uses since version 15.
// Uniform integers in a range are drawn by masking to the range's bit
// length and rejecting values above it, so every value of the range is
// equally likely. A Rand is not safe for concurrent use; each client has
// its own.
type Rand struct {
	s0, s1 uint64
}

// NewRand returns a generator seeded with seed.
func NewRand(seed uint64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// Seed resets the generator to the state seed determines.
func (r *Rand) Seed(seed uint64) {
	r.s0 = splitmix64(&seed)
	r.s1 = splitmix64(&seed)
	if r.s0 == 0 && r.s1 == 0 {
		// The all-zero state never leaves zero; any other state will do.
		r.s0 = 0x9E3779B97F4A7C15
	}
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	s0, s1 := r.s0, r.s1
	out := bits.RotateLeft64(s0*5, 7) * 9
	s1 ^= s0
	r.s0 = bits.RotateLeft64(s0, 24) ^ s1 ^ (s1 << 16)
	r.s1 = bits.RotateLeft64(s1, 37)
	return out
}

// Float64 returns a uniform double in [0, 1) with 52 random bits.
func (r *Rand) Float64() float64 {
	return math.Ldexp(float64(r.Uint64()>>12), -52)
}

// Uint64Range returns a uniform integer in [lo, hi] (lo when hi <= lo).
func (r *Rand) Uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	span := hi - lo
	shift := uint(bits.LeadingZeros64(span))
	for {
		v := r.Uint64() >> shift
		if v <= span {
			return lo + v
		}
	}
}

// checkRange applies pgbench's checks of a random function's bounds.
func checkRange(lb, ub int64) error {
	if lb > ub {
		return evalErrorf("empty range given to random")
	}
	if d := ub - lb; d < 0 || d+1 < 0 {
		return evalErrorf("random range is too large")
	}
	return nil
}

// Uniform returns a uniform integer in [lb, ub], as pgbench's random(lb,
// ub); the bounds must have passed checkRange.
func (r *Rand) Uniform(lb, ub int64) int64 {
	return lb + int64(r.Uint64Range(0, uint64(ub-lb)))
}

// Exponential returns an integer of [lb, ub] drawn from the truncated
// exponential distribution pgbench documents for random_exponential:
// f(x) = exp(-p·(x-lb)/n) / (1-exp(-p)) over n = ub-lb+1 values, by
// inverting its cumulative distribution at a uniform draw.
func (r *Rand) Exponential(lb, ub int64, p float64) int64 {
	cut := math.Exp(-p)
	u := 1 - r.Float64() // (0, 1]
	x := -math.Log(cut+(1-cut)*u) / p
	return lb + int64(float64(ub-lb+1)*x)
}

// Gaussian returns an integer of [lb, ub] drawn from the normal
// distribution truncated to [-p, p) standard deviations around the middle
// of the range, as pgbench documents for random_gaussian: a standard
// normal draw (Box-Muller) is redrawn until it falls in [-p, p), then
// mapped linearly onto the range.
func (r *Rand) Gaussian(lb, ub int64, p float64) int64 {
	var z float64
	for {
		u1 := 1 - r.Float64() // (0, 1]: log(u1) is finite
		u2 := r.Float64()
		z = math.Sqrt(-2*math.Log(u1)) * math.Sin(2*math.Pi*u2)
		if z >= -p && z < p {
			break
		}
	}
	x := (z + p) / (2 * p)
	return lb + int64(float64(ub-lb+1)*x)
}

// Zipfian returns an integer of [lb, ub] where, counting from 1 at lb,
// value k is ((k+1)/k)^s times as likely as k+1: the bounded Zipf
// distribution of pgbench's random_zipfian, drawn by the rejection method
// of Devroye, "Non-Uniform Random Variate Generation" (1986), pp. 550-551,
// for s > 1, rejecting draws beyond the range.
func (r *Rand) Zipfian(lb, ub int64, s float64) int64 {
	n := float64(ub - lb + 1)
	if ub-lb+1 <= 1 {
		return lb
	}
	b := math.Pow(2, s-1)
	for {
		u := r.Float64()
		v := r.Float64()
		x := math.Floor(math.Pow(u, -1/(s-1)))
		t := math.Pow(1+1/x, s-1)
		if x <= n && v*x*(t-1)/(b-1) <= t/b {
			return lb - 1 + int64(x)
		}
	}
}

// Permute returns the position of i (taken modulo size as an unsigned
// number) in a pseudo-random permutation of [0, size) that seed
// determines, as pgbench's permute: the same arguments give the same
// result as pgbench 15 and later. size must be positive.
//
// The bijection is six rounds, each of a random odd multiplier, XOR and
// one-bit rotation modulo the largest power of two not above size, applied
// to the values in the low part of the range and then, mirrored, to those
// in the high part (the two parts overlap and cover the range), followed
// by a random offset modulo size. The random numbers come from a Rand
// seeded with seed.
func Permute(i, size, seed int64) int64 {
	if size < 2 {
		return 0
	}
	n := uint64(size)
	v := uint64(i) % n
	width := uint(bits.Len64(n) - 1) // 2^width <= n
	mask := uint64(1)<<width - 1
	rot := func(x uint64) uint64 { return (x<<1)&mask | x>>(width-1) }
	r := NewRand(uint64(seed))
	for round := 0; round < 6; round++ {
		m := r.Uint64()&mask | 1
		x := r.Uint64() & mask
		if v <= mask {
			v = rot((v*m ^ x) & mask)
		}
		m = r.Uint64()&mask | 1
		x = r.Uint64() & mask
		if t := n - 1 - v; t <= mask {
			v = n - 1 - rot((t*m^x)&mask)
		}
		v = (v + r.Uint64Range(0, n-1)) % n
	}
	return int64(v)
}

// HashFNV1a returns the 64-bit FNV-1a hash of v's eight bytes, least
// significant first, with the offset basis XORed with seed: pgbench's
// hash_fnv1a.
func HashFNV1a(v, seed int64) int64 {
	const prime = 0x100000001b3
	h := uint64(0xcbf29ce484222325) ^ uint64(seed)
	x := uint64(v)
	for k := 0; k < 8; k++ {
		h ^= x & 0xff
		h *= prime
		x >>= 8
	}
	return int64(h)
}

// HashMurmur2 returns MurmurHash64A (Austin Appleby's MurmurHash2, 64-bit
// version) of v as one eight-byte block, with seed: pgbench's hash_murmur2
// and hash.
func HashMurmur2(v, seed int64) int64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	var mul uint64 = m
	h := uint64(seed) ^ (8 * mul) // the seed mixed with the key's length (8)
	k := uint64(v)
	k *= m
	k ^= k >> r
	k *= m
	h ^= k
	h *= m
	h ^= h >> r
	h *= m
	h ^= h >> r
	return int64(h)
}

// Int63n returns a uniform integer in [0, n); n must be positive.
func (r *Rand) Int63n(n int64) int64 { return int64(r.Uint64Range(0, uint64(n-1))) }
