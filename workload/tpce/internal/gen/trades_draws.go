package gen

import "math"

// Fast forms of two draws the simulation makes for every trade.

// tradePicker is Model.PickCustomer within one Load Unit, with the
// search for the rank of a weight started from a bucket index instead of
// a binary search: it makes the same draws and returns the same
// customer.
type tradePicker struct {
	m *Model
	// start[tier][b] is the first rank whose cumulative weight exceeds
	// b·total/pickBuckets (total the tier's total weight).
	start [4][pickBuckets + 1]int16
	total [4]uint64
}

const pickBuckets = 1024

func newTradePicker(m *Model) *tradePicker {
	p := &tradePicker{m: m}
	for tier := 1; tier <= 3; tier++ {
		cum := m.tierCum[tier]
		p.total[tier] = uint64(cum[len(cum)-1])
		rank := 0
		for b := 0; b <= pickBuckets; b++ {
			w := uint64(b) * p.total[tier] / pickBuckets
			for rank < len(cum)-1 && uint64(cum[rank]) <= w {
				rank++
			}
			p.start[tier][b] = int16(rank)
		}
	}
	return p
}

// pick is m.PickCustomer(r, lu).
func (p *tradePicker) pick(r *Rand, lu int) int64 {
	tier := 3
	switch x := r.Intn(100); {
	case x < 10:
		tier = 1
	case x < 70:
		tier = 2
	}
	cum := p.m.tierCum[tier]
	w := r.Uint64() % p.total[tier]
	// The first rank whose cumulative weight exceeds w: at or after the
	// start of w's bucket.
	rank := int(p.start[tier][w*pickBuckets/p.total[tier]])
	for uint64(cum[rank]) <= w {
		rank++
	}
	return int64(lu)*LoadUnit + int64(p.m.tierSlots[tier][rank]) + 1
}

// tradeExpQuantiles are the quantiles i/1024 (i = 0..1024) of the
// exponential distribution of mean 1 s, in microseconds, capped at 5 s.
var tradeExpQuantiles = func() (q [1025]int64) {
	for i := range q {
		q[i] = tradeDelayCap
		if i < len(q)-1 {
			q[i] = min(int64(math.Round(-math.Log(1-float64(i)/1024)*1e6)), tradeDelayCap)
		}
	}
	return q
}()

// tradeDelayCap is the longest submission delay, 5 s in microseconds.
const tradeDelayCap = 5_000_000

// submitDelay draws an order's submission delay in microseconds: Exp(1
// s), interpolated linearly between its 1,024 quantiles, at least 1 ms
// and at most 5 s.
func submitDelay(r *Rand) int64 {
	u := r.Uint64()
	i := u >> 54
	frac := int64(u >> 22 & 0xffffffff)
	lo, hi := tradeExpQuantiles[i], tradeExpQuantiles[i+1]
	return max(lo+(hi-lo)*frac>>32, 1000)
}
