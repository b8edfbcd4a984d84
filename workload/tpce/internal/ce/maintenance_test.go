package ce

import (
	"slices"
	"testing"

	"github.com/dbarena/dbarena/workload/tpce/internal/gen"
	"github.com/dbarena/dbarena/workload/tpce/internal/schema"
)

func TestDataMaintenance(t *testing.T) {
	e := testEnv(t, 2)
	d := e.NewMaintenance()
	r := gen.NewRand(10, 10, 10)
	vols := map[int]int{}
	addrByCustomer := 0
	const rounds = 2000
	for i := range rounds * len(MaintenanceTables) {
		in := d.Next(r)
		if want := MaintenanceTables[i%len(MaintenanceTables)]; in.TableName != want {
			t.Fatalf("call %d: table %q, want %q (round-robin)", i, in.TableName, want)
		}
		if in.Kind() != KindDataMaintenance || in.Kind().String() != "Data-Maintenance" {
			t.Fatalf("kind %v", in.Kind())
		}
		// Exactly the fields the table needs are set.
		set := DataMaintenance{TableName: in.TableName}
		switch in.TableName {
		case schema.AccountPermission:
			validAccount(t, e, in.AcctID)
			set.AcctID = in.AcctID
		case schema.Address:
			if in.CustID != 0 {
				addrByCustomer++
				set.CustID = in.CustID
			} else {
				set.CoID = in.CoID
			}
		case schema.Company, schema.Financial, schema.NewsItem:
			set.CoID = in.CoID
		case schema.Customer, schema.CustomerTaxrate, schema.WatchItem:
			set.CustID = in.CustID
		case schema.DailyMarket:
			validSymbol(t, e, in.Symbol)
			if in.DayOfMonth < 1 || in.DayOfMonth > 31 {
				t.Fatalf("day of month %d", in.DayOfMonth)
			}
			vols[in.VolIncr]++
			set.Symbol, set.DayOfMonth, set.VolIncr = in.Symbol, in.DayOfMonth, in.VolIncr
		case schema.Security:
			validSymbol(t, e, in.Symbol)
			set.Symbol = in.Symbol
		case schema.Taxrate:
			if !slices.Contains(e.taxrates, in.TxID) {
				t.Fatalf("tx_id %q is no tax rate", in.TxID)
			}
			set.TxID = in.TxID
		}
		if in != set {
			t.Fatalf("%s: %+v sets more than %+v", in.TableName, in, set)
		}
		if in.CustID < 0 || in.CustID > e.cfg.Customers || in.CoID < 0 || in.CoID > e.cfg.Companies() {
			t.Fatalf("out of range: %+v", in)
		}
		if (in.TableName == schema.Company || in.TableName == schema.Customer) && in.CoID == 0 && in.CustID == 0 {
			t.Fatalf("no row: %+v", in)
		}
	}
	checkShare(t, "addresses of customers", addrByCustomer, rounds, 0.67)
	// -2 … 3 with -3 for 0: six values, uniformly.
	if len(vols) != 6 || vols[0] != 0 {
		t.Fatalf("volume increments %v", vols)
	}
	checkChi(t, "volume increments", []int{vols[-3], vols[-2], vols[-1], vols[1], vols[2], vols[3]}, slices.Repeat([]float64{1.0 / 6}, 6))
}

func TestTradeCleanup(t *testing.T) {
	e := testEnv(t, 2)
	in := e.TradeCleanup()
	if in.StartTradeID != e.cfg.MaxInitialTradeID()+1 || e.TradeExists(in.StartTradeID) {
		t.Errorf("start trade id %d, the initial trades end at %d", in.StartTradeID, e.cfg.MaxInitialTradeID())
	}
	if in.StPendingID != "PNDG" || in.StSubmittedID != "SBMT" || in.StCanceledID != "CNCL" || in.Kind().String() != "Trade-Cleanup" {
		t.Errorf("%+v", in)
	}
}
