// Package histogram records latencies in HDR histograms: one Recorder per
// worker, with a Frame per reporting interval (a small buffer of values
// until the worker records enough to need a histogram), taken and merged
// by a single collector after each interval ends. The steps of an op
// reported on their own (a script's commands) wait in the worker's Steps
// (Recorder.EnableSteps) until the transaction's outcome is recorded.
//
// All values are microseconds, from 1 µs to one hour, with three
// significant digits. Percentiles are asked for in percent (99.9, not
// 0.999): Summarize and Percentile take the same scale as
// hdrhistogram-go's ValueAtQuantile, so a quantile is never passed where a
// percentile is meant. A percentile is the nearest rank taken upwards
// (Rank), so that merging histograms (Interval.Merge, result.Merge) gives
// exactly the percentiles of all their values together.
package histogram

import (
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// MinMicros and MaxMicros bound recorded values; larger values are
	// clamped to MaxMicros (and so still counted).
	MinMicros = 1
	MaxMicros = int64(time.Hour / time.Microsecond)
	// SigFigs is the number of significant decimal digits kept.
	SigFigs = 3
)

// New returns an empty histogram on dbarena's scale.
func New() *hdr.Histogram { return hdr.New(MinMicros, MaxMicros, SigFigs) }

// Micros converts d to the histogram's unit, clamped to its range.
func Micros(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	if us < MinMicros {
		return MinMicros
	}
	if us > MaxMicros {
		return MaxMicros
	}
	return us
}

// Latency is a summary of a histogram in milliseconds.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Percentile returns the value at percentile p (0 < p <= 100) in
// milliseconds, or 0 for an empty histogram: the smallest recorded value v
// with count(<= v) >= p% of all values (the nearest rank, ceil(p% × n)).
//
// hdrhistogram-go rounds the rank to the nearest instead, which can give a
// value one rank lower; with the nearest rank taken upwards, a histogram
// merged with copies of itself keeps every percentile, so merged files
// (package result) give exactly the percentiles of their parts' union.
func Percentile(h *hdr.Histogram, p float64) float64 {
	n := h.TotalCount()
	if n == 0 {
		return 0
	}
	return ms(h.ValueAtPercentile(rankPercentile(Rank(p, n), n)))
}

// Rank is the nearest rank of percentile p among n values: ceil(p% × n),
// at least 1 and at most n. A product that is an integer up to floating
// point error (a few parts in 10^16) counts as that integer.
func Rank(p float64, n int64) int64 {
	x := p / 100 * float64(n)
	r := int64(math.Ceil(x - x*1e-15))
	return min(max(r, 1), n)
}

// rankPercentile is a percentile that hdrhistogram-go, which takes the
// rank int(p% × n + 0.5), turns into rank r exactly: r − 0.25 rounds to r
// with a margin far above floating point error.
func rankPercentile(r, n int64) float64 {
	return (float64(r) - 0.25) / float64(n) * 100
}

// Summarize returns min, mean, p50, p95, p99, p99.9 and max in
// milliseconds. An empty histogram gives all zeros.
func Summarize(h *hdr.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Min:  ms(h.Min()),
		Mean: h.Mean() / 1000,
		P50:  Percentile(h, 50),
		P95:  Percentile(h, 95),
		P99:  Percentile(h, 99),
		P999: Percentile(h, 99.9),
		Max:  ms(h.Max()),
	}
}

func ms(us int64) float64 { return float64(us) / 1000 }

// Encode returns the histogram in HdrHistogram's compressed, base64 V2
// encoding, which every HdrHistogram implementation can read.
func Encode(h *hdr.Histogram) (string, error) {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	return string(b), err
}

// Decode reads a histogram written by Encode.
func Decode(s string) (*hdr.Histogram, error) {
	return hdr.Decode([]byte(s))
}
