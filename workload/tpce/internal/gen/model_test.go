package gen

import (
	"testing"
	"time"
)

func testConfig(customers int64) Config {
	return Config{Seed: 7, Customers: customers, ITD: 5, ScaleFactor: DefaultScaleFactor, NewsSize: 1000}
}

func TestSymbolRoundTrip(t *testing.T) {
	for _, s := range []int64{0, 1, 25, 26, 17575, 17576, 17577, 17576 + 456975, 17576 + 456976, 1 << 40} {
		sym := Symbol(s)
		got, ok := SecurityIndex(sym)
		if !ok || got != s {
			t.Errorf("Symbol(%d) = %q, back %d %v", s, sym, got, ok)
		}
	}
	if Symbol(0) != "AAA" || Symbol(17576) != "AAAA" {
		t.Errorf("Symbol(0) %q Symbol(17576) %q", Symbol(0), Symbol(17576))
	}
	for _, bad := range []string{"", "AB", "AaA", "A1B", "ABCDEFGHIJKLMN"} {
		if _, ok := SecurityIndex(bad); ok {
			t.Errorf("SecurityIndex(%q) ok", bad)
		}
	}
}

func TestTiersAndAccounts(t *testing.T) {
	m := NewModel(testConfig(3000))
	for lu := 0; lu < 3; lu++ {
		var tiers [4]int
		accounts := 0
		var perTier [4][11]int
		for c := int64(lu*LoadUnit + 1); c <= int64((lu+1)*LoadUnit); c++ {
			tier := m.Tier(c)
			tiers[tier]++
			first, n := m.Accounts(c)
			if first != (c-1)*MaxAccounts+1 || n < accountRange[tier][0] || n > accountRange[tier][1] {
				t.Fatalf("customer %d tier %d: accounts %d+%d", c, tier, first, n)
			}
			perTier[tier][n]++
			accounts += n
			for k := 0; k < n; k++ {
				if AccountOwner(first+int64(k)) != c {
					t.Fatalf("owner of %d", first+int64(k))
				}
				b := m.AccountBroker(first + int64(k))
				if b < int64(lu)*BrokersPerLU+1 || b > int64(lu+1)*BrokersPerLU {
					t.Fatalf("account %d of LU %d has broker %d", first+int64(k), lu, b)
				}
			}
		}
		if tiers != [4]int{0, 200, 600, 200} {
			t.Errorf("LU %d tiers %v", lu, tiers)
		}
		if accounts != AccountsPerCustomer*LoadUnit {
			t.Errorf("LU %d: %d accounts", lu, accounts)
		}
		// Every count of a tier's range occurs.
		for tier := 1; tier <= 3; tier++ {
			for n := accountRange[tier][0]; n <= accountRange[tier][1]; n++ {
				if perTier[tier][n] == 0 {
					t.Errorf("LU %d tier %d: no customer with %d accounts", lu, tier, n)
				}
			}
		}
	}
}

func TestPickCustomer(t *testing.T) {
	m := NewModel(testConfig(2000))
	r := NewRand(1, 2, 3)
	var tiers [4]int
	const n = 200000
	lus := [2]int{}
	for range n {
		c := m.PickCustomer(r, -1)
		if c < 1 || c > 2000 {
			t.Fatalf("customer %d", c)
		}
		tiers[m.Tier(c)]++
		lus[LUOf(c)]++
	}
	for tier, want := range map[int]float64{1: 0.10, 2: 0.60, 3: 0.30} {
		if got := float64(tiers[tier]) / n; got < want-0.01 || got > want+0.01 {
			t.Errorf("tier %d drawn %.3f, want %.2f", tier, got, want)
		}
	}
	if lus[0] < n/2-2000 || lus[0] > n/2+2000 {
		t.Errorf("Load Units drawn %v", lus)
	}
	for range 1000 {
		if c := m.PickCustomer(r, 1); LUOf(c) != 1 {
			t.Fatalf("customer %d outside Load Unit 1", c)
		}
	}
}

func TestBasket(t *testing.T) {
	m := NewModel(testConfig(1000))
	sum := 0
	for ca := int64(1); ca <= 2000; ca++ {
		b := m.Basket(ca, nil)
		if len(b) < 2 || len(b) > MaxBasket {
			t.Fatalf("basket of %d: %d", ca, len(b))
		}
		seen := map[int64]bool{}
		for _, s := range b {
			if s < 0 || s >= SecuritiesPerLU || seen[s] {
				t.Fatalf("basket of %d: %v", ca, b)
			}
			seen[s] = true
		}
		sum += len(b)
	}
	if mean := float64(sum) / 2000; mean < 9.5 || mean > 10.5 {
		t.Errorf("mean basket %.2f", mean)
	}
}

func TestPriceAndCalendar(t *testing.T) {
	m := NewModel(testConfig(1000))
	for s := int64(0); s < 50; s++ {
		for d := time.Duration(0); d < time.Hour; d += 7 * time.Second {
			p := m.Price(s, Base.Add(d))
			if p < 2000 || p > 3000 {
				t.Fatalf("price %d", p)
			}
			if p != m.Price(s, Base.Add(d+900*time.Second)) {
				t.Fatalf("price not periodic")
			}
		}
	}
	if got := TradingTime(0); !got.Equal(Base) {
		t.Errorf("TradingTime(0) %v", got)
	}
	// The fifth trading day ends on Friday 17:00; the sixth starts on Monday.
	if got := TradingTime(5*TradingDay - time.Second); got.Weekday() != time.Friday || got.Hour() != 16 {
		t.Errorf("end of week %v", got)
	}
	if got := TradingTime(5 * TradingDay); got.Weekday() != time.Monday || got.Hour() != 9 || got.Sub(Base) != 7*24*time.Hour {
		t.Errorf("next week %v", got)
	}
	c := testConfig(1000)
	if c.InitialTrades() != 5*28800*2 {
		t.Errorf("initial trades %d", c.InitialTrades())
	}
}

func TestNURandBounds(t *testing.T) {
	r := NewRand(3, 4, 5)
	for range 100000 {
		if v := r.NURand(1, 5000, 65535, 7); v < 1 || v > 5000 {
			t.Fatalf("NURand %d", v)
		}
	}
}
