package jsondoc

import "math"

// Rng is a splitmix64 stream. A generator gives document i a stream of
// its own (Stream), so that every document is a pure function of the
// seed and i.
type Rng struct{ S uint64 }

// Mix is splitmix64's finalizer: a well-mixed 64-bit function of z.
func Mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Stream is document i's stream under seed.
func Stream(seed uint64, i int64) Rng {
	return Rng{Mix(seed*0x9e3779b97f4a7c15 ^ Mix(uint64(i)+0x632be59bd9b4e019))}
}

// Next is the stream's next 64 bits.
func (r *Rng) Next() uint64 {
	r.S += 0x9e3779b97f4a7c15
	return Mix(r.S)
}

// Intn is uniform in [0, n).
func (r *Rng) Intn(n int) int { return int(r.Next() % uint64(n)) }

// Float is uniform in [0, 1).
func (r *Rng) Float() float64 { return float64(r.Next()>>11) / (1 << 53) }

// Geometric is a count ≥ 0 with the given mean.
func (r *Rng) Geometric(mean float64) int {
	return int(-math.Log(1-r.Float()) * mean)
}

// AppendWords appends n words (n ≥ 0) drawn from list with r, separated
// by spaces: six bits of a draw choose a word, ten words a draw.
func AppendWords(b []byte, r *Rng, list *[64]string, n int) []byte {
	var x uint64
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		if i%10 == 0 {
			x = r.Next()
		}
		b = append(b, list[x&63]...)
		x >>= 6
	}
	return b
}
