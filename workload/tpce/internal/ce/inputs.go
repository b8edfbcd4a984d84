package ce

import "time"

// Input is one transaction's inputs: a BrokerVolume, CustomerPosition,
// MarketWatch, SecurityDetail, TradeLookup, TradeOrder, TradeStatus or
// TradeUpdate value. Money is in cents; times are UTC.
type Input interface {
	// Kind is the transaction the input is for.
	Kind() Kind
}

// Row limits of the transactions' inputs.
const (
	// MinBrokers and MaxBrokers bound Broker-Volume's broker list.
	MinBrokers, MaxBrokers = 20, 40
	// TradeIDs is the number of trade ids of Trade-Lookup and
	// Trade-Update frame 1.
	TradeIDs = 20
	// MaxTrades is the most trades Trade-Lookup and Trade-Update frames 2
	// and 3 return; MaxUpdates the most rows Trade-Update changes.
	MaxTrades  = 20
	MaxUpdates = 20
	// MinDetailRows and MaxDetailRows bound Security-Detail's
	// daily_market rows.
	MinDetailRows, MaxDetailRows = 5, 20
	// IndustryWindow is the number of companies Market-Watch's industry
	// source ranges over.
	IndustryWindow = 5000
)

// BrokerVolume is Broker-Volume's input: the total volume of the pending
// trades of the named brokers in one sector.
type BrokerVolume struct {
	// BrokerNames are 20 to 40 distinct b_name values (fewer when the
	// database has fewer brokers).
	BrokerNames []string
	// SectorName is one of the 12 sc_name values.
	SectorName string
}

// CustomerPosition is Customer-Position's input. Exactly one of CustID
// and TaxID is set.
type CustomerPosition struct {
	// CustID is the customer's c_id, or 0 when TaxID names it.
	CustID int64
	// TaxID is the customer's c_tax_id, or "" when CustID names it.
	TaxID string
	// GetHistory asks for frame 2: the trade history of the account at
	// AcctIndex in frame 1's list of the customer's accounts (ordered by
	// ca_id); AcctID is that account.
	GetHistory bool
	AcctIndex  int
	AcctID     int64
}

// MarketWatch is Market-Watch's input. The securities watched come from
// exactly one source: the customer's watch list (CustID set), an
// account's holdings (AcctID set) or an industry's companies within a
// window of co_ids (IndustryName set).
type MarketWatch struct {
	CustID       int64
	AcctID       int64
	IndustryName string
	StartingCoID int64
	EndingCoID   int64
	// StartDay is the daily_market date (midnight UTC) compared with.
	StartDay time.Time
}

// SecurityDetail is Security-Detail's input.
type SecurityDetail struct {
	// Symbol is a security's s_symb.
	Symbol string
	// MaxRowsToReturn is the number of daily_market rows, 5 to 20, from
	// StartDay on (always that many exist).
	MaxRowsToReturn int
	StartDay        time.Time
	// AccessLOBFlag asks for the news items' text (ni_item).
	AccessLOBFlag bool
}

// TradeLookup is Trade-Lookup's input: Frame (1 to 4) says which of the
// other fields are set.
//   - Frame 1: TradeIDs (20 distinct ids of initial trades).
//   - Frame 2: AcctID, StartTradeDTS, EndTradeDTS and MaxTrades.
//   - Frame 3: Symbol, StartTradeDTS, EndTradeDTS, MaxTrades and
//     MaxAcctID (the largest ca_id).
//   - Frame 4: AcctID and StartTradeDTS.
type TradeLookup struct {
	Frame         int
	TradeIDs      []int64
	AcctID        int64
	MaxAcctID     int64
	Symbol        string
	StartTradeDTS time.Time
	EndTradeDTS   time.Time
	MaxTrades     int
}

// TradeUpdate is Trade-Update's input: Frame (1 to 3) says which fields
// are set, as Trade-Lookup's frames 1 to 3; MaxUpdates bounds the rows
// changed.
type TradeUpdate struct {
	Frame         int
	TradeIDs      []int64
	AcctID        int64
	MaxAcctID     int64
	Symbol        string
	StartTradeDTS time.Time
	EndTradeDTS   time.Time
	MaxTrades     int
	MaxUpdates    int
}

// Trade type ids (tt_id).
const (
	TypeMarketBuy  = "TMB"
	TypeMarketSell = "TMS"
	TypeLimitBuy   = "TLB"
	TypeLimitSell  = "TLS"
	TypeStopLoss   = "TSL"
)

// TradeOrder is Trade-Order's input. The security is named either by
// Symbol or by CoName and Issue (the other is empty).
type TradeOrder struct {
	AcctID int64
	// ExecFirstName and ExecLastName are the person placing the order:
	// the account's owner (ExecIsOwner) or a person account_permission
	// allows.
	ExecFirstName string
	ExecLastName  string
	ExecIsOwner   bool
	// ExecTaxID is the owner's c_tax_id when ExecIsOwner, else the
	// other person's ap_tax_id: frame 2 matches account_permission on
	// the names and the tax id.
	ExecTaxID string
	Symbol    string
	CoName    string
	Issue     string
	// Security is the security's index (gen.Symbol's argument), whatever
	// names it.
	Security int64
	// TradeTypeID is one of the Type… constants.
	TradeTypeID string
	// TradeQty is 100, 200, 400 or 800.
	TradeQty int64
	// RequestedPrice is $20.00 to $30.00, in cents.
	RequestedPrice int64
	IsLIFO         bool
	TypeIsMargin   bool
	// RollItBack asks the transaction to roll back on purpose.
	RollItBack bool
}

// IsBuy reports whether the order buys.
func (t TradeOrder) IsBuy() bool {
	return t.TradeTypeID == TypeMarketBuy || t.TradeTypeID == TypeLimitBuy
}

// IsMarket reports whether the order is a market order.
func (t TradeOrder) IsMarket() bool {
	return t.TradeTypeID == TypeMarketBuy || t.TradeTypeID == TypeMarketSell
}

// TradeStatus is Trade-Status's input.
type TradeStatus struct {
	AcctID int64
}

// Kind implements Input.
func (BrokerVolume) Kind() Kind { return KindBrokerVolume }

// Kind implements Input.
func (CustomerPosition) Kind() Kind { return KindCustomerPosition }

// Kind implements Input.
func (MarketWatch) Kind() Kind { return KindMarketWatch }

// Kind implements Input.
func (SecurityDetail) Kind() Kind { return KindSecurityDetail }

// Kind implements Input.
func (TradeLookup) Kind() Kind { return KindTradeLookup }

// Kind implements Input.
func (TradeOrder) Kind() Kind { return KindTradeOrder }

// Kind implements Input.
func (TradeStatus) Kind() Kind { return KindTradeStatus }

// Kind implements Input.
func (TradeUpdate) Kind() Kind { return KindTradeUpdate }
