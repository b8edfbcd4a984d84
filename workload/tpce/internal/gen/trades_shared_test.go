package gen

import (
	"fmt"
	"testing"

	wschema "github.com/dbarena/dbarena/workload/schema"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

// TestTradeFeeTables checks that the fixed tables' rows implied by the
// shared values have the specification's counts, fit their columns and
// agree with the functions the trades read.
func TestTradeFeeTables(t *testing.T) {
	declared, _ := schema.Declared(schema.SetDBT5, true)
	tables := map[string]*wschema.Table{}
	for _, tb := range declared {
		tables[tb.Name] = tb
	}
	if len(TradeTypeTable) != 5 || len(ChargeTable()) != 15 || len(CommissionRateTable()) != 240 || len(TaxrateTable()) != 320 {
		t.Fatalf("rows: %d trade types, %d charges, %d commission rates, %d tax rates",
			len(TradeTypeTable), len(ChargeTable()), len(CommissionRateTable()), len(TaxrateTable()))
	}
	keys := map[string]bool{}
	for _, tt := range TradeTypeTable {
		checkColumns(t, tables[schema.TradeType], []any{tt.ID, tt.Name, tt.IsSell, tt.IsMarket})
	}
	for _, ch := range ChargeTable() {
		checkColumns(t, tables[schema.Charge], []any{ch.TTID, int64(ch.Tier), trCents(ch.Cents)})
		if ch.Cents != TradeCharge(ch.TTID, ch.Tier) || ch.Cents <= 0 {
			t.Errorf("charge %+v", ch)
		}
	}
	for _, cr := range CommissionRateTable() {
		checkColumns(t, tables[schema.CommissionRate], []any{int64(cr.Tier), cr.TTID, cr.ExID, cr.FromQty, cr.ToQty, float64(cr.Hundredths) / 100})
		k := fmt.Sprint(cr.Tier, cr.TTID, cr.ExID, cr.FromQty)
		if keys[k] || cr.Hundredths <= 0 {
			t.Errorf("commission_rate %+v", cr)
		}
		keys[k] = true
		// Every quantity of the band has the row's rate.
		e := -1
		for x := range Exchanges {
			if ExchangeID(x) == cr.ExID {
				e = x
			}
		}
		for _, q := range []int64{cr.FromQty, cr.ToQty, 100, 200, 400, 800} {
			if q >= cr.FromQty && q <= cr.ToQty && CommissionRate(cr.Tier, cr.TTID, e, q) != cr.Hundredths {
				t.Errorf("commission_rate %+v: CommissionRate of %d is %d", cr, q, CommissionRate(cr.Tier, cr.TTID, e, q))
			}
		}
	}
	rates := map[string]int64{}
	for _, tx := range TaxrateTable() {
		checkColumns(t, tables[schema.Taxrate], []any{tx.ID, tx.Name, float64(tx.Rate) / 100000})
		if keys[tx.ID] || tx.Rate < 0 || tx.Rate >= 100000 {
			t.Errorf("taxrate %+v", tx)
		}
		keys[tx.ID] = true
		rates[tx.ID] = tx.Rate
	}
	// Every customer's tax rates exist, one national and one division,
	// and the rate is their sum.
	m := NewModel(tradeConfig(1, 1))
	for cid := int64(1); cid <= 1000; cid++ {
		nat, div, rate := m.CustomerTax(cid)
		_, okN := rates[nat]
		_, okD := rates[div]
		if !okN || !okD || nat[:2] != "US" && nat[:2] != "CN" || div[:2] == "US" || div[:2] == "CN" || rate != rates[nat]+rates[div] {
			t.Fatalf("customer %d: tax rates %s %s %d", cid, nat, div, rate)
		}
	}
	// The exchanges' shares of the securities.
	var n [Exchanges]int
	for s := range int64(20000) {
		n[m.SecurityExchange(s)]++
	}
	for e, want := range []int{8000, 8000, 2400, 1600} {
		if n[e] < want*9/10 || n[e] > want*11/10 {
			t.Errorf("exchange %s: %d of 20000 securities", ExchangeID(e), n[e])
		}
	}
}
