package ce

import (
	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// Status ids Trade-Cleanup takes.
const (
	StatusPending   = "PNDG"
	StatusSubmitted = "SBMT"
	StatusCanceled  = "CNCL"
)

// DataMaintenance is Data-Maintenance's input: which table's value to
// change and the row; only the fields the table needs are set.
//   - account_permission: AcctID;
//   - address: CustID (67%) or CoID (the customer's or company's
//     address);
//   - company, financial, news_item: CoID;
//   - customer, customer_taxrate, watch_item: CustID;
//   - daily_market: Symbol, DayOfMonth (1–31) and VolIncr (-3, -2, -1,
//     1, 2 or 3);
//   - exchange: nothing;
//   - security: Symbol;
//   - taxrate: TxID.
type DataMaintenance struct {
	TableName  string
	AcctID     int64
	CustID     int64
	CoID       int64
	Symbol     string
	DayOfMonth int
	VolIncr    int
	TxID       string
}

// Kind implements Input.
func (DataMaintenance) Kind() Kind { return KindDataMaintenance }

// TradeCleanup is Trade-Cleanup's input: trades from StartTradeID on
// (the run's) still pending or submitted are canceled.
type TradeCleanup struct {
	StartTradeID  int64
	StPendingID   string
	StSubmittedID string
	StCanceledID  string
}

// Kind implements Input.
func (TradeCleanup) Kind() Kind { return KindTradeCleanup }

// MaintenanceTables are the tables Data-Maintenance changes, in the
// round-robin order.
var MaintenanceTables = [...]string{
	schema.AccountPermission, schema.Address, schema.Company, schema.Customer,
	schema.CustomerTaxrate, schema.DailyMarket, schema.Exchange, schema.Financial,
	schema.NewsItem, schema.Security, schema.Taxrate, schema.WatchItem,
}

// TradeCleanup is Trade-Cleanup's input: the run's trades start after
// the initial trades' largest id.
func (e *Env) TradeCleanup() TradeCleanup {
	return TradeCleanup{
		StartTradeID:  e.maxTradeID + 1,
		StPendingID:   StatusPending,
		StSubmittedID: StatusSubmitted,
		StCanceledID:  StatusCanceled,
	}
}

// Maintenance draws Data-Maintenance's inputs, one table after the
// other round-robin. It is not safe for concurrent use: the driver has
// one.
type Maintenance struct {
	g    *Generator
	next int
}

// NewMaintenance returns the Data-Maintenance generator, starting with
// MaintenanceTables[0].
func (e *Env) NewMaintenance() *Maintenance {
	return &Maintenance{g: e.NewGenerator(-1)}
}

// Next draws the next table's input.
func (d *Maintenance) Next(r *gen.Rand) DataMaintenance {
	e := d.g.env
	in := DataMaintenance{TableName: MaintenanceTables[d.next]}
	d.next = (d.next + 1) % len(MaintenanceTables)
	company := func() int64 { return r.Int64Range(1, e.cfg.Companies()) }
	customer := func() int64 { return r.Int64Range(1, e.cfg.Customers) }
	switch in.TableName {
	case schema.AccountPermission:
		_, in.AcctID = d.g.account(r)
	case schema.Address:
		if r.Percent(67) {
			in.CustID = customer()
		} else {
			in.CoID = company()
		}
	case schema.Company, schema.Financial, schema.NewsItem:
		in.CoID = company()
	case schema.Customer, schema.CustomerTaxrate, schema.WatchItem:
		in.CustID = customer()
	case schema.DailyMarket:
		in.Symbol = gen.Symbol(d.g.security(r))
		in.DayOfMonth = r.Range(1, 31)
		if in.VolIncr = r.Range(-2, 3); in.VolIncr == 0 {
			in.VolIncr = -3
		}
	case schema.Security:
		in.Symbol = gen.Symbol(d.g.security(r))
	case schema.Taxrate:
		in.TxID = e.taxrates[r.Intn(len(e.taxrates))]
	}
	return in
}
