package gen

// The arithmetic of a trade's money, shared by the initial trades and the
// run time's Trade-Order and Trade-Result: trade types, commission, tax
// and settlement amounts. The values they start from (charges,
// commission rates, exchanges, tax rates) are in trades_shared.go.

// TradeType is one row of trade_type.
type TradeType struct {
	// ID is tt_id; Name is tt_name.
	ID, Name string
	// IsSell and IsMarket are tt_is_sell and tt_is_mrkt.
	IsSell, IsMarket bool
}

// Indexes of TradeTypeTable.
const (
	TypeMarketBuy = iota
	TypeMarketSell
	TypeStopLoss
	TypeLimitSell
	TypeLimitBuy
)

// TradeTypeTable is trade_type's 5 rows, indexed by the Type constants.
var TradeTypeTable = [5]TradeType{
	TypeMarketBuy:  {ID: "TMB", Name: "Market-Buy", IsSell: false, IsMarket: true},
	TypeMarketSell: {ID: "TMS", Name: "Market-Sell", IsSell: true, IsMarket: true},
	TypeStopLoss:   {ID: "TSL", Name: "Stop-Loss", IsSell: true, IsMarket: false},
	TypeLimitSell:  {ID: "TLS", Name: "Limit-Sell", IsSell: true, IsMarket: false},
	TypeLimitBuy:   {ID: "TLB", Name: "Limit-Buy", IsSell: false, IsMarket: false},
}

// CommissionCents is a trade's commission in cents: rate (cr_rate in
// hundredths of a percent) of qty·priceCents, rounded half up to the
// cent.
func CommissionCents(rate, qty, priceCents int64) int64 {
	return (rate*qty*priceCents + 5000) / 10000
}

// tradeTypeOf is the index in TradeTypeTable of tt_id id, -1 if none.
func tradeTypeOf(id string) int {
	for i, tt := range TradeTypeTable {
		if tt.ID == id {
			return i
		}
	}
	return -1
}

// TaxCents is the tax on a gain of gainCents at rate (hundred-
// thousandths), rounded half up to the cent; no gain, no tax.
func TaxCents(gainCents, rate int64) int64 {
	if gainCents <= 0 {
		return 0
	}
	return (gainCents*rate + 50000) / 100000
}

// SettlementCents is a trade's se_amt in cents: for a sell the proceeds
// qty·price less charge and commission, for a buy the negative of its
// cost plus charge and commission; an account of tax status 1 has the
// tax withheld from it too (status 2 records t_tax only).
func SettlementCents(isSell bool, qty, priceCents, charge, comm, tax int64, taxStatus int) int64 {
	var amt int64
	if isSell {
		amt = qty*priceCents - charge - comm
	} else {
		amt = -(qty*priceCents + charge + comm)
	}
	if taxStatus == 1 {
		amt -= tax
	}
	return amt
}
