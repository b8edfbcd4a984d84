// Package ce is the TPC-E-like workload's customer emulator: the deck of
// 890 cards that deals the specification's mix of the eight transactions
// a customer starts, and each transaction's inputs, drawn with the
// specification's distributions from the rows the generator (package
// gen) loads. It is pure Go: it neither reads nor writes a database.
//
// An Env holds what every worker shares, read-only; each worker makes
// its own Generator from it and draws from its own gen.Rand:
//
//	env, err := ce.NewEnv(model)
//	g := env.NewGenerator()
//	in := g.Next(r) // a BrokerVolume, CustomerPosition, … value
//
// Trade-Result and Market-Feed are not dealt: the market exchange
// emulator (package mee) produces them.
package ce

import "github.com/dbarena/dbarena/workload/tpce/internal/gen"

// Kind names a transaction the customer emulator deals.
type Kind uint8

// The transactions a customer emulator deals.
const (
	KindBrokerVolume Kind = iota
	KindCustomerPosition
	KindMarketWatch
	KindSecurityDetail
	KindTradeLookup
	KindTradeOrder
	KindTradeStatus
	KindTradeUpdate
	// Kinds is the number of kinds the deck deals.
	Kinds = int(KindTradeUpdate) + 1
)

// The transactions the driver starts itself, not dealt: Data-Maintenance
// on a timer and Trade-Cleanup once, at the start.
const (
	KindDataMaintenance = Kind(Kinds) + iota
	KindTradeCleanup
)

var kindNames = [...]string{
	"Broker-Volume", "Customer-Position", "Market-Watch", "Security-Detail",
	"Trade-Lookup", "Trade-Order", "Trade-Status", "Trade-Update",
	"Data-Maintenance", "Trade-Cleanup",
}

// String is the specification's name of k ("Trade-Order").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// DeckSize is the number of cards of a deck: the transactions the
// customer emulator starts in every 1,000 of the mix (the other 110 are
// the market's Trade-Results and Market-Feeds).
const DeckSize = 890

// Cards is the number of cards of each kind in a deck: the
// specification's mix per 1,000 transactions (Broker-Volume 4.9%,
// Customer-Position 13%, Market-Watch 18%, Security-Detail 14%,
// Trade-Lookup 8%, Trade-Order 10.1%, Trade-Status 19%, Trade-Update 2%),
// so every 890 cards dealt hold exactly these proportions.
var Cards = [Kinds]int{
	KindBrokerVolume:     49,
	KindCustomerPosition: 130,
	KindMarketWatch:      180,
	KindSecurityDetail:   140,
	KindTradeLookup:      80,
	KindTradeOrder:       101,
	KindTradeStatus:      190,
	KindTradeUpdate:      20,
}

// Deck deals the mix: the DeckSize cards, shuffled afresh each time the
// deck is dealt through, so each run of DeckSize deals starting at a
// multiple of DeckSize holds exactly Cards of each kind. The zero value
// is ready to use. A Deck is not safe for concurrent use: each worker
// has its own.
type Deck struct {
	cards [DeckSize]Kind
	next  int
	ready bool
}

// Deal returns the next card, shuffling the deck with r first when it is
// new or dealt through.
func (d *Deck) Deal(r *gen.Rand) Kind {
	if !d.ready || d.next == DeckSize {
		d.shuffle(r)
	}
	k := d.cards[d.next]
	d.next++
	return k
}

// shuffle lays the cards out in kind order and shuffles them
// (Fisher–Yates).
func (d *Deck) shuffle(r *gen.Rand) {
	i := 0
	for k, n := range Cards {
		for range n {
			d.cards[i] = Kind(k)
			i++
		}
	}
	for i := DeckSize - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		d.cards[i], d.cards[j] = d.cards[j], d.cards[i]
	}
	d.next, d.ready = 0, true
}
