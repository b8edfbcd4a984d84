// Package gen generates the TPC-E-like workload's initial data. Every value
// is a pure function of (Config.Seed, table, key): each Load Unit of 1,000
// customers, with its companies, securities and brokers, is generated
// independently of the others, so Load Units load in parallel, in any
// order, or on different machines, and give the same rows.
//
// This file holds the population model every table and the run time share:
// Load Units, customer tiers, accounts and their brokers, the securities an
// account trades, the price of a security at any instant, the trading
// calendar and the non-uniform choice of a customer.
package gen

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Sizes of the population (per Load Unit unless said otherwise).
const (
	// LoadUnit is the number of customers in a Load Unit.
	LoadUnit = 1000
	// CompaniesPerLU and SecuritiesPerLU: 500 companies and 685
	// securities for every 1,000 customers.
	CompaniesPerLU  = 500
	SecuritiesPerLU = 685
	// BrokersPerLU: one broker per 100 customers. An account's broker is
	// always one of its own Load Unit's.
	BrokersPerLU = 10
	// AccountsPerCustomer is the mean number of accounts of a customer,
	// exact over every Load Unit; MaxAccounts is the most one has, and
	// the stride of account ids: customer c's accounts are
	// (c-1)*MaxAccounts+1 … (c-1)*MaxAccounts+n.
	AccountsPerCustomer = 5
	MaxAccounts         = 10
	// MaxBasket is the most securities an account trades; the mean is
	// about 10.
	MaxBasket = 18
	// Exchanges is the number of exchanges (NYSE, NASDAQ, AMEX, PCX).
	Exchanges = 4
	// TradingDay is the length of a trading day, 09:00 to 17:00.
	TradingDay = 8 * time.Hour
	// DefaultScaleFactor is the specification's 500 customers per tpsE.
	DefaultScaleFactor = 500
)

// Tier sizes in every Load Unit: 200 tier-1, 600 tier-2 and 200 tier-3
// customers.
var tierSizes = [4]int{0, 200, 600, 200}

// accountRange is the smallest and largest number of accounts of a
// customer of each tier.
var accountRange = [4][2]int{{}, {1, 4}, {2, 8}, {5, 10}}

// Base is the instant the initial trades start: a Monday, 09:00 UTC. The
// trading calendar runs on weekdays from 09:00 to 17:00 from there;
// daily_market's five years of history end the weekday before.
var Base = time.Date(2025, time.January, 6, 9, 0, 0, 0, time.UTC)

// Config fixes everything the initial data depends on. A Config is a
// value; Model derives what its functions need once.
type Config struct {
	// Seed selects the data.
	Seed uint64
	// Customers is the number of customers, a positive multiple of
	// LoadUnit.
	Customers int64
	// ITD is the number of initial trade days (the specification's 300).
	ITD int
	// ScaleFactor is the number of customers per unit of nominal
	// throughput (the specification's 500): the initial trades arrive at
	// Customers/ScaleFactor trades a second of trading time.
	ScaleFactor int
	// NewsSize is the length in bytes of each news item's ni_item.
	NewsSize int
}

// Errors of Validate.
var (
	ErrCustomers   = errors.New("customers must be a positive multiple of 1000")
	ErrITD         = errors.New("initial trade days must be at least 1")
	ErrScaleFactor = errors.New("scale factor must be positive")
)

// Validate reports every problem of c at once.
func (c Config) Validate() []error {
	var errs []error
	if c.Customers < LoadUnit || c.Customers%LoadUnit != 0 {
		errs = append(errs, fmt.Errorf("%w: %d", ErrCustomers, c.Customers))
	}
	if c.ITD < 1 {
		errs = append(errs, fmt.Errorf("%w: %d", ErrITD, c.ITD))
	}
	if c.ScaleFactor < 1 {
		errs = append(errs, fmt.Errorf("%w: %d", ErrScaleFactor, c.ScaleFactor))
	}
	return errs
}

// LoadUnits is the number of Load Units.
func (c Config) LoadUnits() int { return int(c.Customers / LoadUnit) }

// Securities is the number of securities of the whole database.
func (c Config) Securities() int64 { return int64(c.LoadUnits()) * SecuritiesPerLU }

// Companies is the number of companies of the whole database.
func (c Config) Companies() int64 { return int64(c.LoadUnits()) * CompaniesPerLU }

// Brokers is the number of brokers of the whole database.
func (c Config) Brokers() int64 { return int64(c.LoadUnits()) * BrokersPerLU }

// Model is the population of a Config: tiers, accounts, brokers,
// baskets, prices and the customer choice. It is immutable and safe for
// concurrent use.
type Model struct {
	cfg Config
	// slotTier and slotRank give the tier of the customer in each of a
	// Load Unit's 1,000 slots (c_id-1 mod 1000) and its rank within the
	// tier; tierSlots inverts them. The permutation is the same in every
	// Load Unit.
	slotTier  [LoadUnit]int8
	slotRank  [LoadUnit]int16
	tierSlots [4][]int16
	// tierCum are the cumulative weights of each tier's ranks: rank r of
	// a tier weighs r+1, so that the choice within a tier rises linearly.
	tierCum [4][]uint32
}

// NewModel derives the model of c.
func NewModel(c Config) *Model {
	m := &Model{cfg: c}
	perm := make([]int16, LoadUnit)
	for i := range perm {
		perm[i] = int16(i)
	}
	r := NewRand(c.Seed, tagTiers, 0)
	for i := len(perm) - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	next := 0
	for tier := 1; tier <= 3; tier++ {
		cum := uint32(0)
		for rank := 0; rank < tierSizes[tier]; rank++ {
			slot := perm[next]
			next++
			m.slotTier[slot], m.slotRank[slot] = int8(tier), int16(rank)
			m.tierSlots[tier] = append(m.tierSlots[tier], slot)
			cum += uint32(rank + 1)
			m.tierCum[tier] = append(m.tierCum[tier], cum)
		}
	}
	return m
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// LUOf is the 0-based Load Unit of customer cid (1-based).
func LUOf(cid int64) int { return int((cid - 1) / LoadUnit) }

// Tier is customer cid's tier: 1, 2 or 3.
func (m *Model) Tier(cid int64) int { return int(m.slotTier[(cid-1)%LoadUnit]) }

// Accounts returns customer cid's first account id and number of
// accounts. Within a tier the customers of ranks 2k and 2k+1 pair up: the
// first draws its count uniformly from the tier's range, the second takes
// the mirror value, so every Load Unit has exactly 5,000 accounts.
func (m *Model) Accounts(cid int64) (first int64, n int) {
	slot := (cid - 1) % LoadUnit
	tier, rank := int(m.slotTier[slot]), int(m.slotRank[slot])
	lo, hi := accountRange[tier][0], accountRange[tier][1]
	r := NewRand(m.cfg.Seed, tagAccounts, uint64(LUOf(cid))<<16|uint64(tier)<<12|uint64(rank/2))
	n = lo + r.Intn(hi-lo+1)
	if rank%2 == 1 {
		n = lo + hi - n
	}
	return (cid-1)*MaxAccounts + 1, n
}

// AccountOwner is the customer of account caID.
func AccountOwner(caID int64) int64 { return (caID-1)/MaxAccounts + 1 }

// AccountBroker is the broker of account caID: one of the ten of its Load
// Unit, uniformly.
func (m *Model) AccountBroker(caID int64) int64 {
	lu := LUOf(AccountOwner(caID))
	r := NewRand(m.cfg.Seed, tagBroker, uint64(caID))
	return int64(lu)*BrokersPerLU + int64(r.Intn(BrokersPerLU)) + 1
}

// AccountTaxStatus is account caID's ca_tax_st: 0 (not taxable) for 20%
// of accounts, 1 for 50%, 2 for 30%.
func (m *Model) AccountTaxStatus(caID int64) int {
	r := NewRand(m.cfg.Seed, tagTaxStatus, uint64(caID))
	switch x := r.Intn(100); {
	case x < 20:
		return 0
	case x < 70:
		return 1
	}
	return 2
}

// Basket appends to dst the securities (0-based indexes, see Symbol)
// account caID trades, distinct and in the order drawn: between 2 and
// MaxBasket of them, 10 on average, uniform over every security of the
// database.
func (m *Model) Basket(caID int64, dst []int64) []int64 {
	r := NewRand(m.cfg.Seed, tagBasket, uint64(caID))
	n := 2 + r.Intn(MaxBasket-1)
	total := m.cfg.Securities()
	if int64(n) > total {
		n = int(total)
	}
	start := len(dst)
	for len(dst)-start < n {
		s := int64(r.Uint64() % uint64(total))
		dup := false
		for _, x := range dst[start:] {
			if x == s {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, s)
		}
	}
	return dst
}

// PickCustomer draws a customer the way the specification's customer
// emulator does: a Load Unit uniformly among lus (all of them when lus is
// negative, else only Load Unit lus), then tier 1 with probability 10%,
// tier 2 60% and tier 3 30%, then within the tier a rank with linearly
// rising weight.
func (m *Model) PickCustomer(r *Rand, lu int) int64 {
	if lu < 0 {
		lu = r.Intn(m.cfg.LoadUnits())
	}
	tier := 3
	switch x := r.Intn(100); {
	case x < 10:
		tier = 1
	case x < 70:
		tier = 2
	}
	cum := m.tierCum[tier]
	w := uint32(r.Uint64() % uint64(cum[len(cum)-1]))
	// The first rank whose cumulative weight exceeds w.
	lo, hi := 0, len(cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if cum[mid] > w {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return int64(lu)*LoadUnit + int64(m.tierSlots[tier][lo]) + 1
}

// Symbol is the ticker symbol of security s (0-based): upper-case
// letters, three of them for the first 26³ securities ("AAA", "AAB", …,
// "ZZZ"), then four ("AAAA", …), and so on.
func Symbol(s int64) string {
	l, span := 3, int64(26*26*26)
	for s >= span {
		s -= span
		l++
		span *= 26
	}
	b := make([]byte, l)
	for i := l - 1; i >= 0; i-- {
		b[i] = byte('A' + s%26)
		s /= 26
	}
	return string(b)
}

// SecurityIndex is the inverse of Symbol; ok is false for a string Symbol
// never returns.
func SecurityIndex(symb string) (s int64, ok bool) {
	if len(symb) < 3 || len(symb) > 13 {
		return 0, false
	}
	span := int64(26 * 26 * 26)
	for l := 3; l < len(symb); l++ {
		s += span
		span *= 26
	}
	var v int64
	for i := 0; i < len(symb); i++ {
		ch := symb[i]
		if ch < 'A' || ch > 'Z' {
			return 0, false
		}
		v = v*26 + int64(ch-'A')
	}
	return s + v, true
}

// Price is the price of security s at instant t: a triangular wave
// between $20.00 and $30.00 with a period of 15 minutes, its phase
// offset per security, in cents. Every process computes the same price
// for the same (security, instant) without sharing anything.
func (m *Model) Price(s int64, t time.Time) int64 {
	const period = 900 * time.Second
	phase := time.Duration(mix(m.cfg.Seed^tagPrice, uint64(s)) % uint64(period))
	x := float64((t.Sub(Base)+phase)%period) / float64(period)
	if x < 0 {
		x++
	}
	// Up over the first half period, down over the second.
	tri := 2 * x
	if x >= 0.5 {
		tri = 2 - 2*x
	}
	return 2000 + int64(math.Round(tri*1000))
}

// TradingTime is the instant of trading time offset d after Base: the
// trading calendar counts 09:00 to 17:00 of weekdays only.
func TradingTime(d time.Duration) time.Time {
	days := int(d / TradingDay)
	rem := d % TradingDay
	// Base is a Monday: whole weeks of five trading days, then the
	// remaining weekdays.
	date := Base.AddDate(0, 0, days/5*7+days%5)
	return date.Add(rem)
}

// InitialTrades is the number of initial trades of each Load Unit:
// ITD days of trading at LoadUnit/ScaleFactor trades a second.
func (c Config) InitialTrades() int64 {
	return int64(c.ITD) * int64(TradingDay/time.Second) * LoadUnit / int64(c.ScaleFactor)
}

// InitialEnd is the instant the initial trades end: ITD trading days
// after Base.
func (c Config) InitialEnd() time.Time {
	return TradingTime(time.Duration(c.ITD) * TradingDay)
}
