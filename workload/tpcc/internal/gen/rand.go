package gen

import (
	"math/bits"
	"math/rand/v2"
)

// The random functions of the specification. They draw only through
// r.Uint64 and do their own range reduction, so that their output for a
// given generator state depends on this file alone, not on how a Go
// release implements rand.Rand's IntN, Shuffle or Perm: the initial data
// (and its golden hash) stays the same across Go versions.

// Uniform is the specification's "random within [lo .. hi]": an integer
// uniformly distributed in [lo, hi], both ends included. It panics if
// lo > hi.
func Uniform(r *rand.Rand, lo, hi int64) int64 {
	if lo > hi {
		panic("gen: Uniform: lo > hi")
	}
	n := uint64(hi-lo) + 1
	if n == 0 { // the whole int64 range
		return int64(r.Uint64())
	}
	return lo + int64(uniformN(r, n))
}

// uniformN is uniform in [0, n), n > 0, by Lemire's multiply-and-reject
// method ("Fast random integer generation in an interval", ACM TOMACS
// 29(1), 2019): unbiased, and almost always a single draw.
func uniformN(r *rand.Rand, n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// NURand is the specification's non-uniform random function (clause
// 2.1.6):
//
//	NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x
//
// with a = A and c = C. random(0, A) is drawn before random(x, y). The
// result lies in [x, y] for any c >= 0.
func NURand(r *rand.Rand, a, x, y, c int64) int64 {
	return (((Uniform(r, 0, a) | Uniform(r, x, y)) + c) % (y - x + 1)) + x
}

// Constants are the run-time constants C of NURand(A, x, y) (clause
// 2.1.6), one per value of A the specification uses.
type Constants struct {
	CLast int64 // C for A = 255: customer last names (C_LAST)
	CID   int64 // C for A = 1023: customer ids (C_ID)
	OLIID int64 // C for A = 8191: item ids (OL_I_ID)
}

// LoadConstants are the constants C-Load used to populate the database
// generated with seed (clause 4.3.3.1 uses C_LAST's): each is uniform in
// [0, A] and a pure function of seed.
func LoadConstants(seed uint64) Constants {
	r := newStream(seed, tagConstants, 0, 0)
	return Constants{
		CLast: Uniform(r, 0, 255),
		CID:   Uniform(r, 0, 1023),
		OLIID: Uniform(r, 0, 8191),
	}
}

// RunConstants draws the constants C-Run of a measurement interval from
// r, given the constants C-Load the database was populated with. As
// clause 2.1.6.1 requires, delta = |CRun.CLast - load.CLast| lies in
// [65, 119] and is neither 96 nor 112; CRun.CLast is uniform over the
// values in [0, 255] that satisfy that rule. CID and OLIID are uniform in
// [0, 1023] and [0, 8191]: the specification puts no constraint on them.
// load.CLast must lie in [0, 255].
func RunConstants(load Constants, r *rand.Rand) Constants {
	var ok [256]int64
	n := 0
	for c := int64(0); c <= 255; c++ {
		if validCLastDelta(c - load.CLast) {
			ok[n] = c
			n++
		}
	}
	if n == 0 {
		panic("gen: RunConstants: load.CLast out of [0, 255]")
	}
	return Constants{
		CLast: ok[uniformN(r, uint64(n))],
		CID:   Uniform(r, 0, 1023),
		OLIID: Uniform(r, 0, 8191),
	}
}

// validCLastDelta reports whether C-Run - C-Load = d satisfies clause
// 2.1.6.1.
func validCLastDelta(d int64) bool {
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// Character sets of the random strings (clause 4.3.2.2). "Alphanumeric"
// is the 62 ASCII letters and digits: every engine stores them in any
// character set and they need no quoting in COPY or CSV.
const (
	alnum   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits  = "0123456789"
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// charset is a character set with its table of character pairs.
type charset struct {
	chars string
	n     uint64 // len(chars)
	pairs []byte // pairs[2k], pairs[2k+1] = chars[k/n], chars[k%n]
}

func newCharset(chars string) *charset {
	n := len(chars)
	cs := &charset{chars: chars, n: uint64(n), pairs: make([]byte, 0, 2*n*n)}
	for k := range n * n {
		cs.pairs = append(cs.pairs, chars[k/n], chars[k%n])
	}
	return cs
}

var (
	alnumSet  = newCharset(alnum)
	digitSet  = newCharset(digits)
	letterSet = newCharset(letters)
)

// charsPerDraw is how many characters one 64-bit draw yields: the draw,
// read as a fraction in [0, 1), is written in base len(set) and its first
// charsPerDraw digits are the characters. With 62^8 < 2^64/80000 the
// joint distribution of the 8 characters is uniform to within 1.3e-5.
// The digits are produced two at a time (base len(set)², a lookup in the
// pair table), which gives the same digits with half the dependent
// multiplications.
const charsPerDraw = 8

// appendChars appends n characters drawn uniformly from cs.
func appendChars(r *rand.Rand, b []byte, cs *charset, n int) []byte {
	start := len(b)
	b = grow(b, n)
	out := b[start : start+n]
	nn, pairs := cs.n*cs.n, cs.pairs
	i := 0
	for ; n-i >= charsPerDraw; i += charsPerDraw {
		x := r.Uint64()
		o := out[i : i+charsPerDraw : i+charsPerDraw]
		for k := 0; k < charsPerDraw; k += 2 {
			var p uint64
			p, x = bits.Mul64(x, nn)
			o[k], o[k+1] = pairs[2*p], pairs[2*p+1]
		}
	}
	if i < n {
		x := r.Uint64()
		for ; n-i >= 2; i += 2 {
			var p uint64
			p, x = bits.Mul64(x, nn)
			out[i], out[i+1] = pairs[2*p], pairs[2*p+1]
		}
		if i < n {
			c, _ := bits.Mul64(x, cs.n)
			out[i] = cs.chars[c]
		}
	}
	return b
}

// grow extends b by n bytes (their content is unspecified).
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), 2*cap(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// appendAString appends a random a-string [lo .. hi] (clause 4.3.2.2):
// its length is uniform in [lo, hi], then its characters.
func appendAString(r *rand.Rand, b []byte, lo, hi int) []byte {
	return appendChars(r, b, alnumSet, int(Uniform(r, int64(lo), int64(hi))))
}

// appendNString appends a random n-string [lo .. hi].
func appendNString(r *rand.Rand, b []byte, lo, hi int) []byte {
	return appendChars(r, b, digitSet, int(Uniform(r, int64(lo), int64(hi))))
}

// AString is a random a-string [lo .. hi] (clause 4.3.2.2): alphanumeric
// characters, length uniform in [lo, hi] (mean (lo+hi)/2). It panics if
// lo > hi or lo < 0.
func AString(r *rand.Rand, lo, hi int) string {
	return randString(r, alnumSet, lo, hi)
}

// NString is a random n-string [lo .. hi] (clause 4.3.2.2): decimal
// digits, length uniform in [lo, hi]. It panics if lo > hi or lo < 0.
func NString(r *rand.Rand, lo, hi int) string {
	return randString(r, digitSet, lo, hi)
}

func randString(r *rand.Rand, set *charset, lo, hi int) string {
	if lo < 0 {
		panic("gen: negative string length")
	}
	var arr [64]byte
	return string(appendChars(r, arr[:0], set, int(Uniform(r, int64(lo), int64(hi)))))
}

// Zip is a zip code (clause 4.3.2.7): a random n-string of 4 digits
// followed by "11111".
func Zip(r *rand.Rand) string {
	var arr [9]byte
	return string(appendZip(r, arr[:0]))
}

func appendZip(r *rand.Rand, b []byte) []byte {
	b = appendChars(r, b, digitSet, 4)
	return append(b, "11111"...)
}

// syllables are the syllables of customer last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastNames[n] is LastName(n); lastNamesAny holds the same strings boxed
// once, so that rows can carry them without an allocation each.
var (
	lastNames    [1000]string
	lastNamesAny [1000]any
)

func init() {
	for n := range lastNames {
		s := syllables[n/100] + syllables[n/10%10] + syllables[n%10]
		lastNames[n] = s
		lastNamesAny[n] = s
	}
}

// LastName is the customer last name of number num in [0, 999] (clause
// 4.3.2.3): the syllables of its three decimal digits, concatenated; 371
// is "PRICALLYOUGHT". It panics if num is out of range.
func LastName(num int64) string { return lastNames[num] }

// RandomLastName is the last name the transactions of the run phase look
// customers up by: LastName(NURand(r, 255, 0, 999, c.CLast)).
func RandomLastName(r *rand.Rand, c Constants) string {
	return LastName(NURand(r, 255, 0, 999, c.CLast))
}

// CustomerID is a customer id for the run phase: NURand(r, 1023, 1, 3000,
// c.CID) (New-Order, Payment and Order-Status, clauses 2.4.1.2, 2.5.1.2,
// 2.6.1.2).
func CustomerID(r *rand.Rand, c Constants) int64 {
	return NURand(r, 1023, 1, CustomersPerDistrict, c.CID)
}

// ItemID is an item id for the run phase: NURand(r, 8191, 1, 100000,
// c.OLIID) (New-Order, clause 2.4.1.5).
func ItemID(r *rand.Rand, c Constants) int64 {
	return NURand(r, 8191, 1, Items, c.OLIID)
}

// streamTag names one random stream of the generator; a stream is seeded
// from (seed, tag, w, d) alone.
type streamTag uint64

// The tags are part of the data: changing one changes the golden hashes.
const (
	tagConstants streamTag = iota + 1
	tagItem
	tagWarehouse
	tagStock
	tagDistrict
	tagCustomer
	tagHistory
	tagOrderPerm   // o_c_id permutation, per district
	tagOrderHeader // o_ol_cnt and o_carrier_id, per district; shared by orders and order_line
	tagOrderLine   // order_line's own columns, per district
)

// streamSeed derives the PCG seed of stream (tag, w, d) of seed.
func streamSeed(seed uint64, tag streamTag, w, d int) (uint64, uint64) {
	k := splitmix64(seed ^ 0x7470_6363_2d67_656e) // "tpcc-gen"
	k = splitmix64(k ^ uint64(tag))
	k = splitmix64(k ^ uint64(w))
	k = splitmix64(k ^ uint64(d))
	return k, splitmix64(k ^ 0x9e37_79b9_7f4a_7c15)
}

// newStream returns a new generator for stream (tag, w, d) of seed.
func newStream(seed uint64, tag streamTag, w, d int) *rand.Rand {
	return rand.New(rand.NewPCG(streamSeed(seed, tag, w, d)))
}

// stream is a reseedable generator: a PCG and the rand.Rand reading it.
type stream struct {
	pcg rand.PCG
	r   *rand.Rand
}

func newReseedable() *stream {
	s := &stream{}
	s.r = rand.New(&s.pcg)
	return s
}

func (s *stream) reset(seed uint64, tag streamTag, w, d int) {
	s.pcg.Seed(streamSeed(seed, tag, w, d))
}

// splitmix64 is the SplitMix64 finalizer, a bijective 64-bit mix.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
