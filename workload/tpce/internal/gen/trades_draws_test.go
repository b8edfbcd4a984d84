package gen

import (
	"math"
	"testing"
)

func TestTradePickerIsPickCustomer(t *testing.T) {
	m := NewModel(tradeConfig(3, 1))
	p := newTradePicker(m)
	var a, b Rand
	for k := range uint64(300000) {
		a.Reset(5, 6, k)
		b.Reset(5, 6, k)
		lu := int(k % 3)
		if got, want := p.pick(&a, lu), m.PickCustomer(&b, lu); got != want || a != b {
			t.Fatalf("draw %d: picker %d, PickCustomer %d (streams equal %v)", k, got, want, a == b)
		}
	}
}

// TestSubmitDelay checks the delay's bounds, its mean (Exp(1 s) capped
// at 5 s has mean 1-e^-5 s ≈ 0.9933 s; the standard error at n = 200,000
// is about 2 ms) and its median (ln 2 s).
func TestSubmitDelay(t *testing.T) {
	var r Rand
	r.Reset(1, 2, 3)
	const n = 200000
	var sum float64
	below := 0
	for range n {
		d := submitDelay(&r)
		if d < 1000 || d > tradeDelayCap {
			t.Fatalf("delay %d µs", d)
		}
		sum += float64(d)
		if float64(d) < math.Ln2*1e6 {
			below++
		}
	}
	if mean := sum / n / 1e6; math.Abs(mean-(1-math.Exp(-5))) > 0.01 {
		t.Errorf("mean delay %.4f s", mean)
	}
	if share := float64(below) / n; math.Abs(share-0.5) > 0.005 {
		t.Errorf("%.4f of the delays below ln 2 s", share)
	}
}
