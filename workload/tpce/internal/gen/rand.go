package gen

import "math/bits"

// Tags name the random streams: a stream is a pure function of (seed,
// tag, key), so no two tables or purposes share one. New streams take new
// tags; a tag's value never changes (it would change the data).
const (
	tagTiers uint64 = iota + 1
	tagAccounts
	tagBroker
	tagTaxStatus
	tagBasket
	tagPrice
	// Tags of the tables' generators start at 100, of the initial trades
	// at 200.
	tagTables = 100
	tagTrades = 200
)

// mix is SplitMix64's finaliser applied to a ^ (b·golden ratio): a fast,
// well-spread hash of two words.
func mix(a, b uint64) uint64 {
	z := a ^ (b * 0x9e3779b97f4a7c15)
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Rand is a SplitMix64 stream seeded by (seed, tag, key): counter-based,
// so a generator positions itself anywhere by choosing the key, without
// drawing what comes before. It is not safe for concurrent use; it is a
// small value, cheap to make per row.
type Rand struct{ state uint64 }

// NewRand returns the stream of (seed, tag, key).
func NewRand(seed, tag, key uint64) *Rand {
	r := &Rand{}
	r.Reset(seed, tag, key)
	return r
}

// Reset repositions r at the stream of (seed, tag, key).
func (r *Rand) Reset(seed, tag, key uint64) {
	r.state = mix(mix(seed, tag), key)
}

// Uint64 returns the next value of the stream.
func (r *Rand) Uint64() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a value in [0, n), n > 0 (Lemire's multiply-shift: no
// division, a bias below 2^-32 for the n used here).
func (r *Rand) Intn(n int) int {
	hi, _ := mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// Range returns a value in [lo, hi].
func (r *Rand) Range(lo, hi int) int { return lo + r.Intn(hi-lo+1) }

// Int64Range returns a value in [lo, hi].
func (r *Rand) Int64Range(lo, hi int64) int64 {
	h, _ := mul64(r.Uint64(), uint64(hi-lo+1))
	return lo + int64(h)
}

// Float64 returns a value in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// Percent reports whether an event of probability p% happens.
func (r *Rand) Percent(p int) bool { return r.Intn(100) < p }

// NURand is the specification's non-uniform random value in [lo, hi]:
// ((Range(lo, hi) | Range(0, a) << s) mod (hi-lo+1)) + lo.
func (r *Rand) NURand(lo, hi, a int64, s uint) int64 {
	x := r.Int64Range(lo, hi) | r.Int64Range(0, a)<<s
	return x%(hi-lo+1) + lo
}

// mul64 is bits.Mul64.
func mul64(x, y uint64) (hi, lo uint64) { return bits.Mul64(x, y) }

// Tags of the initial trades' streams.
const (
	// tagTradeSkip places the aborted trade id of each block of slots.
	tagTradeSkip = tagTrades + iota + 1
	// tagTrade draws a trade's choices, per (Load Unit, slot).
	tagTrade
	// tagExecName names the people who execute an account's trades.
	tagExecName
	// tagCustomerTaxrate chooses a customer's two tax rates.
	tagCustomerTaxrate
	// tagBrokerName names the brokers.
	tagBrokerName
)
